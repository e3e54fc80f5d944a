"""predictions: GetPredictions(id_client) over a real Redis, as the predictions seed ran it.

The data set (`dataset.py`) is deterministic; the arena starts and seeds a Redis for these
workloads (`store.py`), and the servers read it (`service.py` for the Python ones).
"""

from __future__ import annotations

from rpcarena.seeds.predictions.dataset import CLIENTS, client_id, response
from rpcarena.seeds.predictions.store import RedisStore
from rpcarena.workloads import Need, Workload

PREFIX = "predictions"
REDIS = Need("redis", RedisStore)
WORKLOADS = (
    Workload(f"{PREFIX}.get", "GetPredictions", "GetPredictions(id_client) reading a Redis hash",
             lambda: [{"id_client": client_id(i)} for i in range(CLIENTS)], needs=(REDIS,),
             reference=lambda request: response(request.get("id_client", ""))),
)
