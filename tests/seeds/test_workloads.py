"""The seeds' workloads: selection by pattern, and what each seed's design needs."""

from __future__ import annotations

import pytest

from rpcarena import seeds
from rpcarena.errors import UsageError


def test_workload_selection():
    assert len(seeds.select("usp.*")) == 12
    assert [w.id for w in seeds.select("usp.void,usp.bool")] == ["usp.void", "usp.bool"]
    with pytest.raises(UsageError, match="rpcarena list"):
        seeds.select("nope.*")


def test_hprpc_design():
    ids = {w.id for w in seeds.select("hprpc.*")}
    assert {f"hprpc.large{n}" for n in (128, 256, 512, 1024, 2048, 4096, 8192)} <= ids
    assert {f"hprpc.average{n}" for n in (10, 100, 1000, 10000)} <= ids
    assert {f"hprpc.randnums{n}" for n in (10, 100, 1000, 10000)} <= ids
    assert "hprpc.hello" in ids
    assert {"hprpc.checksum128", "hprpc.checksum8192"} <= ids  # every field read: lazy and eager codecs alike


def test_cs6650_ships_the_seed_passage():
    words = seeds.WORKLOADS["cs6650.word"].requests
    assert words[0] == {"value": "A"} and len(words) > 100
    assert seeds.WORKLOADS["cs6650.text"].responses[0]["value"].startswith("\necap")
