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
@db_option
@json_option
def show_command(instance_id: str, db: str, as_json: bool) -> None:
    """Show an instance: state, tokens, variables and history."""
    engine = new_engine(db, read_only=True)
    instance = engine.instance(instance_id)
    if as_json:
        click.echo(json_line(show_json(instance)))
    else:
        show(console, instance)


@click.command()
@db_option
@json_option
def instances(db: str, as_json: bool) -> None:
    """List the instances in the database."""
    engine = new_engine(db, read_only=True)
    rows = engine.instances()
    if as_json:
        for row in rows:
            click.echo(json_line(row))
        return
    table = Table("instance", "process", "state", "waiting tasks", "updated", box=None)
    for row in rows:
        table.add_row(
            *(safe(row[k]) for k in ("id", "process", "state", "waiting_tasks", "updated_at"))
        )
    console.print(table)
