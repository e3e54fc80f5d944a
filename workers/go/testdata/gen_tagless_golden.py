"""Writes tagless_golden.json: the Python tagless codec's bytes for the shared vectors.

The Go tests (internal/contenders/tagless) check that tagless-go encodes every
vector listed here to exactly these bytes, and decodes them back. Vectors whose
request and response together exceed 4 KiB are left out to keep the file small
(LargeData128 stays in: it is the flat-struct case); the Go tests still round-trip
them all. Rerun after proto/ or the Python codec changes:

    .venv/bin/python workers/go/testdata/gen_tagless_golden.py      # from the repository root
"""

from __future__ import annotations

import json
from pathlib import Path

from rpcarena.codec.tagless import from_dict
from rpcarena.contenders import tagless

ROOT = Path(__file__).resolve().parents[3]
LIMIT = 4096


def main() -> None:
    vectors = json.loads((ROOT / "proto/vectors/arena.json").read_text())["vectors"]
    golden = []
    for index, vector in enumerate(vectors):
        if vector["method"] == "InvertStream":
            continue
        _, request, response = tagless.method_table()[tagless.method_index(vector["method"])]
        req = request.encode(from_dict(request.descriptor, vector["request"]))
        resp = response.encode(from_dict(response.descriptor, vector["response"]))
        if len(req) + len(resp) > LIMIT:
            continue
        golden.append({"vector": index, "method": vector["method"], "kind": tagless.method_index(vector["method"]),
                       "request_hex": req.hex(), "response_hex": resp.hex()})
    out = Path(__file__).with_name("tagless_golden.json")
    out.write_text(json.dumps({"source": "src/rpcarena/codec/tagless.py", "golden": golden}, indent=1) + "\n")
    print(f"{out}: {len(golden)} vectors")


if __name__ == "__main__":
    main()
