"""`--record FILE`: what a run received, written as a scenario file `bpmn test` replays.

`bpmn run … --record F` starts the file: the diagrams, the start variables, then every user
task answer and every handler result (returned variables, a BPMN error, a failure) as they
happen, and the instance's end as the expectations. `bpmn complete`, `bpmn message` and
`bpmn signal` with the same `--record F` add their step and renew the expectations, so a bug
reported as a handful of commands becomes one regression test. Replayed, each handler is a
mock that returns what the real one returned, so the replay does not depend on the world.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bpmn_engine import (
    BpmnError,
    Engine,
    Instance,
    LoadError,
    Outcome,
    ServiceTaskContext,
    UsageError,
    UserTask,
)
from bpmn_engine.testkit import toml_writer
from bpmn_engine.tomlfiles import load_toml
from bpmn_engine.userfiles import read_user_file, write_user_file

Handler = Callable[[ServiceTaskContext], "dict[str, Any] | None"]
Answer = Callable[[Instance, UserTask], "dict[str, Any] | None"]

HEADER = "# Recorded by bpmn-engine from instance {instance}; replay it with `bpmn test {name}`."
INSTANCE = re.compile(r"^# Recorded by bpmn-engine from instance (\S+);", re.MULTILINE)


class Recording:
    """One recorded scenario, kept as the plain values of its TOML file."""

    def __init__(self, path: Path, instance: str, top: dict[str, Any], scenario: dict[str, Any]):
        self.path = path
        self.instance = instance
        self.top = top
        self.scenario = scenario
        self.dropped: list[str] = []

    # --- beginning and going on -------------------------------------------------------------
    @classmethod
    def begin(
        cls,
        path: str | Path,
        files: list[str],
        process: str | None,
        variables: Mapping[str, Any],
        now: datetime,
    ) -> Recording:
        """A new recording of a run about to start (an existing file is replaced)."""
        path = Path(path)
        folder = path.resolve().parent
        names = [os.path.relpath(Path(f).resolve(), folder) for f in files]
        top: dict[str, Any] = {"diagrams": names}
        if process is not None:
            top["process"] = process
        top["clock"] = now.astimezone(UTC).isoformat()
        scenario: dict[str, Any] = {
            "name": f"recorded run of {Path(files[0]).name}",
            "variables": dict(variables),
            "answers": {},
            "mocks": {},
            "steps": [],
            "expect": {},
        }
        return cls(path, "", top, scenario)

    @classmethod
    def resume(cls, path: str | Path, instance: str | None = None) -> Recording:
        """The recording in `path`, to add to; `instance` (if given) must be the one it
        recorded."""
        path = Path(path)
        text = read_user_file(path).decode("utf-8", errors="replace")
        found = INSTANCE.search(text)
        if found is None:
            raise LoadError("not a recording made by --record (no header line)", file=str(path))
        document = load_toml(text, str(path))
        recorded = found.group(1)
        if instance is not None and instance != recorded:
            raise UsageError(f"{path} records instance {recorded}, not {instance}")
        scenarios = document.pop("scenario", None)
        if not isinstance(scenarios, list) or len(scenarios) != 1:
            raise LoadError("a recording holds exactly one [[scenario]]", file=str(path))
        scenario = scenarios[0]
        for key in ("answers", "mocks"):
            scenario.setdefault(key, {})
        scenario.setdefault("steps", [])
        return cls(path, recorded, document, scenario)

    # --- what the run receives ----------------------------------------------------------------
    def handlers(self, handlers: Mapping[str, Handler]) -> dict[str, Handler]:
        """The same handlers, each call's result recorded as a mock call."""
        return {name: self._recorded(name, function) for name, function in handlers.items()}

    def _recorded(self, name: str, function: Handler) -> Handler:
        def handler(context: ServiceTaskContext) -> dict[str, Any] | None:
            calls = self.scenario["mocks"].setdefault(name, {"calls": []})["calls"]
            try:
                result = function(context)
            except BpmnError as error:
                calls.append({"error": error.code, "message": error.message})
                raise
            except Exception as error:
                calls.append({"fail": f"{type(error).__name__}: {error}"})
                raise
            calls.append({"returns": dict(result) if isinstance(result, Mapping) else {}})
            return result

        return handler

    def answers(self, answer: Answer | None) -> Answer:
        """The same answering, each answer given recorded for its task (one per visit)."""

        def answering(instance: Instance, task: UserTask) -> dict[str, Any] | None:
            given = answer(instance, task) if answer is not None else None
            if given is not None:
                self.scenario["answers"].setdefault(task.element, []).append(dict(given))
            return given

        return answering

    def step(self, kind: str, target: str, variables: Mapping[str, Any], **more: Any) -> None:
        """A command's action: complete, message, signal, activate or trigger."""
        step: dict[str, Any] = {kind: target}
        step.update({k: v for k, v in more.items() if v is not None})
        if variables:
            step["variables"] = dict(variables)
        self.scenario["steps"].append(step)

    def advance_to(self, now: datetime, waiting: list[dict[str, Any]]) -> None:
        """Before a later command: let the time pass that made a waiting timer fall due."""
        clock = datetime.fromisoformat(self.top["clock"])
        passed = sum(_seconds(s["advance"]) for s in self.scenario["steps"] if "advance" in s)
        elapsed = int((now - clock).total_seconds()) - passed
        due = [w for w in waiting if w.get("reason") == "timer" and w.get("due")]
        if elapsed > 0 and any(datetime.fromisoformat(w["due"]) <= now for w in due):
            self.scenario["steps"].append({"advance": f"PT{elapsed}S"})

    # --- the end --------------------------------------------------------------------------------
    def finish(self, engine: Engine, instance: str) -> None:
        """Expect what the instance is now, and write the file."""
        self.instance = instance
        outcome: Outcome = engine.instance(instance).outcome()
        expect: dict[str, Any] = {"state": outcome.state}
        if outcome.end_event:
            expect["end_event"] = outcome.end_event
        if outcome.state == "waiting":
            expect["waiting_at"] = sorted({w["element"] for w in outcome.waiting_for})
        if outcome.incident:
            expect["incident"] = outcome.incident
        expect["variables"] = outcome.variables
        self.scenario["expect"] = expect
        self.write()

    def write(self) -> None:
        self.dropped = []
        lines = [HEADER.format(instance=self.instance, name=self.path.name)]
        for name, item in self.top.items():
            written = toml_writer.key(name)
            lines.append(f"{written} = {self._value(item, written)}")
        body = ["", "[[scenario]]"]
        scenario = self.scenario
        for name in ("name", "variables", "answers"):
            if scenario.get(name) or name == "name":
                body.append(f"{name} = {self._value(scenario[name], name)}")
        for mock, spec in scenario.get("mocks", {}).items():
            body += ["", f"[scenario.mocks.{toml_writer.key(mock)}]", "calls = ["]
            body += [
                f"  {self._value(call, f'mocks.{toml_writer.key(mock)}')},"
                for call in spec["calls"]
            ]
            body.append("]")
        for step in scenario["steps"]:
            body += ["", "[[scenario.steps]]"]
            body += [
                f"{toml_writer.key(k)} = {self._value(v, toml_writer.key(k))}"
                for k, v in step.items()
            ]
        body += ["", "[scenario.expect]"]
        body += [
            f"{toml_writer.key(k)} = {self._value(v, f'expect.{toml_writer.key(k)}')}"
            for k, v in scenario["expect"].items()
        ]
        if self.dropped:  # TOML has no null
            lines.append("# left out, TOML cannot hold null: " + ", ".join(self.dropped))
        write_user_file(self.path, "\n".join(lines + body) + "\n")  # never half-written

    def _value(self, item: Any, where: str) -> str:
        return toml_writer.value(item, where, self.dropped)


def _seconds(duration: str) -> int:
    found = re.fullmatch(r"PT(\d+)S", duration)
    return int(found.group(1)) if found else 0
