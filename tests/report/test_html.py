"""Reports and exports from a real small run (tests/fixtures), and `rpcarena run --report`."""

from __future__ import annotations

import csv
import dataclasses
import html
import json
import re

import pytest

import rpcarena
from rpcarena import report
from rpcarena.analysis.groups import group
from rpcarena.report import overview
from rpcarena.seeds import SUITES
from rpcarena.suites.findings import findings
from tests.conftest import cli, document, trials
from tests.helpers import FIXTURE


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("report") / "report.html"
    report.write_html([report.Source("run", rpcarena.load(FIXTURE))], out)
    return out.read_text()


def test_page_is_self_contained(page):
    assert "<script" not in page and "<link" not in page
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing fetched: opens offline


def test_page_has_every_chart_and_the_context(page):
    assert page.count("<svg") == 8  # the heatmap; boxplot, intervals, histogram, scatter, clients, cpu, bytes
    assert page.count('class="chart"') == 7
    for text in ("usp.int32", "median µs", "× best median over trials [95% CI]", "environment", "cpu_model", "calls"):
        assert text in page
    assert "<td>n/s</td>" in page and "p99 n/s: fewer than 1,000 calls" in page  # 300 calls: p99 said unsupported


def test_page_opens_with_the_answer(page):
    """Summary first (winners, heatmap, warnings), then the contents, then the details."""
    order = [page.index(marker) for marker in ('<section id="summary"', 'id="contents"', 'id="w-usp.int32"',
                                                'id="environment"')]
    assert order == sorted(order)
    summary = page[order[0]:order[1]]
    # the one RPC mechanism is the fastest at 1 and at 2 clients; the echo is their floor, not a contender
    assert summary.count("<b>grpc-py</b>") == 2 and "<b>tcp-raw</b>" not in summary
    assert len(re.findall(r"<td[^>]*>tcp-raw [\d,.]+ µs</td>", summary)) == 2
    assert "floor (median of its fastest trial, µs)" in summary
    assert "usp.int32 · 1 client" in summary and "usp.int32 · 2 clients" in summary
    assert summary.count('<rect') == 2 and summary.count("1.00×") == 2  # 1 mechanism × 2 comparisons
    assert "fewer than 10 lie beyond" not in summary  # the p99 is n/s in the table; no warning repeats it
    assert '<a href="#w-usp.int32">' in page[order[1]:order[2]]


def test_charts_have_hover_values(page):
    titles = re.findall(r"<title>([^<]*)</title>", page)
    assert {"grpc-py x1: best", "grpc-py x2: best"} <= set(titles)  # the ratio bars: tcp-raw is the floor
    assert any(t.startswith("grpc-py on usp.int32 · 2 clients: median") and "the fastest" in t for t in titles)
    assert 'id="tip-' not in page  # every encoded tooltip became a <title>


def test_a_suite_report_opens_with_its_claims(tmp_path):
    doc = rpcarena.load(FIXTURE)
    found = findings(SUITES["usp2018"], doc, {"rpyc": "not installed"})
    page = report.write_html([report.Source("usp2018", doc, found)], tmp_path / "s.html").read_text()
    summary = page[page.index('<section id="summary"'):page.index('id="contents"')]
    assert summary.index("<h3>Claims</h3>") < summary.index("<h3>Fastest per comparison</h3>")
    assert all(html.escape(f.claim) in summary and html.escape(f.said) in summary for f in found)
    assert '<a href="#findings">Findings</a>' in page[page.index('id="contents"'):]


def test_the_deciding_ratio_is_a_judged_row_never_one_shown_beside():
    """cs6650's link claims are judged on the new-connection REST; the keep-alive and go-newconn rows
    beside them are significant but not the seed's: the verdict line must print the judged ratio."""
    from rpcarena.analysis.stats import Interval, Ratio
    from rpcarena.report.findings import deciding
    from rpcarena.suites.model import Finding, Measured

    def row(what: str, estimate: float, significance: str) -> Measured:
        interval = Interval(estimate, estimate - 0.01, estimate + 0.01)
        return Measured(what, "mean latency", Ratio(estimate, interval, (3, 3)), significance)
    judged = row("rest-fastapi<-py-newconn/grpc-py cs6650.word x1", 2.12, "shown")
    keep_alive = row("rest-fastapi/grpc-py cs6650.word x1", 1.08, "beside: keep-alive REST (above 1; not judged)")
    go_newconn = row("rest-fastapi<-go-newconn/grpc-py cs6650.word x1", 2.09,
                     "beside: a new connection per call from go-newconn (above 1; not judged)")
    found = Finding("Exp. 1", "2x", (keep_alive, judged, go_newconn), "holds", "holds", "", "")
    assert deciding(found) == judged.shown
    # of two judged rows, the one that does not simply show the claim decides
    shown, other = row("JSON/MML x1 at 100 items", 1.0, "shown"), row("JSON/MML x32 at 100 items", 1.93,
                                                                      "not equivalent")
    catch_up = Finding("HTTP equals MML", "igualaron", (shown, other), "does not hold", "does not hold", "", "")
    assert deciding(catch_up) == other.shown + " (2 of 2)"


def test_a_suite_report_gives_each_claim_its_table_with_the_deciding_ratio_over_trials(tmp_path):
    from rpcarena.report.findings import CLAIM_HEADERS, deciding
    doc = rpcarena.load(FIXTURE)
    found = findings(SUITES["usp2018"], doc, {"rpyc": "not installed"})
    page = report.write_html([report.Source("usp2018", doc, found)], tmp_path / "s.html").read_text()
    details = page[page.index('<section id="findings"'):]
    heads = re.findall(r"<h3>(\d+)\. ", details)
    assert heads == [str(n) for n in range(1, len(found) + 1)]
    assert details.count(html.escape(CLAIM_HEADERS[2])) == len(found)
    for f in found:  # in its own section, after its heading: the verdict and the ratio that decides it
        own = details[details.index(f"<h3>{found.index(f) + 1}. "):]
        assert own.index(html.escape(f.said)) < own.index("</section>")
        assert own.index(html.escape(deciding(f))) < own.index("</section>")


