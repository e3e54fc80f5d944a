"""The layers of the package point down: each module imports only from the layers below its own.

Read from the source with `ast`, so an arrow that runs back up (network importing orchestration,
analysis importing the contender registry, a mechanism importing a seed, suites importing seeds)
fails here, with the line that made it. A layer is a whole top-level module or package, never a
part of one, so the packages themselves import each other in one direction: a package split over
two layers hides a cycle between packages that no module-level check sees.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rpcarena

SOURCE = Path(rpcarena.__file__).parent

# Lowest first: a module may import from its own layer and those before it, never after.
LAYERS = (
    "errors", "files", "thresholds", "suggest", "sources", "clients", "contract", "protocol", "codec", "environment",
    "process",  # children, leftovers, CPU clock, server process, placement, builds
    "network", "cluster_spec",
    "record",  # HdrHistograms, a cell's intervals and their trend: what results are recomputed from
    "workloads",
    "userschema",  # a workload from the user's own schema and samples (its servers' handlers: python_server)
    "config", "results", "analysis", "contenders",
    "conformance",  # the conformance corpus run through `rpcarena run` processes, judged
    "targets",  # a target, its options and its clients, chosen from its description (its runner: target_runner)
    "worker", "suites", "seeds",
    "python_server",  # the Python server process: its entry registers the seeds' and the user's schema's handlers
    "orchestration",
    "target_runner",  # a target as the arena runs it: its cells, its native drivers
    "cluster", "report", "commands", "cli", "__main__",
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    where = SOURCE.joinpath(*name.split("."))
    return where.with_suffix(".py").exists() or (where / "__init__.py").exists()


def _imported(tree: ast.AST, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, module within rpcarena) of every import in a module, relative ones resolved."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                base = ".".join(["rpcarena", *package[:len(package) - node.level + 1], *([base] if base else [])])
            for alias in node.names:
                name = f"{base}.{alias.name}".removeprefix("rpcarena.")
                found.append((node.lineno, f"rpcarena.{name}" if _is_module(name) else base))
    return [(line, name.removeprefix("rpcarena.")) for line, name in found
            if name.startswith("rpcarena.")]


def layer(module: str) -> int:
    """The index in LAYERS of the module's top-level module or package."""
    top = module.split(".")[0]
    if top not in LAYERS:
        raise LookupError(f"{module} is in no layer: add {top} to LAYERS")
    return LAYERS.index(top)


def _arrows() -> list[tuple[str, int, str]]:
    arrows = []
    for path in sorted(SOURCE.rglob("*.py")):
        module = _module_name(path)
        if not module:
            continue  # the package itself: the notebook's facade over results
        tree = ast.parse(path.read_text(), str(path))
        arrows += [(module, line, target) for line, target in _imported(tree, module, path.name == "__init__.py")]
    return arrows


def test_every_module_has_a_layer():
    modules = [_module_name(p) for p in SOURCE.rglob("*.py")]
    assert [m for m in modules if m and not _has_layer(m)] == []


def _has_layer(module: str) -> bool:
    try:
        layer(module)
    except LookupError:
        return False
    return True


def _package_arrows() -> dict[str, dict[str, str]]:
    """Top-level package -> each one it imports -> the first import that makes that arrow."""
    arrows: dict[str, dict[str, str]] = {}
    for module, line, target in _arrows():
        source, into = module.split(".")[0], target.split(".")[0]
        if target and into != source:
            arrows.setdefault(source, {}).setdefault(into, f"{module}:{line} imports {target}")
    return arrows


def _cycle(arrows: dict[str, dict[str, str]]) -> list[str]:
    """The imports that make one cycle of packages (depth first), or [] when they make none."""
    done: set[str] = set()

    def visit(package: str, path: list[str]) -> list[str]:
        if package in path:
            ring = [*path[path.index(package):], package]
            return [arrows[a][b] for a, b in zip(ring, ring[1:])]
        if package in done:
            return []
        for into in sorted(arrows.get(package, {})):
            if found := visit(into, [*path, package]):
                return found
        done.add(package)
        return []

    return next((found for package in sorted(arrows) if (found := visit(package, []))), [])


def test_every_layer_is_a_whole_top_level_module_or_package():
    def at_top(name: str) -> bool:
        return (SOURCE / name).is_dir() or (SOURCE / f"{name}.py").exists()

    assert [name for name in LAYERS if "." in name or not at_top(name)] == []


def test_no_cycle_between_packages():
    cycle = _cycle(_package_arrows())
    assert not cycle, "packages that import each other in a ring:\n  " + "\n  ".join(cycle)


def test_a_cycle_is_found_and_told():
    arrows = {"a": {"b": "a.x:1 imports b.y"}, "b": {"c": "b.y:2 imports c"}, "c": {"a": "c:3 imports a.x"},
              "d": {"a": "d:4 imports a"}}
    assert _cycle(arrows) == ["a.x:1 imports b.y", "b.y:2 imports c", "c:3 imports a.x"]
    assert _cycle({"a": {"b": "a:1 imports b"}, "d": {"a": "d:2 imports a", "b": "d:3 imports b"}}) == []


def test_no_import_points_up():
    up = [f"{module}:{line} imports {target}" for module, line, target in _arrows()
          if target and layer(target) > layer(module)]
    assert up == []


@pytest.mark.parametrize("module, target, upward", [
    ("network.link", "orchestration.arena", True), ("analysis.floor", "contenders", True),
    ("contenders.grpc_py", "seeds.predictions.service", True), ("suites.findings", "seeds", True),
    ("config", "cluster.engine", True), ("orchestration.context", "cluster.engine", True),
    ("seeds.usp2018.suite", "suites.rules", False), ("results", "record.hist", False),
    ("config", "process.placement", False),
])
def test_the_layers_order_the_arrows_the_issue_named(module, target, upward):
    assert (layer(target) > layer(module)) is upward
