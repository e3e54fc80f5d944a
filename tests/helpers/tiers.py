"""Which tests are end to end: the one rule tests/conftest.py applies, so no test is marked by hand.

A test is `e2e` when it, a fixture it uses or a function of the tests it calls refers to something
that starts a process: a server (`start_server`, `ServerProcess`), the CLI in a fresh process
(`run_cli`, `popen_cli`, `subprocess`), or in this process measuring or building for real
(`cli("run", ...)` without `--debug-mode`, `cli("build")`), a native worker or a schema variant's
build, a cluster, a link, a Redis, a proxy, or the arena over real plans (the plans of
`contender_cells`, `targets.cells`, `cluster` and an `Arena` or `find_max` in the same test).
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
import importlib
import inspect
import multiprocessing
import subprocess
import sys
import types
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rpcarena.cluster import cells as cluster_cells
from rpcarena.cluster import engine as cluster_engine
from rpcarena.cluster import targets as cluster_targets
from rpcarena.cluster import testbed
from rpcarena.network import proxy
from rpcarena.network.link import Link
from rpcarena.orchestration import contender_cells
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.findmax import find_max
from rpcarena.orchestration.measure import measure
from rpcarena.orchestration.phase import Phase
from rpcarena.process.builds import Worker
from rpcarena.process.children import Child
from rpcarena.process.server_process import ServerProcess
from rpcarena.seeds.predictions.store import RedisStore
from rpcarena.targets import cells as target_cells
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
    Worker.ensure_built, STARTS_METHOD,
)
DEBUG_MODE = "--debug-mode"  # a measuring command that makes its cells up (orchestration.debug_cells)
STARTING_MODULES = ("distributed",)  # Dask: its clusters start worker processes
# the plans of real cells: they start processes once an arena runs them
REAL_PLANS: tuple[Any, ...] = (contender_cells.plans, target_cells.plans, cluster_cells.plans, cluster_targets.plans)
RUNS_PLANS: tuple[Any, ...] = (Arena, find_max)
# one-shot tools a unit test may run (through the code it tests: the sweep of what a dead rpcarena
# left, the git revision of the environment, protoc compiling a schema into descriptors, cached)
QUICK_TOOLS = frozenset({"git", "nft", "ip", "protoc", "sysctl", "tc", "ethtool", "sudo", "uname"})
QUICK_MODULES = frozenset({"grpc_tools.protoc"})  # python -m MODULE


def is_e2e(item: pytest.Item) -> bool:
    """Whether `item` starts a process, by the rule of this module's docstring."""
    found = _Found()
    for function in _walked(item):
        found.read(function, getattr(item, "cls", None))
        if found.starts:
            return True
    return found.starts


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


def _ours(obj: Any) -> bool:
    """A function or class of a test module or conftest (not of tests/helpers, listed in STARTS)."""
    try:
        path = Path(inspect.getfile(obj)).resolve()
    except (TypeError, OSError):
        return False
    return TESTS in path.parents and HELPERS not in path.parents


class _Found:
    """What the code read so far names: a starter, real plans, an arena to run them."""

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.starter = self.plans = self.runs = self.measuring_cli = self.debug = False

    @property
    def starts(self) -> bool:
        return self.starter or (self.plans and self.runs) or (self.measuring_cli and not self.debug)

    def read(self, function: Any, cls: type | None = None) -> None:
        code = getattr(function, "__code__", None)
        if code is None or id(code) in self.seen:
            return
        self.seen.add(id(code))
        self._code(code, function.__globals__, {"self": cls} if cls else {})

    def _code(self, code: types.CodeType, globals_: dict[str, Any], local: dict[str, Any]) -> None:
        for obj, after in _named(code, globals_, local):
            self._judge(obj, after)
        for const in code.co_consts:  # lambdas, nested functions, comprehensions
            if isinstance(const, types.CodeType) and id(const) not in self.seen:
                self.seen.add(id(const))
                self._code(const, globals_, dict(local))

    def _judge(self, obj: Any, after: Any) -> None:
        if obj is cli.cli:  # in this process: it measures (or builds) when its command does, unless in debug mode
            self.measuring_cli |= not (isinstance(after, str) and after not in cli.STARTING)
        elif obj == DEBUG_MODE if isinstance(obj, str) else isinstance(obj, (tuple, list)) and DEBUG_MODE in obj:
            self.debug = True
        elif any(obj is s for s in STARTS) or _from_starting_module(obj):
            self.starter = True
        elif any(obj is p for p in REAL_PLANS):
            self.plans = True
        elif any(obj is r for r in RUNS_PLANS):
            self.runs = True
        elif inspect.isclass(obj) and _ours(obj):
            for member in vars(obj).values():
                self.read(getattr(member, "__func__", member), obj)
        elif inspect.isfunction(obj) and _ours(obj):
            self.read(obj)


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
            obj = name if name == DEBUG_MODE or isinstance(name, tuple) else None
        elif op in ("STORE_FAST", "STORE_DEREF", "STORE_NAME"):
            local[name] = obj
            continue
        else:
            continue
        following = instructions[k + 1] if k + 1 < len(instructions) else None
        yield obj, following.argval if following is not None and following.opname == "LOAD_CONST" else None


def _module(name: str) -> Any:
    if not name or name.startswith("."):
        return None
    if name in sys.modules:
        return sys.modules[name]
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


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
