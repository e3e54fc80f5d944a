"""A worker's manifest names the command that installs each tool it requires (`install`), so a new
language brings its own fix with it; the orchestrator's table is the fallback."""

from __future__ import annotations

from rpcarena.process import builds


def _worker(tmp_path, manifest: dict) -> builds.Worker:
    return builds.Worker(tmp_path, {"language": "x", "sources": [], "build": [["true"]], "run": ["{out}"], **manifest})


def test_a_missing_tool_is_named_with_the_manifests_own_fix(tmp_path):
    worker = _worker(tmp_path, {"requires": ["rpcarena-no-such-node"],
                                "install": {"rpcarena-no-such-node": "apt-get install nodejs"}})
    assert worker.unavailable() == ("needs rpcarena-no-such-node (not found on PATH): apt-get install nodejs; "
                                    "then rpcarena build")


def test_without_one_the_orchestrators_table_or_the_tool_itself_is_named(tmp_path):
    worker = _worker(tmp_path, {"requires": ["rpcarena-no-such-tool"]})
    assert worker.unavailable() == ("needs rpcarena-no-such-tool (not found on PATH): install rpcarena-no-such-tool; "
                                    "then rpcarena build")


def test_the_node_workers_manifest_names_how_to_install_node_and_npm():
    node = builds.workers()["node"]
    assert node.manifest["install"]["node"].startswith("install Node.js 20 or later")
    assert node.manifest["install"]["npm"] == "apt-get install npm"
    assert set(node.manifest["requires"]) >= {"node", "npm"}
