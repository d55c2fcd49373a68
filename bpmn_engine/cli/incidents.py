"""`bpmn incidents`: the open incidents of every instance (`Engine.incidents`), read-only."""

from __future__ import annotations

import shlex

import click
from rich.table import Table

from bpmn_engine import IncidentRecord
from bpmn_engine.cli.common import console, db_option, json_option, new_engine
from bpmn_engine.cli.inspect import minute
from bpmn_engine.cli.render import db_flag, json_line
from bpmn_engine.terminal import safe


@click.command()
@click.option(
    "--instance", "instance_id", metavar="ID", help="Only the incidents of this instance."
)
@click.option("--resolved", is_flag=True, help="The resolved incidents too, with when.")
@db_option
@json_option
def incidents(instance_id: str | None, resolved: bool, db: str, as_json: bool) -> None:
    """List the open incidents: tokens stopped at an element, the oldest first.

    Each with its id (what `bpmn retry` takes), instance, element, kind (job, called
    instance, step), the tries a job made and the error. An instance whose other tokens
    went on is still active; one none of whose tokens can go on has failed. --resolved
    lists those resolved too (run again, cancelled by hand, or their instance ended).

    Example: bpmn incidents --instance 3f9a2c
    """
    engine = new_engine(db, read_only=True)
    found = engine.incidents(instance_id, resolved=resolved)
    if as_json:
        for incident in found:
            click.echo(json_line(incident.to_json()))
        return
    if not found:
        console.print("no incident" if resolved else "no open incident", highlight=False)
        return
    table = Table(box=None)
    table.add_column("incident", no_wrap=True)
    table.add_column("process", overflow="fold")
    table.add_column("element", overflow="fold")
    table.add_column("kind", no_wrap=True)
    table.add_column("tries", justify="right", no_wrap=True)
    table.add_column("state", no_wrap=True)  # resolved, or its instance's: failed or active
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
                    _state(incident),
                    minute(incident.created_at or ""),
                    incident.message,
                )
            )
        )
    console.print(table)
    where = db_flag(db)
    console.print(
        f"to run one again: bpmn retry INCIDENT [--var NAME=VALUE]...{safe(where)} "
        f"(e.g. bpmn retry {safe(shlex.quote(found[0].id))}{safe(where)})",
        highlight=False,
    )


def _state(incident: IncidentRecord) -> str:
    if incident.resolved_at is not None:
        return f"resolved {minute(incident.resolved_at)}"
    return "failed" if incident.instance_failed else "active"
