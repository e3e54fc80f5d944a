"""`suite NAME --quick` measures exactly the cells its claims' rules read, 3 trials each; without --quick,
the seed's whole design. Run through the real runner and arena over fake cells (nothing measured)."""

from __future__ import annotations

import pytest

from rpcarena.config import RunConfig
from rpcarena.orchestration import contender_cells
from rpcarena.seeds import SUITES
from rpcarena.suites import quick, runner
from rpcarena.suites.evidence import driven
from rpcarena.suites.model import Part, Suite
from rpcarena.suites.setting import Setting
from tests.conftest import fake_arena

# Per suite: the distinct cells --quick measures (each 3 trials), and the cells of the whole --quick design
# before it was cut to what the claims read (issue 43: 13 to 60 minutes on 2 idle CPUs).
QUICK_CELLS = {"usp2018": 52, "hprpc2016": 48, "cs6650": 21, "infobip2016": 36, "predictions": 12,
               "multiplexing": 14}  # + rest-h3-go at 8 and 64 calls in flight over the lossy link
DESIGN_CELLS = {"usp2018": 120, "hprpc2016": 160, "cs6650": 29, "infobip2016": 36, "predictions": 20,
                "multiplexing": 18}


def _run(name, tmp_path, monkeypatch, quick_run=True):
    monkeypatch.setattr(runner, "missing_systems", lambda suite: {})  # every system present, wherever this runs
    return runner.run(SUITES[name], quick=quick_run, repeat=None, out=tmp_path / "s.json", run_arena=fake_arena)


def _measured(name, tmp_path, monkeypatch) -> dict[tuple, list[int]]:
    """(contender, client, workload, clients, setting key) -> the trials the arena measured, with --quick."""
    found: dict[tuple, list[int]] = {}

    def measure(config):
        for p in contender_cells.plans(config):
            where = Setting(config.link, config.connections).key()
            found.setdefault((p.subject.id, p.client, p.workload.id, p.clients, where), []).append(p.trial)
        return fake_arena(config)
    monkeypatch.setattr(runner, "missing_systems", lambda suite: {})
    doc = runner.run(SUITES[name], quick=True, repeat=None, out=tmp_path / "s.json", run_arena=measure)
    assert len(doc.cells) == sum(len(trials) for trials in found.values())
    return found


@pytest.mark.parametrize("name", sorted(SUITES))
def test_quick_measures_every_cell_a_claim_reads_and_no_other(name, tmp_path, monkeypatch):
    measured = _measured(name, tmp_path, monkeypatch)
    needed = {(system, w, n, where.key()) for system, w, n, where in SUITES[name].cells(quick=True)}
    read = {(contender, w, n, where) for contender, client, w, n, where in measured} | \
           {(driven(contender, client), w, n, where) for contender, client, w, n, where in measured}
    assert needed <= read, sorted(needed - read, key=str)
    unread = [cell for cell in measured if not {(cell[0], *cell[2:]), (driven(cell[0], cell[1]), *cell[2:])} & needed]
    assert not unread, unread
    assert len(measured) == QUICK_CELLS[name]
    assert all(sorted(trials) == [0, 1, 2] for trials in measured.values())  # a fixed 3 trials, none added


@pytest.mark.parametrize("name", sorted(SUITES))
def test_without_quick_the_whole_design_is_planned(name, tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "missing_systems", lambda suite: {})
    configs = [c for _, c, _ in runner.configs(SUITES[name], False, 1, tmp_path / "s.json")]
    assert all(c is not None and c.cells is None for c in configs)
    quick_design = [runner.part_config(p, {}, True, 1, tmp_path / "s.json") for p in SUITES[name].parts]
    assert sum(len(contender_cells.plans(c)) for c in quick_design if c) == DESIGN_CELLS[name]


@pytest.mark.parametrize("name", sorted(SUITES))
def test_every_cell_a_claim_reads_is_in_a_part(name):
    assert quick.unheld(SUITES[name]) == []


def test_a_part_no_claim_reads_is_left_out_and_said_so(tmp_path, monkeypatch):
    doc = _run("cs6650", tmp_path, monkeypatch)
    parts = {p["title"]: p for p in doc.config["parts"]}
    text = parts["Exp. 2: the whole text in one call"]
    assert text["left_out"] == runner.LEFT_OUT and "skipped" not in text  # claims name skipped parts only
    assert not any(c.workload == "cs6650.text" and not c.link for c in doc.cells)


def test_a_contender_named_alone_is_its_parts_first_client_and_a_driven_one_its_own():
    part = Part("p", ("rest-fastapi",), ("cs6650.word",), calls=10, quick_calls=10,
                client_drivers=("py-newconn", "go-newconn"))
    suite = Suite("s", "seed", "one part", (part,), ())
    alone, newconn = ("rest-fastapi", "cs6650.word", 1, Setting()), (driven("rest-fastapi", "go-newconn"),
                                                                      "cs6650.word", 1, Setting())
    assert quick.key(alone) == ("rest-fastapi", None, "cs6650.word", 1)
    assert quick.key(newconn) == ("rest-fastapi", "go-newconn", "cs6650.word", 1)
    for cells, clients in (([quick.key(alone)], ["py-newconn"]), ([quick.key(newconn)], ["go-newconn"])):
        config = RunConfig(contenders=["rest-fastapi"], workloads=["cs6650.word"], repeat=1,
                           client_drivers=list(part.client_drivers), cells=cells)
        assert [p.client for p in contender_cells.plans(config)] == clients
    assert quick.by_part(suite) == [[]]  # no claim reads it


def test_the_cells_a_configuration_keeps_survive_its_json(tmp_path):
    config = RunConfig(contenders=["grpc-py"], workloads=["usp.void"], cells=[("grpc-py", None, "usp.void", 1)])
    again = RunConfig.from_json(config.to_json(), "test")
    assert again.cells == config.cells and not config.differences(again)


def test_the_help_says_each_suites_quick_minutes_from_its_table_measured_or_estimated():
    from rpcarena.commands.suite import _quick_times
    said = _quick_times()
    for name, suite in SUITES.items():
        figure = f"{name} about {suite.quick_minutes:g} min (estimated)" if suite.quick_estimated else \
            f"{name} {suite.quick_minutes:g} min"
        assert suite.quick_minutes and figure in said, (name, said)
