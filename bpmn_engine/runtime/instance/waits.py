"""What waits for the outside: user tasks, triggers, messages for a subscription, choices
at a gateway, activities of an ad-hoc subprocess; each answered in one step."""

from __future__ import annotations

from typing import Any, Self

from bpmn_engine.errors import NotFound, UsageError
from bpmn_engine.records.lifecycle import InstanceState, SubscriptionState
from bpmn_engine.records.rows import Receipt, UserTask
from bpmn_engine.runtime.behaviours import ad_hoc, behaviour_for
from bpmn_engine.runtime.behaviours.ad_hoc import AdHocSubProcessBehaviour
from bpmn_engine.runtime.behaviours.events import CatchEventBehaviour
from bpmn_engine.runtime.behaviours.tasks import ReceiveTaskBehaviour, UserTaskBehaviour
from bpmn_engine.runtime.calls.tree import CallTree
from bpmn_engine.runtime.data.forms import checked_form
from bpmn_engine.runtime.events.trigger import deliver, won
from bpmn_engine.runtime.instance.parts import InstanceParts, Listener, checked_variables
from bpmn_engine.runtime.step.context import StepContext
from bpmn_engine.runtime.step.triggers import TriggerWait, trigger_waits


def _person_hint(element: str, members: list[Waits]) -> str:
    """'; ELEMENT is a user task: bpmn complete' when one of them waits there for a person."""
    if any(m.waiting_task(element) is not None for m in members):
        return f"; {element!r} is a user task waiting for a person: complete it (bpmn complete)"
    return ""


