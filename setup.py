"""The wheel carries rpcarena's tree: proto/ and the sources its native workers build from.

So that an installed copy builds the Go, Rust and Java workers (and the delay line) as a checkout
does, `build_py` copies the tree into the built package as `rpcarena/_tree`, laid out as in the
repository; `rpcarena.sources` says which files and why, and finds them at run time. A build hook
rather than package-data globs: the manifests' `sources` are the one list (build output, caches and
generated code stay out whatever lies in the checkout), and the same code ships it and hashes it.
Everything else is in pyproject.toml.
"""

import sys
import types
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# rpcarena.sources without rpcarena/__init__.py, whose imports need what a build environment lacks.
_package = types.ModuleType("rpcarena")
_package.__path__ = [str(HERE / "src" / "rpcarena")]
sys.modules["rpcarena"] = _package
from rpcarena import sources  # noqa: E402


class BuildWithTree(build_py):
    """build_py, then the tree into the built package; not for an editable install, whose
    checkout is its own tree."""

    def run(self):
        super().run()
        if not getattr(self, "editable_mode", False):
            sources.copy(HERE, Path(self.build_lib) / "rpcarena" / sources.TREE)


setup(cmdclass={"build_py": BuildWithTree})
