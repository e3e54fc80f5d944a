"""The conformance harness's own behaviour (`rpcarena.conformance`), without measuring: a stopped
corpus starts no run after the ones in flight (Ctrl-C reaches the runs; the harness must not start
the next case's, nor the next client's run of a case in flight)."""

from __future__ import annotations

import threading

from rpcarena import conformance
from tests.helpers import ROOT

CORPUS = ROOT / "tests" / "fixtures" / "conformance"
CHOSEN = [conformance.Mechanism("grpc-py", "py"), conformance.Mechanism("grpc-go", "go", ("py", "go"))]


def test_a_stopped_corpus_starts_no_further_run(tmp_path, monkeypatch):
    runs: list[tuple[str, str]] = []
    lock, closed = threading.Lock(), threading.Event()

    def run(case, folder, contenders, client, out):
        with lock:
            runs.append((case.feature, client))
        if case.feature != "scalars" and client == "py":
            closed.wait(10)  # in flight when the corpus is stopped
        return {(c, client): conformance.Outcome(conformance.OK) for c in contenders}
    monkeypatch.setattr(conformance, "_run", run)
    rows = conformance.run_corpus(CORPUS, CHOSEN, tmp_path)
    first = next(rows)
    threading.Timer(0.5, closed.set).start()
    rows.close()  # as Ctrl-C ends the loop that reads it
    assert first[0].feature == "scalars" and first[1]["grpc-go"].status == conformance.OK
    assert runs[:2] == [("scalars", "py"), ("scalars", "go")]
    in_flight = {feature for feature, _ in runs[2:]}
    assert len(in_flight) <= conformance.PARALLEL_CASES
    assert all(client == "py" for _, client in runs[2:]), runs
