"""Migrating a running instance to another version of its definitions (`bpmn migrate`,
Camunda's process instance migration).

Every token and every wait (user task, timer, subscription) keeps its place where its element
exists in the new version, under the same id or the one `mapping` gives, and is of the same
kind, in the same (mapped) process or subprocess. The plan is checked whole before anything
is written: one element without a place refuses the whole migration, and nothing changes.
The move itself is one step, so the instance is on one version or the other, never half of
each, and its history records it (`instance.migrated`, both versions).

What is not moved: a join that has fired is not renamed (its firings are recorded under the
gateway's id), and a token waiting at a join must have come by a flow the new version has.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bpmn_engine.errors import UsageError
from bpmn_engine.model import Definitions
from bpmn_engine.records.data import Step
from bpmn_engine.records.lifecycle import (
    STILL_WAITING,
    InstanceState,
    ScopeState,
    TaskState,
    TimerState,
)
from bpmn_engine.runtime.instance.parts import InstanceParts, Listener

_MIGRATABLE = (InstanceState.ACTIVE, InstanceState.FAILED)


@dataclass
class MigrationPlan:
    """Where each element of the instance goes (`moves`: old id -> new id, only those in
    use), and why it cannot go (`problems`: empty when it can)."""

    instance: str
    source_version: str
    target_version: str
    moves: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "instance": self.instance,
            "from": self.source_version,
            "to": self.target_version,
            "moves": self.moves,
            "problems": self.problems,
        }


class Migration(InstanceParts):
    """`Instance.migrate`: the instance onto another version of its definitions."""

    def migration_plan(
        self, target: Definitions, mapping: Mapping[str, str] | None = None
    ) -> MigrationPlan:
        """The plan: where each element in use goes, and every reason it cannot."""
        head = self.data.head
        plan = MigrationPlan(head.id, head.definition, target.version)
        if head.state not in _MIGRATABLE:
            plan.problems.append(f"instance {head.id} is {head.state}: only a running one moves")
            return plan
        if head.process not in target.processes:
            plan.problems.append(f"the new version has no process {head.process!r}")
            return plan
        mapped = dict(mapping or {})
        for name in mapped:
            if self.definitions.node_scopes.get(name) is None:
                plan.problems.append(f"--map {name}=...: {name!r} is no element of the old version")
        for scope in self.data.scopes.values():
            if scope.status is ScopeState.ACTIVE and scope.element != head.process:
                self._place(plan, target, mapped, scope.element, "a running subprocess")
        for track in self.data.tracks.values():
            if not track.live:
                continue
            new = self._place(plan, target, mapped, track.element, f"token #{track.id}")
            scope_element = self.data.scopes[track.scope].element
            wanted = mapped.get(scope_element, scope_element)
            if new is not None and target.node_scopes[new].id != wanted:
                plan.problems.append(
                    f"token #{track.id} at {track.element!r}: {new!r} is in "
                    f"{target.node_scopes[new].id!r} in the new version, not in {wanted!r}"
                )
            if new is not None and track.wait == "join" and track.via is not None:
                flows = target.node_scopes[new].flows
                if track.via not in flows or flows[track.via].target != new:
                    plan.problems.append(
                        f"token #{track.id} waits at join {track.element!r}, come by flow "
                        f"{track.via!r}, which the new version has not into {new!r}"
                    )
        waits = [
            *(t for t in self.data.timers.values() if t.status is TimerState.WAITING),
            *(s for s in self.data.subscriptions.values() if s.status in STILL_WAITING),
        ]
        for wait in waits:
            self._place(plan, target, mapped, wait.element, "a wait")
            self._place(plan, target, mapped, wait.host, "a wait's host")
        for task in self.data.tasks.values():
            if task.status is TaskState.WAITING:
                self._place(plan, target, mapped, task.element, f"user task {task.id}")
        for (_, gateway), fired in self.data.joins.items():
            if fired and mapped.get(gateway, gateway) != gateway:
                plan.problems.append(
                    f"join {gateway!r} has fired: it cannot be renamed to "
                    f"{mapped[gateway]!r} (its firings are recorded under its id)"
                )
        return plan

    def _place(
        self,
        plan: MigrationPlan,
        target: Definitions,
        mapped: dict[str, str],
        element: str,
        what: str,
    ) -> str | None:
        """Where `element` goes, noted in the plan; None (and a problem) when nowhere."""
        new = mapped.get(element, element)
        scope = target.node_scopes.get(new)
        if scope is None:
            plan.problems.append(
                f"{what} at {element!r}: the new version has no {new!r} "
                f"(say where with --map {element}=NEW_ID)"
            )
            return None
        old = self.definitions.node(element)
        old_kind = old.kind if old is not None else None
        new_kind = scope.nodes[new].kind
        if old_kind != new_kind:
            plan.problems.append(
                f"{what} at {element!r}: {new!r} is a {new_kind} in the new version, "
                f"not a {old_kind}"
            )
            return None
        plan.moves[element] = new
        return new

    def migrate(
        self,
        target: Definitions,
        mapping: Mapping[str, str] | None = None,
        *,
        on_event: Listener | None = None,
    ) -> MigrationPlan:
        """Move the instance onto `target` (already deployed): one step, or a UsageError
        naming every problem, with nothing changed."""
        plan = self.migration_plan(target, mapping)
        if plan.problems:
            raise UsageError(
                f"instance {self.id} cannot move to version {target.version[:8]}: "
                + "; ".join(plan.problems)
            )
        moves = plan.moves
        step = Step(self.data)
        for scope in self.data.scopes.values():
            if scope.element in moves and scope.element != self.data.head.process:
                step.touch_scope(scope).element = moves[scope.element]
        for track in self.data.tracks.values():
            if track.live and moves.get(track.element, track.element) != track.element:
                step.touch_track(track).element = moves[track.element]
        for timer in self.data.timers.values():
            if timer.status is TimerState.WAITING:
                step.touch_timer(timer)
                timer.element, timer.host = moves[timer.element], moves[timer.host]
        for subscription in self.data.subscriptions.values():
            if subscription.status in STILL_WAITING:
                step.touch_subscription(subscription)
                subscription.element = moves[subscription.element]
                subscription.host = moves[subscription.host]
        for task in self.data.tasks.values():
            if task.status is TaskState.WAITING:
                step.touch_task(task).element = moves[task.element]
        self.data.head.definition = target.version
        step.emit(
            "instance.migrated",
            self.process_id,
            None,
            source_version=plan.source_version,
            target_version=plan.target_version,
            moves={k: v for k, v in moves.items() if k != v},
        )
        self._commit(step, on_event)
        self.definitions = target
        return plan
