"""`bpmn show` and `bpmn instances`: the commands that only look (the database is opened
read-only, so they never disturb a run in progress)."""

from __future__ import annotations

import click
from rich.table import Table

from bpmn_engine.cli.common import console, db_option, json_option, new_engine
from bpmn_engine.cli.render import json_line, show, show_json
from bpmn_engine.terminal import safe


@click.command(name="show")
@click.argument("instance_id", metavar="INSTANCE")
@click.option(
    "--history",
    "last",
    type=click.IntRange(min=0),
    default=0,
    metavar="N",
    help="Only the last N history events (default: all).",
)
@db_option
@json_option
def show_command(instance_id: str, last: int, db: str, as_json: bool) -> None:
    """Show an instance: state, tokens, variables and history.

    Each history event with the time it was committed; --history N shows the last N."""
    engine = new_engine(db, read_only=True)
    instance = engine.instance(instance_id)
    called = engine.family(instance.id)[1:]
    if as_json:
        payload = show_json(instance, last)
        payload["parent_instance"] = instance.parent
        payload["called_instances"] = called
        click.echo(json_line(payload))
        return
    show(console, instance, last)
    if instance.parent is not None:
        console.print(f"called by instance [bold]{safe(instance.parent)}[/]", highlight=False)
    for member in called:
        child = engine.instance(member)
        console.print(
            f"{'  ' * (child.call_depth - instance.call_depth - 1)}↳ called instance "
            f"[bold]{safe(child.id)}[/] ({safe(child.process_id)}) {child.outcome().state}",
            highlight=False,
        )


STATES = ("active", "completed", "failed", "terminated")


@click.command()
@click.option(
    "--stuck",
    is_flag=True,
    help="Only active instances nothing can move on: no track can run, nothing awaited exists.",
)
@click.option("--state", type=click.Choice(STATES), help="Only the instances in this state.")
@click.option("--process", "process_id", metavar="ID", help="Only the instances of this process.")
@db_option
@json_option
def instances(
    stuck: bool, state: str | None, process_id: str | None, db: str, as_json: bool
) -> None:
    """List the instances in the database."""
    engine = new_engine(db, read_only=True)
    rows = engine.instances(stuck=stuck, state=state, process=process_id)
    if as_json:
        for row in rows:  # `instance` too: the key every other command's JSON uses for it
            click.echo(json_line({"instance": row["id"], **row}))
        return
    table = Table("instance", "process", "state", "waiting tasks", "updated", "called by", box=None)
    for row in rows:
        keys = ("id", "process", "state", "waiting_tasks", "updated_at", "parent_instance")
        table.add_row(*(safe(row[k] or "") for k in keys))
    console.print(table)
