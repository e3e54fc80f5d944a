"""What of a user's schema a mechanism lacks (`userschema.features`): each kind found where the
schema has it and named, and every kind a native worker's manifest declares is one rpcarena knows
(an unknown one would be ignored, and its cells measured as if the worker carried the feature)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rpcarena.process import builds
from rpcarena.protocol import schema
from rpcarena.userschema import compiled, features
from tests.helpers import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "userschema"


def _method(proto: Path, key: str) -> schema.Method:
    schema.add_user(compiled.descriptor_set(proto)[0])
    return schema.methods()[key]


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path / "cache"))


def test_a_proto2_extension_and_group_are_named():
    method = _method(FIXTURES / "proto2" / "legacy.proto", "legacy.Notes/Put")
    assert features.first_of(method, {"extension"}) == ("extension", "legacy.ext_note")
    assert features.first_of(method, {"group"}) == ("group", "legacy.Note.meta")
    assert features.first_of(method, {"group_like"}) == ("group_like", "legacy.Note.meta")
    assert features.why(method, {"extension": "it drops them"}) == "legacy.ext_note is an extension: it drops them"


def test_a_schema_without_them_has_none():
    events = _method(FIXTURES / "wellknown" / "events.proto", "events.Events/Log")
    assert features.first_of(events, {"extension", "group", "editions"}) is None


def test_a_file_of_protobuf_editions_is_named_and_its_delimited_message_is_a_group():
    method = _method(FIXTURES / "editions" / "routes.proto", "routes.Guide/Find")
    assert features.first_of(method, {"editions", "group"}) == ("editions", "routes.proto")
    assert features.first_of(method, {"group"}) == ("group", "routes.Point.area")
    assert features.first_of(method, {"group_like"}) is None  # delimited, but not named after a nested type


def test_a_map_is_named_by_a_key_type_a_codec_may_lack():
    catalog = _method(ROOT / "tests" / "fixtures" / "conformance" / "core.proto", "conformance.maps.Maps/Echo")
    assert features.first_of(catalog, {"map"}) == ("map", "conformance.maps.Catalog.products")
    assert features.first_of(catalog, {"map_64bit_key"}) == ("map_64bit_key", "conformance.maps.Catalog.by_id")
    assert features.first_of(catalog, {"map_bool_key"}) == ("map_bool_key", "conformance.maps.Catalog.flags")
    events = _method(FIXTURES / "wellknown" / "events.proto", "events.Events/Log")  # map<string, Tag> only
    assert features.first_of(events, {"map_64bit_key", "map_bool_key"}) is None


def test_a_group_extension_declared_at_file_level_is_named_apart_from_one_declared_in_a_message():
    method = _method(FIXTURES / "extension_group" / "tagged.proto", "tagged.Tags/Echo")
    assert features.first_of(method, {"file_extension_group"}) == ("file_extension_group", "tagged.top")
    assert features.first_of(method, {"group"}) == ("group", "tagged.Holder.inner")
    legacy = _method(FIXTURES / "proto2" / "legacy.proto", "legacy.Notes/Put")  # its extension is a string
    assert features.first_of(legacy, {"file_extension_group"}) is None


def test_an_edition_is_named_by_the_kinds_that_reach_it():
    routes = _method(FIXTURES / "editions" / "routes.proto", "routes.Guide/Find")
    assert features.first_of(routes, {"edition_2024"}) is None
    method = _method(FIXTURES / "edition2024" / "later.proto", "later.Later/Do")
    assert features.first_of(method, {"edition_2024"}) == ("edition_2024", "later.proto")
    assert features.first_of(method, {"editions"}) == ("editions", "later.proto")


def test_every_kind_a_native_manifest_declares_is_known():
    for worker in builds.workers().values():
        for entry in worker.entries:
            unknown = (set(entry.user_lacks) | set(entry.client_lacks)) - set(features.NAMES) - {"any", "stream"}
            assert not unknown, f"{worker.language} {entry.id}: lacks {sorted(unknown)}: no kind of features"
