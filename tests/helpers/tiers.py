"""Which tests are end to end: the one rule tests/conftest.py applies, so no test is marked by hand.

A test is `e2e` when it, a fixture it uses or a function of the tests it calls refers to something
that starts a process: a server (`start_server`, `ServerProcess`), the CLI in a fresh process
(`run_cli`, `popen_cli`, `subprocess`), or in this process measuring or building for real
(`cli("run", ...)` without `--debug-mode`, `cli("build")`), a native worker or a schema variant's
build, a cluster, a link, a Redis, a proxy, or the arena over real plans (the plans of
`contender_cells`, `target_runner.cells`, `cluster` and an `Arena` or `find_max` in the same test).
Everything else is the unit tier, which `make check` runs; `unit_guard` (an autouse fixture in
conftest) fails a unit test that starts a process after all, naming it, so the rule cannot drift
from what the tests do.

The rule reads the bytecode of the test and of every function and class of tests/ it reaches
(`dis`), resolving the globals, attributes and imports it names to the objects they are; the
helpers in tests/helpers/ are not followed, their process-starting ones are listed below.
"""

from __future__ import annotations

import builtins
import dis
import inspect
import multiprocessing
import subprocess
import sys
import types
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rpcarena import conformance
from rpcarena.cluster import cells as cluster_cells
from rpcarena.cluster import engine as cluster_engine
from rpcarena.cluster import targets as cluster_targets
from rpcarena.cluster import testbed
from rpcarena.cluster.private import Private
from rpcarena.network import proxy
from rpcarena.network.link import Link
from rpcarena.orchestration import contender_cells
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.findmax import find_max
from rpcarena.orchestration.measure import measure
from rpcarena.orchestration.phase import Phase
from rpcarena.process.builds import Worker, run_step
from rpcarena.process.children import Child
from rpcarena.process.server_process import ServerProcess
from rpcarena.seeds.predictions.store import RedisStore
from rpcarena.target_runner import cells as target_cells
from tests.helpers import cli

TESTS = Path(__file__).resolve().parents[1]
HELPERS = Path(__file__).resolve().parent

# methods called on an object the test made, which the rule cannot follow to its class
STARTING_METHODS = frozenset({"ensure_built"})
STARTS_METHOD = object()  # what such a method call reads as
# each starts a process when called (a module: whatever the test calls in it)
STARTS: tuple[Any, ...] = (
    subprocess, multiprocessing, cli.run_cli, cli.popen_cli, ServerProcess, Child, measure, Phase, RedisStore,
    proxy.Haproxy, Link, testbed.Testbed, cluster_engine.Engine, cluster_cells.ClusterCells, cluster_cells.shared,
    Worker.ensure_built, run_step, conformance.run_corpus, Private, STARTS_METHOD,
)
DEBUG_OPTION = "--debug-mode"  # a measuring command that makes its cells up (orchestration.debug_cells)
STARTING_MODULES = ("distributed",)  # Dask: its clusters start worker processes
# the plans of real cells: they start processes once an arena runs them
REAL_PLANS: tuple[Any, ...] = (contender_cells.plans, target_cells.plans, cluster_cells.plans, cluster_targets.plans)
RUNS_PLANS: tuple[Any, ...] = (Arena, find_max)
_STARTS, _REAL_PLANS, _RUNS_PLANS = ({id(o) for o in objects} for objects in (STARTS, REAL_PLANS, RUNS_PLANS))
# one-shot tools a unit test may run (through the code it tests: the sweep of what a dead rpcarena
# left, the git revision of the environment, protoc compiling a schema into descriptors, cached)
QUICK_TOOLS = frozenset({"git", "nft", "ip", "protoc", "sysctl", "tc", "ethtool", "sudo", "uname"})
QUICK_MODULES = frozenset({"grpc_tools.protoc"})  # python -m MODULE


def is_e2e(item: pytest.Item) -> bool:
    """Whether `item` starts a process, by the rule of this module's docstring."""
    found = 0
    for function in _walked(item):
        found |= _summary(function, getattr(item, "cls", None))
    return starts(found)


def _walked(item: pytest.Item) -> Iterator[Any]:
    """The test's function and the functions of the fixtures it uses that tests/ defines."""
    obj = getattr(item, "obj", None)
    if obj is not None:
        yield getattr(obj, "__func__", obj)
    info = getattr(item, "_fixtureinfo", None)
    for name in item.fixturenames if info else ():
        for fixture in info.name2fixturedefs.get(name, ()):
            if _ours(fixture.func):
                yield fixture.func


_OURS: dict[int, bool] = {}


def _ours(obj: Any) -> bool:
    """A function or class of a test module or conftest (not of tests/helpers, listed in STARTS)."""
    if id(obj) not in _OURS:
        try:
            path = Path(inspect.getfile(obj)).resolve()
        except (TypeError, OSError):
            path = HELPERS
        _OURS[id(obj)] = TESTS in path.parents and HELPERS not in path.parents
    return _OURS[id(obj)]


# What some code names, itself or through the code of tests/ it calls: bits of an int, or-ed together
STARTER, PLANS, RUNS, MEASURING_CLI, DEBUG = 1, 2, 4, 8, 16  # a starter, real plans, an arena to run them,
# the command measuring in this process, --debug-mode


