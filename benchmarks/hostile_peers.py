"""Server memory under the hostile peers of issue 21: RSS before -> after each attack.

Each server is started fresh, as the orchestrator starts it, for each attack; RSS (the server and
its child processes, from /proc) is read before the attack and at its peak while the attack's
connections are held, and the outcome is what the peer saw. Attacks:

- `200MiB`: a request announcing 200 MiB, and 200 MiB sent while the server reads (HTTP: a
  Content-Length; gRPC: one message; own protocols: a frame header). Thrift: a list of int32
  announcing 100 MiB of elements, 100 MiB sent.
- `idle1000`: 1,000 connections that send nothing.
- `slowloris200` (HTTP): 200 connections whose headers never end; `answers` says whether a
  normal call still got its reply meanwhile.

    python benchmarks/hostile_peers.py [--servers rest-go,grpc-tonic] [--attacks 200MiB,idle1000]
"""

from __future__ import annotations

import argparse
import socket
import struct
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import psutil

from rpcarena import contenders
from rpcarena.codec import frames
from rpcarena.codec.tagless import varint
from rpcarena.process.server_process import ServerProcess
from rpcarena.protocol import schema

MIB = 1 << 20
HOLD_S = 2.0  # how long RSS is watched while an attack's connections are held


def rss_mib(pid: int) -> float:
    procs = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    return sum(p.memory_info().rss for p in procs if p.is_running()) / MIB


def _flood(target: tuple[str, int], head: bytes, total: int) -> str:
    """`head`, then zeros up to `total` bytes or until the server stops taking them."""
    with socket.create_connection(target, timeout=10) as sock:
        try:
            sock.sendall(head)
            chunk = bytes(MIB)
            for _ in range(total // MIB):
                sock.sendall(chunk)
        except OSError:  # how much the server took before, its RSS says
            return "closed"
        try:
            reply = sock.recv(64)
        except OSError:
            return "closed"
        return reply.split(b"\r\n")[0].decode(errors="replace") or "closed"


def _http_big(target: tuple[str, int]) -> str:
    head = f"POST /arena/SayHello HTTP/1.1\r\nHost: x\r\nContent-Length: {200 * MIB}\r\n\r\n".encode()
    return _flood(target, head, 200 * MIB)


def _grpc_big(target: tuple[str, int]) -> str:
    import grpc

    request_type = schema.message_class(schema.methods()["SayHello"].request)
    with grpc.insecure_channel(f"{target[0]}:{target[1]}", options=[("grpc.max_send_message_length", -1)]) as channel:
        call = channel.unary_unary(f"/{schema.SERVICE}/SayHello", request_serializer=lambda m: m.SerializeToString(),
                                   response_deserializer=lambda b: b)
        try:
            call(request_type(name="x" * (200 * MIB)), timeout=60)
        except grpc.RpcError as error:
            return error.code().name
    return "OK"


def _thrift_list(compact: bool) -> Callable[[tuple[str, int]], str]:
    count = 100 * MIB // 4
    name = b"EchoInts"
    if compact:  # CALL, seqid 1, field 1 list, size > 14 then varint, element type i32 (5)
        head = bytes([0x82, 0x21, 1, len(name)]) + name + bytes([0x19, 0xF5]) + varint(count)
    else:
        head = (struct.pack(">Ii", 0x80010001, len(name)) + name + struct.pack(">i", 1)
                + struct.pack(">bhbi", 15, 1, 8, count))
    return lambda target: _flood(target, head, 100 * MIB)



FRAME_HEADS = {"tcp-raw": struct.pack(">I", 200 * MIB), "tagless": frames.HEADER.pack(200 * MIB, 1, 0),
               "typed-json": frames.HEADER.pack(200 * MIB, 1, 0), "rpyc": struct.pack("!LB", 200 * MIB, 0)}


def big_attack(protocol: str) -> Callable[[tuple[str, int]], str] | None:
    if protocol == "http-json":
        return _http_big
    if protocol == "grpc":
        return _grpc_big
    if protocol.startswith("thrift-"):
        return _thrift_list(protocol == "thrift-compact")
    head = FRAME_HEADS.get(protocol)
    return None if head is None else (lambda target: _flood(target, head, 200 * MIB))


def held(target: tuple[str, int], count: int, first: bytes, check: Callable[[], str]) -> str:
    """`count` connections each sending `first`, held while `check` runs and RSS is watched."""
    socks = []
    try:
        for _ in range(count):
            sock = socket.create_connection(target, timeout=10)
            if first:
                sock.sendall(first)
            socks.append(sock)
        return check()
    finally:
        for sock in socks:
            sock.close()


def answers(contender_id: str, target: str) -> str:
    contender = contenders.get(contender_id)
    client = contenders.python_client(contender.protocol)(target, "SayHello", 30.0)
    try:
        client.call(client.prepare({"name": "x"}))
        return "answers"
    except Exception as error:  # any failure is the finding: print its kind
        return f"no answer ({type(error).__name__})"
    finally:
        client.close()


def measure(contender_id: str, attack: str, logs: Path) -> tuple[float, float, str] | None:
    contender = contenders.get(contender_id)
    protocol = contender.protocol
    if attack == "200MiB":
        run = big_attack(protocol)
    elif attack == "idle1000":
        def run(target):
            return held(target, 1000, b"", lambda: "held")
    elif attack == "slowloris200" and protocol == "http-json":
        def run(target):
            return held(target, 200, b"POST /arena/SayHello HTTP/1.1\r\nHost: x\r\n",
                        lambda: answers(contender_id, f"{target[0]}:{target[1]}"))
    else:
        run = None
    if run is None:
        return None
    with ServerProcess(contender, "127.0.0.1", None, logs / f"{contender_id}-{attack}.log") as server:
        server.start()
        host, _, port = server.target.rpartition(":")
        before = rss_mib(server.pid)
        peak = [before]
        watcher = _Watcher(server.pid, peak)
        watcher.start()
        try:
            outcome = run((host, int(port)))
            time.sleep(HOLD_S)
        finally:
            watcher.stop()
        return before, peak[0], outcome


class _Watcher:
    """Samples RSS every 50 ms in a thread, keeping the peak."""

    def __init__(self, pid: int, peak: list[float]) -> None:
        import threading

        self.pid, self.peak, self.done = pid, peak, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.done.set()
        self.thread.join(5)

    def _run(self) -> None:
        while not self.done.wait(0.05):
            try:
                self.peak[0] = max(self.peak[0], rss_mib(self.pid))
            except psutil.Error:
                return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--servers", help="comma-separated contender ids (default: every available server)")
    parser.add_argument("--attacks", default="200MiB,idle1000,slowloris200")
    args = parser.parse_args()
    ids = args.servers.split(",") if args.servers else [
        c.id for c in contenders.all_contenders().values() if c.unavailable() is None and c.protocol != "http-javaser"]
    print(f"{'server':<20} {'attack':<13} {'RSS before -> peak (MB)':>24}  outcome", flush=True)
    with tempfile.TemporaryDirectory() as logs:
        for contender_id in ids:
            for attack in args.attacks.split(","):
                result = measure(contender_id, attack, Path(logs))
                if result is not None:
                    before, peak, outcome = result
                    print(f"{contender_id:<20} {attack:<13} {before:>11.1f} -> {peak:>8.1f}  {outcome}", flush=True)


if __name__ == "__main__":
    main()
