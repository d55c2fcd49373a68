"""Incidents across instances (`Engine.incidents`, `bpmn incidents`, `bpmn retry`).

An incident is a token stopped at an element: the history event that stopped it
(`incident.created`) and, once it is over, the one that resolved it (the token run again,
cancelled by hand, its child resumed, or its instance ended). The record is read from those
rows, so there is no second copy to keep in step. Its id is the instance and the event's
number (`5305877912#7`): stable, and unique in the database.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bpmn_engine.errors import UsageError
from bpmn_engine.records.lifecycle import InstanceState, TrackState
from bpmn_engine.records.rows import Event
from bpmn_engine.runtime.behaviours.call_activities import CHILD_FAILED
from bpmn_engine.runtime.storage import Store

SEPARATOR = "#"
_OPEN = (InstanceState.ACTIVE, InstanceState.FAILED)  # an instance an incident can be open in
# what ends an incident at its token: run again, cancelled by hand, its child resumed
_RESOLVING = frozenset({"incident.retried", "token.cancelled", "incident.resolved"})
_ENDING = frozenset({"instance.completed", "instance.terminated"})  # ... or its instance


@dataclass(frozen=True, slots=True)
class IncidentRecord:
    """A token stopped on an incident. `kind`: `job` (a handler's failure, its tries run
    out), `called instance` (the instance a call activity started has the incident: fix
    that one), or `step` (a script, an expression, a condition...). `attempt`: the tries
    made of a job (0 for the others). `resolved_at`: when it was resolved (None: open).
    `instance_failed`: no other token of its instance could go on when it was listed."""

    id: str
    instance: str
    process: str
    element: str
    track: int
    kind: str
    message: str
    attempt: int
    created_at: str | None
    resolved_at: str | None
    instance_failed: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "incident": self.id,
            "instance": self.instance,
            "process": self.process,
            "element": self.element,
            "track": self.track,
            "kind": self.kind,
            "message": self.message,
            "attempt": self.attempt,
            "created_at": self.created_at,
            "resolved_at": self.resolved_at,
            "instance_failed": self.instance_failed,
        }


def incidents(
    store: Store, instance: str | None = None, *, resolved: bool = False
) -> list[IncidentRecord]:
    """The open incidents (and with `resolved`, the resolved ones too) of every instance, or
    of `instance` only, the oldest first."""
    wanted = store.resolve(instance) if instance is not None else None
    found: list[IncidentRecord] = []
    for row in store.list_instances():
        if wanted is not None and row["id"] != wanted:
            continue
        open_now = row["incident"] is not None and row["state"] in _OPEN
        if not (open_now or resolved):
            continue
        failed = row["state"] == InstanceState.FAILED
        found += _of_instance(store, row["id"], row["process"], failed, resolved)
    return sorted(found, key=lambda i: (i.created_at or "", i.id))


def _of_instance(
    store: Store, instance: str, process: str, failed: bool, resolved: bool
) -> list[IncidentRecord]:
    history = store.history(instance)
    if not any(e.event == "incident.created" for e in history):
        return []
    data = store.load(instance)
    times = store.history_times(instance)
    found = []
    for index, created in enumerate(history):
        if created.event != "incident.created" or created.track is None:
            continue
        end = _resolution(history[index + 1 :], created.track)
        if end is None:
            track = data.tracks.get(created.track)
            if track is None or track.status is not TrackState.FAILED:
                continue  # over without a word (an older engine's history): not listed
        elif not resolved:
            continue
        track = data.tracks.get(created.track)
        ran_job = any(
            e.event == "job.started" and e.track == created.track and e.element == created.element
            for e in history[:index]
        )
        child = track is not None and track.wait == CHILD_FAILED and end is None
        kind = "called instance" if child else "job" if ran_job else "step"
        found.append(
            IncidentRecord(
                id=f"{instance}{SEPARATOR}{created.seq}",
                instance=instance,
                process=process,
                element=created.element or "",
                track=created.track,
                kind=kind,
                message=str(created.data.get("message", "")),
                attempt=_attempt(history[:index], created) if kind == "job" else 0,
                created_at=times.get(created.seq),
                resolved_at=times.get(end.seq) if end is not None else None,
                instance_failed=failed and end is None,
            )
        )
    return found


def _resolution(after: list[Event], track: int) -> Event | None:
    """The event that ended the incident at `track`, among those after it, if any."""
    for event in after:
        if event.event in _ENDING or (event.event in _RESOLVING and event.track == track):
            return event
    return None


def _attempt(before: list[Event], created: Event) -> int:
    """The tries the job had made: its last `job.started` before the incident."""
    for event in reversed(before):
        if event.event == "job.started" and event.track == created.track:
            return int(event.data.get("attempt") or 0)
    return 0


def incident_instance(store: Store, given: str) -> str:
    """The instance an incident id (`INSTANCE#N`) or an instance id names; a UsageError for
    an incident id that names no open incident."""
    if SEPARATOR not in given:
        return given
    instance = given.partition(SEPARATOR)[0]
    if not any(i.id == given for i in incidents(store, instance)):
        raise UsageError(
            f"{given!r} is no open incident: `bpmn incidents` lists them (an incident is "
            "resolved once its token runs again or its instance ends)"
        )
    return store.resolve(instance)