def starts(found: int) -> bool:
    real_plans_run = found & (PLANS | RUNS) == PLANS | RUNS
    return bool(found & STARTER) or real_plans_run or found & (MEASURING_CLI | DEBUG) == MEASURING_CLI


_SUMMARIES: dict[tuple[int, int], int] = {}  # a function's (and its class's) once read: tests share them


def _summary(function: Any, cls: type | None = None) -> int:
    code = getattr(function, "__code__", None)
    if code is None:
        return 0
    key = (id(code), id(cls))
    if key not in _SUMMARIES:
        _SUMMARIES[key] = 0  # while it is read: a call back into it adds nothing
        _SUMMARIES[key] = _read(code, function.__globals__, {"self": cls} if cls else {})
    return _SUMMARIES[key]


def _read(code: types.CodeType, globals_: dict[str, Any], local: dict[str, Any]) -> int:
    found = 0
    for obj, after in _named(code, globals_, local):
        found |= _judged(obj, after)
    for const in code.co_consts:  # lambdas, nested functions, comprehensions
        if isinstance(const, types.CodeType):
            found |= _read(const, globals_, dict(local))
    return found


def _judged(obj: Any, after: Any) -> int:
    if obj is cli.cli:  # in this process: it measures (or builds) when its command does, unless in debug mode
        return 0 if isinstance(after, str) and after not in cli.STARTING else MEASURING_CLI
    if obj == DEBUG_OPTION if isinstance(obj, str) else isinstance(obj, (tuple, list)) and DEBUG_OPTION in obj:
        return DEBUG
    if id(obj) in _STARTS or _from_starting_module(obj):
        return STARTER
    if id(obj) in _REAL_PLANS:
        return PLANS
    if id(obj) in _RUNS_PLANS:
        return RUNS
    if inspect.isclass(obj) and _ours(obj):
        found = 0
        for member in vars(obj).values():
            found |= _summary(getattr(member, "__func__", member), obj)
        return found
    if inspect.isfunction(obj) and _ours(obj):
        return _summary(obj)
    return 0


def _from_starting_module(obj: Any) -> bool:
    name = obj.__name__ if inspect.ismodule(obj) else getattr(obj, "__module__", None) or ""
    return isinstance(name, str) and name.partition(".")[0] in STARTING_MODULES


def _named(code: types.CodeType, globals_: dict[str, Any], local: dict[str, Any]) -> Iterable[tuple[Any, Any]]:
    """Each object the code names (a global, an attribute of a module or class it names, what it
    imports, a local bound to one of those), with the constant loaded right after it (the first
    argument of a call: `cli("show", ...)`)."""
    obj: Any = None
    imported: Any = None
    instructions = list(dis.get_instructions(code))
    for k, ins in enumerate(instructions):
        op, name = ins.opname, ins.argval
        if op in ("LOAD_GLOBAL", "LOAD_NAME"):
            obj = globals_.get(name, getattr(builtins, name, None))
        elif op in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_CLASSDEREF"):
            obj = local.get(name)
        elif op in ("LOAD_ATTR", "LOAD_METHOD"):
            obj = getattr(obj, name, None) if inspect.ismodule(obj) or inspect.isclass(obj) else None
            obj = STARTS_METHOD if name in STARTING_METHODS else obj
        elif op == "IMPORT_NAME":
            obj = imported = _module(name)
        elif op == "IMPORT_FROM":
            obj = getattr(imported, name, None)
            if obj is None and inspect.ismodule(imported):
                obj = _module(f"{imported.__name__}.{name}")
        elif op == "LOAD_CONST":  # "--debug-mode", or a tuple of options holding it
            obj = name if name == DEBUG_OPTION or isinstance(name, tuple) else None
        elif op in ("STORE_FAST", "STORE_DEREF", "STORE_NAME"):
            local[name] = obj
            continue
        else:
            continue
        following = instructions[k + 1] if k + 1 < len(instructions) else None
        yield obj, following.argval if following is not None and following.opname == "LOAD_CONST" else None


def _module(name: str) -> Any:
    """The module, if imported already (what a test imports inside its body and nothing imported
    before goes unread: the unit tier's guard sees it)."""
    return sys.modules.get(name)


def guard_unit(monkeypatch: pytest.MonkeyPatch, nodeid: str) -> None:
    """Fail this unit test at its first process start other than a quick tool (QUICK_TOOLS)."""
    execute = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def checked(self: subprocess.Popen, args: Any, *rest: Any, **kwargs: Any) -> Any:
        argv = [str(a) for a in ([args] if isinstance(args, (str, bytes)) else args)]
        if not _quick(argv):
            pytest.fail(f"{nodeid} is in the unit tier but starts {' '.join(argv)[:120]!r}: make what it "
                        "calls a starter in tests/helpers/tiers.py (STARTS)", pytrace=False)
        return execute(self, args, *rest, **kwargs)

    def forked() -> int:
        pytest.fail(f"{nodeid} is in the unit tier but forks: see tests/helpers/tiers.py", pytrace=False)

    monkeypatch.setattr(subprocess.Popen, "_execute_child", checked)
    monkeypatch.setattr("os.fork", forked)


def _quick(argv: list[str]) -> bool:
    tool = Path(argv[0].split()[0]).name if argv else ""
    return tool in QUICK_TOOLS or (argv[1:2] == ["-m"] and argv[2:3] != [] and argv[2] in QUICK_MODULES)
