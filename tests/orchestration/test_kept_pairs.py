"""Kept pairs (orchestration/kept.py): a server and its driver kept from cell to cell of one trial, paused
between cells, fresh for each trial, ended by a failure and at the run's end. Real processes throughout:
the Python tcp-raw server for the pairs' own rules, the JVM's grpc-java through the arena for the whole."""

from __future__ import annotations

import dataclasses
import time

import psutil
import pytest

from rpcarena import contenders, seeds
from rpcarena.config import RunConfig
from rpcarena.contenders import native
from rpcarena.contract import DriveSpec
from rpcarena.orchestration import contender_cells
from rpcarena.orchestration import kept as kept_module
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.kept import Kept, warms_once
from rpcarena.orchestration.plan import Plan
from rpcarena.process.server_process import ServerProcess


def _plan(trial: int) -> Plan:
    return Plan(contenders.get("tcp-raw"), "java", seeds.WORKLOADS["usp.int32"], 1, trial,
                contender_cells.CONTENDER_CELLS, "java")


def _starter(tmp_path, started: list[ServerProcess]):
    def start() -> ServerProcess:
        server = ServerProcess(contenders.get("tcp-raw"), "127.0.0.1", None, tmp_path / f"s{len(started)}.log")
        started.append(server.start())
        return server
    return start


def _stopped(server: ServerProcess, within_s: float = 10.0) -> bool:
    """Whether the server is stopped, or stops within `within_s` (a signal arrives when it is scheduled)."""
    deadline = time.monotonic() + within_s
    while psutil.Process(server.pid).status() != psutil.STATUS_STOPPED:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_pair_serves_the_cells_of_its_trial_paused_between_them_and_a_new_trial_gets_a_fresh_one(tmp_path):
    kept, started = Kept(), []
    try:
        for trial in (0, 0, 0, 1, 1):
            with kept.pair(_plan(trial), _starter(tmp_path, started)) as pair:
                assert pair.server.alive() and not _stopped(pair.server, 0) and pair.trial == trial
            assert _stopped(pair.server)
        assert len(started) == 2 and not started[0].alive() and started[1].alive()
        assert kept.pairs[("tcp-raw", "java")].cells == 2
    finally:
        kept.close()
    assert not any(s.alive() for s in started) and not kept.pairs


def test_a_cell_that_fails_ends_its_pair_and_the_next_cell_starts_afresh(tmp_path):
    kept, started = Kept(), []
    try:
        with pytest.raises(RuntimeError), kept.pair(_plan(0), _starter(tmp_path, started)):
            raise RuntimeError("the cell failed")
        assert not started[0].alive() and not kept.pairs
        with kept.pair(_plan(0), _starter(tmp_path, started)) as pair:
            assert pair.server is started[1] and pair.cells == 0
    finally:
        kept.close()


def test_a_later_cell_warms_up_for_the_runs_seconds_and_waits_for_the_jits_at_most_the_later_cap(monkeypatch):
    monkeypatch.setattr(kept_module, "LATER_WARMUP_MAX_S", 2.0)
    first = DriveSpec(contender="java", target="t", method="m", requests=[{}], calls=10, warmup_s=5.0,
                      warmup_max_s=30.0)
    later = kept_module.later(first, 0.3, None)
    assert (later.warmup_s, later.warmup_max_s) == (0.3, 2.0)
    assert kept_module.later(first, 3.0, None).warmup_max_s == 3.0  # never under the run's warm-up
    assert kept_module.later(first, 0.3, 12.0).warmup_max_s == 12.0  # the run's --warmup-max wins
    assert kept_module.later(first.but(warmup_max_s=None), 0.3, None).warmup_max_s is None  # no JIT to wait for
    monkeypatch.setattr(kept_module, "LATER_WARMUP_MAX_S", 60.0)
    assert kept_module.later(first, 0.3, None).warmup_max_s == 30.0  # never past the manifest's most


def test_only_a_client_whose_worker_says_so_keeps_its_pairs():
    java = native.client("java", "grpc")
    go = native.client("go", "grpc")
    assert go is not None and not warms_once(go) and not warms_once(None)
    if java is not None:
        assert warms_once(java)


def test_the_arena_keeps_one_jvm_pair_per_trial_and_ends_them_with_the_run(tmp_path):
    java = native.client("java", "grpc")
    if java is None or java.unavailable():
        pytest.skip(f"no Java worker here: {java.unavailable() if java else 'not built'}")
    config = RunConfig(contenders=["grpc-java"], workloads=["usp.int32", "usp.str32"], calls=50, warmup_s=0.1,
                       repeat=2, out=tmp_path / "r.json")
    seen: dict[int, set[tuple[int, int]]] = {}

    def on_cell(i, total, plan, cell):
        if cell is not None:
            pair = contender_cells.CONTENDER_CELLS.kept.pairs[("grpc-java", "java")]
            seen.setdefault(plan.trial, set()).add((pair.server.pid, pair.driver.pid))
    plans = [dataclasses.replace(p, client="java") for p in contender_cells.plans(config)]
    done = Arena(config, plans, on_cell).run()
    assert [c.status for c in done.cells] == ["ok"] * 4, [c.reason for c in done.cells]
    assert all(c.calls == 50 and not any(c.errors.values()) for c in done.cells)
    assert {t: len(pairs) for t, pairs in seen.items()} == {0: 1, 1: 1}  # one pair for both workloads of a trial
    assert seen[0] != seen[1]  # a fresh pair each trial
    pids = {pid for pairs in seen.values() for pair in pairs for pid in pair}
    assert not any(psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE for pid in pids)
