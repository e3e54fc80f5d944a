"""usp2018: gRPC vs RPyC in Python; twelve functions, each called with the same data."""

from __future__ import annotations

import string
from collections.abc import Callable

from rpcarena.workloads import Message, Workload

PREFIX = "usp"


def _text(length: int) -> str:
    alphabet = string.ascii_letters + string.digits
    return "".join(alphabet[i % len(alphabet)] for i in range(length))


def _fixed(request: Message) -> Callable[[], list[Message]]:
    return lambda: [request]


WORKLOADS = (
    Workload(f"{PREFIX}.void", "Void", "1. no argument, void return", _fixed({})),
    Workload(f"{PREFIX}.bool", "EchoBool", "2. bool -> bool", _fixed({"value": True})),
    Workload(f"{PREFIX}.int32", "EchoInt32", "3. int32 -> int32", _fixed({"value": 123456789})),
    Workload(f"{PREFIX}.int64", "EchoInt64", "4. int64 -> int64", _fixed({"value": 1234567890123456789})),
    *(Workload(f"{PREFIX}.str{length}", "EchoString", f"{number}. string of {length} characters -> string",
               _fixed({"value": _text(length)})) for number, length in ((5, 32), (6, 512), (7, 1024))),
    Workload(f"{PREFIX}.ints200", "EchoInts", "8. array of 200 int -> same array",
             _fixed({"values": [i * 7919 - 500_000 for i in range(200)]})),
    Workload(f"{PREFIX}.floats200", "EchoFloats", "9. array of 200 float -> same array",
             _fixed({"values": [(i + 1) / 3.0 for i in range(200)]})),
    Workload(f"{PREFIX}.strings200", "EchoStrings", "10. array of 200 strings 'abcdef' -> same array",
             _fixed({"values": ["abcdef"] * 200})),
    Workload(f"{PREFIX}.person", "EchoPerson", "11. Person {name, age, weight} -> Person",
             _fixed({"name": "Ada Lovelace", "age": 36, "weight": 55.5})),
    Workload(f"{PREFIX}.distance", "Distance", "12. Euclidean distance of two 3-D vectors",
             _fixed({"a": {"x": 1.5, "y": -2.25, "z": 3.0}, "b": {"x": 4.0, "y": 0.5, "z": -1.75}})),
)
