"""Delivering one message, signal or call-protocol row to its receivers (the Postman's part,
`outbox.py` runs the loop over the rows): each delivery is a step of the receiver that
records its receipt, tried again when the receiver moved meanwhile, at most `ATTEMPTS` times.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from bpmn_engine.errors import BpmnEngineError, ConcurrentModification, UsageError
from bpmn_engine.records.lifecycle import SubscriptionState
from bpmn_engine.records.rows import Receipt
from bpmn_engine.runtime.calls import protocol as calls

if TYPE_CHECKING:
    from bpmn_engine.runtime.engine.services import DeliveryServices
    from bpmn_engine.runtime.instance.instance import Instance
    from bpmn_engine.runtime.instance.parts import Listener

ATTEMPTS = 20  # lost races (a receiver moved by another process) before leaving it to later


class Receivers:
    """Messages correlated, signals broadcast, call-protocol rows delivered: to instances in
    memory here when `known` has them, else loaded from their rows."""

    engine: DeliveryServices

    # --- messages -----------------------------------------------------------------------------
    def message(
        self,
        name: str,
        key: str | None,
        variables: dict[str, Any],
        *,
        message_id: str,
        ttl: float = 0.0,
        known: Mapping[str, Instance] | None = None,
        on_event: Listener | None = None,
    ) -> Instance | None:
        """Correlate a message to the oldest subscription waiting for it (name and key).

        With nobody waiting, a deployed process with a message start event takes it, else it
        is buffered for `ttl` seconds (looked for and buffered in one transaction: a
        subscription committed meanwhile finds it), else it expires. A message id already
        seen is correlated once. Returns the instance that took it, if any.
        """
        store, known = self.engine.store, dict(known or {})
        receipt = Receipt(message=(message_id, name, key, variables))
        # a session's pool (a collaboration) starts at once on a message from outside; one an
        # instance sent is kept for whoever waits for it first (`start_kept_messages`)
        session = ttl <= 0 and bool(self.engine.session.find("message", name))
        has_start = session or store.message_start(name) is not None
        for _ in range(ATTEMPTS):
            if store.message_seen(message_id):
                return None
            now = self.engine.clock.now()
            if ttl > 0 and not has_start:
                expires = (now + timedelta(seconds=ttl)).isoformat()
                waiting = store.buffer_unless_awaited(message_id, name, key, variables, expires)
                if not waiting:
                    return None  # buffered
            else:
                waiting = store.waiting_subscriptions("message", name, key)
            raced = False
            for instance_id, subscription_id in waiting:
                delivered, raced = self._deliver(
                    instance_id, subscription_id, variables, receipt, known, on_event
                )
                if delivered is not None:
                    return delivered
                if raced:
                    break  # look again: the waiting list itself may have changed
            if not raced:
                break
        else:  # every attempt lost a race: not delivered, and said so (a caller may retry)
            raise ConcurrentModification(
                f"message {name!r} ({message_id}): its receivers kept moving; not delivered"
            )
        if has_start and not store.message_seen(message_id):
            started = self.engine.start_by_message(
                name, variables, on_event, receipt=receipt, session=session
            )
            if started is not None:
                return started
        if ttl <= 0:
            store.record_message(
                message_id, name, key, variables, self.engine.clock.now().isoformat(), "expired"
            )
        return None

    # --- signals ------------------------------------------------------------------------------
    def signal(
        self,
        name: str,
        variables: dict[str, Any],
        *,
        known: Mapping[str, Instance] | None = None,
        on_event: Listener | None = None,
        outbox_id: int | None = None,
    ) -> list[Instance]:
        """Deliver a signal to every subscription waiting for it, in every instance, and start
        every deployed process with a signal start event for it. Returns who got it."""
        store, known = self.engine.store, dict(known or {})
        done = store.delivered_to(outbox_id) if outbox_id is not None else set()
        woken: dict[str, Instance] = {}
        for instance_id, subscription_id in store.waiting_subscriptions("signal", name):
            receiver = f"{instance_id}/{subscription_id}"
            if receiver in done:
                continue
            receipt = Receipt(delivery=(outbox_id, receiver)) if outbox_id is not None else None
            for _ in range(ATTEMPTS):
                delivered, raced = self._deliver(
                    instance_id, subscription_id, variables, receipt, known, on_event
                )
                if not raced:
                    break
            if delivered is not None:
                woken[instance_id] = known[instance_id] = delivered
        for process_id, version, element in store.signal_starts(name):
            receiver = f"start/{process_id}/{element}"
            if receiver in done:
                continue
            started = self.engine.start_at(
                self.engine.definitions(version),
                process_id,
                element,
                variables,
                on_event,
                trigger=("signal.received", {"name": name, "key": None}),
                receipt=Receipt(delivery=(outbox_id, receiver)) if outbox_id is not None else None,
            )
            woken[started.id] = started
        for start in self.engine.session.find("signal", name):
            receiver = f"session/{start.process}/{start.element}"
            if receiver in done:
                continue
            started = self.engine.session_start(
                start,
                variables,
                on_event,
                ("signal.received", {"name": name, "key": None}),
                Receipt(delivery=(outbox_id, receiver)) if outbox_id is not None else None,
            )
            woken[started.id] = started
        return list(woken.values())

    # --- call activities (runtime/calls/protocol.py) ----------------------------------------------
    def call(
        self, row: calls.CallRow, known: dict[str, Instance], on_event: Listener | None
    ) -> list[Instance]:
        """Deliver one row of the parent/child protocol; returns who is to run on.

        A call starts the child (unless it exists: a repeated delivery); a cancel cancels
        it; a completion, error or escalation is a step of the parent. Each delivery step
        records the row as received, so none commits twice.
        """
        store = self.engine.store
        receipt = Receipt(delivery=(row.id, row.receiver))
        for _ in range(ATTEMPTS):
            if row.receiver in store.delivered_to(row.id):
                # received before a crash, maybe not run on: run it on (nothing, if it did)
                if row.kind == calls.CANCEL:
                    return []
                instance = self._instance(row.receiver, known)
                known[instance.id] = instance
                return [instance]
            try:
                if row.kind == calls.CALL:
                    child = self._start_child(row, known, on_event)
                    return [child] if child is not None else []
                if not store.instance_exists(row.receiver):
                    return []  # a cancel for a child never started (its call failed)
                instance = self._instance(row.receiver, known)
                known[instance.id] = instance
                if row.kind == calls.CANCEL:
                    instance.cancel(on_event, receipt=receipt)
                    return []
                return [instance] if instance.receive_call(row, receipt, on_event) else []
            except ConcurrentModification:  # moved by someone else meanwhile: reload
                known.pop(row.receiver, None)
        return []

    def _start_child(
        self, row: calls.CallRow, known: dict[str, Instance], on_event: Listener | None
    ) -> Instance | None:
        try:
            return self.engine.start_child(row, on_event)
        except BpmnEngineError as error:  # the called process cannot start: the caller fails
            parent = self._instance(row.source, known)
            known[parent.id] = parent
            parent.call_failed(row, str(error), on_event)
            return None

    # --- one delivery ---------------------------------------------------------------------------
    def _instance(self, instance_id: str, known: Mapping[str, Instance]) -> Instance:
        """The receiver: the object in memory here (this round's, or one `bpmn step` holds),
        else loaded from its rows."""
        found = known.get(instance_id) or self.engine.held_instance(instance_id)
        return found if found is not None else self.engine.instance(instance_id)

    def _deliver(
        self,
        instance_id: str,
        subscription_id: int,
        variables: dict[str, Any],
        receipt: Receipt | None,
        known: dict[str, Instance],
        on_event: Listener | None,
    ) -> tuple[Instance | None, bool]:
        """(the instance, if it took the delivery; whether a race was lost, worth a retry)."""
        instance = self._instance(instance_id, known)
        subscription = instance.data.subscriptions.get(subscription_id)
        if subscription is None or subscription.status is not SubscriptionState.WAITING:
            return None, False
        try:
            instance.deliver(subscription_id, variables, on_event, receipt=receipt)
        except UsageError:
            return None, False
        except ConcurrentModification:  # moved by someone else: reload, unless received
            known.pop(instance_id, None)
            return None, not self._received(receipt)
        known[instance_id] = instance
        return instance, False

    def _received(self, receipt: Receipt | None) -> bool:
        store = self.engine.store
        if receipt is None:
            return False
        if receipt.message is not None and store.message_seen(receipt.message[0]):
            return True
        if receipt.delivery is not None:
            outbox_id, receiver = receipt.delivery
            return receiver in store.delivered_to(outbox_id)
        return False
