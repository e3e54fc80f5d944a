"""Write proto/vectors/arena.json: request/response pairs every language's tests check.

Each vector is {"method", "request", "response"} in the canonical JSON mapping
(proto field names, int64 as JSON numbers, every field present). They come from
the reference semantics in rpcarena.protocol.semantics over every registered workload, plus
edge cases; a server in any language must produce `response` for `request`.

    python tools/gen_vectors.py          # rewrite
    python tools/gen_vectors.py --check  # exit 1 when stale
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from rpcarena.protocol import semantics  # noqa: E402
from rpcarena.seeds import WORKLOADS  # noqa: E402

OUT = ROOT / "proto" / "vectors" / "arena.json"
EDGE_CASES = [
    ("Average", {"values": []}),
    ("Average", {"values": [2147483647, 2147483647, -2147483648]}),
    ("GetRandNums", {"count": 0, "seed": 7}),
    ("GetRandNums", {"count": 5, "seed": 4294967295}),
    ("Invert", {"value": ""}),
    ("Invert", {"value": "añb€c😀d"}),
    ("SayHello", {"name": ""}),
    ("EchoInt64", {"value": -9223372036854775808}),
    ("EchoInt32", {"value": -2147483648}),
    ("EchoString", {"value": "ünïcødé ✓ 😀"}),
    ("Distance", {"a": {"x": 0.0, "y": 0.0, "z": 0.0}, "b": {"x": 3.0, "y": 4.0, "z": 12.0}}),
]
MAX_PER_WORKLOAD = 3


def vectors() -> list[dict]:
    out = []
    for workload in WORKLOADS.values():
        if workload.mode == "stream" or workload.needs:
            continue  # a stream answers per message as Invert does; a store's answers are its data
        for request, response in list(zip(workload.requests, workload.responses))[:MAX_PER_WORKLOAD]:
            out.append({"workload": workload.id, "method": workload.method,
                        "request": request, "response": response})
    for method, request in EDGE_CASES:
        out.append({"workload": None, "method": method, "request": request,
                    "response": semantics.respond(method, request)})
    return out


def render() -> str:
    lines = ",\n".join(json.dumps(v, ensure_ascii=False) for v in vectors())
    return '{"version": 1, "vectors": [\n' + lines + "\n]}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = render()
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is stale: run python tools/gen_vectors.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
