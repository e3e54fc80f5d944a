"""The tests' own HTTP server (the target a `target` test measures), quiet when a client leaves.

`cli(...)` runs a command in the test's process, so a traceback a server thread prints lands in
the command's stderr, which the tests read: a client gone mid-reply (a run that stops, a driver
that closes at the end of its phase) is expected and prints nothing; any other error does.
"""

from __future__ import annotations

import sys
from http.server import ThreadingHTTPServer


class QuietHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]
