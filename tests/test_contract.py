"""The typed worker contract: strict at the boundary, and the golden documents every worker checks."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rpcarena.contract import ContractError, DriveResult, DriveSpec, ManifestEntry, Ready
from rpcarena.process import builds
from rpcarena.worker import drive
from tests.conftest import ROOT

GOLDEN = ROOT / "proto" / "contract"


def test_the_golden_documents_are_generated_from_the_contract():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_contract.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("spec.*.json")))
def test_every_golden_spec_parses_and_writes_back_unchanged(name):
    data = json.loads((GOLDEN / name).read_text())
    assert DriveSpec.from_json(data).to_json() == data


def test_golden_result_and_ready_line_parse():
    assert DriveResult.from_json(json.loads((GOLDEN / "result.json").read_text())).calls == 3
    assert Ready.from_json(json.loads((GOLDEN / "ready.json").read_text())).port == 43121


@pytest.mark.parametrize("change, message", [
    ({"bogus": 1}, "unknown key(s) bogus"),
    ({"calls": "10"}, "key 'calls' must be integer, not str"),
    ({"calls": True}, "key 'calls' must be integer, not bool"),
    ({"clients": None}, "key 'clients' must be integer, not null"),
    ({"contract": 2}, "this rpcarena speaks contract 1"),
    ({"calls": None}, "give calls or duration_s"),
    ({"arrival": "bursty"}, "arrival must be one of"),
    ({"requests": []}, "give requests"),
])
def test_a_bad_spec_names_the_key(change, message):
    data = {**json.loads((GOLDEN / "spec.closed-loop.json").read_text()), **change}
    with pytest.raises(ContractError, match=message.replace("(", r"\(").replace(")", r"\)")):
        DriveSpec.from_json(data)


def test_missing_keys_are_named_and_numbers_accept_integers():
    with pytest.raises(ContractError, match="missing key 'target'"):
        DriveSpec.from_json({"contender": "x", "method": "Void", "requests": [{}], "calls": 1})
    spec = DriveSpec.from_json({"contender": "x", "target": "t", "method": "Void", "requests": [{}], "calls": 1,
                                "warmup_s": 2})
    assert spec.warmup_s == 2.0 and isinstance(spec.warmup_s, float) and spec.sample_limit == 10_000


def test_the_python_driver_refuses_a_bad_spec_in_one_line():
    done = subprocess.run([sys.executable, "-m", "rpcarena.worker.drive"], input='{"contender": "grpc-py"}\n',
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.strip() == "error: drive spec: missing key 'target'"


def test_python_payloads_are_refused_without_requests():
    line = json.dumps({**json.loads((GOLDEN / "spec.tcp-raw.json").read_text()), "requests": []})
    with pytest.raises(Exception, match="canonical requests"):
        drive.parse(line)


def test_every_manifest_entry_parses_and_a_misspelt_key_names_itself():
    """The workers' manifests are read once into typed entries; a key no entry has is refused by
    name (`serevr` read as a missing `server` would have made a load client a server)."""
    entries = [e for worker in builds.workers().values() for e in worker.entries]
    assert len(entries) == len({e.id for e in entries}) and any(not e.server for e in entries)
    assert ManifestEntry.from_json({"id": "x", "protocol": "grpc"}).services == ["arena.Arena"]
    with pytest.raises(ContractError, match="serevr"):
        ManifestEntry.from_json({"id": "x", "protocol": "grpc", "serevr": False})
