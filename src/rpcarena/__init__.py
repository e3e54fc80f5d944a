"""rpcarena: which RPC mechanism suits your service, measured soundly.

The library behind the `rpcarena` command. In a notebook:

    import rpcarena
    results = rpcarena.load("results/arena.json")
    df = results.to_pandas()
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from rpcarena.results import Cell, Results, load

__all__ = ["Cell", "Results", "load", "__version__"]


def __getattr__(name: str) -> Any:
    """The results API, loaded on first use: `import rpcarena.cli` (the command) must not wait for
    numpy and the report's libraries before it can answer a Ctrl-C (see __main__)."""
    if name in ("Cell", "Results", "load"):
        from rpcarena import results

        return getattr(results, name)
    raise AttributeError(f"module 'rpcarena' has no attribute {name!r}")