class Waits(InstanceParts):
    """Finding what an instance waits for by id or name, and answering it."""

    def deliver(
        self,
        subscription_id: int,
        variables: dict[str, Any] | None = None,
        on_event: Listener | None = None,
        *,
        receipt: Receipt | None = None,
    ) -> None:
        """A message or signal for one of this instance's subscriptions: one step, which
        records `receipt` (so the same delivery cannot commit twice)."""
        subscription = self.data.subscriptions[subscription_id]
        if subscription.status is not SubscriptionState.WAITING:
            raise UsageError(f"subscription {subscription_id} no longer waits")
        values = checked_variables(variables or {})
        track = self.data.tracks[subscription.track]

        def received(ctx: StepContext) -> None:
            ctx.step.receive(receipt)
            deliver(ctx, subscription, values)

        self._step(track, received, on_event)

    def choose(self, gateway: str, flows: list[str]) -> None:
        """Take these flows at the gateway's next decision, whatever its conditions say."""
        scope = self.definitions.node_scopes.get(gateway)
        if scope is None:
            raise UsageError(f"no element {gateway!r} in {self.definitions.path}")
        node = scope.nodes[gateway]
        unknown = [f for f in flows if f not in node.outgoing]
        if unknown or not flows:
            known = ", ".join(node.outgoing) or "none"
            raise UsageError(
                f"{gateway} has no outgoing flow {', '.join(unknown) or '(none given)'}; "
                f"its outgoing flows: {known}"
            )
        if node.kind == "exclusiveGateway" and len(flows) != 1:
            raise UsageError(f"exclusive gateway {gateway} takes exactly one flow")
        self.data.choices[gateway] = tuple(flows)

    def activate(self, element: str, on_event: Listener | None = None) -> None:
        """Activate an inner activity of a waiting ad-hoc subprocess (one step); a
        `UsageError` says why it cannot be now (`behaviours/ad_hoc.py`)."""
        holder = ad_hoc.holder_for(self.definitions, self.data, element)
        self._step(holder, lambda c: AdHocSubProcessBehaviour().activate(c, element), on_event)

    def complete_task(
        self,
        task: str | int,
        variables: dict[str, Any] | None = None,
        on_event: Listener | None = None,
    ) -> None:
        """Complete a waiting user task (by task number, element id or name)."""
        found = self.find_task(task)
        node = self.definitions.node_scopes[found.element].nodes[found.element]
        label = found.element + (f" ({found.name})" if found.name else "")
        variables = checked_form(label, node.form_fields, checked_variables(variables or {}))
        behaviour = behaviour_for(node)
        assert isinstance(behaviour, UserTaskBehaviour)
        track = self.data.tracks[found.track]
        self._step(track, lambda c: behaviour.complete_with(c, variables or {}), on_event)

    def waiting_task(self, task: str | int) -> UserTask | None:
        """The waiting user task `task` names (its number, element id or name), if any."""
        for candidate in sorted(self.user_tasks(), key=lambda t: t.id):
            if str(task) in (str(candidate.id), candidate.element, candidate.name):
                return candidate
        return None

    def find_task(self, task: str | int) -> UserTask:
        found = self.waiting_task(task)
        if found is not None:
            return found
        waiting = sorted(self.user_tasks(), key=lambda t: t.id)
        names = ", ".join(f"{t.element}" + (f" ({t.name})" if t.name else "") for t in waiting)
        raise NotFound(
            f"instance {self.id} has no waiting user task {task!r}"
            + (f"; waiting: {names}" if names else "; it waits for no user task")
        )

    def waiting_triggers(self) -> list[TriggerWait]:
        """What waits for the API to trigger it (`runtime/step/triggers.py`: a receive task with
        no message and no name, a catch event with no definition, also as the choice of an
        event-based gateway's token), the oldest token first."""
        return trigger_waits(self.definitions, self.data)

    def triggers_at(self, element: str) -> list[TriggerWait]:
        """The tokens waiting for a trigger at `element`: its id, else its name (a
        `UsageError` when two waiting elements have that name)."""
        waiting = self.waiting_triggers()
        found = [t for t in waiting if t.element == element]
        if found:
            return found
        name = " ".join(element.split())
        found = [t for t in waiting if " ".join((self._name_of(t.element) or "").split()) == name]
        elements = sorted({t.element for t in found})
        if len(elements) > 1:
            raise UsageError(
                f"{element!r} names {len(elements)} elements of instance {self.id} that wait "
                f"for a trigger ({', '.join(elements)}): give the element's id"
            )
        return found

    def _name_of(self, element: str) -> str | None:
        return self.definitions.node_scopes[element].nodes[element].name

    def trigger(
        self,
        element: str,
        variables: dict[str, Any] | None = None,
        on_event: Listener | None = None,
        *,
        track: int | None = None,
    ) -> None:
        """Move on the token that waits at `element` (its id, or its name when unique) for
        the API to trigger it, as Camunda's `runtimeService.trigger` does; one step, in which
        `variables` are set first (through the element's output mappings, if it has any,
        else where the token's scope chain defines them, else in the process scope).
        `track` says which token when several wait there (a parallel multi-instance)."""
        found = self.triggers_at(element)
        if track is not None:
            found = [t for t in found if t.track == track]
        if not found:
            raise UsageError(self._not_waiting(element, track))
        if self.state is not InstanceState.ACTIVE:  # failed: its incident comes first
            raise UsageError(
                f"instance {self.id} is {self.state}: fix its incident and `bpmn resume` it "
                "before triggering anything"
            )
        if len(found) > 1:
            tracks = ", ".join(f"#{t.track}" for t in found)
            raise UsageError(
                f"{len(found)} tokens of instance {self.id} wait at {found[0].element!r} for "
                f"a trigger (tracks {tracks}): say which one (--track N)"
            )
        values = checked_variables(variables or {})
        waiting = found[0]
        if waiting.subscription is not None:  # an armed boundary event or event subprocess start
            subscription = self.data.subscriptions[waiting.subscription]
            self._step(
                self.data.tracks[waiting.track],
                lambda ctx: deliver(ctx, subscription, values),
                on_event,
            )
            return
        node = self.definitions.node_scopes[waiting.element].nodes[waiting.element]
        behaviour = behaviour_for(node)
        assert isinstance(behaviour, ReceiveTaskBehaviour | CatchEventBehaviour)

        def moved(ctx: StepContext) -> None:
            if waiting.gateway is not None:  # chosen at an event-based gateway: it wins
                ctx = won(ctx, waiting.element)
            ctx.emit("element.triggered", variables=sorted(values))
            behaviour.triggered(ctx, values)

        self._step(self.data.tracks[waiting.track], moved, on_event)

    def trigger_holder(self, element: str) -> Self:
        """The instance of this one's call tree (itself, or one it called, directly or not)
        whose token waits at `element` for a trigger; a `UsageError` naming the instances
        when several do, or what waits for a trigger when none does."""
        tree = CallTree(self.engine, self)
        members = tree.members()
        found = tree.triggered_at(element)
        if len(found) == 1:
            return found[0]
        if found:
            named = ", ".join(f"{m.id} ({m.process_id})" for m in found)
            raise UsageError(
                f"{element!r} waits for a trigger in {len(found)} instances of the call tree "
                f"of {self.id}: {named}; give the instance meant instead of {self.id}"
            )
        waiting = [w for m in members for w in m._waits_described(m is not self)]
        raise UsageError(
            f"no token of instance {self.id}"
            + (" or of the instances it called" if len(members) > 1 else "")
            + f" waits at {element!r} for a trigger"
            + (f"; waiting for a trigger: {', '.join(waiting)}" if waiting else "")
            + _person_hint(element, members)
        )

    def _not_waiting(self, element: str, track: int | None) -> str:
        token = "" if track is None else f" with track {track}"
        waiting = self._waits_described(False, tracks=track is not None)
        return (
            f"instance {self.id} has no token{token} waiting at {element!r} for a trigger"
            + (f"; waiting for a trigger: {', '.join(waiting)}" if waiting else "")
            + _person_hint(element, [self])
        )

    def _waits_described(self, where: bool, *, tracks: bool = False) -> list[str]:
        """'Element (name)' per trigger wait; `where`: with the instance; `tracks`: the track."""
        described = [
            t.element
            + (f" ({name})" if (name := self._name_of(t.element)) else "")
            + (f" #{t.track}" if tracks else "")
            + (f" in {self.id}" if where else "")
            for t in self.waiting_triggers()
        ]
        return list(dict.fromkeys(described))
