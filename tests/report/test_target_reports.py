"""Reports of `rpcarena target` results: a workload is a method or a URL, with '/' and spaces in it,
so every file name made from one must be cleaned, and two that clean alike must stay apart."""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

import rpcarena
from rpcarena import report
from rpcarena.report import html
from tests.conftest import cli
from tests.e2e.test_target import Items


class Anything(Items):
    """200 and a small JSON body for any GET."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._reply(200, {"path": self.path})


@pytest.fixture(scope="module")
def target_results(tmp_path_factory) -> Path:
    """An `rpcarena target` run of two URLs whose workload names clean to the same file name (its cells
    made up: the names are what is tested)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Anything)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    out = tmp_path_factory.mktemp("target") / "t.json"
    try:
        done = cli("target", "--debug-mode", "--name", "slash", "--http", url + "/items/{{id}}", "--var", "id=1,2",
                   "--name", "dash", "--http", url + "/items-{{id}}", "--var", "id=1,2",
                   "--calls", "60", "--warmup", "0", "--out", str(out))
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stderr
    return out


def test_slugs_are_safe_and_distinct():
    names = html.slugs(["GET /items/{{id}}", "GET /items-{{id}}", "arena.Arena/SayHello", "../..", "", "A", "a"])
    assert list(names.values()) == ["GET-items-id", "GET-items-id-2", "arena.Arena-SayHello", "x", "x-2", "A",
                                    "a-2"]
    assert all("/" not in s and s not in (".", "..") for s in names.values())


@pytest.mark.parametrize("fmt, magic", [("png", b"\x89PNG"), ("svg", b"<?xml")])
def test_figures_of_a_target_result(target_results, tmp_path, fmt, magic):
    """The two targets are one comparison, as the terminal ranks them: one set of figures, its file
    names made safe from both methods' names."""
    done = cli("report", str(target_results), "--format", fmt, "--out", str(tmp_path / "figs"))
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in (tmp_path / "figs").iterdir())
    workloads = {c.workload for c in rpcarena.load(target_results).cells}
    assert workloads == {"GET /items/{{id}}", "GET /items-{{id}}"}
    stem = html.slug("different methods (slash GET /items/{{id}}; dash GET /items-{{id}}): compare like with like")
    charts = {f"{stem}-{chart}.{fmt}" for chart in ("boxplot", "intervals", "histogram")}
    assert "/" not in stem and charts <= set(written)
    assert all(name.startswith(f"{stem}-") for name in written), written
    assert all((tmp_path / "figs" / name).read_bytes().startswith(magic) for name in written)


def test_svg_figures_keep_their_tooltips(target_results, tmp_path):
    (path, *_) = report.write_figures([report.Source("t", rpcarena.load(target_results))], tmp_path, "svg")
    text = path.read_text()
    assert "<title>" in text and 'id="tip-' not in text


def test_html_of_a_target_result_compares_the_targets(target_results, tmp_path):
    """`report` says what `target` printed: the two targets ranked together, not each alone at 1.00x."""
    page = report.write_html([report.Source("t", rpcarena.load(target_results))], tmp_path / "t.html").read_text()
    summary = page[page.index('<section id="summary"'):page.index('id="contents"')]
    assert "only one contender measured" not in summary and summary.count("<rect") == 2
    assert "GET /items/{{id}}" in page and "GET /items-{{id}}" in page
    table = page.split('class="numbers"')[1].split("</table>")[0]
    assert '<td class="l">slash' in table and '<td class="l">dash' in table  # one table ranks both


def test_hgrm_files_of_a_target_result(target_results, tmp_path):
    done = cli("export", str(target_results), "--hgrm", str(tmp_path / "hgrm"))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "hgrm").iterdir()) == [
        "dash-GET-items-id-x1-trial-1.hgrm", "slash-GET-items-id-x1-trial-1.hgrm"]
