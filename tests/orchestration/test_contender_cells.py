"""The plans of contender cells: their order (trials interleaved, a ranking's cells one after
another), and the floor measured again when it divides others."""

from __future__ import annotations

from rpcarena.config import RunConfig
from rpcarena.orchestration.contender_cells import plans


def test_trials_are_interleaved_and_a_rankings_cells_run_one_after_another():
    config = RunConfig(contenders=["tcp-raw", "grpc-py", "rest-fastapi"], workloads=["usp.int32", "usp.distance"],
                       repeat=2, calls=10)
    order = [(p.trial, p.workload.id, p.subject.id) for p in plans(config)]
    assert order == [
        (0, "usp.int32", "tcp-raw"), (0, "usp.int32", "grpc-py"), (0, "usp.int32", "rest-fastapi"),
        (0, "usp.distance", "tcp-raw"), (0, "usp.distance", "grpc-py"), (0, "usp.distance", "rest-fastapi"),
        (1, "usp.int32", "grpc-py"), (1, "usp.int32", "rest-fastapi"), (1, "usp.int32", "tcp-raw"),
        (1, "usp.distance", "grpc-py"), (1, "usp.distance", "rest-fastapi"), (1, "usp.distance", "tcp-raw")]


def test_with_one_trial_a_floor_that_divides_others_is_measured_again_after_them():
    def order(contenders):
        config = RunConfig(contenders=contenders, workloads=["usp.int32", "usp.void"], calls=10)
        return [(p.trial, p.workload.id, p.subject.id) for p in plans(config)]

    assert order(["tcp-raw", "grpc-py"]) == [
        (0, "usp.int32", "tcp-raw"), (0, "usp.int32", "grpc-py"), (1, "usp.int32", "tcp-raw"),
        (0, "usp.void", "tcp-raw"), (0, "usp.void", "grpc-py"), (1, "usp.void", "tcp-raw")]
    assert order(["tcp-raw"]) == [(0, "usp.int32", "tcp-raw"), (0, "usp.void", "tcp-raw")]  # it divides nothing
    assert len(order(["tcp-raw", "grpc-go"])) == 4  # grpc-go's Go client is not divided by the Python echo
