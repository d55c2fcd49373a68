"""Delivering messages and signals: published from outside, or sent by committed steps.

A step that throws a message or a signal does not reach into other instances: it writes an
outbox row in its own transaction (`Step.sent`), and after the commit the engine delivers
the outbox. Each delivery is a step of the receiving instance that records its receipt (the
outbox row and receiver, or the message id), unique in the store: a delivery repeated after
a crash between the commit and the delivery, or by a second process, cannot commit twice.
A row is finished once every receiver has it; `bpmn resume` and `bpmn worker` deliver what a
crashed process left pending. A row that cannot be delivered (a receiver's start is refused,
say) is set aside as failed with the reason, so it never blocks the rows after it.

Delivery is not re-entrant: a receiver run on here may send in turn, and its rows wait for
the loop's next round instead of growing the stack.

The loop is here; delivering one row to its receivers is `receivers.py`'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from bpmn_engine.errors import BpmnEngineError, ConcurrentModification
from bpmn_engine.runtime.calls import protocol as calls
from bpmn_engine.runtime.engine.receivers import Receivers

if TYPE_CHECKING:
    from bpmn_engine.runtime.engine.services import DeliveryServices
    from bpmn_engine.runtime.instance.instance import Instance
    from bpmn_engine.runtime.instance.parts import Listener

THROWN_MESSAGE_TTL = 3600.0  # a message a process sends waits this long for its receiver
# (Zeebe's default time to live): the receiver may not have reached its catch event yet


class Postman(Receivers):
    """The engine's deliveries. `known` instances (in memory here) are delivered to through
    the same object, so an instance running in this process never goes stale."""

    def __init__(self, engine: DeliveryServices) -> None:
        self.engine = engine
        self._busy = False

    # --- the outbox ---------------------------------------------------------------------------
    @contextmanager
    def deferred(self) -> Iterator[None]:
        """Commits inside the block leave their rows pending for the caller's next `flush`:
        a child run on behalf of its root delivers its completion to the root's own object,
        not to a copy that would leave the root stale."""
        busy, self._busy = self._busy, True
        try:
            yield
        finally:
            self._busy = busy

    def flush(self, sender: Instance | None = None, on_event: Listener | None = None) -> int:
        """Deliver every pending outbox row, and run the instances woken to their next wait;
        the number of rows delivered."""
        if self._busy:
            return 0  # an outer round is delivering: it picks the new rows up
        self._busy = True
        store = self.engine.store
        known: dict[str, Instance] = {sender.id: sender} if sender is not None else {}
        delivered, later = 0, set()  # rows another process is delivering: theirs to finish
        try:
            while rows := [r for r in store.pending_outbox() if r["id"] not in later]:
                woken: dict[str, Instance] = {}
                for row in rows:
                    try:
                        receivers = self._deliver_row(row, known, on_event)
                    except ConcurrentModification:
                        later.add(row["id"])  # exactly once all the same: a receipt collided
                        continue
                    except BpmnEngineError as error:  # e.g. a start the receiver refuses
                        store.fail_outbox(row["id"], str(error))
                        continue
                    store.finish_outbox(row["id"])
                    delivered += 1
                    for instance in receivers:
                        known.setdefault(instance.id, instance)
                        woken.setdefault(instance.id, instance)
                for instance in woken.values():  # as `bpmn message` runs what it wakes
                    if instance is not sender and not self.engine.held(instance):
                        instance.run(on_event)
        finally:
            self._busy = False
        return delivered

    def _deliver_row(
        self, row: dict[str, Any], known: dict[str, Instance], on_event: Listener | None
    ) -> list[Instance]:
        """Deliver one outbox row to every receiver it has now; who took it."""
        if row["kind"] == "message":
            got = self.message(
                row["name"],
                row["key"],
                row["variables"],
                message_id=f"outbox-{row['id']}",
                ttl=THROWN_MESSAGE_TTL,
                known=known,
                on_event=on_event,
            )
            return [got] if got is not None else []
        if row["kind"] in calls.KINDS:
            return self.call(calls.read(row), known, on_event)
        return self.signal(
            row["name"], row["variables"], known=known, on_event=on_event, outbox_id=row["id"]
        )
