"""Expectations against what a run did; each broken one is a sentence that names it."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bpmn_engine import Engine, Event
from bpmn_engine.testkit.coverage import Coverage
from bpmn_engine.testkit.scenario import Expectation

MISSING = object()


@dataclass(frozen=True)
class End:
    """Where one instance the test started stands: its state, end event and variables."""

    instance: str
    state: str
    end_event: str | None
    variables: dict[str, Any]


@dataclass
class Observed:
    """What a run did: where each instance it started stands (one, or every instance a
    deployment started), and the history of every instance."""

    ends: list[End]
    histories: list[list[Event]]  # the root's first, then the instances it called
    waiting: list[str]
    incidents: list[tuple[str, str | None]]  # (message, element)
    calls: dict[str, int]
    errors: list[str] = field(default_factory=list)
    coverage: Coverage = field(default_factory=Coverage)

    def completed(self) -> list[str]:
        """Every element completed, in order (the root's steps first, then its children's)."""
        return [
            e.element
            for events in self.histories
            for e in events
            if e.event == "element.completed" and e.element is not None
        ]

    def path(self) -> list[str]:
        return self.completed()


def observe(
    engine: Engine,
    root: str | None,
    calls: Mapping[str, int] | None = None,
    errors: list[str] | None = None,
    *,
    everyone: bool = False,
) -> Observed:
    """What a run did: `root`'s end, and the history of `root` and every instance it called
    (`everyone`: every instance in the engine's database, e.g. those a message started).
    Without a root (a deployment started them), the end of every instance nothing called."""
    if everyone or root is None:
        rows = engine.instances()
        ids = [row["id"] for row in rows]
    else:
        rows, ids = [], engine.tree(root).ids
    if root is not None:
        ids = [root, *(i for i in ids if i != root)]  # the root's history first
        started = [root]
    else:
        started = [row["id"] for row in rows if not row.get("parent_instance")]
    members = [engine.instance(i) for i in ids]
    histories = [(m, m.history()) for m in members]
    coverage = Coverage()
    for member, events in histories:
        coverage.add_run(engine.definition_of(member.id), events)
    ends = []
    for instance in started:
        outcome = engine.instance(instance).outcome()
        ends.append(End(instance, outcome.state, outcome.end_event, outcome.variables))
    return Observed(
        ends=ends,
        histories=[events for _, events in histories],
        waiting=[
            w["element"]
            for m in members
            if m.state.value == "active"
            for w in m.outcome().waiting_for
        ],
        incidents=[
            (m.outcome().incident or "", _failed_element(events))
            for m, events in histories
            if m.state.value in ("failed", "active") and m.outcome().incident is not None
        ],
        calls=dict(calls or {}),
        errors=list(errors or []),
        coverage=coverage,
    )


def _failed_element(events: list[Event]) -> str | None:
    for event in reversed(events):
        if event.event == "incident.created":
            return event.element
    return None


def _show(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return repr(value)


def check(expect: Expectation, seen: Observed, when: str) -> list[str]:
    """The broken expectations, each saying what was expected and what happened."""
    broken: list[str] = []

    def fail(text: str) -> None:
        broken.append(f"{when}, line {expect.line}: {text}" if when else text)

    for error in seen.errors:
        fail(f"the engine reported: {error}")
    if expect.instances is not None and len(seen.ends) != expect.instances:
        fail(f"expected {expect.instances} instance(s) started, {len(seen.ends)} were")
    per_instance = expect.state, expect.end_event, expect.variables
    if not seen.ends and any(x is not None for x in per_instance):
        fail("no instance was started")
    for end in seen.ends:
        who = f"instance {end.instance}: " if len(seen.ends) > 1 else ""
        if expect.state is not None and end.state != expect.state:
            detail = ""
            if seen.incidents:
                detail = f" (incident: {seen.incidents[0][0]})"
            fail(f"{who}expected state {expect.state}, got {end.state}{detail}")
        if expect.end_event is not None and end.end_event != expect.end_event:
            ended = end.end_event or "no end event"
            fail(f"{who}expected to end at {expect.end_event}, ended at {ended}")
        for name, wanted in (expect.variables or {}).items():
            got = end.variables.get(name, MISSING)
            if got is MISSING:
                fail(f"{who}variable {name!r} is not set (expected {_show(wanted)})")
            elif not _equal(got, wanted):
                fail(f"{who}variable {name!r} is {_show(got)}, expected {_show(wanted)}")
    completed = seen.completed()
    counts = Counter(completed)
    for element in expect.passed:
        if counts[element] == 0:
            fail(f"expected to pass {element}, it was not completed")
    for element in expect.not_passed:
        if counts[element]:
            fail(f"expected not to pass {element}, it was completed {counts[element]} time(s)")
    if expect.order and not _in_order(expect.order, completed):
        fail(f"expected {' -> '.join(expect.order)} in this order")
    for element, times in expect.times.items():
        if counts[element] != times:
            fail(f"expected {element} completed {times} time(s), it was {counts[element]}")
    for element in expect.waiting_at:
        if element not in seen.waiting:
            fail(
                f"expected to wait at {element}, waiting at: {', '.join(seen.waiting) or 'nothing'}"
            )
    if expect.incident is not None and not any(expect.incident in m for m, _ in seen.incidents):
        got = "; ".join(m for m, _ in seen.incidents) or "none"
        fail(f"expected an incident saying {expect.incident!r}, incidents: {got}")
    if expect.incident_at is not None and expect.incident_at not in [e for _, e in seen.incidents]:
        got = ", ".join(e or "?" for _, e in seen.incidents) or "none"
        fail(f"expected an incident at {expect.incident_at}, incidents at: {got}")
    for name, times in expect.calls.items():
        if seen.calls.get(name, 0) != times:
            got = seen.calls.get(name, 0)
            fail(f"expected handler {name!r} called {times} time(s), it was {got}")
    return broken


def _equal(got: Any, wanted: Any) -> bool:
    """Equal as the diagram's data: a FEEL Decimal 3 equals TOML's 3, a tuple its list."""
    if isinstance(wanted, dict) and isinstance(got, dict):
        return got.keys() == wanted.keys() and all(_equal(got[k], wanted[k]) for k in wanted)
    if isinstance(wanted, list) and isinstance(got, list | tuple):
        pairs = zip(got, wanted, strict=False)  # lengths compared first
        return len(got) == len(wanted) and all(_equal(g, w) for g, w in pairs)
    if isinstance(wanted, bool) or isinstance(got, bool):
        return got is wanted
    if isinstance(wanted, int | float) and not isinstance(got, str):
        try:
            return float(got) == float(wanted)
        except (TypeError, ValueError):
            return False
    return bool(got == wanted)


def _in_order(wanted: tuple[str, ...], completed: list[str]) -> bool:
    """`wanted` is a subsequence of what completed (other elements may come between)."""
    remaining = iter(completed)
    return all(any(element == done for done in remaining) for element in wanted)
