"""Open incidents across instances (`Engine.incidents`, `bpmn incidents`, `bpmn retry`).

An incident is a token stopped at an element (its track `failed`) with the history event
that stopped it (`incident.created`): the record is that pair, read from the rows, so there
is no second copy to keep in step. Its id is the instance and the event's number
(`5305877912#7`): stable, and unique in the database. It is resolved when the token runs
again (`Instance.retry`, `bpmn retry`, `bpmn resume`) or the instance ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bpmn_engine.errors import UsageError
from bpmn_engine.records.lifecycle import InstanceState, TrackState
from bpmn_engine.runtime.behaviours.call_activities import CHILD_FAILED
from bpmn_engine.runtime.storage import Store

SEPARATOR = "#"
_OPEN = (InstanceState.ACTIVE, InstanceState.FAILED)  # an instance an incident can be open in


@dataclass(frozen=True, slots=True)
class OpenIncident:
    """A token stopped on an incident. `kind`: `job` (a handler's failure, its tries run
    out), `called instance` (the instance a call activity started has the incident: fix
    that one), or `step` (a script, an expression, a condition...). `attempt`: the tries
    made of a job (0 for the others). `instance_failed`: no other token of the instance
    could go on (else it is active, its other tokens going on)."""

    id: str
    instance: str
    process: str
    element: str
    track: int
    kind: str
    message: str
    attempt: int
    created_at: str | None
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
            "instance_failed": self.instance_failed,
        }


def open_incidents(store: Store, instance: str | None = None) -> list[OpenIncident]:
    """Every open incident (of `instance` only, when given), the oldest first."""
    rows = store.list_instances()
    wanted = {store.resolve(instance)} if instance is not None else None
    found: list[OpenIncident] = []
    for row in rows:
        if row["incident"] is None or row["state"] not in _OPEN:
            continue
        if wanted is not None and row["id"] not in wanted:
            continue
        failed = row["state"] == InstanceState.FAILED
        found += _of_instance(store, row["id"], row["process"], failed)
    return sorted(found, key=lambda i: (i.created_at or "", i.id))


def _of_instance(store: Store, instance: str, process: str, failed: bool) -> list[OpenIncident]:
    data = store.load(instance)
    history = store.history(instance)
    times = store.history_times(instance)
    found = []
    for track in data.tracks.values():
        if track.status is not TrackState.FAILED:
            continue
        created = next(
            (e for e in reversed(history) if e.event == "incident.created" and e.track == track.id),
            None,
        )
        if created is None:
            continue
        ran_job = any(
            e.event == "job.started" and e.track == track.id and e.element == track.element
            for e in history
        )
        kind = "called instance" if track.wait == CHILD_FAILED else "job" if ran_job else "step"
        found.append(
            OpenIncident(
                id=f"{instance}{SEPARATOR}{created.seq}",
                instance=instance,
                process=process,
                element=created.element or track.element,
                track=track.id,
                kind=kind,
                message=str(created.data.get("message", "")),
                attempt=track.attempt if kind == "job" else 0,
                created_at=times.get(created.seq),
                instance_failed=failed,
            )
        )
    return found


def incident_instance(store: Store, given: str) -> str:
    """The instance an incident id (`INSTANCE#N`) or an instance id names; a UsageError for
    an incident id that names no open incident."""
    if SEPARATOR not in given:
        return given
    instance = given.partition(SEPARATOR)[0]
    if not any(i.id == given for i in open_incidents(store, instance)):
        raise UsageError(
            f"{given!r} is no open incident: `bpmn incidents` lists them (an incident is "
            "resolved once its token runs again or its instance ends)"
        )
    return store.resolve(instance)
