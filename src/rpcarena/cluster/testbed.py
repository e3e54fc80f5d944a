"""A Dask cluster on this machine whose server node sits behind an emulated link.

`delaynet up` (through `rpcarena.network.link.Link`) builds the client, router and server
network namespaces with the delay line between them. The scheduler runs in the client namespace,
listening on all its addresses: the client nodes' workers (also in the client namespace) reach it
at the link's client address, and the server node's worker (in the server namespace, started
with `ip netns exec`) reaches it across the delay line, as a remote host would. The namespaces
have no route to the root namespace, where the orchestrator runs; so one veth pair joins the root
namespace to the client namespace (a /30 of 198.19.0.0/16, RFC 2544's benchmarking range, not
otherwise used here), and the orchestrator talks to the scheduler over it. That veth carries only
the orchestrator's own messages; it dies with the client namespace, so delaynet's teardown (also
after a kill -9 of rpcarena: it stops when its stdin closes) removes it too.

Every process of the cluster speaks TLS with credentials made for it (`private`): a client without
them, from the host through that veth or from anywhere else, is refused at the handshake. The
scheduler listens on every address of the client namespace (the link's client address, the veth's
end, the namespace's own loopback) and on none of the host's; no process serves a dashboard.

    python -m rpcarena.cluster.testbed --link rtt=10ms --clients 2    # prints the address; Ctrl-C ends it
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rpcarena.cluster.private import Private
from rpcarena.cluster.quiet import CLOSED_CONFIG, QUIET_CONFIG, as_env
from rpcarena.errors import UnavailableError
from rpcarena.network import link
from rpcarena.process import children, leftovers
from rpcarena.process.children import Child

SCHEDULER_PORT = 8786  # in a namespace of its own: nothing else there takes it
CONTROL_NET = ipaddress.ip_network("198.19.0.0/16")
START_TIMEOUT_S = 90.0
_SEQ = iter(range(1, 1 << 20))


class Testbed:
    """A scheduler and workers in the namespaces of an emulated link; all gone on exit."""

    def __init__(self, model: str, clients: int, logs: Path) -> None:
        self.model = link.parse(model)
        self.clients = clients
        self.logs = logs
        self.link: link.Link | None = None
        self.children: list[Child] = []
        self.control = leftovers.name("interface", "c", next(_SEQ))  # the sweeper knows it (kill -9)
        self.address = ""
        self.private = Private()

    def __enter__(self) -> Testbed:
        try:
            self.private.__enter__()
            self.link = link.Link(self.model, self.logs / "link.log").__enter__()
            assert self.link.child is not None
            children.keep(self.link.child)  # a run's end (kill_all) must not take the testbed with it
            inside = self._join_root_namespace()
            self._start_scheduler()
            self._start_worker("server", self.link.server_prefix, self.link.server_address, "server=1")
            for i in range(self.clients):
                self._start_worker(f"client-{i}", self.link.client_prefix, self.client_address, "client=1")
            self.address = f"tls://{inside}:{SCHEDULER_PORT}"
            self._await_workers(1 + self.clients)
        except BaseException:
            self.close()
            raise
        return self

    @property
    def client_address(self) -> str:
        assert self.link is not None
        return str(self.link.up["client_addr"])

    @property
    def scheduler_in_namespaces(self) -> str:
        """The scheduler's address as the workers reach it."""
        return f"tls://{self.client_address}:{SCHEDULER_PORT}"

    def _join_root_namespace(self) -> str:
        """A veth from here into the client namespace; the address of its far end."""
        assert self.link is not None
        net = _free_subnet()
        here, there = (str(a) for a in list(net.hosts())[:2])
        client_ns = self.link.up["client_ns"]
        for argv in (["ip", "link", "add", self.control, "type", "veth", "peer", "name", "control", "netns", client_ns],
                     ["ip", "addr", "add", f"{here}/30", "dev", self.control],
                     ["ip", "link", "set", self.control, "up"],
                     ["ip", "-n", client_ns, "addr", "add", f"{there}/30", "dev", "control"],
                     ["ip", "-n", client_ns, "link", "set", "control", "up"]):
            done = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
            if done.returncode != 0:
                raise UnavailableError(f"testbed: {' '.join(argv)} failed: {done.stderr.strip()}")
        return there

    def _env(self) -> dict[str, str]:
        return dict(os.environ, **as_env({**QUIET_CONFIG, **CLOSED_CONFIG, **self.private.config()}),
                    DASK_TEMPORARY_DIRECTORY=str(self.private.scratch))

    def _start_scheduler(self) -> None:
        assert self.link is not None
        # HTTP (no pages: CLOSED_CONFIG) on the namespace's own loopback, out of reach from outside it.
        argv = [*self.link.client_prefix, sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "0.0.0.0",
                "--port", str(SCHEDULER_PORT), "--protocol", "tls", *self.private.cli_args(), "--no-dashboard",
                "--dashboard-address", "127.0.0.1:0"]
        self._start(argv, self.logs / "scheduler.log")

    def _start_worker(self, name: str, prefix: list[str], host: str, resource: str) -> None:
        argv = [*prefix, sys.executable, "-m", "distributed.cli.dask_worker", self.scheduler_in_namespaces,
                "--name", name, "--host", host, "--nthreads", "2", "--no-nanny", *self.private.cli_args(),
                "--no-dashboard", "--dashboard-address", "127.0.0.1:0", "--resources", resource,
                "--local-directory", str(self.private.scratch)]
        self._start(argv, self.logs / f"worker-{name}.log")

    def _start(self, argv: list[str], log: Path) -> None:
        child = Child(argv, None, log, env=self._env())
        children.keep(child)
        self.children.append(child)

    def _await_workers(self, count: int) -> None:
        from distributed import Client

        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            dead = [c for c in self.children if not c.alive()]
            if dead:
                raise UnavailableError(f"testbed: {dead[0].argv[4:6]} exited ({dead[0].last_error_line()}); "
                                       f"log: {dead[0].log}")
            try:
                with Client(self.address, timeout=5, set_as_default=False, security=self.private.security) as client:
                    client.wait_for_workers(count, timeout=max(1.0, deadline - time.monotonic()))
                    return
            except (OSError, TimeoutError):
                time.sleep(0.5)
        raise UnavailableError(f"testbed: {count} workers did not join within {START_TIMEOUT_S:.0f} s; "
                               f"logs: {self.logs}")

    def worker_pids(self) -> list[int]:
        return [c.pid for c in self.children[1:]]

    def close(self) -> None:
        for child in reversed(self.children):  # the workers first, then the scheduler
            child.stop()
        self.children.clear()
        if self.link is not None:
            self.link.close()  # the namespaces go, and the control veth with them
            self.link = None
        self.private.close()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _free_subnet() -> ipaddress.IPv4Network:
    """A /30 of CONTROL_NET that no address here is in (two testbeds at once take two)."""
    used = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True, text=True, timeout=10,
                          check=False).stdout
    taken = {ipaddress.ip_interface(word).network for word in used.split() if word.startswith("198.19.")}
    start = (os.getpid() * 4) % CONTROL_NET.num_addresses
    for offset in range(0, CONTROL_NET.num_addresses, 4):
        net = ipaddress.IPv4Network(f"{CONTROL_NET[(start + offset) % CONTROL_NET.num_addresses]}/30")
        if net not in taken:
            return net
    raise UnavailableError("testbed: no free /30 left in 198.19.0.0/16")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logs = Path(args.logs).resolve()
    with Testbed(args.link, args.clients, logs) as bed:
        # The address, then the run's credentials as a client's shell takes them.
        print(bed.address, *(f"export {key}={value}" for key, value in bed.private.env().items()), sep="\n",
              flush=True)
        # Until the end of input, Ctrl-C or SIGTERM (a shell's background job ignores SIGINT, and a
        # plain SIGTERM would skip the teardown): each ends in the `with` above, which removes all.
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, _interrupt)
        try:
            if sys.stdin.isatty():
                signal.pause()
            else:
                sys.stdin.read()
        except KeyboardInterrupt:
            pass
    return 0


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _parser() -> Any:
    p = argparse.ArgumentParser(prog="python -m rpcarena.cluster.testbed", allow_abbrev=False,
                                description="A Dask cluster here: a server node behind an emulated link, client "
                                            "nodes before it. Prints the scheduler's address, then the `export` "
                                            "lines of its credentials (TLS, made for it); ends at Ctrl-C or end of "
                                            "input.")
    p.add_argument("--link", default="rtt=10ms", help="the link model, as --link takes it (default rtt=10ms)")
    p.add_argument("--clients", type=int, default=1, help="client nodes (default 1)")
    p.add_argument("--logs", default="results/logs/testbed", help="where the scheduler's and workers' logs go")
    return p


if __name__ == "__main__":
    sys.exit(main())
