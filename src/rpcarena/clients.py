"""Client ids as users type them (`--client py`, `py-tuple`, `go`, `rust-h1`, `target-go`): what an
id says by itself, so that every layer (analysis too, which has no contender registry) can ask.

Every Python client's id starts with "py" and no native client's does: `is_python` is the one place
that relies on it. A cell records its client's language as the registry knows it
(`rpcarena.contenders.client_language`); `language_named` reads it from the id for documents
written before cells recorded it.
"""

from __future__ import annotations

PYTHON = "py"
NATIVE_LANGUAGES = ("go", "rust", "java")


def is_python(client: str) -> bool:
    """Whether a client id names a Python client (py, py-tuple, py-requests, ...)."""
    return client.startswith(PYTHON)


def language_named(client: str) -> str:
    """The language a client id names: py for a Python client, else the native language among its
    parts (go; rust-h1 -> rust; target-go -> go), else the id itself."""
    if is_python(client):
        return PYTHON
    return next((part for part in client.split("-") if part in NATIVE_LANGUAGES), client)
