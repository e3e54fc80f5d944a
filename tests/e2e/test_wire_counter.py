"""network.wire: the kernel's counters on a port count TCP and UDP alike, and say which packets were UDP,
so HTTP/3 (QUIC over UDP) has bytes on the wire as every TCP mechanism does."""

from __future__ import annotations

import socket

import pytest

from rpcarena.network import wire
from rpcarena.results import Cell

DATAGRAMS, SIZE = 7, 100


@pytest.fixture
def port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.skipif(wire.unavailable() is not None, reason=str(wire.unavailable()))
def test_udp_datagrams_to_the_port_are_counted_as_udp(port):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as server, \
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client, wire.Counter(port) as counter:
        server.bind(("127.0.0.1", port))
        before = counter.read()
        for _ in range(DATAGRAMS):
            client.sendto(b"x" * SIZE, ("127.0.0.1", port))
        for _ in range(DATAGRAMS):
            server.recv(SIZE)
        moved = counter.read() - before
    assert (moved.in_packets, moved.udp_packets, moved.out_packets) == (DATAGRAMS, DATAGRAMS, 0)
    assert moved.in_bytes == DATAGRAMS * (SIZE + wire.UDP_HEADER_BYTES)


@pytest.mark.skipif(wire.unavailable() is not None, reason=str(wire.unavailable()))
def test_tcp_to_the_port_is_counted_and_none_of_it_as_udp(port):
    with socket.socket() as listener, wire.Counter(port) as counter:
        listener.bind(("127.0.0.1", port))
        listener.listen()
        before = counter.read()
        with socket.create_connection(("127.0.0.1", port)) as client, listener.accept()[0] as accepted:
            client.sendall(b"x" * SIZE)
            assert accepted.recv(SIZE)
        moved = counter.read() - before
    assert moved.in_packets >= 2 and moved.out_packets >= 1 and moved.udp_packets == 0


def test_payload_takes_off_each_transports_own_headers():
    cell = Cell(contender="rest-h3-go", client="go", workload="w", method="m", clients=1, trial=0, calls=1,
                wire_in_bytes=1000, wire_in_packets=4, wire_out_bytes=600, wire_out_packets=2, wire_udp_packets=4)
    assert cell.payload_bytes_per_call == 1600 - 4 * wire.UDP_HEADER_BYTES - 2 * wire.HEADER_BYTES
    older = Cell(contender="grpc-go", client="go", workload="w", method="m", clients=1, trial=0, calls=1,
                 wire_in_bytes=1000, wire_in_packets=4, wire_out_bytes=600, wire_out_packets=2)
    assert older.payload_bytes_per_call == 1600 - 6 * wire.HEADER_BYTES
