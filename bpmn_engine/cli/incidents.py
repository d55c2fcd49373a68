"""`bpmn incidents`: the open incidents of every instance (`Engine.incidents`), read-only."""

from __future__ import annotations

import shlex

import click
from rich.table import Table

from bpmn_engine.cli.common import DEFAULT_DB, console, db_option, json_option, new_engine
from bpmn_engine.cli.inspect import minute
from bpmn_engine.cli.render import json_line
from bpmn_engine.dsn import redact
from bpmn_engine.terminal import safe


@click.command()
@click.option(
    "--instance", "instance_id", metavar="ID", help="Only the incidents of this instance."
)
@db_option
@json_option
def incidents(instance_id: str | None, db: str, as_json: bool) -> None:
    """List the open incidents: tokens stopped at an element, the oldest first.

    Each with its id (what `bpmn retry` takes), instance, element, kind (job, called
    instance, step), the tries a job made and the error. An instance whose other tokens
    went on is still active; one none of whose tokens can go on has failed.

    Example: bpmn incidents --instance 3f9a2c
    """
    engine = new_engine(db, read_only=True)
    found = engine.incidents(instance_id)
    if as_json:
        for incident in found:
            click.echo(json_line(incident.to_json()))
        return
    if not found:
        console.print("no open incident", highlight=False)
        return
    table = Table(box=None)
    table.add_column("incident", no_wrap=True)
    table.add_column("process", overflow="fold")
    table.add_column("element", overflow="fold")
    table.add_column("kind", no_wrap=True)
    table.add_column("tries", justify="right", no_wrap=True)
    table.add_column("state", no_wrap=True)  # of its instance: other tokens go on, or not
    table.add_column("created (UTC)", no_wrap=True)
    table.add_column("error", overflow="fold")
    for incident in found:
        table.add_row(
            *(
                safe(c)
                for c in (
                    incident.id,
                    incident.process,
                    incident.element,
                    incident.kind,
                    str(incident.attempt or ""),
                    "failed" if incident.instance_failed else "active",
                    minute(incident.created_at or ""),
                    incident.message,
                )
            )
        )
    console.print(table)
    where = "" if db == DEFAULT_DB else f" --db {shlex.quote(redact(db))}"
    console.print(
        f"to run one again: bpmn retry INCIDENT [--var NAME=VALUE]...{safe(where)} "
        f"(e.g. bpmn retry {safe(shlex.quote(found[0].id))}{safe(where)})",
        highlight=False,
    )
