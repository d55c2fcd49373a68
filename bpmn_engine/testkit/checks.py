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


@dataclass
class Observed:
    """What a run did: the root instance's end, and the history of every instance."""

    state: str
    end_event: str | None
    variables: dict[str, Any]
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
    root: str,
    calls: Mapping[str, int] | None = None,
    errors: list[str] | None = None,
    *,
    everyone: bool = False,
) -> Observed:
    """What a run did: `root`'s end, and the history of `root` and every instance it called
    (`everyone`: every instance in the engine's database, e.g. those a message started)."""
    outcome = engine.instance(root).outcome()
    ids = [row["id"] for row in engine.instances()] if everyone else engine.family(root)
    if root in ids:  # the root's history first
        ids.remove(root)
    members = [engine.instance(i) for i in [root, *ids]]
    histories = [(m, m.history()) for m in members]
    coverage = Coverage()
    for member, events in histories:
        coverage.add_run(engine.definition_of(member.id), events)
    return Observed(
        state=outcome.state,
        end_event=outcome.end_event,
        variables=outcome.variables,
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
            if m.state.value == "failed"
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
    if expect.state is not None and seen.state != expect.state:
        detail = ""
        if seen.incidents:
            detail = f" (incident: {seen.incidents[0][0]})"
        fail(f"expected state {expect.state}, got {seen.state}{detail}")
    if expect.end_event is not None and seen.end_event != expect.end_event:
        fail(f"expected to end at {expect.end_event}, ended at {seen.end_event or 'no end event'}")
    for name, wanted in (expect.variables or {}).items():
        got = seen.variables.get(name, MISSING)
        if got is MISSING:
            fail(f"variable {name!r} is not set (expected {_show(wanted)})")
        elif not _equal(got, wanted):
            fail(f"variable {name!r} is {_show(got)}, expected {_show(wanted)}")
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
