"""Schema conformance, measured: a corpus of schemas run on every mechanism that serves a user's schema.

Each case of the corpus (`tests/fixtures/conformance/corpus.json`) is one method of a schema with its
samples, run as a user runs it: `rpcarena run --proto SCHEMA --method M --data-file F`, a few calls a
cell. Every mechanism is called by the Python client, which judges each reply with the user's schema
in Python protobuf (the orchestrator's terms, whatever language served it), and each native
mechanism by its own language's client too, whose judgement must agree: a native client that calls
a cell right where the Python client saw a wrong answer from the same server is a silent wrong
answer, the one outcome this harness exists to forbid.

A cell's verdict is ok (every call of every client answered exactly), unsupported or unavailable
(with the reason the run gave, before any call), or failed (with the errors and an example).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rpcarena.clients import PYTHON
from rpcarena.contract import FLOOR_PROTOCOL
from rpcarena.process.builds import workers
from rpcarena.results import Cell, load

# The Python mechanisms that serve a user's schema (the floor, tcp-raw, echoes bytes: it carries no schema).
PYTHON_MECHANISMS = ("grpc-py", "rest-fastapi", "typed-json", "tagless", "rpyc-tuple", "thrift-binary",
                     "thrift-compact")
RUN_TIMEOUT_S = 3600  # a run that builds a Rust variant from a cold cargo cache takes many minutes
PARALLEL_CASES = 2
CALL_TIMEOUT = "60s"  # a reply is judged, not timed: a loaded machine's slow JVM call is still an answer
STREAM_MESSAGES = 3  # a one-way stream's messages a call: each sample sent, few calls
EXAMPLE_CHARS = 240
OK, UNSUPPORTED, UNAVAILABLE, FAILED = "ok", "unsupported", "unavailable", "failed"
NO_IMPORT_PATH = "this rpcarena's `run --proto` has no --import-path yet (#38), which the case needs"


@dataclass(frozen=True)
class Case:
    """One method of a schema of the corpus, with its samples (paths relative to the corpus folder)."""

    feature: str
    schema: str
    method: str
    data_file: str
    reply_file: str | None = None
    import_path: tuple[str, ...] = ()

    def options(self, folder: Path) -> list[str]:
        """The `rpcarena run` options that make this case's workload."""
        argv = ["--proto", str(folder / self.schema), "--method", self.method,
                "--data-file", str(folder / self.data_file), "--stream-messages", str(STREAM_MESSAGES)]
        if self.reply_file:
            argv += ["--reply-file", str(folder / self.reply_file)]
        for root in self.import_path:
            argv += ["--import-path", str(folder / root)]
        return argv

    def calls(self, folder: Path) -> int:
        """One call a sample: every request sent once."""
        lines = (folder / self.data_file).read_bytes().split(b"\n")  # not splitlines: a sample may hold U+2028
        return sum(1 for line in lines if line.strip())


def corpus(folder: Path) -> list[Case]:
    """The cases of the corpus in `folder` (its corpus.json), in order."""
    cases = json.loads((folder / "corpus.json").read_text())["cases"]
    return [Case(**dict(c, import_path=tuple(c.get("import_path", ())))) for c in cases]


@dataclass(frozen=True)
class Mechanism:
    """A mechanism that serves a user's schema, and the clients that judge it (the Python one first)."""

    id: str
    language: str
    clients: tuple[str, ...] = (PYTHON,)


def mechanisms() -> list[Mechanism]:
    """Every mechanism of every language that says it serves a user's schema: the Python ones, and each
    native manifest entry with a server, a per-schema build and no blanket `user_lacks` "any", each
    judged by the Python client where Python speaks its protocol (connect-go's Connect it does not),
    and by its own language's client where it has one."""
    from rpcarena import contenders  # the registry, which imports this package

    found = [Mechanism(m, PYTHON) for m in PYTHON_MECHANISMS]
    for language, worker in sorted(workers().items()):
        if not worker.builds_schemas:
            continue
        for entry in worker.entries:
            if entry.server and entry.protocol != FLOOR_PROTOCOL and "any" not in entry.user_lacks:
                python = (PYTHON,) if contenders.python_client_ids(entry.protocol) else ()
                clients = python + ((language,) if entry.client else ())
                if clients:
                    found.append(Mechanism(entry.id, language, clients))
    return found


@dataclass(frozen=True)
class Outcome:
    """What one cell (a mechanism called by one client) said."""

    status: str  # ok | unsupported | unavailable | failed
    text: str = ""  # the reason, or the errors and an example
    wrong_answers: int = 0


