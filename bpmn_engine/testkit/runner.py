"""Running a process under test: a database of its own, a clock that moves only when told,
mocked handlers, and every expectation checked with the path the tokens took.

The clock is fixed (`clock` in the file, else 2026-01-01) and moves only with an `advance`
step: a timer fires when the scenario lets time pass, as in Camunda's process tests where a
test executes the timer job itself. A run with the real clock would depend on the machine.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from bpmn_engine import (
    BpmnEngineError,
    BpmnError,
    Definitions,
    Engine,
    Event,
    Instance,
    ServiceTaskContext,
    UsageError,
    UserTask,
    Worker,
    load,
    load_decisions,
    load_handlers,
    parse_duration,
)
from bpmn_engine.testkit.checks import Observed, check, observe
from bpmn_engine.testkit.coverage import Coverage
from bpmn_engine.testkit.scenario import DEFAULT_CLOCK, Action, MockCall, Scenario

MAX_EVENTS = 200_000  # per settle: tens of thousands of steps, seconds of work

Handler = Callable[[ServiceTaskContext], "dict[str, Any] | None"]


class ScenarioClock:
    """Time that stands still until the scenario advances it (never jumps by itself)."""

    virtual = False  # the engine must not jump it to the next timer

    def __init__(self, start: datetime) -> None:
        self._now = start

    def now(self) -> datetime:
        return self._now

    def to(self, moment: datetime) -> None:
        self._now = max(self._now, moment)

    def advance(self, duration: str) -> None:
        try:
            self._now = self._now + parse_duration(duration)
        except ValueError as error:  # TimerValueError: not an ISO 8601 duration
            raise UsageError(f"advance {duration!r}: {error}") from None


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


class Runner:
    """A process under test: a database of its own, handlers mocked or real, user tasks
    answered, a clock that stands still until `advance`; every call runs what can run.

    This is what `bpmn test` does for a scenario file, as Python for pytest:

        runner = Runner()
        runner.mock("charge_card", returns={"paid": True})
        runner.start("models/order.bpmn", variables={"total": 30})
        runner.complete("Approve order", {"approved": True})
        assert_that(runner).completed().passed("Task_ChargeCard")
    """

    def __init__(
        self,
        db: str | Path = ":memory:",
        *,
        handlers: str | Path | Mapping[str, Handler] | None = None,
        clock: datetime = DEFAULT_CLOCK,
        trust_scripts: bool = False,
        max_events: int = MAX_EVENTS,
        search_path: Sequence[str | Path] = (),
    ) -> None:
        self.max_events = max_events
        self.calls: Counter[str] = Counter()
        self.errors: list[str] = []
        self.clock = ScenarioClock(clock)
        self._handlers: dict[str, Handler] = {}  # the engine's table: mocks added later count
        self._answers: dict[str, dict[str, Any] | list[dict[str, Any]]] = {}
        self._mocks: dict[str, list[MockCall]] = {}
        if handlers is not None:
            self.use_handlers(handlers)
        self.engine = Engine(
            db,
            handlers=self._handlers,
            on_user_task=self._answer,
            clock=self.clock,
            trust_scripts=trust_scripts,
            search_path=search_path,
        )
        self.root: str | None = None
        self.deployed = False

    def close(self) -> None:
        self.engine.close()

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- what the process meets -----------------------------------------------------------
    def use_handlers(self, handlers: str | Path | Mapping[str, Handler]) -> Runner:
        """Real handlers: a Python file of functions (as `--handlers`), or a mapping; their
        calls are counted like a mock's. A mock of the same name wins."""
        if isinstance(handlers, str | Path):
            handlers = load_handlers(handlers)
        for name, function in handlers.items():
            if name not in self._mocks:
                self._handlers[name] = self._counted(name, function)
        return self

    def mock(
        self,
        name: str,
        returns: Mapping[str, Any] | None = None,
        *,
        error: str | None = None,
        message: str = "",
        fail: str | None = None,
    ) -> Runner:
        """Handle the service tasks `name` (a type, topic or element id) with a stand-in:
        return `returns`, throw the BPMN error `error`, or `fail` (an incident). Called again
        for one name, the calls queue up: the Nth call does the Nth, the last repeats."""
        if sum(x is not None for x in (returns, error, fail)) > 1:
            raise UsageError(f"mock {name!r}: give one of returns, error and fail")
        call = MockCall(returns=dict(returns or {}), error=error, message=message, fail=fail)
        self._mocks.setdefault(name, []).append(call)
        self._handlers[name] = self._counted(name, self._mocked(name))
        return self

    def answer(
        self, task: str, variables: Mapping[str, Any] | list[Mapping[str, Any]] | None = None
    ) -> Runner:
        """Complete the user task `task` (element id or name) with `variables` whenever it
        waits; a list answers one visit each, in turn, then leaves it waiting (as
        `bpmn run --answers` does)."""
        if isinstance(variables, list):
            self._answers[task] = [dict(v) for v in variables]
        else:
            self._answers[task] = dict(variables or {})
        return self

    def _counted(self, name: str, function: Handler) -> Handler:
        def handler(context: ServiceTaskContext) -> dict[str, Any] | None:
            self.calls[name] += 1
            return function(context)

        return handler

    def _mocked(self, name: str) -> Handler:
        def handler(context: ServiceTaskContext) -> dict[str, Any] | None:
            calls = self._mocks[name]
            call = calls[min(self.calls[name], len(calls)) - 1]
            if call.error is not None:
                raise BpmnError(call.error, call.message)
            if call.fail is not None:  # as the service would: retried while tries are left
                raise RuntimeError(call.fail)
            return dict(call.returns)

        return handler

    def _answer(self, instance: Instance, task: UserTask) -> dict[str, Any] | None:
        for key in (task.element, task.name):
            answer = self._answers.get(key) if key is not None else None
            if isinstance(answer, list):
                if answer:
                    return answer.pop(0)
                continue
            if answer is not None:
                return dict(answer)
        return None

    # --- driving ----------------------------------------------------------------------------
    def start(
        self,
        *files: str | Path,
        process: str | None = None,
        variables: Mapping[str, Any] | None = None,
        start_event: str | None = None,
    ) -> Instance:
        """Start the process of the first BPMN file (the others are what it calls, and
        `.dmn` files its decisions) and run until everything waits or ends; `start_event`
        (an id or a name) fires that start event now, whatever its kind."""
        loaded = self._load(files)
        for definitions in loaded:  # where call activities find the processes they call
            self.engine.deploy(definitions)
        main = loaded[0]
        if process is not None:
            main = next((d for d in loaded if process in d.processes), main)
        self.root = self.engine.start(
            main, process, dict(variables or {}), start_event=start_event
        ).id
        self.settle()
        return self.instance

    def deploy(self, *files: str | Path) -> None:
        """Deploy the processes of the BPMN files (`.dmn` files give their decisions): their
        timer start events start instances as `advance` lets time pass, their message start
        events when a `message` comes. No instance is started here."""
        for definitions in self._load(files):
            self.engine.deploy(definitions)
            self.engine.deploy_processes(definitions)
        self.deployed = True
        self.settle()

    def _load(self, files: tuple[str | Path, ...]) -> list[Definitions]:
        bpmn = [Path(p) for p in files if Path(p).suffix.lower() != ".dmn"]
        dmn = [Path(p) for p in files if Path(p).suffix.lower() == ".dmn"]
        if not bpmn:
            raise UsageError("give a BPMN file")
        if dmn:
            self.engine.add_decisions(load_decisions(*dmn))
        return [load(path) for path in bpmn]

    @property
    def instance(self) -> Instance:
        """The started instance, as it is now."""
        if self.root is None:
            raise UsageError("nothing started yet: call start() first")
        return self.engine.instance(self.root)

    def settle(self) -> None:
        """Run everything that can run now (called instances, woken receivers included),
        within `max_events` history events: a process that loops for ever is an error, not
        a test run that never ends."""
        events = 0

        def count(event: Event) -> None:
            nonlocal events
            events += 1
            if events > self.max_events:
                worker.stop()  # after the step in progress

        worker = Worker(
            self.engine, poll=0.0, once=True, on_error=self.errors.append, on_event=count
        )
        worker.run()
        while events <= self.max_events and self._wait_for_retry():
            worker.run()
        if events > self.max_events:
            raise StillRunning(
                f"still running after {self.max_events} events: a loop that never ends? "
                "(Runner(max_events=...) allows more)"
            )

    def _wait_for_retry(self) -> bool:
        """Let the backoff of a failed job pass, as a worker waits it out: the clock moves by
        itself only to a retry that no other timer comes before (those wait for `advance`)."""
        for due, _repeat, version, element in self.engine.store.waiting_timers_by_due():
            if self.engine.definitions(version).node(element).kind.endswith("Event"):
                return False  # a timer event: the scenario says when time passes
            self.clock.to(datetime.fromisoformat(due))
            return True
        return False

    def complete(self, task: str, variables: Mapping[str, Any] | None = None) -> None:
        """Complete a waiting user task (element id or name), in the instance or any
        instance it called, and run on."""
        self._task_holder(task).complete_task(task, dict(variables or {}))
        self.settle()

    def message(
        self, name: str, key: str | None = None, variables: Mapping[str, Any] | None = None
    ) -> None:
        self.engine.publish_message(name, key, dict(variables or {}))
        self.settle()

    def activate(self, element: str, variables: Mapping[str, Any] | None = None) -> None:
        """Activate an inner activity of the ad-hoc subprocess the instance waits in (process
        variables set first, as `bpmn activate --var` does), and run on."""
        if variables:
            self.instance.set_variables(dict(variables))
        self.instance.activate(element)
        self.settle()

    def trigger(
        self,
        element: str,
        variables: Mapping[str, Any] | None = None,
        *,
        track: int | None = None,
    ) -> None:
        """Move on a token that waits at `element` (id or name) for a trigger (a receive
        task with neither a message nor a name, a catch event with no event definition), in
        the instance or any instance it called, with these variables, and run on."""
        self._trigger_holder(element).trigger(element, dict(variables or {}), track=track)
        self.settle()

    def _trigger_holder(self, element: str) -> Instance:
        try:
            if not self.deployed:
                return self.instance.trigger_holder(element)
            found = [m for m in self._members() if m.triggers_at(element)]
            if len(found) == 1:
                return found[0]
            named = ", ".join(m.id for m in found)
            raise UsageError(
                f"{len(found)} instances wait at {element!r} for a trigger: {named}"
                if found
                else f"no instance waits at {element!r} for a trigger"
            )
        except UsageError as error:
            raise TriggerNotWaiting(f"trigger {element!r}: {error}") from None

    def signal(self, name: str, variables: Mapping[str, Any] | None = None) -> None:
        self.engine.broadcast_signal(name, dict(variables or {}))
        self.settle()

    def resume(self, variables: Mapping[str, Any] | None = None) -> None:
        """As `bpmn resume`: the instance whose incident failed the run (the root, or the
        called instance it came from) retries its failed tracks, with these variables set
        first (the fix for a missing or wrong value), and everything runs on; a job that
        waited for a handler is served by a mock added since."""
        self.engine.instance(self.instance.incident_origin).retry(variables=dict(variables or {}))
        self.settle()

    def advance(self, duration: str) -> None:
        """Let time pass (ISO 8601, `PT30M`): timers that fall due fire."""
        self.clock.advance(duration)
        self.settle()

    def _task_holder(self, task: str) -> Instance:
        """In the started instance's call tree, or (a deployment started them) any instance."""
        members = self._members() if self.deployed else self.engine.tree(self.instance).members()
        for instance in members:
            if instance.waiting_task(task) is not None:
                return instance
        waiting = sorted({t.element for m in self._members() for t in m.user_tasks()})
        raise TaskNotWaiting(
            f"complete {task!r}: no such user task waits (waiting: {', '.join(waiting) or 'none'})"
        )

    def _members(self) -> list[Instance]:
        return [self.engine.instance(row["id"]) for row in self.engine.instances()]

    def observe(self) -> Observed:
        """What the run did so far, over every instance in this runner's database."""
        root = None if self.deployed and self.root is None else self.instance.id
        return observe(self.engine, root, self.calls, self.errors, everyone=True)


