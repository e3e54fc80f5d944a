"""`run --proto F --import-path DIR` (repeatable), as protoc's -I and `target --import-path` take it:
a schema whose imports live under a root other than its own folder, compiled with the well-known
types, served and called in Python and Go; without the root, one line naming the option."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2

from rpcarena import contenders
from rpcarena.errors import UsageError
from rpcarena.results import load
from rpcarena.userschema import compiled
from tests.conftest import run_cli

MONEY = """syntax = "proto3";
package common.v1;
message Money { string currency = 1; int64 units = 2; int32 nanos = 3; }
"""
SHOP = """syntax = "proto3";
package shop.v1;
import "common/v1/money.proto";
import "google/protobuf/timestamp.proto";
message Charge { string id = 1; common.v1.Money amount = 2; google.protobuf.Timestamp at = 3; }
service Payments { rpc Pay(Charge) returns (Charge); }
"""
CHARGE = '{"id": "c-1", "amount": {"currency": "EUR", "units": 12, "nanos": 500000000}, "at": "2026-11-28T10:00:00Z"}'


@pytest.fixture
def api(tmp_path) -> Path:
    """api/shop/v1/shop.proto importing api/common/v1/money.proto by its path under api/."""
    root = tmp_path / "api"
    for name, text in (("common/v1/money.proto", MONEY), ("shop/v1/shop.proto", SHOP)):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (tmp_path / "charges.jsonl").write_text(CHARGE + "\n")
    return root


@pytest.fixture
def own_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path / "cache"))


def test_the_set_holds_the_imports_by_their_path_under_the_root(api, own_cache):
    shop = api / "shop" / "v1" / "shop.proto"
    with pytest.raises(UsageError, match="common/v1/money.proto.*--import-path DIR"):
        compiled.descriptor_set(shop)
    data, digest = compiled.descriptor_set(shop, [api])
    names = [f.name for f in descriptor_pb2.FileDescriptorSet.FromString(data).file]
    assert names == ["common/v1/money.proto", "google/protobuf/timestamp.proto", "shop/v1/shop.proto"]
    assert compiled.is_cached(shop, [api]) and compiled.descriptor_set(shop, [api]) == (data, digest)
    (api / "common" / "v1" / "money.proto").write_text(MONEY.replace("nanos = 3", "nanos = 4"))
    assert not compiled.is_cached(shop, [api])  # an import changed under the root: compiled afresh


def test_a_missing_import_path_folder_is_one_line(api, own_cache):
    with pytest.raises(UsageError, match=r"bad --import-path .*nowhere: no such folder"):
        compiled.descriptor_set(api / "shop" / "v1" / "shop.proto", [api / "nowhere"])


def test_run_serves_and_calls_a_schema_whose_imports_need_the_root(api, tmp_path):
    shop, out = str(api / "shop" / "v1" / "shop.proto"), tmp_path / "r.json"
    common = ("--proto", shop, "--method", "shop.v1.Payments/Pay", "--data-file", str(tmp_path / "charges.jsonl"))
    refused = run_cli("run", *common, "--contender", "grpc-py", "--out", str(out), timeout=120)
    lines = [line for line in refused.stderr.splitlines() if line.strip()]
    assert refused.returncode == 2 and len(lines) == 1 and "add --import-path DIR" in lines[0], refused.stderr
    chosen = [c for c in ("grpc-py", "grpc-go") if contenders.get(c).unavailable() is None]
    done = run_cli("run", *common, "--import-path", str(api), "--contender", ",".join(chosen), "-n", "20",
                   "--warmup", "0.1s", "--out", str(out), timeout=900)
    assert done.returncode == 0, done.stderr
    doc = load(out)
    assert [(c.contender, c.status, c.calls) for c in doc.cells] == [(c, "ok", 20) for c in chosen]
    assert doc.config["user_schema"]["import_paths"] == [str(api)]  # --resume builds the same workload
