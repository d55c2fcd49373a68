"""Instances in the store: reopening, listing, rewinding, holding (`bpmn step`), and what goes
to them from outside: messages, signals, the outbox."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from bpmn_engine.records.lifecycle import INSTANCE_WAITING, InstanceState
from bpmn_engine.runtime.engine.incidents import IncidentRecord, incident_instance, incidents
from bpmn_engine.runtime.engine.overdue import Overdue, overdue
from bpmn_engine.runtime.engine.parts import EngineParts
from bpmn_engine.runtime.engine.tasklist import OpenTask, open_tasks
from bpmn_engine.runtime.instance.instance import Instance
from bpmn_engine.runtime.instance.parts import Listener, checked_variables
from bpmn_engine.runtime.instance.reading import run_state

_NOT_ENDED = (InstanceState.ACTIVE, INSTANCE_WAITING)


class InstancesPart(EngineParts):
    """Finding instances and sending them messages and signals."""

    def instance(self, instance_id: str) -> Instance:
        """Reopen an instance from its rows alone (a unique id prefix is enough)."""
        data = self.store.load(self.store.resolve(instance_id))
        return Instance(self, data, self.definitions(data.head.definition))

    def rewind(self, instance_id: str, steps: int = 1) -> Instance:
        """Take an instance back by its last `steps` committed steps (recorded by an engine
        with `undo=True`, in this session or an earlier one), in one transaction; the
        instance as it is now. Refused, changing nothing, past a step that sent a message or
        signal someone already received."""
        instance_id = self.store.resolve(instance_id)
        self.store.rewind(instance_id, steps)
        return self.instance(instance_id)

    def rewind_together(self, rewinds: list[tuple[str, int]]) -> None:
        """Take several instances of a call tree back at once, in this order (the receiver of
        a row before its sender), in one transaction: a child's completion and the parent's
        step that received it go back together, or nothing changes. Refused past the step
        that called a child (a called instance is not un-started)."""
        self.store.rewind_together([(self.store.resolve(i), n) for i, n in rewinds])

    def hold(self, instance: Instance) -> None:
        """Deliveries to this instance and to the instances it calls are made (each one
        step, through this very object) but do not run them on: `bpmn step` moves every
        token of the tree itself."""
        self._held[instance.id] = instance

    def held(self, instance: Instance) -> bool:
        """Whether a delivery leaves `instance` where it is (`hold`): it, or its caller, is
        held; a child of a held instance is held from then on."""
        if instance.id in self._held:
            return True
        if instance.parent is not None and instance.parent in self._held:
            self._held[instance.id] = instance
            return True
        return False

    def held_instance(self, instance_id: str) -> Instance | None:
        """The object a held instance is moved through (`hold`), if it is held."""
        return self._held.get(instance_id)

    def publish_message(
        self,
        name: str,
        key: str | None = None,
        variables: Mapping[str, Any] | None = None,
        *,
        message_id: str | None = None,
        ttl: float = 0.0,
        on_event: Listener | None = None,
        current: Instance | None = None,
    ) -> list[Instance]:
        """Correlate a message to the oldest subscription waiting for it (name and key).

        With nobody waiting, a deployed process with a message start event takes it, else the
        message is buffered for `ttl` seconds and taken by the first subscription that opens
        in time. A `message_id` already seen is correlated once: publishing is idempotent.
        `current` is an instance held in memory here, delivered to through that object.
        Returns the instance that took it (to run on), if any.
        """
        values = checked_variables(dict(variables or {}))
        message_id = message_id or f"msg-{secrets.token_hex(8)}"
        known = {current.id: current} if current is not None else {}
        got = self.postman.message(
            name, key, values, message_id=message_id, ttl=ttl, known=known, on_event=on_event
        )
        return [got] if got is not None else []

    def message_status(self, message_id: str) -> tuple[str, str | None] | None:
        """(buffered / correlated / expired, the instance that took it) of a published message."""
        return self.store.message_status(message_id)

    def broadcast_signal(
        self,
        name: str,
        variables: Mapping[str, Any] | None = None,
        on_event: Listener | None = None,
        current: Instance | None = None,
    ) -> list[Instance]:
        """Deliver a signal to every subscription waiting for it, in every instance.

        `current` is an instance held in memory here (the one being stepped): it is
        delivered to through that object, so it stays the one that moves on, and it is not
        in the list returned (the others woken, to run on).
        """
        values = checked_variables(dict(variables or {}))
        known = {current.id: current} if current is not None else {}
        woken = self.postman.signal(name, values, known=known, on_event=on_event)
        return [i for i in woken if i is not current]

    def deliver_outbox(self, on_event: Listener | None = None) -> int:
        """Deliver what committed steps sent and nobody delivered yet (after a crash); the
        number of outbox rows delivered."""
        return self.postman.flush(None, on_event)

    def instances(
        self,
        *,
        stuck: bool = False,
        state: str | None = None,
        process: str | None = None,
        business_key: str | None = None,
    ) -> list[dict[str, Any]]:
        """Every instance, or (`stuck`) only the active ones nothing can move on any more
        (no track can run and nothing they wait for exists: `Store.stuck_instances`) and
        those with a token late to move on (`overdue`);
        `state`, `process` and `business_key` keep those in that state, of that process or
        with that business key. The state is the
        word `Instance.outcome` uses: `waiting` for an active instance none of whose tracks
        can move now (`state="active"` keeps those too: every instance not ended), `failed`
        for one stopped on an incident while its other tokens wait (`others_wait`)."""
        rows = self.store.list_instances()
        for row in rows:
            moving = bool(row.pop("moving_tracks", 0))
            stored = InstanceState(row["state"])
            row["state"], row["others_wait"] = run_state(stored, moving, row["incident"])
        if state is not None:
            rows = [
                r
                for r in rows
                if r["state"] == state
                or (state, r["state"]) == _NOT_ENDED
                or (state == InstanceState.ACTIVE and r["others_wait"])  # still active
            ]
        if process is not None:
            rows = [r for r in rows if r["process"] == process]
        if business_key is not None:
            rows = [r for r in rows if r["business_key"] == business_key]
        if not stuck:
            return rows
        wanted = set(self.store.stuck_instances())
        wanted.update(late.instance for late in self.overdue())
        return [r for r in rows if r["id"] in wanted]

    def incidents(
        self, instance: str | None = None, *, resolved: bool = False
    ) -> list[IncidentRecord]:
        """Every open incident (`resolved`: the resolved ones too), of `instance` only when
        given (a unique id prefix is enough), the oldest first."""
        return incidents(self.store, instance, resolved=resolved)

    def incident_instance(self, given: str) -> str:
        """The instance an incident id (`INSTANCE#N`, from `incidents`) or an instance id
        names; a UsageError when an incident id names no open incident."""
        return incident_instance(self.store, given)

    def overdue(self) -> list[Overdue]:
        """Tokens late to move on, the oldest first: a retry due before now (on the
        engine's clock) that no worker ran, a job whose claim's lease ran out."""
        return overdue(self.store, self.clock.now())

    def tasks(
        self, *, process: str | None = None, assignee: str | None = None, group: str | None = None
    ) -> list[OpenTask]:
        """Every open user task of every active instance, oldest first (one indexed query,
        `engine/tasklist.py`); `process`, `assignee` and `group` (a candidate group) keep
        those of that process, assigned to that person, offered to that group."""
        return open_tasks(
            self.store, self.definitions, process=process, assignee=assignee, group=group
        )
