"""The pool of `--connections M`: a returned connection goes to the call that waited longest."""

from __future__ import annotations

import threading
import time

from rpcarena.worker.sharing import Free


def _waiting(free: Free, n: int) -> None:
    deadline = time.monotonic() + 10
    while len(free._waiting) < n:  # noqa: SLF001 (the queue of waiting calls is what is checked)
        assert time.monotonic() < deadline, "the waiters never queued"
        time.sleep(0.001)


def test_a_returned_connection_goes_to_the_oldest_waiter_never_back_to_its_giver():
    free = Free(["a", "b"])
    held = [free.get(), free.get()]
    got: dict[str, str] = {}
    threads = []
    for name in ("first", "second"):
        thread = threading.Thread(target=lambda name=name: got.__setitem__(name, free.get()))
        thread.start()
        threads.append(thread)
        _waiting(free, len(threads))
    free.put(held[0])  # the giver cannot take it back: it is the first waiter's already
    threads[0].join(10)
    assert got == {"first": "a"} and not free._free  # noqa: SLF001
    free.put(held[1])
    threads[1].join(10)
    assert got == {"first": "a", "second": "b"}
    free.put(got["first"])
    assert free.get() == "a"  # with no one waiting, a returned connection is free at once
