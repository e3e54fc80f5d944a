"""`DriveSpec.for_cell`, the one builder of a cell's spec: every run option reaches it, and what only some
drivers are told (the JIT's most warm-up, a Python client) only when the caller says so."""

from __future__ import annotations

from rpcarena.config import RunConfig
from rpcarena.contract import DriveSpec, RunOptions

STAGES = [{"rate_per_s": 10.0, "duration_s": 1.0}, {"rate_per_s": 20.0, "duration_s": 2.0}]


def _config(**changes) -> RunConfig:
    return RunConfig(contenders=["grpc-py"], workloads=["usp.int32"], out=None, **changes)


def _spec(config: RunConfig, **only_some) -> DriveSpec:
    return DriveSpec.for_cell(config, contender="x", target="h:1", method="Void", requests=({},),
                              responses=({},), clients=3, **only_some)


def test_every_run_option_reaches_the_spec():
    config = _config(clients=[3], warmup_s=2, rate_stages=STAGES, rate_per_s=10.0, arrival="poisson", connections=2,
                     interval_s=0.5, timeout_ms=0.5, sample_limit=77)
    assert _spec(config, mode="stream").to_json() == {
        "contender": "x", "target": "h:1", "method": "Void", "requests": [{}], "responses": [{}], "contract": 1,
        "clients": 3, "warmup_s": 2.0, "calls": None, "duration_s": 3.0, "timeout_ms": 1, "sample_limit": 77,
        "rate_per_s": 10.0, "arrival": "poisson", "stages": STAGES, "mode": "stream", "sync": False,
        "interval_s": 0.5, "connections": 2}


def test_the_builder_reads_each_run_option_the_protocol_names():
    """RunOptions is what the builder may read of a run: each of its names is the config's."""
    names = [name for name, value in vars(RunOptions).items() if isinstance(value, property)]
    assert len(names) == 11 and [n for n in names if not hasattr(_config(), n)] == []


def test_a_driver_not_told_the_most_warm_up_gets_none_even_with_warmup_max():
    assert _spec(_config(warmup_s=1, warmup_max_s=9), own_warmup_max_s=30).warmup_max_s is None


def test_warmup_max_wins_over_the_drivers_own_and_never_falls_below_the_warm_up():
    told = {"told_warmup_max": True, "own_warmup_max_s": 30.0}
    assert _spec(_config(warmup_s=1), **told).warmup_max_s == 30.0
    assert _spec(_config(warmup_s=1, warmup_max_s=9), **told).warmup_max_s == 9.0
    assert (_spec(_config(warmup_s=1, warmup_max_s=0), least_warmup_s=5, **told).warmup_max_s,
            _spec(_config(warmup_s=1, warmup_max_s=0), least_warmup_s=5, **told).warmup_s) == (5.0, 5.0)
    assert _spec(_config(warmup_s=1), told_warmup_max=True).warmup_max_s is None  # no JIT, no --warmup-max


def test_a_probe_is_one_call_with_one_sample():
    spec = DriveSpec.for_probe(contender="target-go", target="h:1", method="GET", requests=({"url": "u"},),
                               responses=([],), timeout_ms=1234, external={"kind": "http"})
    assert (spec.calls, spec.sample_limit, spec.clients, spec.timeout_ms, spec.duration_s) == (1, 1, 1, 1234, None)
