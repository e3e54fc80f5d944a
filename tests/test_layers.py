"""The layers of the package point down: each module imports only from the layers below its own.

Read from the source with `ast`, so an arrow that runs back up (network importing orchestration,
analysis importing the contender registry, a mechanism importing a seed, suites importing seeds)
fails here, with the line that made it.
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
    "network", "cluster_spec", "worker.pacer",
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
    """The index in LAYERS of the longest entry that names the module or a package holding it."""
    matches = [i for i, name in enumerate(LAYERS) if module == name or module.startswith(name + ".")]
    if not matches:
        raise LookupError(f"{module} is in no layer: add it to LAYERS")
    return max(matches, key=lambda i: len(LAYERS[i]))


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
