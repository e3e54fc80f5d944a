"""`rpcarena run --proto F --method pkg.Service/Call ...`: the options of a workload from the user's schema.

They make one workload (`rpcarena.userschema`), which replaces --workload, and, without
--contender, the mechanisms the issue asks to compare: those that cannot serve the schema yet are
cells that say why.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from rpcarena.commands import schema_variants as variants
from rpcarena.config import parse_duration
from rpcarena.contenders import all_contenders
from rpcarena.errors import UsageError
from rpcarena.userschema import compiled, fill
from rpcarena.userschema.workload import UserWorkload, build

# Without --contender: the floor, then each mechanism in each language a user chooses between.
# The floor of each language that serves a schema, so each is compared with its own.
CONTENDERS = ["tcp-raw", "tcp-raw-go", "tcp-raw-rust", "tcp-raw-java",
              "grpc-py", "grpc-go", "grpc-tonic", "grpc-java", "rest-fastapi", "rest-go", "rest-warp", "rest-jackson",
              "thrift-binary", "tagless", "tagless-go", "typed-json", "rpyc-tuple"]
_OPTIONS = ("method", "data_file", "data", "fill", "reply", "reply_file", "reply_size", "server_work", "server_wait",
            "stream_messages", "import_path")


def add(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("your own messages (instead of --workload)")
    g.add_argument("--proto", metavar="FILE", help="your service's .proto: measure one of its methods")
    g.add_argument("--method", help="the method, package.Service/Method")
    g.add_argument("--import-path", metavar="DIR", action="append",
                   help="a folder the .proto's imports are found under, as protoc's -I (repeatable; default: "
                        "the .proto's own folder)")
    g.add_argument("--data-file", metavar="FILE", help="requests, one proto JSON message a line (cycled)")
    g.add_argument("--data", metavar="JSON", help="one request as proto JSON (or a JSON array of them)")
    g.add_argument("--fill", metavar="SPEC", help="generate requests: 'strings=32B,bytes=4KB,repeated=100,seed=1'")
    g.add_argument("--reply", choices=("echo",), help="the reply: the request's fields (default)")
    g.add_argument("--reply-file", metavar="FILE", help="replies, one a line, the k-th answering the k-th request")
    g.add_argument("--reply-size", metavar="SIZE", help="the reply filled to this many bytes, e.g. 4KB")
    g.add_argument("--server-work", metavar="DURATION", help="CPU the handler spends per call, e.g. 300us")
    g.add_argument("--server-wait", metavar="DURATION", help="time the handler waits without CPU, e.g. 2ms")
    g.add_argument("--stream-messages", metavar="K", type=int,
                   help="a client- or server-streaming method: K messages a call stream (default 10)")


def given(args: argparse.Namespace) -> dict[str, Any]:
    """RunConfig fields of the typed options (none without --proto): the workload, built and registered."""
    if getattr(args, "proto", None) is None:
        typed = [f"--{name.replace('_', '-')}" for name in _OPTIONS if getattr(args, name, None) is not None]
        if typed:
            raise UsageError(f"{', '.join(typed)} describe your own messages: add --proto FILE and --method")
        return {}
    if args.workload is not None:
        raise UsageError("--proto measures your own method: drop --workload")
    if args.method is None:
        raise UsageError("--proto needs --method package.Service/Method")
    options = options_of(args)
    cached, started = compiled.is_cached(Path(args.proto), [Path(p) for p in options.import_paths]), time.perf_counter()
    workload = build(options)
    built = "its compiled schema reused" if cached else f"compiled in {time.perf_counter() - started:.2f}s"
    if not getattr(args, "quiet", False):
        print(f"{workload.description}; {built}", file=sys.stderr)
    contenders = None if args.contender else [c for c in CONTENDERS if c in all_contenders()]
    clients = [c.strip() for c in (getattr(args, "client", None) or "").split(",") if c.strip()]
    quiet = getattr(args, "quiet", False)
    variants.build_all(contenders or [c.strip() for c in args.contender.split(",")], clients, options.method,
                       lambda line: None if quiet else print(line, file=sys.stderr, flush=True))
    found = {"workloads": [workload.id], "user_schema": options.to_json(), "contenders": contenders}
    return {name: value for name, value in found.items() if value is not None}


def options_of(args: argparse.Namespace) -> UserWorkload:
    if args.reply_file is not None and args.reply_size is not None:
        raise UsageError("--reply-file and --reply-size both given: keep one")
    reply = "file" if args.reply_file is not None else "size" if args.reply_size is not None else "echo"
    return UserWorkload(
        proto=args.proto, method=args.method, data_file=args.data_file, data=args.data, fill=args.fill, reply=reply,
        reply_file=args.reply_file,
        reply_size_bytes=fill.parse_size(args.reply_size, "--reply-size") if args.reply_size is not None else None,
        server_work_us=_us(args.server_work, "--server-work"), server_wait_us=_us(args.server_wait, "--server-wait"),
        import_paths=list(args.import_path or []),
        **({"stream_messages": args.stream_messages} if args.stream_messages is not None else {}))


def _us(text: str | None, option: str) -> float:
    seconds = parse_duration(text, option)
    return 0.0 if seconds is None else seconds * 1e6


def rebuild(user_schema: dict[str, Any] | None) -> None:
    """--resume: the recorded workload registered again, so its cells can be planned."""
    if user_schema:
        build(UserWorkload(**user_schema))