@dataclass(frozen=True)
class Verdict:
    """A mechanism on a case, over its clients."""

    status: str
    text: str = ""
    # a native client called right what the Python client, on the same server, saw answered wrong
    silent: bool = False

    @property
    def mark(self) -> str:
        return {OK: "✓", UNSUPPORTED: "unsupported", UNAVAILABLE: "unavailable", FAILED: "FAILED"}[self.status]


class Unbuilt:
    """The mechanisms found unavailable on a schema (a native variant that did not build), remembered
    for its other cases: every run would try the same build again, waiting on the build lock."""

    def __init__(self) -> None:
        self._found: dict[tuple[str, str], Outcome] = {}
        self._lock = threading.Lock()

    def of(self, schema: str, mechanisms: list[Mechanism]) -> dict[tuple[str, str], Outcome]:
        with self._lock:
            return {(m.id, PYTHON): self._found[(schema, m.id)] for m in mechanisms if (schema, m.id) in self._found}

    def learn(self, schema: str, outcomes: dict[tuple[str, str], Outcome]) -> None:
        with self._lock:
            self._found.update({(schema, m): o for (m, _), o in outcomes.items() if o.status == UNAVAILABLE})


class Stopped(Exception):
    """The corpus was stopped: a case in flight starts no further run."""


def run_case(case: Case, folder: Path, chosen: list[Mechanism], scratch: Path,
             unbuilt: Unbuilt | None = None, stop: threading.Event | None = None) -> dict[str, Verdict]:
    """Each mechanism's verdict on `case`: one run with the Python client over every mechanism, then one
    per native language with that language's client over its mechanisms the Python run could call
    (none once `stop` is set: `Stopped`)."""
    if case.import_path and not _runs_take("--import-path"):
        return {m.id: Verdict(UNAVAILABLE, NO_IMPORT_PATH) for m in chosen}
    unbuilt = unbuilt or Unbuilt()
    outcomes = unbuilt.of(case.schema, chosen)
    judged_by_python = [m.id for m in chosen if PYTHON in m.clients and (m.id, PYTHON) not in outcomes]
    outcomes.update(_run(case, folder, judged_by_python, PYTHON, scratch / "py.json") if judged_by_python else {})
    unbuilt.learn(case.schema, outcomes)
    for language in sorted({m.language for m in chosen} - {PYTHON}):
        own = [m.id for m in chosen if m.language == language and language in m.clients
               and outcomes.get((m.id, PYTHON), Outcome(OK)).status in (OK, FAILED)]  # no Python client: its own
        if own and stop is not None and stop.is_set():
            raise Stopped(case.feature)
        if own:
            outcomes.update(_run(case, folder, own, language, scratch / f"{language}.json"))
    return {m.id: verdict([outcomes[(m.id, c)] for c in m.clients if (m.id, c) in outcomes], m.clients)
            for m in chosen}


@cache
def _runs_take(option: str) -> bool:
    """Whether this rpcarena's `run` takes an option (a case may need one still to come)."""
    argv = [sys.executable, "-m", "rpcarena", "run", "--help"]
    return option in subprocess.run(argv, capture_output=True, text=True, check=False).stdout


def _run(case: Case, folder: Path, contenders: list[str], client: str, out: Path) -> dict[tuple[str, str], Outcome]:
    if not contenders:
        return {}
    argv = [sys.executable, "-m", "rpcarena", "run", *case.options(folder), "--contender", ",".join(contenders),
            "--client", client, "-n", str(case.calls(folder)), "--warmup", "0s", "--warmup-max", "0", "--repeat", "1",
            "--pin", "none", "--timeout", CALL_TIMEOUT,
            "-q", "-o", str(out), "--force"]
    out.unlink(missing_ok=True)
    stderr = _finished(argv)
    cells = {(c.contender, c.client): outcome_of(c) for c in load(out).cells} if out.exists() else {}
    missing = Outcome(FAILED, f"the run measured no cell: {_last_line(stderr)}")
    return {(c, client): cells.get((c, client), missing) for c in contenders}


def _finished(argv: list[str]) -> str:
    """Run a command to its end (a first run builds the native workers' variants: minutes) and return
    its stderr; past `RUN_TIMEOUT_S` it is stopped as Ctrl-C stops it, with what it started."""
    with subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) as process:
        try:
            return process.communicate(timeout=RUN_TIMEOUT_S)[1]
        except subprocess.TimeoutExpired:
            process.terminate()
            process.communicate()
            return f"stopped after {RUN_TIMEOUT_S}s"


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def outcome_of(cell: Cell) -> Outcome:
    """A stored cell as this harness reads it: ok only with every call made and none in error."""
    if cell.status in (UNSUPPORTED, UNAVAILABLE):
        return Outcome(cell.status, cell.reason or "")
    errors = {kind: n for kind, n in cell.errors.items() if n}
    if cell.status == OK and not errors and cell.calls > 0:
        return Outcome(OK)
    if not errors:
        return Outcome(FAILED, cell.reason or "no call completed")
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(errors.items()))
    kind = next(iter(sorted(errors)))
    example = cell.error_examples.get(kind, "")
    return Outcome(FAILED, f"{kinds} of {cell.calls + sum(errors.values())} calls: {example}",
                   errors.get("wrong_answer", 0))


