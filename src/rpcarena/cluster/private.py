"""What a cluster rpcarena starts keeps to itself: TLS credentials made for the run, and scratch space.

Every process of a Dask cluster runs code any client sends it, as the user who started it (root,
for `netns:`). So a cluster rpcarena starts (`local:N`, `netns:...`) speaks TLS with mutual
authentication: a key and a self-signed certificate made for this run alone (Dask's
`Security.temporary`), which the scheduler, every worker and rpcarena's client present and require;
a client without them is refused at the handshake. The processes that cannot be handed them in
memory (the testbed's, started with `ip netns exec`) read them from files in a folder made with
`mkdtemp` (0700, a name no one can guess or plant first), which also holds Dask's scratch space
in place of the shared `/tmp/dask-scratch-space`. The folder is removed when the cluster stops,
and after a kill -9 of rpcarena by a watcher that outlives it (`leftovers.removed_when_gone`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rpcarena.cluster.quiet import as_env
from rpcarena.errors import UsageError
from rpcarena.process import leftovers

_FILES = ("ca.pem", "cert.pem", "key.pem")


class Private:
    """One run's credentials and scratch folder, gone on exit."""

    def __init__(self) -> None:
        self.folder = Path()
        self.security: Any = None
        self._let_go: Callable[[], None] = lambda: None

    def __enter__(self) -> Private:
        try:
            from distributed.security import Security

            security = Security.temporary()
        except ImportError:
            raise UsageError("a cluster rpcarena starts speaks TLS, which needs cryptography: "
                             "pip install 'rpcarena[cluster]' (make setup installs it)") from None
        self.folder = Path(tempfile.mkdtemp(prefix=leftovers.name("folder", "dask", "")))
        self._let_go = leftovers.removed_when_gone(self.folder)  # kill -9 of rpcarena too
        self.security = security
        for name, text in zip(_FILES, (security.tls_ca_file, security.tls_worker_cert, security.tls_worker_key),
                              strict=True):
            _write_private(self.folder / name, text)
        self.scratch.mkdir(mode=0o700)
        return self

    @property
    def scratch(self) -> Path:
        """Dask's local directory (worker spill, locks), private to the run."""
        return self.folder / "scratch"

    def files(self) -> dict[str, Path]:
        ca, cert, key = (self.folder / name for name in _FILES)
        return {"ca": ca, "cert": cert, "key": key}

    def cli_args(self) -> list[str]:
        """The TLS options of `dask scheduler` and `dask worker`."""
        files = self.files()
        return ["--tls-ca-file", str(files["ca"]), "--tls-cert", str(files["cert"]), "--tls-key", str(files["key"])]

    def config(self) -> dict[str, object]:
        """The credentials as Dask's configuration, for a client that is not handed `security`
        (`rpcarena run --cluster tls://...` against the testbed, through `env`)."""
        files = self.files()
        config: dict[str, object] = {"distributed.comm.require-encryption": True,
                                     "distributed.comm.tls.ca-file": str(files["ca"])}
        for role in ("client", "scheduler", "worker"):
            config[f"distributed.comm.tls.{role}.cert"] = str(files["cert"])
            config[f"distributed.comm.tls.{role}.key"] = str(files["key"])
        return config

    def env(self) -> dict[str, str]:
        """`config` as DASK_* environment variables, for another process."""
        return as_env(self.config())

    def close(self) -> None:
        if self.folder != Path():
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = Path()
            self._let_go()
            self._let_go = lambda: None

    def __exit__(self, *exc: object) -> None:
        self.close()


def _write_private(path: Path, text: str) -> None:
    """A new file only this user can read; never through a link, never over an existing file."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(text)
