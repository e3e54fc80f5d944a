"""What the tests share, importable from any folder of tests/ (`from tests.helpers.cli import run_cli`).

`cli`: the command in this process or in a fresh one; `fakes`: the fake runner and documents
whose answer is known; `processes`: what a running command started; `tiers`: which tests are
end to end (the rule conftest applies). Fixtures stay in tests/conftest.py.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
FIXTURE = FIXTURES / "results_usp_int32_small.json"
EXAMPLES = ROOT / "examples"
