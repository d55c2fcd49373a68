"""A call tree: an instance and every instance its call activities started, at any depth.

The command line, the test kit and the stepper ask the same questions of a tree (which
instance waits for this task, which instances are there, what do they wait for); they ask
this object rather than walking parent links each in its own way.
"""

from __future__ import annotations

from collections.abc import Callable, Sized
from typing import Generic, Protocol, TypeVar

from bpmn_engine.errors import NotFound
from bpmn_engine.records.rows import UserTask


class Member(Protocol):
    """What the tree asks of each instance in it (`Instance` is one)."""

    @property
    def id(self) -> str: ...
    def user_tasks(self) -> list[UserTask]: ...
    def waiting_task(self, task: str | int) -> UserTask | None: ...
    def triggers_at(self, element: str) -> Sized: ...


M = TypeVar("M", bound=Member)


class Family(Protocol[M]):
    """What the tree asks of the engine (`Engine` is one): the ids in a tree, and each
    member by its id, the one `bpmn step` holds first."""

    def family(self, instance_id: str) -> list[str]: ...
    def held_instance(self, instance_id: str) -> M | None: ...
    def instance(self, instance_id: str) -> M: ...


class CallTree(Generic[M]):
    """`top` and the instances it called, directly or not, breadth first (`top` first).

    Members are loaded once, through `load` (by default the object `bpmn step` holds an
    instance in, else the instance from its rows). The tree knows its members and engine
    by what it asks of them (`Member`, `Family`): it sits below the instance and the engine,
    which make it."""

    def __init__(
        self,
        engine: Family[M],
        top: M,
        load: Callable[[str], M] | None = None,
    ) -> None:
        self.engine = engine
        self.top = top
        self.ids = engine.family(top.id)
        self._load = load or (lambda i: engine.held_instance(i) or engine.instance(i))
        self._members: list[M] | None = None

    def members(self) -> list[M]:
        if self._members is None:
            self._members = [self.top, *(self._load(i) for i in self.ids[1:])]
        return self._members

    def called(self) -> list[M]:
        """Every member but `top`."""
        return self.members()[1:]

    def waiting_tasks(self) -> list[tuple[M, UserTask]]:
        """Each member's waiting user tasks, in tree order."""
        return [(m, t) for m in self.members() for t in sorted(m.user_tasks(), key=lambda t: t.id)]

    def task_holder(self, task: str | int) -> M:
        """The first member waiting for user task `task` (its number, element id or name);
        a `NotFound` naming what the tree waits for when none is."""
        for member in self.members():
            if member.waiting_task(task) is not None:
                return member
        waiting = sorted(
            {t.element + (f" ({t.name})" if t.name else "") for _, t in self.waiting_tasks()}
        )
        where = "" if len(self.ids) == 1 else " or any instance it called"
        raise NotFound(
            f"instance {self.top.id}{where} has no waiting user task {task!r}"
            + (f"; waiting: {', '.join(waiting)}" if waiting else "; it waits for no user task")
        )

    def triggered_at(self, element: str) -> list[M]:
        """The members with a token waiting at `element` for a trigger."""
        return [m for m in self.members() if m.triggers_at(element)]
