"""rpcarena: which RPC mechanism suits your service, measured soundly.

The library behind the `rpcarena` command. In a notebook:

    import rpcarena
    results = rpcarena.load("results/arena.json")
    df = results.to_pandas()
"""

from __future__ import annotations

__version__ = "0.1.0"

from rpcarena.results import Cell, Results, load  # noqa: E402

__all__ = ["Cell", "Results", "load", "__version__"]
