"""Scenario files (`*.bpmntest.toml`): what a test gives a diagram, and what it expects back.

TOML, because people write these by hand next to their diagrams and read them in review.
Every key is checked: one the kit does not know is refused with its file and line, never
ignored (a misspelt `expect` that silently checked nothing would be a test that cannot fail).
The format is documented in docs/testing.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

from bpmn_engine.errors import LoadError
from bpmn_engine.tomlfiles import load_toml
from bpmn_engine.userfiles import read_user_file

SUFFIX = ".bpmntest.toml"
DEFAULT_CLOCK = datetime(2026, 1, 1, tzinfo=UTC)  # the same start for every run: reproducible

STATES = ("completed", "waiting", "failed", "terminated", "cancelled", "active")


@dataclass(frozen=True)
class MockCall:
    """What one call of a mocked handler does: return variables, throw a BPMN error, or fail."""

    returns: dict[str, Any] = field(default_factory=dict)
    error: str | None = None  # a BpmnError code, caught by error boundary events
    message: str = ""
    fail: str | None = None  # an exception: an incident at the task


@dataclass(frozen=True)
class Mock:
    """A handler stand-in; call N does `calls[N]`, the last one again once they run out."""

    name: str
    calls: tuple[MockCall, ...]


@dataclass(frozen=True)
class Expectation:
    """What must hold at a point of the run; fields left empty check nothing."""

    line: int
    state: str | None = None
    end_event: str | None = None
    variables: dict[str, Any] | None = None
    passed: tuple[str, ...] = ()
    not_passed: tuple[str, ...] = ()
    order: tuple[str, ...] = ()
    times: dict[str, int] = field(default_factory=dict)
    waiting_at: tuple[str, ...] = ()
    incident: str | None = None
    incident_at: str | None = None
    calls: dict[str, int] = field(default_factory=dict)
    instances: int | None = None  # how many instances were started (with `deploy`)


@dataclass(frozen=True)
class Action:
    """One thing the scenario does once the run has settled: `kind` is complete, message,
    signal, advance (the clock), or check (expectations only)."""

    kind: str
    line: int
    number: int = 1  # its place among the scenario's steps, from 1
    target: str = ""  # the task, message or signal name, or the ISO 8601 duration
    key: str | None = None
    variables: dict[str, Any] = field(default_factory=dict)
    expect: Expectation | None = None


@dataclass(frozen=True)
class Scenario:
    name: str
    file: Path
    line: int
    diagrams: tuple[Path, ...]
    process: str | None
    variables: dict[str, Any]
    answers: dict[str, dict[str, Any] | list[dict[str, Any]]]  # a list: one per visit
    mocks: dict[str, Mock]
    handlers_file: Path | None
    trust_scripts: bool
    deploy: bool  # deploy the processes (their start events start instances), start none
    clock: datetime
    steps: tuple[Action, ...]
    expect: Expectation

    @property
    def title(self) -> str:
        return f"{self.file}::{self.name}"


# --- reading ------------------------------------------------------------------------------
TOP_KEYS = {
    "diagram",
    "diagrams",
    "process",
    "handlers",
    "trust_scripts",
    "deploy",
    "clock",
    "answers",
    "mocks",
    "variables",
    "scenario",
}
SCENARIO_KEYS = TOP_KEYS - {"scenario"} | {
    "name",
    "description",
    "steps",
    "expect",
}
EXPECT_KEYS = {
    "state",
    "end_event",
    "variables",
    "passed",
    "not_passed",
    "order",
    "times",
    "waiting_at",
    "incident",
    "incident_at",
    "calls",
    "instances",
}
ACTIONS = ("complete", "message", "signal", "activate", "trigger", "resume", "advance")
STEP_KEYS = {*ACTIONS, "key", "variables", "expect"}
MOCK_KEYS = {"returns", "error", "message", "fail", "calls"}


class _Reader:
    """Checks one file's parsed TOML, and finds the line a complaint is about."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()
        headers = [
            i for i, line in enumerate(self.lines) if re.match(r"\s*\[\[\s*scenario\s*\]\]", line)
        ]
        ends = [*headers[1:], len(self.lines)][: len(headers)]
        self.blocks = list(zip(headers, ends, strict=True))

    def error(self, message: str, line: int | None = None) -> LoadError:
        return LoadError(message, file=str(self.path), line=line)

    def line_of(self, key: str, block: int | None = None, after: int = 0) -> int | None:
        """The first line (1-based) naming `key` as a key or table, within a scenario's block."""
        whole = (0, len(self.lines))  # also for scenarios written as inline tables
        start, end = self.blocks[block] if block is not None and block < len(self.blocks) else whole
        start = max(start, after - 1)
        pattern = re.compile(rf"(^|[\s{{,.\[])[\"']?{re.escape(key)}[\"']?\s*(=|\]|\.)")
        for number in range(start, end):
            if pattern.search(self.lines[number].split("#", 1)[0]):
                return number + 1
        return self.where(block)  # not written out: the scenario's own line

    def where(self, block: int | None) -> int | None:
        if block is None or block >= len(self.blocks):
            return None
        return self.blocks[block][0] + 1

    # --- values ---------------------------------------------------------------------------
    def table(self, value: Any, what: str, block: int | None, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(f"{what} must be a table", self.line_of(key, block))
        return value

    def text(self, value: Any, what: str, block: int | None, key: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.error(f"{what} must be a non-empty string", self.line_of(key, block))
        return value

    def names(self, value: Any, what: str, block: int | None, key: str) -> tuple[str, ...]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.error(f"{what} must be a list of element ids", self.line_of(key, block))
        return tuple(value)

    def known(self, table: dict[str, Any], keys: set[str], what: str, block: int | None) -> None:
        for key in table:
            if key not in keys:
                allowed = ", ".join(sorted(keys))
                raise self.error(
                    f"{what}: unknown key {key!r} (known: {allowed})", self.line_of(key, block)
                )


def plain(value: Any) -> Any:
    """TOML dates and times as the ISO 8601 strings the engine's variables hold."""
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def load_scenarios(path: str | Path) -> list[Scenario]:
    """Every scenario of one file, checked; a `LoadError` (file:line: message) if it is wrong."""
    path = Path(path)
    raw = read_user_file(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise LoadError(f"not UTF-8 text: {error.reason}", file=str(path)) from None
    document = load_toml(text, str(path))
    reader = _Reader(path, text)
    reader.known(document, TOP_KEYS, "scenario file", None)
    diagrams = _diagrams(reader, document, None)
    shared = {k: v for k, v in document.items() if k not in ("diagram", "diagrams", "scenario")}
    scenarios = document.get("scenario")
    if not isinstance(scenarios, list) or not scenarios:
        raise reader.error("no [[scenario]] tables: a scenario file needs at least one")
    seen: set[str] = set()
    result = []
    for block, table in enumerate(scenarios):
        if not isinstance(table, dict):
            raise reader.error("each [[scenario]] must be a table", reader.where(block))
        scenario = _scenario(reader, block, table, shared, diagrams)
        if scenario.name in seen:
            raise reader.error(f"two scenarios are named {scenario.name!r}", scenario.line)
        seen.add(scenario.name)
        result.append(scenario)
    return result


def _diagrams(
    reader: _Reader, document: dict[str, Any], block: int | None
) -> tuple[Path, ...] | None:
    """The diagram files the file's top level (`block` None) or one scenario names, or None
    when it names none."""
    if "diagram" in document and "diagrams" in document:
        raise reader.error(
            "give `diagram` or `diagrams`, not both", reader.line_of("diagrams", block)
        )
    value = document.get("diagrams", document.get("diagram"))
    if value is None:
        return None
    names = reader.names(value, "`diagram`/`diagrams`", block, "diagram")
    base = reader.path.parent
    files = tuple(base / name for name in names)
    if not any(f.suffix.lower() != ".dmn" for f in files):
        raise reader.error("`diagrams` holds no BPMN file", reader.line_of("diagram", block))
    return files


def _scenario(
    reader: _Reader,
    block: int,
    table: dict[str, Any],
    shared: dict[str, Any],
    diagrams: tuple[Path, ...] | None,
) -> Scenario:
    reader.known(table, SCENARIO_KEYS, "[[scenario]]", block)
    line = reader.where(block) or 1
    name = reader.text(table.get("name"), "a scenario's `name`", block, "name")
    diagrams = _diagrams(reader, table, block) or diagrams
    if diagrams is None:
        raise reader.error(
            f'scenario {name!r} names no diagram: give `diagram = "file.bpmn"` at the top of '
            "the file or in the scenario",
            line,
        )

    def setting(key: str) -> Any:  # the scenario's own, else the file's
        return table.get(key, shared.get(key))

    process = setting("process")
    if process is not None:
        process = reader.text(process, "`process`", block, "process")
    variables = plain(reader.table(setting("variables") or {}, "`variables`", block, "variables"))
    answers: dict[str, dict[str, Any] | list[dict[str, Any]]] = {}
    # the scenario's own answers win whole, as every setting does (`answers = {}`: none)
    source = table["answers"] if "answers" in table else shared.get("answers") or {}
    for task, answer in reader.table(source, "`answers`", block, "answers").items():
        what = f"the answer for {task!r}"
        if isinstance(answer, list):  # one per visit
            answers[task] = [plain(reader.table(a, what, block, task)) for a in answer]
        else:
            answers[task] = plain(reader.table(answer, what, block, task))
    mocks: dict[str, Mock] = {}
    for source in (shared.get("mocks") or {}, table.get("mocks") or {}):
        for mock_name, spec in reader.table(source, "`mocks`", block, "mocks").items():
            mocks[mock_name] = _mock(reader, block, mock_name, spec)
    handlers = setting("handlers")
    handlers_file = None
    if handlers is not None:
        handlers_file = reader.path.parent / reader.text(handlers, "`handlers`", block, "handlers")
    trust = setting("trust_scripts") or False
    if not isinstance(trust, bool):
        raise reader.error("`trust_scripts` must be true or false", reader.line_of("trust_scripts"))
    deploy = setting("deploy") or False
    if not isinstance(deploy, bool):
        raise reader.error("`deploy` must be true or false", reader.line_of("deploy", block))
    clock = _clock(reader, block, setting("clock"))
    steps = tuple(
        _step(reader, block, number, spec)
        for number, spec in enumerate(_list(reader, block, table.get("steps", []), "steps"))
    )
    expect_table = reader.table(table.get("expect", {}), "`expect`", block, "expect")
    expect = _expectation(reader, block, expect_table, reader.line_of("expect", block) or line)
    if not table.get("expect") and not any(s.expect for s in steps):
        raise reader.error(
            f"scenario {name!r} expects nothing: add an [scenario.expect] table "
            "(a test that checks nothing cannot fail)",
            line,
        )
    return Scenario(
        name=name,
        file=reader.path,
        line=line,
        diagrams=diagrams,
        process=process,
        variables=variables,
        answers=answers,
        mocks=mocks,
        handlers_file=handlers_file,
        trust_scripts=trust,
        deploy=deploy,
        clock=clock,
        steps=steps,
        expect=expect,
    )


def _list(reader: _Reader, block: int, value: Any, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise reader.error(f"`{key}` must be an array of tables", reader.line_of(key, block))
    return value


def _clock(reader: _Reader, block: int, value: Any) -> datetime:
    if value is None:
        return DEFAULT_CLOCK
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            value = None
    if not isinstance(value, datetime):
        raise reader.error(
            "`clock` must be a date-time such as 2026-01-05T09:00:00Z", reader.line_of("clock")
        )
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _mock(reader: _Reader, block: int, name: str, spec: Any) -> Mock:
    spec = reader.table(spec, f"the mock {name!r}", block, name)
    if "calls" in spec:
        if set(spec) != {"calls"}:
            raise reader.error(
                f"the mock {name!r}: `calls` lists each call; give nothing beside it",
                reader.line_of(name, block),
            )
        calls = _list(reader, block, spec["calls"], "calls")
        if not calls:
            raise reader.error(f"the mock {name!r}: `calls` is empty", reader.line_of(name, block))
        return Mock(name, tuple(_mock_call(reader, block, name, call) for call in calls))
    return Mock(name, (_mock_call(reader, block, name, spec),))


def _mock_call(reader: _Reader, block: int, name: str, spec: Any) -> MockCall:
    spec = reader.table(spec, f"a call of the mock {name!r}", block, name)
    reader.known(spec, MOCK_KEYS - {"calls"}, f"the mock {name!r}", block)
    kinds = [k for k in ("returns", "error", "fail") if k in spec]
    if len(kinds) > 1:
        raise reader.error(
            f"the mock {name!r}: give one of `returns`, `error` and `fail`",
            reader.line_of(name, block),
        )
    returns = plain(reader.table(spec.get("returns", {}), "`returns`", block, "returns"))
    error = spec.get("error")
    if error is not None:
        error = reader.text(error, "`error` (a BPMN error code)", block, "error")
    fail = spec.get("fail")
    if fail is not None:
        fail = reader.text(fail, "`fail` (the failure's message)", block, "fail")
    message = spec.get("message", "")
    if not isinstance(message, str):
        raise reader.error("`message` must be a string", reader.line_of("message", block))
    return MockCall(returns=returns, error=error, message=message, fail=fail)


def _step(reader: _Reader, block: int, number: int, spec: Any) -> Action:
    what = f"step {number + 1}"
    spec = reader.table(spec, what, block, "steps")
    reader.known(spec, STEP_KEYS, what, block)
    line = reader.line_of("steps", block) or reader.where(block) or 1
    kinds = [k for k in ACTIONS if k in spec]
    if len(kinds) > 1:
        raise reader.error(f"{what}: give one of {', '.join(ACTIONS)}, not several", line)
    if not kinds and "expect" not in spec:
        raise reader.error(f"{what} does nothing: give one of {', '.join(ACTIONS)} or expect", line)
    kind = kinds[0] if kinds else "check"
    if kind == "resume" and spec[kind] is not True:  # `bpmn resume` names nothing to act on
        raise reader.error(f"{what}: write `resume = true`", reader.line_of(kind, block))
    if kind == "resume" or not kinds:
        target = ""
    else:
        target = reader.text(spec[kind], f"{what}: `{kind}`", block, kind)
    line = reader.line_of(kind, block, after=line) or line if kinds else line
    key = spec.get("key")
    if key is not None and kind != "message":
        raise reader.error(f"{what}: `key` goes with `message` only", line)
    if key is not None and not isinstance(key, str | int):
        raise reader.error(f"{what}: `key` must be a string or an integer", line)
    variables = plain(
        reader.table(spec.get("variables", {}), f"{what}: `variables`", block, "variables")
    )
    if variables and kind in ("advance", "check"):
        raise reader.error(
            f"{what}: `variables` go with complete, message, signal, activate, trigger or resume",
            line,
        )
    expect = None
    if "expect" in spec:
        expect_table = reader.table(spec["expect"], f"{what}: `expect`", block, "expect")
        expect = _expectation(reader, block, expect_table, line)
    return Action(
        kind=kind,
        line=line,
        number=number + 1,
        target=target,
        key=str(key) if key is not None else None,
        variables=variables,
        expect=expect,
    )


def _expectation(reader: _Reader, block: int, table: dict[str, Any], line: int) -> Expectation:
    reader.known(table, EXPECT_KEYS, "`expect`", block)
    state = table.get("state")
    if state is not None and state not in STATES:
        raise reader.error(
            f"`state` must be one of {', '.join(STATES)}, not {state!r}",
            reader.line_of("state", block, after=line),
        )
    counts: dict[str, dict[str, int]] = {}
    for key in ("times", "calls"):
        value = reader.table(table.get(key, {}), f"`{key}`", block, key)
        if not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in value.values()
        ):
            raise reader.error(
                f"`{key}` maps names to counts (0 or more)", reader.line_of(key, block, after=line)
            )
        counts[key] = value

    def optional_text(key: str) -> str | None:
        value = table.get(key)
        return None if value is None else reader.text(value, f"`{key}`", block, key)

    instances = table.get("instances")
    if instances is not None and (
        not isinstance(instances, int) or isinstance(instances, bool) or instances < 0
    ):
        raise reader.error(
            "`instances` is a count (0 or more)", reader.line_of("instances", block, after=line)
        )
    variables = table.get("variables")
    if variables is not None:
        variables = plain(reader.table(variables, "`variables`", block, "variables"))
    return Expectation(
        line=line,
        state=state,
        end_event=optional_text("end_event"),
        variables=variables,
        passed=reader.names(table.get("passed", []), "`passed`", block, "passed"),
        not_passed=reader.names(table.get("not_passed", []), "`not_passed`", block, "not_passed"),
        order=reader.names(table.get("order", []), "`order`", block, "order"),
        times=counts["times"],
        waiting_at=reader.names(table.get("waiting_at", []), "`waiting_at`", block, "waiting_at"),
        incident=optional_text("incident"),
        incident_at=optional_text("incident_at"),
        calls=counts["calls"],
        instances=instances,
    )


def find_scenario_files(paths: list[Path]) -> list[Path]:
    """The scenario files among `paths`, folders searched recursively, in a stable order."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob(f"*{SUFFIX}") if p.is_file()))
        else:
            found.append(path)
    return list(dict.fromkeys(found))
