"""The native workers on schemas nobody here wrote (issue 38): a well-known type imported with a
oneof, a map, proto3 `optional` and non-UTF-8 bytes runs ok on every native gRPC and REST mechanism;
proto2 (required, defaults, a group, an extension) and `edition = "2023"` run where the toolchain
carries them, and are `unsupported` before any call, naming what and why, where it does not.

Against real servers on free ports, every reply checked by every client language. Each worker's
variant for each schema is built once for the module (the first test that needs it).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import rpcarena
from rpcarena.contenders import all_contenders
from rpcarena.process import builds
from rpcarena.protocol import schema
from rpcarena.userschema import compiled
from tests.conftest import run_cli
from tests.e2e.test_userschema_go import all_ok, buildable
from tests.helpers import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "userschema"
EVENTS = FIXTURES / "wellknown" / "events.proto"
LEGACY = FIXTURES / "proto2" / "legacy.proto"
ROUTES = FIXTURES / "editions" / "routes.proto"
LATER = FIXTURES / "edition2024" / "later.proto"
CALLS = 12


def _variants(proto: Path, *languages: str) -> None:
    """Each language's worker built for the schema (skipped where a worker cannot build, except in CI)."""
    for language in languages:
        buildable(language).for_schema(compiled.descriptor_set(proto)[0]).ensure_built()


def _run(out: Path, proto: Path, method: str, contenders: str, clients: str) -> subprocess.CompletedProcess:
    data = proto.parent / "requests.jsonl"
    return run_cli("run", "--proto", str(proto), "--method", method, "--data-file", str(data), "--contender",
                   contenders, "--client", clients, "-n", str(CALLS), "--warmup", "0s", "--warmup-max", "0",
                   "--repeat", "1", "-o", str(out), timeout=900)


@pytest.fixture(scope="module")
def events() -> None:
    _variants(EVENTS, "go", "rust", "java")


@pytest.fixture(scope="module")
def legacy() -> None:
    _variants(LEGACY, "go")


@pytest.fixture(scope="module")
def routes() -> None:
    _variants(ROUTES, "go", "java")


def test_a_well_known_type_a_oneof_a_map_optional_and_raw_bytes_run_ok_on_every_native_mechanism(events, tmp_path):
    out = tmp_path / "r.json"
    contenders = ("grpc-py", "grpc-go", "grpc-tonic", "rest-warp", "grpc-java")
    done = _run(out, EVENTS, "events.Events/Log", ",".join(contenders), "py,go,rust,java")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    clients = ("py", "go", "rust", "java")
    assert sorted(all_ok(out, CALLS)) == sorted((c, client) for c in contenders for client in clients)


def _reasons(proto: Path, method: str, ids: tuple[str, ...]) -> dict[str, str | None]:
    schema.add_user(compiled.descriptor_set(proto)[0])
    contenders = all_contenders()
    return {cid: contenders[cid].unsupported(method) for cid in ids}


def test_a_proto2_extension_or_group_is_unsupported_where_a_native_mechanism_would_drop_or_misname_it():
    carried = ("grpc-go", "tcp-raw-go", "tcp-raw-rust", "tcp-raw-java")
    refused = ("grpc-tonic", "rest-warp", "rest-axum", "grpc-java", "rest-jackson", "tagless-go", "rest-go")
    reasons = _reasons(LEGACY, "legacy.Notes/Put", carried + refused)
    assert [cid for cid, why in reasons.items() if why is None] == list(carried)
    for cid in ("grpc-tonic", "rest-warp", "rest-axum"):
        assert reasons[cid].startswith("legacy.ext_note is an extension: prost drops an extension"), reasons[cid]
    for cid in ("grpc-java", "rest-jackson"):
        assert reasons[cid].startswith("legacy.ext_note is an extension: protobuf-java-util's JsonFormat"), reasons[cid]
    assert reasons["tagless-go"].startswith("legacy.ext_note is an extension: tagless"), reasons["tagless-go"]
    assert reasons["rest-go"].startswith("legacy.Note.meta is a group named after its type"), reasons["rest-go"]


def test_proto2_runs_on_grpc_go_both_ways_and_tagless_go_and_rest_go_say_why_before_any_call(legacy, tmp_path):
    out = tmp_path / "r.json"
    done = _run(out, LEGACY, "legacy.Notes/Put", "grpc-go,grpc-py,tcp-raw-go,rest-go,tagless-go", "go,py")
    assert done.returncode == 0, done.stderr
    cells = {(c.contender, c.client): c for c in rpcarena.load(out).cells}
    for key in [(c, client) for c in ("grpc-go", "grpc-py", "tcp-raw-go") for client in ("go", "py")]:
        cell = cells[key]
        assert (cell.status, cell.calls, cell.errors) == ("ok", CALLS, {}), (key, cell.reason, cell.error_examples)
    refused = {key: cell for key, cell in cells.items() if key[0] in ("rest-go", "tagless-go")}
    assert len(refused) == 4 and all(c.status == "unsupported" and c.calls == 0 for c in refused.values())
    assert "legacy.Note.meta is a group named after its type" in refused[("rest-go", "go")].reason
    assert "legacy.ext_note is an extension" in refused[("tagless-go", "py")].reason


def test_edition_2023_runs_on_go_and_java_and_rust_says_why_without_building(routes, tmp_path):
    """prost cannot read a file of editions: the Rust variant is not even built when every Rust cell of
    the run is unsupported, and those cells name the file and the reason."""
    out = tmp_path / "r.json"
    served = ("grpc-go", "rest-go", "grpc-java", "rest-jackson", "grpc-py")
    done = _run(out, ROUTES, "routes.Guide/Find", ",".join((*served, "grpc-tonic", "rest-warp")), "go,java,py")
    assert done.returncode == 0, done.stderr
    assert "rust worker for this schema" not in done.stderr
    cells = {(c.contender, c.client): c for c in rpcarena.load(out).cells}
    for key in [(c, client) for c in served for client in ("go", "java", "py")]:
        cell = cells[key]
        assert (cell.status, cell.calls, cell.errors) == ("ok", CALLS, {}), (key, cell.reason, cell.error_examples)
    rust = [cell for (contender, _), cell in cells.items() if contender in ("grpc-tonic", "rest-warp")]
    assert len(rust) == 6 and all(c.status == "unsupported" for c in rust)
    assert all(c.reason.startswith("routes.proto is a file of protobuf editions") and "tokio-rs/prost#1031" in c.reason
               for c in rust if "client" not in c.reason)


def test_edition_2024_is_unsupported_in_java_whose_protoc_reads_editions_up_to_2023():
    reasons = _reasons(LATER, "later.Later/Do", ("grpc-java", "rest-jackson", "grpc-go", "rest-go", "tcp-raw-java"))
    assert reasons["grpc-java"] == reasons["rest-jackson"]
    assert reasons["grpc-java"].startswith("later.proto is a file of protobuf edition 2024 or later"), reasons
    assert (reasons["grpc-go"], reasons["rest-go"], reasons["tcp-raw-java"]) == (None, None, None)


def test_a_variant_is_built_once_per_schema_and_language(events):
    """The module's builds were reused, never repeated: the cache holds one variant per schema."""
    for language in ("go", "rust", "java"):
        worker = builds.workers()[language]
        assert worker.for_schema(compiled.descriptor_set(EVENTS)[0]).built(), language