class StillRunning(UsageError):
    """The run did not come to rest within its budget of events."""


class TaskNotWaiting(UsageError):
    """A step completes a user task that does not wait (the run is not where one thought)."""


class TriggerNotWaiting(UsageError):
    """A step triggers an element no token waits at (the run is not where one thought)."""


class _ScenarioRun(Runner):
    def __init__(self, scenario: Scenario, search_path: Sequence[str | Path] = ()) -> None:
        super().__init__(
            handlers=scenario.handlers_file,
            clock=scenario.clock,
            trust_scripts=scenario.trust_scripts,
            search_path=search_path,
        )
        for name, mock in scenario.mocks.items():
            for call in mock.calls:
                returns = call.returns if call.error is None and call.fail is None else None
                self.mock(name, returns, error=call.error, message=call.message, fail=call.fail)
        for task, variables in scenario.answers.items():
            self.answer(task, variables)
        self.scenario = scenario

    def act(self, action: Action) -> None:
        if action.kind == "complete":
            try:
                self.complete(action.target, action.variables)
            except TaskNotWaiting as error:
                raise _StepError(f"step {action.number}, line {action.line}: {error}") from None
        elif action.kind == "message":
            self.message(action.target, action.key, action.variables)
        elif action.kind == "signal":
            self.signal(action.target, action.variables)
        elif action.kind == "activate":
            self.activate(action.target, action.variables)
        elif action.kind == "trigger":
            try:
                self.trigger(action.target, action.variables)
            except TriggerNotWaiting as error:
                raise _StepError(f"step {action.number}, line {action.line}: {error}") from None
        elif action.kind == "resume":
            self.resume(action.variables)
        elif action.kind == "advance":
            self.advance(action.target)


class _StepError(Exception):
    """A step that cannot be done (the run is not where the scenario thought)."""


def run_scenario(scenario: Scenario, search_path: Sequence[str | Path] = ()) -> ScenarioResult:
    """Run one scenario from scratch; never raises for what the scenario or diagram holds.
    `search_path`: folders where called processes no diagram given defines are found."""
    result = ScenarioResult(scenario)
    began = time.perf_counter()
    run: _ScenarioRun | None = None
    try:
        run = _ScenarioRun(scenario, search_path)
        if scenario.deploy:
            run.deploy(*scenario.diagrams)
        else:
            run.start(*scenario.diagrams, process=scenario.process, variables=scenario.variables)
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
            run.close()
        result.seconds = time.perf_counter() - began
    return result


def _summarise(run: Runner, result: ScenarioResult) -> None:
    if run.root is None and not run.deployed:
        return
    try:
        observed = run.observe()
    except BpmnEngineError:
        return
    result.path = observed.path()
    result.waiting = observed.waiting
    result.coverage = observed.coverage
