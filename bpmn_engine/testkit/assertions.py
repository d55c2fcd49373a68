"""Fluent assertions on a process instance, for pytest (`assert_that(runner).completed()`).

Each method checks one thing and returns the assertion, so checks chain; a failing one raises
`AssertionError` with what was expected, the path the tokens took and where they wait now,
the three things one needs to see why a process test failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from bpmn_engine import Engine, Instance
from bpmn_engine.testkit.checks import Observed, check, observe
from bpmn_engine.testkit.runner import Runner
from bpmn_engine.testkit.scenario import Expectation


class InstanceAssert:
    """Assertions on an instance and the instances it called, as they are when checked."""

    def __init__(self, subject: Runner | Instance) -> None:
        if isinstance(subject, Runner):
            self._engine: Engine = subject.engine
            self._root = subject.instance.id
            self._calls: Mapping[str, int] = subject.calls
            self._everyone = True
        else:
            self._engine = subject.engine
            self._root = subject.id
            self._calls = {}
            self._everyone = False

    def _expect(self, **fields: Any) -> Self:
        seen = observe(self._engine, self._root, self._calls, everyone=self._everyone)
        broken = check(Expectation(line=0, **fields), seen, "")
        if broken:
            raise AssertionError(explain(broken, seen))
        return self

    # --- where it stands ------------------------------------------------------------------
    def completed(self) -> Self:
        return self._expect(state="completed")

    def waiting(self) -> Self:
        return self._expect(state="waiting")

    def failed(self) -> Self:
        return self._expect(state="failed")

    def terminated(self) -> Self:
        return self._expect(state="terminated")

    def ended_at(self, end_event: str) -> Self:
        return self._expect(end_event=end_event)

    def waiting_at(self, *elements: str) -> Self:
        return self._expect(waiting_at=elements)

    # --- where it went ----------------------------------------------------------------------
    def passed(self, *elements: str) -> Self:
        return self._expect(passed=elements)

    def not_passed(self, *elements: str) -> Self:
        return self._expect(not_passed=elements)

    def passed_in_order(self, *elements: str) -> Self:
        return self._expect(order=elements)

    def passed_times(self, element: str, times: int) -> Self:
        return self._expect(times={element: times})

    # --- what it holds --------------------------------------------------------------------------
    def variables(self, expected: Mapping[str, Any] | None = None, **more: Any) -> Self:
        """The named variables have these values (others may exist too)."""
        return self._expect(variables={**(expected or {}), **more})

    def incident(self, text: str | None = None, *, at: str | None = None) -> Self:
        """An incident whose message holds `text`, at element `at`."""
        return self._expect(state="failed", incident=text, incident_at=at)

    def called(self, handler: str, times: int) -> Self:
        """A handler (mocked or real, of a `Runner`) was called `times` times."""
        return self._expect(calls={handler: times})


def assert_that(subject: Runner | Instance) -> InstanceAssert:
    return InstanceAssert(subject)


def explain(broken: list[str], seen: Observed) -> str:
    lines = [*broken, *(f"state: {end.state}" for end in seen.ends)]
    path = seen.path()
    lines.append("path taken: " + (" -> ".join(path) if path else "(nothing completed)"))
    if seen.waiting:
        lines.append("waiting at: " + ", ".join(seen.waiting))
    for message, element in seen.incidents:
        lines.append(f"incident at {element or '?'}: {message}")
    return "\n".join(lines)
