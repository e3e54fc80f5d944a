"""infobip2016: HTTP/JSON vs HTTP/Java serialization vs MML typed JSON, Java services (seed 004, Spanish).

Throughput of a closed loop is clients / mean latency, so "faster" is judged on the mean latency at
each concurrency level (1, 32, 64, 128 in the seed); where a cell's CV is high the median's ratio
is shown beside it. The MML stand-in is `typed-json-java`: the wire of the Python `typed-json`
in Java, with a Java client, as its HTTP rivals are, so MML-vs-HTTP claims compare protocols in
one language with one kind of driver (the Python stand-in mixed language and driver in).

The seed's two settings are two parts: loopback, and a network where the HTTP traffic goes
through HAProxy and MML connects directly. The network here is an emulated 100 Mbit/s LAN
(`rpcarena.network.link`: 0.3 ms round trips through the delay line).

"The HTTP protocols equalled MML" ('igualaron') is an equality: judged by two one-sided tests
within 10% either way, not by a gap that shrinks; an interval wholly outside the margin refutes it.
"""

from __future__ import annotations

from rpcarena.suites.forms import DIRECTION, Equivalent, Form
from rpcarena.suites.model import Claim, Part, Suite
from rpcarena.suites.operands import Comparison, Contrast, Growth
from rpcarena.suites.rules import Beside, Rule, pairs
from rpcarena.suites.setting import LOOPBACK, Setting

JSON, JAVASER, MML = "rest-jackson", "http-javaser", "typed-json-java"
HTTP = (JSON, JAVASER)
ITEMS = ("infobip.items0", "infobip.items10", "infobip.items100")
LINK = "rtt=0.3ms,jitter=0.05ms,rate=100mbit"  # a 100 Mbit/s LAN
NETWORK = Setting(LINK)
LEVELS, QUICK_LEVELS = (1, 32, 64, 128), (1, 32)
EQUAL = Equivalent(1.10, "igualaron")  # 'equalled': within 10% either way, by two one-sided tests


def _each(slower_faster: list[tuple[str, str]], items: tuple[str, ...], form: Form = DIRECTION,
          where: Setting = LOOPBACK) -> tuple[Comparison, ...]:
    """slower/faster on these sizes at every level of the seed (1, 32 with --quick), mean latency (a closed
    loop's throughput is clients over it)."""
    return pairs(slower_faster, items, form, "mean", where, LEVELS, QUICK_LEVELS)


def still_leads_by_less() -> Rule:
    """Over the network MML still leads both HTTP protocols at 0 and 10 items (HTTP/MML above 1), and by
    less than on loopback (the loopback lead over the network's above 1): two statements per cell, one
    family."""
    over = _each([(h, MML) for h in HTTP], ITEMS[:2], where=NETWORK)
    local = _each([(h, MML) for h in HTTP], ITEMS[:2])
    return Rule(over + tuple(Contrast(before, after) for before, after in zip(local, over)))


def table_turned() -> Rule:
    """JSON ahead of MML at 100 items over the network; loopback's beside, as 'the table turned' is said
    against it."""
    return Rule(_each([(MML, JSON)], ITEMS[2:], where=NETWORK),
                beside=tuple(Beside(c, "on loopback, where the seed had MML ahead or equal")
                             for c in _each([(MML, JSON)], ITEMS[2:])))


def _part(title: str, via: str | None = None, link: str | None = None) -> Part:
    return Part(title, (JSON, JAVASER, MML), ITEMS, calls=5000, quick_calls=300, clients=(1, 32, 64, 128),
                quick_clients=(1, 32), warmup_s=2.0, quick_warmup_s=0.3, via=via, link=link)


SUITE = Suite(
    name="infobip2016", seed="004 infobip2016 (HTTP/JSON vs Java serialization vs MML)",
    summary="echo a list of 0/10/100 small objects with 1/32/64/128 clients: Jackson, Java serialization, "
            "typed JSON (MML); on loopback, and over a 100 Mbit/s LAN link with HTTP through HAProxy",
    # --quick, whole, on 2 idle CPUs: 17.6 measured 2026-11-29 (108 Java cells). Of its 1,037 s, 263 are the
    # first warm-ups of its 18 fresh JVM pairs (3 mechanisms x 2 settings x 3 trials) and 645 the later
    # cells' waits for both JITs to go quiet: fewer cells cannot bring it under 8 minutes (the floor with
    # no later wait is 6.5), and a shorter wait moves what its 32-client cells measure (orchestration/kept.py)
    quick_minutes=17.5,
    parts=(_part("echo N items, closed loop, loopback"),
           _part("echo N items, closed loop, 100 Mbit/s LAN link, HTTP via HAProxy, MML direct", via="haproxy",
                 link=LINK)),
    claims=(
        Claim("Localhost: MML beats both HTTP protocols for small and medium payloads (0 and 10 items), at every "
              "number of clients", "'MML es el ganador obvio sin importar la cantidad de clientes'",
              Rule(_each([(h, MML) for h in HTTP], ITEMS[:2]))),
        Claim("Localhost: the HTTP protocols equal MML at 100 items (equivalent within 10%)",
              "'los protocolos basados en HTTP igualaron al MML' at 100 items",
              Rule(_each([(h, MML) for h in HTTP], ITEMS[2:], EQUAL),
                   beside=tuple(Beside(c, "the gap at 10 items, which they caught up from")
                                for c in _each([(h, MML) for h in HTTP], ITEMS[1:2])))),
        Claim("Java serialization is slower than JSON everywhere: every size and level, on loopback and over the "
              "network", "'inferior en todos los escenarios de prueba'",
              Rule(_each([(JAVASER, JSON)], ITEMS) + _each([(JAVASER, JSON)], ITEMS, where=NETWORK))),
        Claim("Network (HAProxy; here a 100 Mbit/s LAN link): MML still leads both HTTP protocols for small and "
              "medium payloads, by less than on localhost", "'MML sigue liderando ... pero con un margen menor'",
              still_leads_by_less()),
        Claim("Network (HAProxy; here a 100 Mbit/s LAN link): JSON over HTTP beats MML at large payloads",
              "'para cargas grandes, la tabla se invirtió': JSON ahead at 100 items", table_turned()),
        Claim("Network: MML's type tags inflate the bytes on the wire: its payload per call grows faster than "
              "JSON's from 0 to 100 items", "more bytes as the list grows",
              Rule((Comparison(Growth(MML, ITEMS[0], where=NETWORK, larger=ITEMS[2]),
                               Growth(JSON, ITEMS[0], where=NETWORK, larger=ITEMS[2])),))),
    ),
)
