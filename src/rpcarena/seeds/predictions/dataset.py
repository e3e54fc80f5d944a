"""The predictions seed's data set: deterministic, so every language answers bit for bit.

Client i has 3 to 8 classes with scores that are exact in float32 (multiples of
1/64). The arena seeds a Redis with `dataset()`; `response` is the reply every
server must give, whichever Redis client it reads with.
"""

from __future__ import annotations

from rpcarena.workloads import Message

CLIENTS = 1000
CLASSES = ("churn", "upsell", "cross_sell", "fraud", "default", "retention", "premium", "dormant")


def client_id(i: int) -> str:
    return f"client-{i:04d}"


def scores(i: int) -> dict[str, float]:
    """The hash predictions:client-i holds: class_name -> score."""
    count = 3 + i % 6
    return {CLASSES[(i + k) % len(CLASSES)]: ((i * 7 + k * 13) % 64) / 64 for k in range(count)}


def dataset() -> dict[str, dict[str, float]]:
    """Every Redis key and hash of the data set."""
    return {f"predictions:{client_id(i)}": scores(i) for i in range(CLIENTS)}


def response(id_client: str) -> Message:
    """The canonical reply: the hash's entries sorted by class_name (empty for an unknown id)."""
    prefix = "client-"
    known = id_client.startswith(prefix) and id_client[len(prefix):].isdigit()
    index = int(id_client[len(prefix):]) if known else -1
    entries = scores(index) if 0 <= index < CLIENTS else {}
    return {"predictions": [{"class_name": k, "value": v} for k, v in sorted(entries.items())]}
