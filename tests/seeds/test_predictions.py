"""The predictions seed for real: a Redis started and seeded by the arena, four servers reading it."""

from __future__ import annotations

import os
import shutil

import pytest

from rpcarena import contenders
from rpcarena.config import RunConfig
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.contender_cells import plans
from rpcarena.seeds.predictions import dataset, store

needs_redis = pytest.mark.skipif(shutil.which("redis-server") is None and os.environ.get("CI") != "true",
                                 reason="redis-server is not installed")


def test_the_data_set_is_exact_in_float32():
    import struct

    for i in range(dataset.CLIENTS):
        for score in dataset.scores(i).values():
            assert struct.unpack("<f", struct.pack("<f", score))[0] == score
    reply = dataset.response("client-0007")["predictions"]
    assert [p["class_name"] for p in reply] == sorted(p["class_name"] for p in reply)
    assert dataset.response("nobody") == {"predictions": []}


@needs_redis
def test_the_store_starts_seeds_and_stops():
    import redis

    with store.RedisStore() as redis_store:
        client = redis.Redis.from_url(redis_store.url)
        assert client.hgetall("predictions:client-0003")
        pid, folder = redis_store.child.pid, redis_store.folder
        assert folder.is_dir()
        client.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert not folder.exists()  # nothing of the run is left in /tmp


@needs_redis
def test_python_servers_answer_from_redis(tmp_path):
    config = RunConfig(contenders=["grpc-py", "rest-fastapi", "rpyc"], workloads=["predictions.get"],
                       client_drivers=["py", "py-requests"], calls=100, warmup_s=0, out=tmp_path / "r.json")
    cells = {(c.contender, c.client): c for c in Arena(config, plans(config)).run().cells}
    for key in (("grpc-py", "py"), ("rest-fastapi", "py"), ("rest-fastapi", "py-requests")):
        assert cells[key].status == "ok", cells[key].reason
        assert cells[key].calls == 100 and cells[key].errors == {}
    assert cells[("rpyc", "py")].status == "unsupported"


def test_without_redis_the_cells_say_why(tmp_path, monkeypatch):
    monkeypatch.setattr(store.shutil, "which", lambda name: None)
    config = RunConfig(contenders=["grpc-py"], workloads=["predictions.get", "usp.void"], calls=5, warmup_s=0,
                       out=tmp_path / "r.json")
    cells = {c.workload: c for c in Arena(config, plans(config)).run().cells}
    assert cells["predictions.get"].status == "unavailable" and "redis-server" in cells["predictions.get"].reason
    assert cells["usp.void"].status == "ok"


def test_contenders_say_which_services_they_serve():
    assert contenders.get("grpc-py").unsupported("GetPredictions") is None
    assert "predictions.Predictions" in contenders.get("tagless").unsupported("GetPredictions")
    assert contenders.get("tcp-raw").unsupported("GetPredictions") is None


@needs_redis
def test_across_a_link_the_redis_runs_beside_the_servers(tmp_path):
    from rpcarena.network import link

    if link.unavailable():
        pytest.skip(link.unavailable())
    config = RunConfig(contenders=["grpc-py", "rest-fastapi"], workloads=["predictions.get"], calls=10,
                       warmup_s=0, link="rtt=1ms", out=tmp_path / "r.json")
    cells = Arena(config, plans(config)).run().cells
    assert [(c.status, c.calls, c.errors) for c in cells] == [("ok", 10, {})] * 2, [c.reason for c in cells]
    user = RunConfig(contenders=["grpc-py"], workloads=["predictions.get"], calls=1, warmup_s=0, link="rtt=1ms",
                     redis_url="redis://127.0.0.1:1/0", out=tmp_path / "u.json")
    (cell,) = Arena(user, plans(user)).run().cells
    assert cell.status == "unavailable" and "drop it" in cell.reason  # the servers could not reach it
