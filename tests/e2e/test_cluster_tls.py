"""A scheduler the user starts and secures: `--cluster tls://...` with the user's own certificates,
and the warning for a plain tcp:// scheduler beyond loopback.

The certificates are made here with `cryptography` (a CA, and one certificate it signs for
127.0.0.1), as docs/cluster.md makes them with openssl; `dask scheduler` and two `dask worker`s
are started with them exactly as the docs say, and rpcarena's client gets them through Dask's
documented DASK_DISTRIBUTED__COMM__TLS__* variables. Counts and refusals are asserted.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from rpcarena import load
from rpcarena.process.children import free_port
from tests.conftest import run_cli

distributed = pytest.importorskip("distributed")
pytest.importorskip("cryptography")


def _certificates(folder: Path) -> dict[str, Path]:
    """A CA, and a key and certificate it signs for 127.0.0.1 (server and client use alike)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.now(timezone.utc)

    def signed(subject: str, key, issuer: str, issuer_key, ca: bool) -> x509.Certificate:
        builder = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                   .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - timedelta(minutes=5)).not_valid_after(now + timedelta(days=1))
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if not ca:
            builder = (builder.add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                      ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False))
        return builder.sign(issuer_key, hashes.SHA256())

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    files = {"ca": folder / "ca.pem", "cert": folder / "cert.pem", "key": folder / "key.pem"}
    files["ca"].write_bytes(signed("test CA", ca_key, "test CA", ca_key, True).public_bytes(serialization.Encoding.PEM))
    files["cert"].write_bytes(signed("rpcarena node", key, "test CA", ca_key, False)
                              .public_bytes(serialization.Encoding.PEM))
    files["key"].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    files["key"].chmod(0o600)
    return files


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    """`dask scheduler` and two `dask worker`s on loopback, TLS with the test's certificates."""
    folder = tmp_path_factory.mktemp("tls")
    files = _certificates(folder)
    tls = ["--tls-ca-file", str(files["ca"]), "--tls-cert", str(files["cert"]), "--tls-key", str(files["key"])]
    port = free_port("127.0.0.1")
    address = f"tls://127.0.0.1:{port}"
    env = dict(os.environ, DASK_DISTRIBUTED__COMM__TLS__CA_FILE=str(files["ca"]),
               DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT=str(files["cert"]),
               DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY=str(files["key"]),
               DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION="True")
    quiet = ["--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
    argvs = [[sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
              "--protocol", "tls", *tls, *quiet]]
    argvs += [[sys.executable, "-m", "distributed.cli.dask_worker", address, "--name", f"node-{i}", "--host",
               "127.0.0.1", "--nthreads", "2", "--no-nanny", "--local-directory", str(folder / f"w{i}"), *tls, *quiet]
              for i in range(2)]
    with contextlib.ExitStack() as stack:
        for i, argv in enumerate(argvs):
            log = stack.enter_context(open(folder / f"dask-{i}.log", "w"))
            child = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
            stack.callback(_stop, child)
        with distributed.Client(address, timeout=120, set_as_default=False,
                                security=distributed.security.Security(
                                    tls_ca_file=str(files["ca"]), tls_client_cert=str(files["cert"]),
                                    tls_client_key=str(files["key"]), require_encryption=True)) as client:
            client.wait_for_workers(2, timeout=120)
        yield address, env


def _stop(child: subprocess.Popen) -> None:
    child.terminate()
    try:
        child.wait(10)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait(10)


@pytest.fixture(scope="module")
def greeter():
    """POST /arena/SayHello -> {"message": "Hello NAME"}: a plain HTTP server on loopback."""
    class Greeter(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            name = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["name"]
            body = json.dumps({"message": f"Hello {name}"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Greeter)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/arena/SayHello"
    server.shutdown()
    server.server_close()


def _target(cluster: str, url: str, out: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return run_cli("target", "--cluster", cluster, url, "--body", json.dumps({"name": "ann"}),
                   "--expect-json", "message=Hello ann", "--clients", "2", "--calls", "40", "--warmup", "0.1s",
                   "--out", str(out), timeout=120, env=env)


def test_a_tls_scheduler_with_the_users_certificates(secured, greeter, tmp_path):
    address, env = secured
    done = _target(address, greeter, tmp_path / "t.json", env)
    assert done.returncode == 0, done.stderr
    (cell,) = load(tmp_path / "t.json").cells
    assert cell.calls == 40 == sum(cell.cluster["nodes"][n]["calls"] for n in ("node-0", "node-1"))
    assert "warning" not in done.stderr, done.stderr


def test_without_the_certificates_the_scheduler_refuses(secured, greeter, tmp_path):
    address, _ = secured
    bare = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    done = _target(address, greeter, tmp_path / "t.json", bare)
    assert done.returncode == 2 and "no TLS credentials for the scheduler: export" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_plain_tcp_scheduler_beyond_loopback_is_warned_about(greeter, tmp_path):
    """0.0.0.0 (every interface: not loopback) on a port where nothing listens: the warning comes
    before any connection, and the connection itself stays on this machine (refused)."""
    cluster = f"tcp://0.0.0.0:{free_port('127.0.0.1')}"
    done = _target(cluster, greeter, tmp_path / "t.json", dict(os.environ))
    assert f"warning: --cluster {cluster}: plain TCP, unauthenticated" in done.stderr, done.stderr
    assert done.returncode == 2 and "cannot reach the Dask scheduler" in done.stderr, done.stderr
