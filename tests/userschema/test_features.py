"""What a mechanism may lack of a user's schema (`userschema.features`): each kind found where the
schema has it, and only there (proto3 `optional` is presence, not a oneof)."""

from __future__ import annotations

import pytest

from rpcarena.protocol import schema
from rpcarena.userschema import compiled, features
from tests.helpers import ROOT

CORPUS = ROOT / "tests" / "fixtures" / "conformance"


def _first(proto: str, method: str, *kinds: str) -> tuple[str, str] | None:
    schema.add_user(compiled.descriptor_set(CORPUS / proto)[0])
    return features.first_of(schema.methods()[method], set(kinds))


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path))


def test_proto3_optional_is_presence_not_a_oneof():
    assert _first("core.proto", "conformance.optional.Optional/Echo", "oneof") is None
    assert _first("core.proto", "conformance.optional.Optional/Echo", "optional") == (
        "optional", "conformance.optional.Settings.retries")
    found = _first("core.proto", "conformance.oneofs.Oneofs/Echo", "oneof")
    assert found == ("oneof", "conformance.oneofs.Choice.pick")


@pytest.mark.parametrize(("proto", "method", "kind", "where"), [
    ("proto2.proto", "conformance.proto2_group.Orders/Echo", "group", "conformance.proto2_group.Order.shipping"),
    ("proto2.proto", "conformance.proto2_extension.Extended/Echo", "extension", "conformance.proto2_extension.note"),
    ("proto2.proto", "conformance.proto2_required.Records/Echo", "required", "conformance.proto2_required.Record.id"),
    ("wkt.proto", "conformance.timestamps.Timestamps/Echo", "well_known", "conformance.timestamps.When.at"),
    ("wkt.proto", "conformance.structs.Structs/Echo", "well_known", "conformance.structs.Document.body"),
    ("editions/editions.proto", "conformance.editions.Editions/Echo", "editions", "editions.proto"),
    ("core.proto", "conformance.nested.Nested/Echo", "submessage", "conformance.nested.Outer.middle"),
    ("core.proto", "conformance.maps.Maps/Echo", "map", "conformance.maps.Catalog.products"),
])
def test_each_kind_is_found_where_the_schema_has_it(proto, method, kind, where):
    assert _first(proto, method, kind) == (kind, where)


def test_the_walk_reaches_a_maps_message_values_but_not_into_the_well_known_types():
    assert _first("core.proto", "conformance.maps.Maps/Echo", "nested") is None
    assert _first("wkt.proto", "inventory.v1.Inventory/Update", "oneof") == ("oneof", "inventory.v1.Stock.source")
    # Struct's Value holds a oneof, but a well-known type is one feature, not its insides
    assert _first("wkt.proto", "conformance.structs.Structs/Echo", "oneof", "map") is None
    assert _first("wkt.proto", "inventory.v1.Inventory/Update", "uint64") is None


def test_a_mechanisms_reason_names_the_field_and_the_feature():
    schema.add_user(compiled.descriptor_set(CORPUS / "proto2.proto")[0])
    reason = features.why(schema.methods()["conformance.proto2_group.Orders/Echo"], {"group": "no tags here"})
    assert reason == "conformance.proto2_group.Order.shipping is a group (proto2, or a delimited message): no tags here"


def test_a_manifest_that_names_an_unknown_kind_is_refused_not_ignored(tmp_path):
    """A misspelt kind in `user_lacks` would measure the very field it meant to refuse."""
    from rpcarena.contenders.native import NativeContender
    from rpcarena.contract import ManifestEntry
    from rpcarena.errors import ArenaError
    from rpcarena.process.builds import Worker

    worker = Worker(tmp_path, {"language": "go"})
    entry = ManifestEntry.from_json({"id": "grpc-x", "protocol": "grpc", "user_lacks": {"extensions": "no"}})
    with pytest.raises(ArenaError, match="grpc-x's user_lacks names extensions: use any, stream or one of"):
        NativeContender(worker, entry)
    good = ManifestEntry.from_json({"id": "grpc-x", "protocol": "grpc", "user_lacks": {"extension": "no"}})
    assert NativeContender(worker, good).id == "grpc-x"
    client = ManifestEntry.from_json({"id": "grpc-x", "protocol": "grpc", "client_lacks": {"enums": "no"}})
    with pytest.raises(ArenaError, match="grpc-x's client_lacks names enums"):
        NativeContender(worker, client, role="client")
