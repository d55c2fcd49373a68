"""Running one scenario: a fresh in-memory engine, a clock that moves only when told, mocked
handlers, and every expectation checked with the path the tokens took.

The clock is fixed (`clock` in the file, else 2026-01-01) and moves only with an `advance`
step: a timer fires when the scenario lets time pass, as in Camunda's process tests where a
test executes the timer job itself. A run with the real clock would depend on the machine.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bpmn_engine import (
    BpmnEngineError,
    BpmnError,
    Engine,
    Event,
    Instance,
    ServiceTaskContext,
    UserTask,
    Worker,
    load,
    load_decisions,
    load_handlers,
    parse_duration,
)
from bpmn_engine.testkit.checks import Observed, check
from bpmn_engine.testkit.coverage import Coverage
from bpmn_engine.testkit.scenario import Action, Mock, Scenario

Handler = Callable[[ServiceTaskContext], "dict[str, Any] | None"]


class ScenarioClock:
    """Time that stands still until the scenario advances it (never jumps by itself)."""

    virtual = False  # the engine must not jump it to the next timer

    def __init__(self, start: datetime) -> None:
        self._now = start

    def now(self) -> datetime:
        return self._now

    def advance(self, duration: str) -> None:
        self._now = self._now + parse_duration(duration)


@dataclass
class ScenarioResult:
    """How one scenario ended: `passed`, `failed` (an expectation broke) or `error` (it could
    not run: a diagram that does not load, a step naming a task that never waits)."""

    scenario: Scenario
    outcome: str = "passed"
    failures: list[str] = field(default_factory=list)
    path: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    coverage: Coverage = field(default_factory=Coverage)
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"

    def report(self) -> str:
        """The failures, then where the run went: what a reader needs to see why."""
        lines = [*self.failures]
        if self.path:
            lines.append("path taken: " + " -> ".join(self.path))
        if self.waiting:
            lines.append("waiting at: " + ", ".join(self.waiting))
        return "\n".join(lines)


class _Mocks:
    """Handler stand-ins that count their calls (real handlers from a file are counted too)."""

    def __init__(self, scenario: Scenario) -> None:
        self.calls: Counter[str] = Counter()
        self.handlers: dict[str, Handler] = {}
        if scenario.handlers_file is not None:
            for name, function in load_handlers(scenario.handlers_file).items():
                self.handlers[name] = self._counted(name, function)
        for name, mock in scenario.mocks.items():
            self.handlers[name] = self._counted(name, self._mocked(mock))

    def _counted(self, name: str, function: Handler) -> Handler:
        def handler(context: ServiceTaskContext) -> dict[str, Any] | None:
            self.calls[name] += 1
            return function(context)

        return handler

    def _mocked(self, mock: Mock) -> Handler:
        def handler(context: ServiceTaskContext) -> dict[str, Any] | None:
            call = mock.calls[min(self.calls[mock.name], len(mock.calls)) - 1]
            if call.error is not None:
                raise BpmnError(call.error, call.message)
            if call.fail is not None:
                raise RuntimeError(call.fail)
            return dict(call.returns)

        return handler


class _Answers:
    """Answers a user task the scenario's `answers` name (by element id or name)."""

    def __init__(self, answers: dict[str, dict[str, Any]]) -> None:
        self.answers = answers

    def __call__(self, instance: Instance, task: UserTask) -> dict[str, Any] | None:
        for key in (task.element, task.name):
            if key is not None and key in self.answers:
                return dict(self.answers[key])
        return None


