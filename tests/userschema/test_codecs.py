"""Every sample of the conformance corpus through each Python codec that holds a user's message as
dicts, tuples or structs (typed JSON, tagless, Thrift): back exactly as sent, as the user's schema
reads it, or the mechanism names the feature it lacks. Without servers: seconds, where
tests/test_schema_conformance.py takes minutes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from rpcarena import conformance
from rpcarena.codec import tagless, thrift_user
from rpcarena.codec import typed_json as tj
from rpcarena.contenders import tagless as tagless_contender
from rpcarena.contenders import thrift_py
from rpcarena.contenders import typed_json as typed_json_contender
from rpcarena.protocol import schema
from rpcarena.userschema import features, judge
from rpcarena.userschema.workload import UserWorkload, build
from tests.helpers import ROOT

CORPUS = ROOT / "tests" / "fixtures" / "conformance"


def _typed_json(descriptor: Any, data: dict) -> dict:
    return tj.decode(descriptor, tj.encode(descriptor, data))


def _tagless(descriptor: Any, data: dict) -> dict:
    codec = tagless.codec(descriptor.full_name)
    return tagless.to_dict(descriptor, tagless.plain(codec.decode(codec.encode(tagless.from_dict(descriptor, data)))))


def _thrift(wire: Any) -> Callable[[Any, dict], dict]:
    def through(descriptor: Any, data: dict) -> dict:
        from thriftpy2.utils import deserialize, serialize

        method = next(m for m in schema.methods().values() if m.user and m.request == descriptor.full_name)
        module = thrift_user.module(method.service)
        struct = thrift_user.to_struct(descriptor, data, module)
        empty = getattr(module, thrift_user.struct_name(descriptor))()
        return thrift_user.to_canonical(descriptor, deserialize(empty, serialize(struct, wire), wire))
    return through


def _wires() -> dict[str, Any]:
    from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory

    return {"thrift-binary": TBinaryProtocolFactory(), "thrift-compact": TCompactProtocolFactory()}


CODECS = {"typed-json": (typed_json_contender._LACKS, _typed_json), "tagless": (tagless_contender._LACKS, _tagless),
          **{name: (thrift_py._LACKS, _thrift(wire)) for name, wire in _wires().items()}}
UNARY = [c for c in conformance.corpus(CORPUS) if "stream" not in c.feature and not c.import_path]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:  # each schema compiled once for the module
        patch.setenv("RPCARENA_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.mark.parametrize("case", UNARY, ids=lambda c: c.feature)
@pytest.mark.parametrize("mechanism", CODECS)
def test_every_sample_comes_back_exactly_or_the_feature_is_named(case, mechanism, cache):
    lacks, through = CODECS[mechanism]
    workload = build(UserWorkload(proto=str(CORPUS / case.schema), method=case.method,
                                  data_file=str(CORPUS / case.data_file), reply="file" if case.reply_file else "echo",
                                  reply_file=str(CORPUS / case.reply_file) if case.reply_file else None))
    method = schema.methods()[case.method]
    if features.why(method, lacks):
        return  # unsupported before any call, with the reason the table shows
    descriptor = schema.descriptor(method.request)
    same = judge.Judge(schema.message_class(method.request))
    for sample in workload.requests:
        back = through(descriptor, sample)
        assert same.same(back, sample), same.explain(back, sample)
