"""`bpmn tasks`: the open user tasks of every active instance (`Engine.tasks`), read-only."""

from __future__ import annotations

import click
from rich.table import Table

from bpmn_engine import OpenTask
from bpmn_engine.cli.common import console, db_option, json_option, new_engine
from bpmn_engine.cli.inspect import minute
from bpmn_engine.cli.render import db_flag, json_line
from bpmn_engine.terminal import safe


@click.command()
@click.option("--process", "process_id", metavar="ID", help="Only the tasks of this process.")
@click.option("--assignee", metavar="NAME", help="Only the tasks assigned to NAME.")
@click.option("--group", metavar="G", help="Only the tasks whose candidate groups include G.")
@db_option
@json_option
def tasks(
    process_id: str | None, assignee: str | None, group: str | None, db: str, as_json: bool
) -> None:
    """List the open user tasks of every active instance, oldest first.

    Each with its instance, its number there (what `bpmn complete INSTANCE TASK` takes),
    element, assignee and candidate groups and users as the diagram named them (recorded,
    not enforced: anyone may complete a task), form fields and when it was created.

    Example: bpmn tasks --group accounting
    """
    engine = new_engine(db, read_only=True)
    found = engine.tasks(process=process_id, assignee=assignee, group=group)
    if as_json:
        for task in found:
            click.echo(json_line(task.to_json()))
        return
    if not found:
        filtered = process_id is not None or assignee is not None or group is not None
        console.print(
            "no open user task" + (" matches" if filtered else " in this database"),
            highlight=False,
        )
        return
    keyed = any(task.business_key is not None for task in found)
    table = Table(box=None)
    table.add_column("instance", no_wrap=True)
    table.add_column("task", justify="right", no_wrap=True)
    table.add_column("element", overflow="fold")
    if keyed:
        table.add_column("business key", overflow="fold")
    table.add_column("process", overflow="fold")
    table.add_column("assignee", overflow="fold")
    table.add_column("candidates", overflow="fold")
    table.add_column("form", overflow="fold")
    table.add_column("created (UTC)", no_wrap=True)
    for task in found:
        cells = [task.instance, str(task.task), _element(task)]
        cells += [task.business_key or ""] if keyed else []
        cells += [task.process, task.assignee or "", _candidates(task), _form(task)]
        cells.append(minute(task.created_at or ""))
        table.add_row(*(safe(c) for c in cells))
    console.print(table)
    first = found[0]
    where = db_flag(db)
    console.print(
        f"to complete one: bpmn complete INSTANCE TASK [--var NAME=VALUE]...{safe(where)} "
        f"(e.g. bpmn complete {safe(first.instance)} {first.task}{safe(where)})",
        highlight=False,
    )


def _element(task: OpenTask) -> str:
    return task.element + (f" ({task.name})" if task.name and task.name != task.element else "")


def _candidates(task: OpenTask) -> str:
    parts = []
    if task.candidate_groups:
        parts.append("groups " + ", ".join(task.candidate_groups))
    if task.candidate_users:
        parts.append("users " + ", ".join(task.candidate_users))
    return "; ".join(parts)


def _form(task: OpenTask) -> str:
    return ", ".join(f.id + (f" ({f.type})" if f.type else "") for f in task.form_fields)
