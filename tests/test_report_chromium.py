"""A report rendered by headless Chromium: the charts are drawn, not just present in the markup."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import rpcarena
from rpcarena import report

FIXTURE = Path(__file__).parent / "fixtures" / "results_usp_int32_small.json"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
IN_CI = os.environ.get("CI") == "true"

pytestmark = pytest.mark.skipif(CHROMIUM is None and not IN_CI,
                                reason="chromium not installed (scripts/install-system.sh installs it)")


def screenshot(page: Path, out: Path, profile: Path) -> subprocess.CompletedProcess:
    assert CHROMIUM, "chromium must be installed in CI: run scripts/install-system.sh"
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
         "--hide-scrollbars", "--window-size=1200,2400", f"--screenshot={out}", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)


def distinct_colours(png: Path) -> int:
    from matplotlib.image import imread

    pixels = imread(png)[..., :3].reshape(-1, 3)
    return len({tuple(p) for p in (pixels * 255).astype(int)[::7]})


def test_chromium_draws_the_charts(tmp_path):
    page = report.write_html([report.Source("run", rpcarena.load(FIXTURE))], tmp_path / "report.html")
    html = page.read_text()
    assert html.count("<svg") == 7 and "<path" in html and "<figure" in html
    shot = tmp_path / "shot.png"
    done = screenshot(page, shot, tmp_path / "profile")
    assert shot.exists(), done.stderr[-2000:]
    assert shot.read_bytes().startswith(b"\x89PNG")
    assert distinct_colours(shot) > 50  # a blank or text-only page has a handful
