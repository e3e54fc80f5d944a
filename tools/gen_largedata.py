"""Write the hprpc2016 LargeData section of proto/arena.proto.

The seed's SendRcvLargeData experiment uses messages with 128 ... 8192 distinct
int32 fields. They are generated here, never written by hand:

    python tools/gen_largedata.py          # rewrite the section in place
    python tools/gen_largedata.py --check  # exit 1 when the file is stale
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from rpcarena.seeds.hprpc2016.workloads import LARGE_SIZES as SIZES  # noqa: E402  (the one list)

PROTO = ROOT / "proto" / "arena.proto"
FIELDS_PER_LINE = 8


def message(size: int) -> str:
    fields = [f"int32 f{i} = {i};" for i in range(1, size + 1)]
    lines = [" ".join(fields[i:i + FIELDS_PER_LINE]) for i in range(0, size, FIELDS_PER_LINE)]
    body = "\n".join("  " + line for line in lines)
    return f"message LargeData{size} {{\n{body}\n}}"


def messages_section() -> str:
    return "\n".join(message(size) for size in SIZES)


def rpcs_section() -> str:
    return "\n".join(
        f"  rpc EchoLargeData{size}(LargeData{size}) returns (LargeData{size});" for size in SIZES
    )


def replace_between(text: str, marker: str, body: str) -> str:
    pattern = re.compile(
        rf"(^[ \t]*// BEGIN GENERATED {marker}\n).*?(^[ \t]*// END GENERATED {marker}$)",
        re.DOTALL | re.MULTILINE,
    )
    new, count = pattern.subn(lambda m: m.group(1) + body + "\n" + m.group(2), text)
    if count != 1:
        raise SystemExit(f"error: marker 'GENERATED {marker}' not found once in {PROTO}")
    return new


def render(text: str) -> str:
    text = replace_between(text, "largedata messages", messages_section())
    return replace_between(text, "largedata rpcs", rpcs_section())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the file is current")
    args = parser.parse_args()
    current = PROTO.read_text()
    wanted = render(current)
    if args.check:
        if current != wanted:
            print(f"{PROTO} is stale: run python tools/gen_largedata.py", file=sys.stderr)
            return 1
        return 0
    PROTO.write_text(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
