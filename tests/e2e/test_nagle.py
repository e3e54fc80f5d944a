"""Nagle in plain sight: TCP_NODELAY read back from the real sockets (the delayed-ACK stall it causes
is measured and named by benchmarks/timing_claims.py, nagle).

RPyC's `rpyc.connect` leaves TCP_NODELAY off; function 12 with lists makes several small
writes per call, so each waits on the server's delayed ACK (40 ms on Linux). rpyc-nodelay is
the same server with the client's socket made with nodelay=True.
"""

from __future__ import annotations

from rpcarena.config import RunConfig
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.contender_cells import plans


def test_nodelay_is_read_from_each_end(tmp_path):
    config = RunConfig(contenders=["rpyc", "rpyc-nodelay", "grpc-py"], workloads=["usp.distance"], calls=30,
                       warmup_s=0.2, out=tmp_path / "r.json")  # warm: every connection is open when read
    cells = {c.contender: c for c in Arena(config, plans(config)).run().cells}
    assert all(c.status == "ok" and c.calls == 30 for c in cells.values()), [c.reason for c in cells.values()]
    assert cells["rpyc"].tcp_nodelay["client"] is False
    assert cells["rpyc-nodelay"].tcp_nodelay["client"] is True
    assert cells["grpc-py"].tcp_nodelay == {"client": True, "server": True}
