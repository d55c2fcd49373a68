"""A call tree: an instance and every instance its call activities started, at any depth.

The command line, the test kit and the stepper ask the same questions of a tree (which
instance waits for this task, which instances are there, what do they wait for); they ask
this object rather than walking parent links each in its own way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bpmn_engine.errors import UsageError

if TYPE_CHECKING:
    from bpmn_engine.records.rows import UserTask
    from bpmn_engine.runtime.engine.engine import Engine
    from bpmn_engine.runtime.instance.instance import Instance


class CallTree:
    """`top` and the instances it called, directly or not, breadth first (`top` first).

    Members are loaded once, through `load` (by default the object `bpmn step` holds an
    instance in, else the instance from its rows)."""

    def __init__(
        self,
        engine: Engine,
        top: Instance,
        load: Callable[[str], Instance] | None = None,
    ) -> None:
        self.engine = engine
        self.top = top
        self.ids = engine.family(top.id)
        self._load = load or (lambda i: engine.held_instance(i) or engine.instance(i))
        self._members: list[Instance] | None = None

    def members(self) -> list[Instance]:
        if self._members is None:
            self._members = [self.top, *(self._load(i) for i in self.ids[1:])]
        return self._members

    def called(self) -> list[Instance]:
        """Every member but `top`."""
        return self.members()[1:]

    def waiting_tasks(self) -> list[tuple[Instance, UserTask]]:
        """Each member's waiting user tasks, in tree order."""
        return [(m, t) for m in self.members() for t in sorted(m.user_tasks(), key=lambda t: t.id)]

    def task_holder(self, task: str | int) -> Instance:
        """The first member waiting for user task `task` (its number, element id or name);
        a `UsageError` naming what the tree waits for when none is."""
        for member in self.members():
            if member.waiting_task(task) is not None:
                return member
        waiting = sorted(
            {t.element + (f" ({t.name})" if t.name else "") for _, t in self.waiting_tasks()}
        )
        where = "" if len(self.ids) == 1 else " or any instance it called"
        raise UsageError(
            f"instance {self.top.id}{where} has no waiting user task {task!r}"
            + (f"; waiting: {', '.join(waiting)}" if waiting else "; it waits for no user task")
        )

    def triggered_at(self, element: str) -> list[Instance]:
        """The members with a token waiting at `element` for a trigger."""
        return [m for m in self.members() if m.triggers_at(element)]