def test_the_heatmap_turns_when_comparisons_outnumber_contenders():
    groups = group(document(*(trials(name, w, scale) for name, scale in (("a", 1.0), ("b", 2.0))
                              for w in ("w1", "w2", "w3"))).cells)
    found = overview.comparisons({w: [g for g in groups if g.workload == w] for w in ("w1", "w2", "w3")})
    drawn = overview.heatmap(found, {w: f"w-{w}" for w in ("w1", "w2", "w3")})
    row_labels = re.findall(r'text-anchor="end">([^<]+)</text>', drawn)
    assert row_labels == ["w1", "w2", "w3"] and drawn.count("<rect") == 6
    assert drawn.count(">1.00×<") == 3 and drawn.count(">2.00×<") == 3  # b is twice a's median, everywhere
    assert overview.colour(1.0) == "#1a9850" and overview.colour(overview.WORST_RATIO * 3) == "#d73027"


def test_a_report_of_nothing_measured_says_so(tmp_path):
    doc = rpcarena.load(FIXTURE)
    failed = dataclasses.replace(doc, cells=[dataclasses.replace(c, status="failed", reason="boom", calls=0)
                                             for c in doc.cells])
    page = report.write_html([report.Source("run", failed)], tmp_path / "f.html").read_text()
    summary = page[page.index('<section id="summary"'):page.index('id="contents"')]
    assert "nothing to name fastest" in summary and "8 of 8 cells not measured" in summary


def test_intervals_do_not_wrap(page):
    assert ".numbers td{white-space:nowrap}" in page and ".summary td{white-space:nowrap}" in page


def test_trimmed_report_says_so(tmp_path):
    out = report.write_html([report.Source("run", rpcarena.load(FIXTURE))], tmp_path / "t.html", trimmed=True)
    assert "trimmed" in out.read_text() and "p2..p98" in out.read_text()


@pytest.mark.parametrize("fmt, magic", [("png", b"\x89PNG"), ("svg", b"<?xml")])
def test_figures_export(tmp_path, fmt, magic):
    written = report.write_figures([report.Source("run", rpcarena.load(FIXTURE))], tmp_path, fmt)
    assert len(written) == 7
    assert all(p.read_bytes().startswith(magic) for p in written)


def test_report_cli_with_two_documents(tmp_path):
    done = cli("report", str(FIXTURE), str(FIXTURE), "--out", str(tmp_path / "two.html"))
    assert done.returncode == 0, done.stderr
    assert "results_usp_int32_small:grpc-py" in (tmp_path / "two.html").read_text()


def test_report_cli_rejects_an_unknown_format(tmp_path):
    done = cli("report", str(FIXTURE), "--format", "gif")
    assert done.returncode == 2 and "--format" in done.stderr


def test_export_csv_and_json(tmp_path):
    done = cli("export", str(FIXTURE), "--csv", str(tmp_path / "o.csv"), "--json", str(tmp_path / "o.json"))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader((tmp_path / "o.csv").open()))
    assert len(rows) == 8 and {"contender", "p50_us", "payload_bytes_per_call"} <= set(rows[0])
    assert len(json.loads((tmp_path / "o.json").read_text())) == 8


def test_to_pandas():
    frame = rpcarena.load(FIXTURE).to_pandas()
    assert len(frame) == 8
    assert set(frame["contender"]) == {"tcp-raw", "grpc-py"}
    assert (frame["calls"] == 300).all() and frame["p50_us"].notna().all()


def test_run_writes_the_report(tmp_path):
    done = cli("run", "--debug-mode", "--contender", "tcp-raw", "--workload", "usp.int32", "--calls", "50",
               "--warmup", "0s", "--out", str(tmp_path / "r.json"), "--report", str(tmp_path / "r.html"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "r.html").read_text().count("<svg") >= 5


def test_the_summary_judges_over_trials_as_the_terminal_does(tmp_path):
    """Five trials a side: the runner-up is called slower with its interval over trials."""
    out = tmp_path / "r.html"
    report.write_html([report.Source("run", document(trials("fast", "usp.int32"), trials("slow", "usp.int32", 2.0)))],
                      out)
    summary = out.read_text().split('id="contents"')[0]
    found = re.search(r"(\d\.\d\d)× \[(\d\.\d\d)–(\d\.\d\d)\] slower", summary)
    assert found and float(found[2]) < 2.0 < float(found[3]), summary
    table = out.read_text().split('class="numbers"')[1].split("</table>")[0]
    assert found[0] in table  # one answer to "how sure": the tables say what the summary says
    assert f"slow: {found[0]}" in re.findall(r"<title>([^<]*)</title>", out.read_text())  # and the figure
    rows = re.findall(r"<tr><td class=\"l\">(\d)</td><td class=\"l\">(\w+)</td>", table)
    assert rows == [("1", "fast"), ("2", "slow")]  # by rank
    below = out.read_text().split('class="numbers"')[1].split("</table>")[1]
    assert below.startswith('</div><figure')  # no cause large enough to change this answer: no warning


def test_no_two_series_of_a_figure_look_alike_past_ten_colours():
    from rpcarena.report.figures import style

    looks = [tuple(sorted((k, str(v)) for k, v in style(i).items())) for i in range(13)]
    assert len(set(looks)) == 13 and style(10)["color"] == style(0)["color"]
