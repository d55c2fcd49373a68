"""Exit codes of the `bpmn` command: documented in docs/cli.md and stable across releases."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0  # the instance completed or was terminated; or the command did what it was asked
    FAILED = 1  # the instance failed with an incident
    BAD_INPUT = 2  # a file, XML, expression or argument could not be used
    WAITING = 3  # the instance waits (user task, ...): go on with `bpmn complete` / `resume`
    UNCLAIMED = 4  # a message or signal reached nobody (a message buffered with --ttl did not)

    @classmethod
    def for_outcome(cls, state: str, incident: str | None) -> ExitCode:
        """An instance that waits with an open incident (its other tokens went on) has
        stopped on it as much as a failed one: exit 1, the operator must act."""
        if incident is not None and state in ("waiting", "active"):
            return cls.FAILED
        return cls.for_state(state)

    @classmethod
    def for_state(cls, state: str) -> ExitCode:
        return {
            "completed": cls.OK,
            "terminated": cls.OK,
            "failed": cls.FAILED,
            "waiting": cls.WAITING,
            "active": cls.WAITING,  # stopped part way (e.g. quitting `bpmn step`): not finished
        }[state]