class _Run:
    def __init__(self, scenario: Scenario, result: ScenarioResult) -> None:
        self.scenario = scenario
        self.result = result
        self.clock = ScenarioClock(scenario.clock)
        self.mocks = _Mocks(scenario)
        self.errors: list[str] = []
        self.engine = Engine(
            ":memory:",
            handlers=self.mocks.handlers,
            on_user_task=_Answers(scenario.answers),
            clock=self.clock,
            trust_scripts=scenario.trust_scripts,
        )
        self.root = ""

    def start(self) -> None:
        bpmn = [p for p in self.scenario.diagrams if p.suffix.lower() != ".dmn"]
        dmn = [p for p in self.scenario.diagrams if p.suffix.lower() == ".dmn"]
        if dmn:
            self.engine.add_decisions(load_decisions(*dmn))
        loaded = [load(path) for path in bpmn]
        for definitions in loaded:  # where call activities find the processes they call
            self.engine.deploy(definitions)
        main = loaded[0]
        process = self.scenario.process
        if process is not None:
            main = next((d for d in loaded if process in d.processes), main)
        self.root = self.engine.start(main, process, self.scenario.variables).id
        self.settle()

    def settle(self) -> None:
        """Run everything that can run now (called instances, woken receivers included)."""
        worker = Worker(self.engine, poll=0.0, once=True, on_error=self.errors.append)
        worker.run()

    def act(self, action: Action) -> None:
        if action.kind == "complete":
            holder = self._task_holder(action)
            holder.complete_task(action.target, action.variables)
        elif action.kind == "message":
            self.engine.publish_message(action.target, action.key, action.variables)
        elif action.kind == "signal":
            self.engine.broadcast_signal(action.target, action.variables)
        elif action.kind == "advance":
            self.clock.advance(action.target)
        self.settle()

    def _task_holder(self, action: Action) -> Instance:
        for member in self.engine.family(self.root):
            instance = self.engine.instance(member)
            for task in instance.user_tasks():
                if action.target in (task.element, task.name, str(task.id)):
                    return instance
        waiting = sorted({t.element for m in self._members() for t in m.user_tasks()})
        raise _StepError(
            f"step {action.number}, line {action.line}: complete {action.target!r}: "
            "no such user task waits "
            f"(waiting: {', '.join(waiting) or 'none'})"
        )

    def _members(self) -> list[Instance]:
        return [self.engine.instance(row["id"]) for row in self.engine.instances()]

    def observe(self) -> Observed:
        """What the run did so far, over every instance of the scenario's database."""
        root = self.engine.instance(self.root)
        outcome = root.outcome()
        members = self._members()
        histories: list[tuple[Instance, list[Event]]] = [(m, m.history()) for m in members]
        waiting = [
            w["element"]
            for m in members
            for w in m.outcome().waiting_for
            if m.state.value == "active"
        ]
        incidents = [
            (m.outcome().incident or "", _failed_element(events))
            for m, events in histories
            if m.state.value == "failed"
        ]
        coverage = Coverage()
        for member, events in histories:
            coverage.add_run(self.engine.definition_of(member.id), events)
        return Observed(
            state=outcome.state,
            end_event=outcome.end_event,
            variables=outcome.variables,
            histories=[events for _, events in histories],
            waiting=waiting,
            incidents=incidents,
            calls=dict(self.mocks.calls),
            errors=list(self.errors),
            coverage=coverage,
        )


class _StepError(Exception):
    """A step that cannot be done (the run is not where the scenario thought)."""


def _failed_element(events: list[Event]) -> str | None:
    for event in reversed(events):
        if event.event == "incident.created":
            return event.element
    return None


def run_scenario(scenario: Scenario) -> ScenarioResult:
    """Run one scenario from scratch; never raises for what the scenario or diagram holds."""
    result = ScenarioResult(scenario)
    began = time.perf_counter()
    run: _Run | None = None
    try:
        run = _Run(scenario, result)
        run.start()
        for action in scenario.steps:
            if action.kind != "check":
                run.act(action)
            if action.expect is not None:
                failures = check(action.expect, run.observe(), f"after step {action.number}")
                if failures:
                    result.failures.extend(failures)
                    break
        if not result.failures:
            result.failures.extend(check(scenario.expect, run.observe(), "at the end"))
        if result.failures:
            result.outcome = "failed"
    except _StepError as error:
        result.outcome = "failed"
        result.failures.append(str(error))
    except BpmnEngineError as error:
        result.outcome = "error"
        result.failures.append(str(error))
    finally:
        if run is not None:
            _summarise(run, result)
            run.engine.close()
        result.seconds = time.perf_counter() - began
    return result


def _summarise(run: _Run, result: ScenarioResult) -> None:
    if not run.root:
        return
    try:
        observed = run.observe()
    except BpmnEngineError:
        return
    result.path = observed.path()
    result.waiting = observed.waiting
    result.coverage = observed.coverage
