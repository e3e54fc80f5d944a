"""A report rendered by headless Chromium: the summary comes first and is drawn on the first
screen, and the charts are drawn, not just present in the markup."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import rpcarena
from rpcarena import report
from tests.conftest import cli, document, trials
from tests.helpers import FIXTURE

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
IN_CI = os.environ.get("CI") == "true"
FIRST_SCREEN = (1280, 900)

pytestmark = pytest.mark.skipif(CHROMIUM is None and not IN_CI,
                                reason="chromium not installed (scripts/install-system.sh installs it)")


def chromium(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess:
    assert CHROMIUM, "chromium must be installed in CI: run scripts/install-system.sh"
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
         "--hide-scrollbars", "--force-color-profile=srgb", *args, page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)


def screenshot(page: Path, out: Path, profile: Path, size: tuple[int, int]) -> np.ndarray:
    """The page's first `size` pixels as Chromium draws them: an (height, width, 3) array of 0..255."""
    from matplotlib.image import imread

    done = chromium(page, profile, f"--window-size={size[0]},{size[1]}", f"--screenshot={out}")
    assert out.exists(), done.stderr[-2000:]
    assert out.read_bytes().startswith(b"\x89PNG")
    return (imread(out)[..., :3] * 255).round().astype(int)


def distinct_colours(pixels: np.ndarray) -> int:
    return len({tuple(p) for p in pixels.reshape(-1, 3)[::7]})


def pixels_of(pixels: np.ndarray, colour: str, tolerance: int = 3) -> int:
    """How many pixels are within `tolerance` of the colour '#rrggbb' (anti-aliased edges are not)."""
    rgb = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(pixels - rgb).max(axis=-1) <= tolerance).sum())


class Landmarks(HTMLParser):
    """The ids of the <section> and <nav> elements that have one, in document order, and the
    heatmap cells' fills."""

    def __init__(self) -> None:
        super().__init__()
        self.order: list[str] = []
        self.fills: list[str] = []
        self._in_heatmap = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag in ("section", "nav") and named.get("id"):
            self.order.append(named["id"] or "")
        if tag == "svg":
            self._in_heatmap = "heatmap" in (named.get("class") or "")
        if tag == "rect" and self._in_heatmap:
            self.fills.append(named.get("fill") or "")


def landmarks(dom: str) -> Landmarks:
    found = Landmarks()
    found.feed(dom)
    return found


@pytest.fixture(scope="module")
def real_report(tmp_path_factory) -> Path:
    """The report of a small real run: two contenders, one workload, two concurrency levels."""
    folder = tmp_path_factory.mktemp("chromium")
    done = cli("run", "--contender", "tcp-raw,grpc-py", "--workload", "usp.int32", "--clients", "1,2",
               "--calls", "200", "--warmup", "0s", "--out", str(folder / "r.json"),
               "--report", str(folder / "r.html"))
    assert done.returncode == 0, done.stderr
    return folder / "r.html"


def test_the_summary_is_first_and_drawn_on_the_first_screen(real_report, tmp_path):
    dom = chromium(real_report, tmp_path / "profile", "--dump-dom").stdout
    found = landmarks(dom)
    assert found.order[:2] == ["summary", "contents"], found.order
    assert dom.index('id="summary"') < dom.index('<figure class="chart"')  # no chart above the answer
    assert len(found.fills) == 2 and "#1a9850" in found.fills  # grpc-py × 2 levels (tcp-raw: the floor); green
    shot = screenshot(real_report, tmp_path / "first.png", tmp_path / "profile", FIRST_SCREEN)
    assert shot.shape[:2] == (FIRST_SCREEN[1], FIRST_SCREEN[0])
    cell = 90 * 20  # a heatmap cell is 94 × 24 px; most of it is its fill, the rest its text
    for fill in set(found.fills):
        assert pixels_of(shot, fill) >= found.fills.count(fill) * cell, f"heatmap colour {fill} not on screen 1"


def test_a_page_without_the_summary_fails_the_check(real_report, tmp_path):
    """The colour check can fail: the same page with the summary moved to the end does not pass it."""
    page = real_report.read_text()
    start, end = page.index('<section id="summary"'), page.index('<nav class="contents"')
    moved = tmp_path / "moved.html"
    moved.write_text(page[:start] + page[end:].replace("</body>", page[start:end] + "</body>"))
    fills = landmarks(page).fills
    shot = screenshot(moved, tmp_path / "moved.png", tmp_path / "profile", FIRST_SCREEN)
    assert pixels_of(shot, "#1a9850") < fills.count("#1a9850") * 90 * 20


def test_chromium_draws_the_charts(tmp_path):
    page = report.write_html([report.Source("run", rpcarena.load(FIXTURE))], tmp_path / "report.html")
    html = page.read_text()
    assert html.count("<svg") == 8 and "<path" in html and "<figure" in html
    assert len(re.findall(r'<figure class="chart">', html)) == 7
    shot = screenshot(page, tmp_path / "shot.png", tmp_path / "profile", (1200, 2400))
    assert distinct_colours(shot) > 50  # a blank or text-only page has a handful


def _driven(contender: str, client: str, scale: float, protocol: str) -> list:
    language = "python" if client == "py" else "go"
    return [dataclasses.replace(c, client=client, language="go" if contender.endswith("-go") else language,
                                protocol=protocol) for c in trials(contender, "usp.int32", scale)]


def test_a_run_with_two_clients_names_both_and_its_summary_and_tables_agree(tmp_path):
    """--client py,go: grpc-go driven by each, five trials a side; Chromium's DOM of the summary and of
    the workload's table hold the same ratio and interval over trials, and both clients' names."""
    doc = document(_driven("grpc-go", "go", 1.0, "grpc"), _driven("grpc-go", "py", 3.0, "grpc"),
                   _driven("tcp-raw-go", "go", 0.5, "tcp-raw"), _driven("tcp-raw", "py", 1.0, "tcp-raw"))
    page = report.write_html([report.Source("run", doc)], tmp_path / "clients.html")
    dom = chromium(page, tmp_path / "profile", "--dump-dom").stdout
    summary, rest = dom.split('id="contents"', 1)
    table = rest.split('class="numbers"', 1)[1].split("</table>", 1)[0]
    said = r"(\d\.\d\d)× \[(\d\.\d\d)–(\d\.\d\d)\] slower"
    in_summary, in_table = re.findall(said, summary), re.findall(said, table)
    assert in_summary and in_summary[0] == in_table[0], (in_summary, in_table)
    assert float(in_summary[0][1]) < 3.0 < float(in_summary[0][2])
    for where in (summary, table):
        assert "grpc-go&lt;-go" in where and "grpc-go&lt;-py" in where
