"""A suite's findings in the terminal at every width from 80 columns (issue 40): each claim whole, wrapped
between words under its verdict, its measured rows and why wrapped under their first word; no line
wider than the terminal, no word cut or split across lines, with and without --wide."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from rpcarena.analysis import stats
from rpcarena.report.findings import deciding, findings_table
from rpcarena.seeds import SUITES
from rpcarena.suites.model import Finding, Measured
from rpcarena.suites.vocabulary import MAGNITUDE, UNDECIDED
from tests.helpers.cli import cli

ROW = Measured("rpyc-tuple-nodelay/grpc-py usp.distance x1 over the wifi link", "mean latency of the calls "
               "from p2 to p98", stats.Ratio(1.4, stats.Interval(1.4, 1.34, 1.46), (3, 3)),
               "direction only, size off: not up to 10x")
WHY = ("left out: rpyc's echoes of functions 8-11 (lists and a Person) hand back a netref to the client's own "
       "object, so no data moves (about 300 bytes a call against the whole array for gRPC)\n"
       "the opposite for 1 of 2 cells (rpyc-nodelay/rpyc-tuple-nodelay usp.distance x1)")


def every_claim() -> list[Finding]:
    """Each published claim of every suite, as long as the seeds write them, with long rows beneath."""
    return [Finding(claim.text, "HPRPC 9.3% faster (Table 4, 10,000 calls)", (ROW, ROW), MAGNITUDE if k % 2 else
                    UNDECIDED, "direction holds, magnitude differs" if k % 2 else "cannot tell", WHY,
                    "mean latency of the calls from p2 to p98 rpyc/grpc-py (1.82x means rpyc takes 1.82 times as "
                    "long as grpc-py); direction (by any factor): shown when its interval lies above 1")
            for suite in SUITES.values() for k, claim in enumerate(suite.claims)]


def shown(found: list[Finding], width: int, wide: bool) -> list[str]:
    console = Console(record=True, width=width, file=io.StringIO())
    console.print(findings_table(found, wide))
    return [line.rstrip() for line in console.export_text().splitlines()]


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("width", [80, 120])
def test_every_claim_fits_the_terminal_whole_and_no_word_is_split(width, wide):
    found = every_claim()
    lines = shown(found, width, wide)
    assert max(len(line) for line in lines) <= width
    assert not [line for line in lines if "…" in line]
    unwrapped = set(" ".join(shown(found, 10_000, wide)).split())
    assert [word for line in lines for word in line.split() if word not in unwrapped] == []
    said = " ".join(line.strip() for line in lines)
    for f in found:  # the claim whole, as the seed wrote it, beside its verdict
        assert f"{f.said} {deciding(f)} {' '.join(f.claim.split())}" in " ".join(said.split())
    assert ("the seed's numbers: HPRPC 9.3%" in said) == wide and ("judged by: mean latency" in said) == wide


def test_a_claims_rows_and_why_are_indented_under_it():
    lines = shown(every_claim()[:1], 80, wide=False)
    assert lines[1].startswith(" 1. cannot tell  1.40x [1.34, 1.46] (1 of 2)  ")
    rest = lines[2:]
    assert all(line.startswith("    ") for line in rest), "\n".join(lines)
    rows = [line for line in rest if line.startswith("    - ")]
    assert [row.split(" ")[5:8] for row in rows] == [["mean", "latency", "of"]] * 2 + [["why:", "left", "out:"],
                                                                                       ["why:", "the", "opposite"]]
    below = rest[rest.index(rows[0]):]
    assert all(line.startswith("      ") for line in below if line not in rows)  # a row's own wrapped lines


def test_show_of_a_suites_document_says_its_findings_as_the_suite_did(tmp_path):
    out = tmp_path / "s.json"
    ran = cli("suite", "predictions", "--quick", "--repeat", "3", "--debug-mode", "-o", str(out), env={"COLUMNS": "80"})
    assert ran.returncode == 0, ran.stderr
    shown_again = cli("show", str(out), env={"COLUMNS": "80"})
    assert shown_again.returncode == 0, shown_again.stderr
    assert "answer, " in ran.stdout and "\nresults:" in ran.stdout, ran.stdout + ran.stderr
    said = ran.stdout[ran.stdout.index("answer, "):ran.stdout.index("\nresults:") + 1]  # its path may wrap
    assert "\nfindings\n 1. " in said and shown_again.stdout == said
    lines = said.splitlines()
    assert max(len(line) for line in lines) <= 80 and not [line for line in lines if "…" in line]
