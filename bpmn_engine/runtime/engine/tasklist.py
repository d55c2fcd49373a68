"""The task list: every open user task of every active instance (`Engine.tasks`, `bpmn tasks`).

One query on the store's index of tasks, never a load of each instance: the rows say who a
task is for (assignee and candidates, as the diagram named them when it was created) and
when it was created; the form fields come from the definitions the instance runs on,
compiled once per version. Who is named is not enforced: anyone may complete any task.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bpmn_engine.model import Definitions, FormField, Task
from bpmn_engine.runtime.storage import Store


@dataclass(frozen=True, slots=True)
class OpenTask:
    """A user task waiting in an active instance. `task` is its number in the instance:
    `bpmn complete INSTANCE TASK` (`Instance.complete_task(task)`) takes it, as it takes
    the element id or name. `created_at` is ISO 8601 UTC on the engine's clock, None for a
    task created before the engine recorded it (as are its assignee and candidates)."""

    instance: str
    task: int
    element: str
    name: str | None
    process: str
    business_key: str | None
    definition_version: str
    assignee: str | None
    candidate_users: tuple[str, ...]
    candidate_groups: tuple[str, ...]
    created_at: str | None
    form_fields: tuple[FormField, ...]

    def to_json(self) -> dict[str, Any]:
        """As `bpmn tasks --json` prints it: one object per task."""
        return {
            "instance": self.instance,
            "task": self.task,
            "element": self.element,
            "name": self.name,
            "process": self.process,
            "business_key": self.business_key,
            "definition_version": self.definition_version,
            "assignee": self.assignee,
            "candidate_users": list(self.candidate_users),
            "candidate_groups": list(self.candidate_groups),
            "created_at": self.created_at,
            "form_fields": [_field_json(f) for f in self.form_fields],
        }


def _field_json(field: FormField) -> dict[str, Any]:
    out: dict[str, Any] = {"id": field.id, "label": field.label, "type": field.type}
    if field.default is not None:
        out["default"] = field.default
    if field.values:
        out["values"] = list(field.values)
    if field.constraints:
        out["constraints"] = {name: config for name, config in field.constraints}
    return out


def open_tasks(
    store: Store,
    definitions: Callable[[str], Definitions],
    *,
    process: str | None = None,
    assignee: str | None = None,
    group: str | None = None,
) -> list[OpenTask]:
    """The open tasks, oldest first, kept to those of `process`, assigned to `assignee`
    and offered to `group` (a candidate group) when given."""
    found = []
    for row in store.open_tasks(process, assignee, group):
        node = definitions(row["definition"]).node(row["element"])
        fields = node.form_fields if isinstance(node, Task) else ()
        found.append(
            OpenTask(
                instance=row["instance"],
                task=int(row["task"]),
                element=row["element"],
                name=row["name"],
                process=row["process"],
                business_key=row["business_key"],
                definition_version=row["definition"],
                assignee=row["assignee"],
                candidate_users=row["candidate_users"],
                candidate_groups=row["candidate_groups"],
                created_at=row["created_at"],
                form_fields=fields,
            )
        )
    return found
