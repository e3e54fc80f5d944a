"""TLS to a target: `--cacert`, `--cert` with `--key` (mTLS), `--insecure`, as curl names them.

The settings travel in the target's description as absolute file paths; each
client process reads them. They are checked once, here, by loading them into an
SSL context, so a wrong file is a one-line error before anything is measured.
An https:// URL or a grpcs:// address asks for TLS; so does any TLS option on a
gRPC target. grpcio cannot skip verification, so a gRPC target's `--insecure`
trusts the very certificate its server presents (fetched once, before measuring),
under the name written in it.
"""

from __future__ import annotations

import os
import ssl
import tempfile
from pathlib import Path
from typing import Any

from rpcarena.errors import ServerError, UsageError

OPTIONS = ("cacert", "cert", "key", "insecure")


def settings(group: dict[str, Any], name: str, wanted: bool) -> dict[str, Any] | None:
    """The target's TLS settings (None: plaintext), every file checked."""
    given = {key: group[key] for key in OPTIONS if group.get(key)}
    if not wanted and not given:
        return None
    if ("cert" in given) != ("key" in given):
        raise UsageError(f"target {name}: a client certificate needs both --cert FILE and --key FILE")
    if "insecure" in given and "cacert" in given:
        raise UsageError(f"target {name}: --insecure verifies nothing, --cacert verifies with a CA: drop one")
    out: dict[str, Any] = {key: _file(key, given[key]) for key in ("cacert", "cert", "key") if key in given}
    out["insecure"] = bool(given.get("insecure"))
    context(out)  # each file loads, or a one-line error now
    return out


def _file(key: str, text: str) -> str:
    path = Path(text).expanduser()
    if not path.is_file():
        raise UsageError(f"bad --{key} {text!r}: no such file; give a PEM file")
    return str(path.resolve())


def context(tls: dict[str, Any]) -> ssl.SSLContext:
    """An SSL context for an HTTP client (httpx's `verify=`)."""
    try:
        ctx = ssl.create_default_context(cafile=tls.get("cacert"))
        if tls.get("insecure"):
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        if tls.get("cert"):
            ctx.load_cert_chain(tls["cert"], tls["key"])
    except (ssl.SSLError, OSError) as error:
        raise UsageError(f"the TLS files do not load ({error.strerror or error}): give PEM files "
                         "(--cacert a CA, --cert a certificate, --key its private key)") from None
    return ctx


def presented(tls: dict[str, Any], address: str, timeout_s: float) -> dict[str, Any]:
    """--insecure on gRPC: the settings with the certificate the server presents, and its name."""
    host, _, port = address.rpartition(":")
    try:
        pem = ssl.get_server_certificate((host.strip("[]"), int(port)), timeout=timeout_s)
    except ssl.SSLError as error:
        raise UsageError(f"no TLS server certificate at {address} ({error.reason or error}): "
                         "use grpc:// for a plaintext server, or fix the address") from None
    except OSError as error:
        raise ServerError(f"target at {address} is down ({error.strerror or error}): start its server "
                          "or fix the address") from None
    return dict(tls, server_pem=pem, server_name=_name_in(pem) or host.strip("[]"))


def _name_in(pem: str) -> str | None:
    """The first DNS (else IP) subject alternative name of a certificate, else its common name."""
    with tempfile.NamedTemporaryFile("w", suffix=".pem", delete=False) as file:
        file.write(pem)
    try:
        decoded = ssl._ssl._test_decode_cert(file.name)  # type: ignore[attr-defined]  # the stdlib's only decoder
    except (ssl.SSLError, AttributeError):
        return None
    finally:
        os.unlink(file.name)
    names = decoded.get("subjectAltName", ())
    for wanted in ("DNS", "IP Address"):
        found = [value for kind, value in names if kind == wanted]
        if found:
            return str(found[0])
    common = [value for rdn in decoded.get("subject", ()) for key, value in rdn if key == "commonName"]
    return str(common[0]) if common else None


def grpc_credentials(grpc: Any, tls: dict[str, Any]) -> Any:
    """Channel credentials for a gRPC client: the CA (default: the system's; with --insecure, the
    server's own certificate) and the client pair."""
    def read(key: str) -> bytes | None:
        return Path(tls[key]).read_bytes() if tls.get(key) else None
    roots = tls["server_pem"].encode() if tls.get("server_pem") else read("cacert")
    return grpc.ssl_channel_credentials(root_certificates=roots, private_key=read("key"),
                                        certificate_chain=read("cert"))


def grpc_channel(address: str, tls: dict[str, Any] | None, options: list[Any] | None = None) -> Any:
    """A gRPC channel to `address`: plaintext, or TLS with the target's settings."""
    import grpc

    if tls is None:
        return grpc.insecure_channel(address, options=options)
    if tls.get("server_name"):
        options = [*(options or []), ("grpc.ssl_target_name_override", tls["server_name"])]
    return grpc.secure_channel(address, grpc_credentials(grpc, tls), options=options)


# What each TLS client (OpenSSL, BoringSSL, Go's crypto/tls) says, by cause; the first cause whose
# words a failure contains is its cause. The server's alerts come first: 'alert unknown ca' is the
# server refusing the client's certificate, not the client refusing the server's.
_CAUSES = (
    ("refused", ("certificate required", "peer_did_not_return_a_certificate", "alert bad certificate",
                 "bad certificate", "alert unknown ca", "unknown certificate authority", "certificate unknown")),
    ("plaintext", ("wrong version number", "first record does not look like a tls handshake",
                   "packet length too long", "wrong_version_number")),
    ("name", ("not valid for", "hostname mismatch", "ip address mismatch", "doesn't match")),
    ("ca", ("certificate verify failed", "certificate_verify_failed", "unknown authority", "self-signed",
            "self signed", "unable to get local issuer")),
    ("other", ("handshake failed", "tlsv13 alert", "tls: ", "x509:")),
)
# A server that wants a client certificate and got none under TLS 1.3 may just hang up after the
# handshake (hypercorn, grpc's C core): the client sees a disconnect, not an alert.
_HUNG_UP = ("disconnected", "socket closed", "eof", "connection reset", "broken pipe")


def failure(said: str, tls: dict[str, Any] | None, kind: str) -> str | None:
    """The TLS cause of a failed first call and its fix in one phrase, or None if TLS is not why."""
    text = said.lower()
    cause = next((name for name, words in _CAUSES if any(word in text for word in words)), None)
    if cause is None and tls and not tls.get("cert") and kind == "connection" and any(w in text for w in _HUNG_UP):
        return ("the server hung up right after the TLS handshake, as one that wants a client certificate "
                "does, and none was given: give --cert and --key")
    if cause == "refused":
        return ("the server refused the client certificate: give --cert and --key signed by a CA it trusts"
                if tls and tls.get("cert") else
                "the server asks for a client certificate and none was given: give --cert and --key")
    return _FIXES.get(cause) if cause else None


_FIXES = {
    "plaintext": "the server does not speak TLS: use http:// or grpc://",
    "name": "the server's certificate is not for this address: connect by a name in it, or --insecure",
    "ca": "the server's certificate is not signed by a CA trusted here: give --cacert with the server's CA, "
          "or --insecure",
    "other": ("check TLS: --cacert with the server's CA (or --insecure), --cert and --key when it asks for a "
              "client certificate, http:// or grpc:// for a plaintext server"),
}
