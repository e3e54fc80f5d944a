"""`rpcarena target --client rust`: the Rust worker's HTTP/1.1 target driver against a server
rpcarena did not start; what it does not speak (gRPC, HTTP/2, TLS) is left to --client go.
Wrong answers and a failing first call are tested with the Go driver's, in test_target_native."""

from __future__ import annotations

import pytest

from rpcarena.contenders import native as native_contenders
from rpcarena.results import load
from tests.conftest import cli
from tests.e2e.test_target import Items, items  # noqa: F401 (fixtures)

pytestmark = pytest.mark.skipif(
    "rust" not in native_contenders.workers() or bool(native_contenders.workers()["rust"].unavailable()),
    reason="the Rust worker cannot be built here")


def test_right_answers_are_counted_and_every_request_is_sent(items, tmp_path):  # noqa: F811
    out = tmp_path / "t.json"
    done = cli("target", "--client", "rust", "--http", items + "/items/{{id}}", "--var", "id=range:1:20",
               "--expect-json", "id={{id}}", "--expect-json", "double={{twice}}", "--var", "twice=range:2:40:2",
               "--calls", "80",
               "--clients", "1,3", "--warmup", "0.2s", "--out", str(out))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    cells = load(out).cells
    assert [(c.clients, c.status, c.client, c.calls, c.errors) for c in cells] == [
        (n, "ok", "rust", 80, {}) for n in (1, 3)]
    assert cells[0].client_tool["name"] == "target-rust"
    assert Items.seen == set(range(1, 21))


def test_http2_is_left_to_the_go_client(items, tmp_path):  # noqa: F811
    out = tmp_path / "t.json"
    cli("target", "--client", "rust", "--http", items + "/items/1", "--http2", "--calls", "10",
        "--warmup", "0", "--out", str(out))
    (cell,) = load(out).cells
    assert cell.status == "unsupported" and "--http2" in cell.reason and "--client go" in cell.reason
