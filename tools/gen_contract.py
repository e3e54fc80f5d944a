"""Write proto/contract/: golden worker-contract documents every language's tests check.

From `rpcarena.contract`, the one typed definition of the contract:
- `fields.json`: for the drive spec, the drive result and the ready line, every key with its
  JSON kind, whether null is allowed and whether it is required. A worker's tests check that
  what it emits has every required key, no other key, and the right kinds.
- `spec.*.json`: drive specs a worker must parse (closed loop, open loop, tcp-raw payloads,
  a stream); `result.json` and `ready.json`: documents that validate.

    python tools/gen_contract.py          # rewrite
    python tools/gen_contract.py --check  # exit 1 when stale
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from rpcarena.contract import DriveResult, DriveSpec, Ready  # noqa: E402

OUT = ROOT / "proto" / "contract"
_BASE = DriveSpec(contender="grpc-go", target="127.0.0.1:43121", method="Invert",
                  requests=[{"value": "A"}, {"value": "dagger"}], responses=[{"value": "A"}, {"value": "reggad"}],
                  clients=8, warmup_s=1.0, calls=5000, sync=True)
SPECS = {
    "spec.closed-loop.json": _BASE.but(warmup_max_s=30.0),  # as the Java worker's manifest asks
    "spec.open-loop.json": _BASE.but(calls=None, duration_s=2.5, rate_per_s=1500.0, arrival="poisson",
                                     sample_limit=500, timeout_ms=250, sync=False,
                                     schedule_offset_ns=333_333),  # the second of two drivers of 3,000 calls/s
    "spec.tcp-raw.json": _BASE.but(contender="tcp-raw-go", method="EchoInt32", requests=[{"value": 7}, {"value": -1}],
                                   responses=[{"value": 7}, {"value": -1}],
                                   payloads_b64=["CAc=", "CP///////////wE="], clients=2, warmup_s=0.0),
    "spec.stream.json": _BASE.but(method="InvertStream", mode="stream", clients=1),
    "spec.stages.json": _BASE.but(calls=None, duration_s=3.0, rate_per_s=500.0, sample_limit=500, sync=False,
                                  stages=[{"rate_per_s": 500.0, "duration_s": 1.0},
                                          {"rate_per_s": 2000.0, "duration_s": 2.0}]),
    "spec.connections.json": _BASE.but(clients=64, connections=1),
}
RESULT = DriveResult(calls=3, errors={"timeout": 0, "wrong_answer": 1}, wall_s=1.234, cpu_user_s=0.9,
                     cpu_sys_s=0.3, histogram="HISTFAAAACl4nJNpmSzMwMDAwQABzFCaEYh5f7hHMNh/gAgcLWZSZOpnYgIAetAGFg==",
                     samples=[[0, 81234], [17, 80112]], tool={"name": "grpc-go", "version": "1.75.0",
                                                              "runtime": "go1.26.8"},
                     error_examples={"wrong_answer": "value: got 'x', want 'reggad'"},
                     start_mono_ns=1000, end_mono_ns=1234001000, connections=1, inflight_max=3, inflight_mean=2.5,
                     histogram_conn_wait="HISTFAAAACl4nJNpmSzMwMDAwQABzFCaEYh5f7hHMNh/gAgcLWZSZOpnYgIAetAGFg==",
                     intervals=[{"start_s": 0.0, "calls": 2, "errors": {"wrong_answer": 1},
                                 "histogram": "HISTFAAAACl4nJNpmSzMwMDAwQABzFCaEYh5f7hHMNh/gAgcLWZSZOpnYgIAetAGFg=="},
                                {"start_s": 1.0, "calls": 1, "errors": {},
                                 "histogram": "HISTFAAAACl4nJNpmSzMwMDAwQABzFCaEYh5f7hHMNh/gAgcLWZSZOpnYgIAetAGFg=="}])
READY = Ready(event="ready", port=43121, pid=1234)


def documents() -> dict[str, object]:
    fields = {"drive_spec": DriveSpec.field_table(), "drive_result": DriveResult.field_table(),
              "ready": Ready.field_table()}
    out: dict[str, object] = {"fields.json": fields}
    out.update({name: spec.to_json() for name, spec in SPECS.items()})
    out["result.json"] = RESULT.to_json()
    out["ready.json"] = READY.to_json()
    return out


def render(document: object) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when proto/contract/ is stale")
    args = parser.parse_args()
    stale = []
    for name, document in documents().items():
        path = OUT / name
        text = render(document)
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if stale:
        print(f"proto/contract/ is stale ({', '.join(stale)}): run python tools/gen_contract.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
