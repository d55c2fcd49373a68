"""What an engine starts by itself in one session: the start events `start_collaboration`
registered, and the instances they started. Apart from `collaborations.py`, which needs the
engine, so that the engine's parts and protocols name a session without naming the engine."""

from __future__ import annotations

from dataclasses import dataclass, field

from bpmn_engine.model import Definitions, Process


@dataclass(frozen=True)
class SessionStart:
    """A start event the session starts an instance at when its message or signal comes."""

    definitions: Definitions = field(repr=False)
    process: str
    element: str
    kind: str  # "message" or "signal"
    name: str


def session_starts(definitions: Definitions, process: Process) -> list[SessionStart]:
    """Each message and signal trigger that starts the process by itself."""
    return [
        SessionStart(definitions, process.id, element, kind, name)
        for element, kind, name in definitions.start_triggers(process)
    ]


@dataclass
class Session:
    """What an engine starts by itself in this session: the registered start events, the
    instances they started, and whether those are held (`bpmn step` moves them)."""

    starts: list[SessionStart] = field(default_factory=list)
    started: list[str] = field(default_factory=list)
    held: bool = False

    def register(self, start: SessionStart) -> None:
        if start not in self.starts:
            self.starts.append(start)

    def find(self, kind: str, name: str) -> list[SessionStart]:
        return [s for s in self.starts if s.kind == kind and s.name == name]