def verdict(outcomes: list[Outcome], clients: Iterable[str]) -> Verdict:
    """A mechanism's verdict over its clients (the Python one first): the worst of them, naming the
    client when a native one differs."""
    named = list(zip(clients, outcomes, strict=False))
    by_python = named[0][1]
    silent = by_python.wrong_answers > 0 and any(o.status == OK for c, o in named[1:])
    for status in (FAILED, UNSUPPORTED, UNAVAILABLE):
        found = [(c, o) for c, o in named if o.status == status]
        if found:
            text = "; ".join(_by(c, o.text) if len(named) > 1 else o.text for c, o in found)
            if silent:
                native = ", ".join(_client_name(c) for c, o in named[1:] if o.status == OK)
                text = f"SILENT: {native} called it right; {text}"
            return Verdict(status, text, silent)
    return Verdict(OK)


def _by(client: str, text: str) -> str:
    """A client's outcome named by its client, once (a native client's own reason already says it)."""
    name = _client_name(client)
    return text if text.startswith(f"{name}: ") else f"{name}: {text}"


def _client_name(client: str) -> str:
    return "the Python client" if client == PYTHON else f"the {client} client"


def run_corpus(folder: Path, chosen: list[Mechanism], scratch: Path,
               features: set[str] | None = None) -> Iterator[tuple[Case, dict[str, Verdict]]]:
    """Each case of the corpus (or those of `features`) with its verdicts, in order, `PARALLEL_CASES`
    measured at a time (a cell is mostly processes starting: two at once keep two cores busy)."""
    cases = [(n, c) for n, c in enumerate(corpus(folder)) if features is None or c.feature in features]

    unbuilt, stop = Unbuilt(), threading.Event()

    def measured(numbered: tuple[int, Case]) -> dict[str, Verdict]:
        where = scratch / f"case{numbered[0]}"
        where.mkdir(parents=True, exist_ok=True)
        return run_case(numbered[1], folder, chosen, where, unbuilt, stop)
    pool = ThreadPoolExecutor(PARALLEL_CASES)
    try:
        yield from zip((c for _, c in cases), pool.map(measured, cases))
    finally:  # stopped (Ctrl-C, a signal): the runs in flight end, no other one starts
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)


_PORT = re.compile(r"(127\.0\.0\.1|localhost|\[::1\]):\d+")
_PID = re.compile(r"\b(pid|process) \d+")
_LOG = re.compile(r";? ?full log: [^\s;,]+")
_PATH = re.compile(r"(?<![\w.])/(?:[\w.+-]+/){2,}([\w.+-]+)")  # a file's place differs between machines


def stable(text: str) -> str:
    """A reason as the table keeps it: what varies from run to run or machine to machine (ports, pids,
    the folders of files: a path keeps its file name) masked, bounded."""
    text = _LOG.sub("", _PID.sub(r"\1 N", _PORT.sub(r"\1:PORT", " ".join(text.split()))))
    text = _PATH.sub(r"…/\1", text)
    return text if len(text) <= EXAMPLE_CHARS else text[:EXAMPLE_CHARS - 1] + "…"


def table(rows: list[tuple[Case, dict[str, Verdict]]], chosen: list[Mechanism]) -> str:
    """The feature x mechanism table in Markdown: ✓, or a numbered note that says why not."""
    notes: dict[str, int] = {}
    head = ["feature", *(m.id for m in chosen)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case, verdicts in rows:
        cells = [_cell(verdicts[m.id], m.id, notes) for m in chosen]
        lines.append(f"| {case.feature} | " + " | ".join(cells) + " |")
    lines.append("")
    lines += [f"{n}. {text}" for text, n in notes.items()]
    return "\n".join(lines) + "\n"


def _cell(v: Verdict, mechanism: str, notes: dict[str, int]) -> str:
    if v.status == OK:
        return "✓"
    text = f"{v.mark}: {stable(v.text)}"
    number = notes.setdefault(text, len(notes) + 1)
    return f"{'**FAILED**' if v.status == FAILED else v.mark} ({number})"
