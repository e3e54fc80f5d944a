"""TLS to a target: `--cacert`, `--cert` with `--key` (mTLS), `--insecure`, as curl names them.

The settings travel in the target's description as absolute file paths; each
client process reads them. They are checked once, here, by loading them into an
SSL context, so a wrong file is a one-line error before anything is measured.
An https:// URL or a grpcs:// address asks for TLS; so does any TLS option on a
gRPC target.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

from rpcarena.errors import UsageError

OPTIONS = ("cacert", "cert", "key", "insecure")


def settings(group: dict, name: str, wanted: bool) -> dict | None:
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


def context(tls: dict) -> ssl.SSLContext:
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


def grpc_credentials(grpc: Any, tls: dict) -> Any:
    """Channel credentials for a gRPC client: the CA (default: the system's) and the client pair."""
    def read(key: str) -> bytes | None:
        return Path(tls[key]).read_bytes() if tls.get(key) else None
    return grpc.ssl_channel_credentials(root_certificates=read("cacert"), private_key=read("key"),
                                        certificate_chain=read("cert"))


def grpc_channel(address: str, tls: dict | None, options: list | None = None) -> Any:
    """A gRPC channel to `address`: plaintext, or TLS with the target's settings."""
    import grpc

    if tls is None:
        return grpc.insecure_channel(address, options=options)
    return grpc.secure_channel(address, grpc_credentials(grpc, tls), options=options)
