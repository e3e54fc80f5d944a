"""`run --proto` with the default `--reply echo` between two message types, end to end: an OTLP-like
trace export and route_guide's server stream run ok on real servers in Python and Go (each answers
the reply made once by the orchestrator), and a reply the request cannot make valid is refused
before anything starts, in one line. Never a traceback."""

from __future__ import annotations

import json

from rpcarena import contenders
from rpcarena.results import load
from tests.conftest import run_cli
from tests.userschema.test_echo import KINDS, OTLP, ROUTE_GUIDE, SPANS

FAST = ("-n", "20", "--warmup", "0.1s")


def _available(*ids: str) -> str:
    return ",".join(c for c in ids if contenders.get(c).unavailable() is None)


def _schema(tmp_path, text: str, samples: list[dict]) -> tuple[str, str]:
    proto, data = tmp_path / "schema" / "s.proto", tmp_path / "samples.jsonl"
    proto.parent.mkdir()
    proto.write_text(text)
    data.write_text("".join(json.dumps(s) + "\n" for s in samples))
    return str(proto), str(data)


def _run_ok(tmp_path, text: str, method: str, samples: list[dict], chosen: str) -> None:
    proto, data = _schema(tmp_path, text, samples)
    out = tmp_path / "r.json"
    done = run_cli("run", "--proto", proto, "--method", method, "--data-file", data, "--contender", chosen, *FAST,
                   "--out", str(out), timeout=900)
    assert "Traceback" not in done.stderr and done.returncode == 0, done.stderr
    cells = load(out).cells
    assert [(c.contender, c.status, c.calls, c.errors) for c in cells] == [(c, "ok", 20, {}) for c in
                                                                          chosen.split(",")], done.stderr


def test_an_otlp_export_runs_ok_where_its_reply_echoes_the_request(tmp_path):
    south = json.loads(json.dumps(SPANS).replace("checkout", "payments"))
    _run_ok(tmp_path, OTLP, "otlp.TraceService/Export", [SPANS, south], _available("grpc-py", "rest-fastapi",
                                                                                      "grpc-go", "rest-go"))


def test_route_guides_server_stream_runs_ok(tmp_path):
    rectangles = [{"lo": {"latitude": -400000000, "longitude": -750000000}, "hi": {"latitude": 420000000}},
                  {"lo": {"latitude": 65, "longitude": 66}, "hi": {"latitude": 1, "longitude": 2}}]
    _run_ok(tmp_path, ROUTE_GUIDE, "routeguide.RouteGuide/ListFeatures", rectangles, _available("grpc-py", "grpc-go"))


def test_a_reply_the_request_cannot_make_is_one_line_before_anything_starts(tmp_path):
    proto, data = _schema(tmp_path, KINDS + "service S { rpc Call(Request) returns (Needs); }\n", [{"small": 1}])
    done = run_cli("run", "--proto", proto, "--method", "kinds.S/Call", "--data-file", data, "--contender",
                   "grpc-py", *FAST, "--out", str(tmp_path / "r.json"), timeout=300)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1 and "--reply-file" in lines[0], done.stderr
    assert not (tmp_path / "r.json").exists()
