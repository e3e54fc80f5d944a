"""An RPyC client calling one exposed method by name, with a restricted configuration.

Never classic mode: `rpyc.connect` with public attributes and pickling off, so
the client asks the server for nothing but its exposed method.
"""

from __future__ import annotations

from typing import Any

from rpcarena.contenders.base import Client
from rpcarena.targets import checks

RESTRICTED = {"allow_public_attrs": False, "allow_pickle": False, "allow_setattr": False,
              "allow_delattr": False, "allow_all_attrs": False}


class RpycTargetClient(Client):
    """One RPyC connection; the exposed method looked up once; requests are argument lists."""

    def __init__(self, target: str, method: str, timeout_s: float, description: dict[str, Any]) -> None:
        import rpyc

        super().__init__(target, method, timeout_s)
        self._remote_errors = (rpyc.core.vinegar.GenericException,)
        self._connect()

    def _connect(self) -> None:
        import rpyc

        host, _, port = self.target.rpartition(":")
        self._conn = rpyc.connect(host.strip("[]"), int(port),
                                  config=dict(RESTRICTED, sync_request_timeout=self.timeout_s))
        try:
            self._fn = getattr(self._conn.root, self.method)
        except AttributeError:
            self._conn.close()
            raise LookupError(f"the service exposes no method {self.method!r}") from None

    def reconnect(self) -> None:
        self._conn.close()
        self._connect()

    def prepare(self, request: dict[str, Any]) -> Any:
        return tuple(request["args"])

    def call(self, args: tuple[Any, ...]) -> Any:
        return self._fn(*args)

    def same(self, got: Any, want: list[Any]) -> bool:
        return not want or checks.holds(got, want)

    def explain(self, got: Any, want: list[Any]) -> str:
        return checks.explain(got, want)

    def classify(self, error: BaseException) -> str:
        if isinstance(error, self._remote_errors):
            return "status_remote_error"
        return super().classify(error)

    def describe(self, error: BaseException) -> str:
        text = str(error).strip().splitlines()
        return text[0] if text else type(error).__name__

    def close(self) -> None:
        self._conn.close()
