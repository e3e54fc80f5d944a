"""The HTTP/JSON mapping of the schema (docs/worker-contract.md), for Python clients.

Every arena.Arena method is `POST /arena/{Method}` with the canonical JSON both
ways; a method of the user's schema is `POST /package.Service/Method`. The
predictions seed's REST twin is different, and kept as published:
`GET /predictions/{id_client}` answering the Redis hash as a JSON object
(class_name -> score, the score a number or, as the seed's FastAPI sent it, a
string); clients turn that into the canonical reply, sorted by class_name.
"""

from __future__ import annotations

from typing import Any

PREDICTIONS = "GetPredictions"


def request_of(method: str, request: dict[str, Any]) -> tuple[str, str, dict[str, Any] | None]:
    """(HTTP method, path, JSON body or None) of a canonical request."""
    if method == PREDICTIONS:
        return "GET", f"/predictions/{request.get('id_client', '')}", None
    if "/" in method:  # a method of the user's schema, "package.Service/Method"
        return "POST", f"/{method}", request
    return "POST", f"/arena/{method}", request


def reply_of(method: str, body: Any) -> Any:
    """The canonical reply of a decoded JSON body."""
    if method == PREDICTIONS:
        return {"predictions": [{"class_name": name, "value": float(score)}
                                for name, score in sorted(body.items())]}
    return body
