"""`bpmn show`, `bpmn instances` and `bpmn store`: the commands that only look (the
database is opened read-only, so they never disturb a run in progress)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import click
from rich.table import Table

from bpmn_engine import Overdue, UsageError
from bpmn_engine.cli.common import console, db_option, json_option, new_engine
from bpmn_engine.cli.render import db_flag, json_line, short, show
from bpmn_engine.dsn import redact
from bpmn_engine.terminal import json_safe, safe


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
    tree = engine.tree(instance)
    if as_json:
        payload = instance.to_json(last)
        payload["parent_instance"] = instance.parent
        payload["called_instances"] = tree.ids[1:]
        click.echo(json_line(payload))
        return
    show(console, instance, last)
    if instance.parent is not None:
        console.print(f"called by instance [bold]{safe(instance.parent)}[/]", highlight=False)
    for child in tree.called():
        console.print(
            f"{'  ' * (child.call_depth - instance.call_depth - 1)}↳ called instance "
            f"[bold]{safe(child.id)}[/] ({safe(child.process_id)}) {child.outcome().state}",
            highlight=False,
        )


VERSION_DIGITS = 8  # of a definitions version (a sha256), as `bpmn instances` shows it
STATES = ("active", "waiting", "completed", "failed", "terminated")


@click.command()
@click.option(
    "--stuck",
    is_flag=True,
    help="Only active instances nothing can move on: no track can run, nothing awaited exists.",
)
@click.option(
    "--state",
    type=click.Choice(STATES),
    help="Only the instances in this state (active: every one not ended, waiting ones too).",
)
@click.option("--process", "process_id", metavar="ID", help="Only the instances of this process.")
@click.option("--business-key", metavar="KEY", help="Only the instances with this business key.")
@db_option
@json_option
def instances(
    stuck: bool,
    state: str | None,
    process_id: str | None,
    business_key: str | None,
    db: str,
    as_json: bool,
) -> None:
    """List the instances in the database."""
    engine = new_engine(db, read_only=True)
    rows = engine.instances(stuck=stuck, state=state, process=process_id, business_key=business_key)
    late: dict[str, list[Overdue]] = {}
    for token in engine.overdue() if stuck else ():
        late.setdefault(token.instance, []).append(token)
    if as_json:
        for row in rows:  # `instance` too: the key every other command's JSON uses for it
            if stuck:
                row["overdue"] = [
                    {"track": t.track, "element": t.element, "why": t.why, "since": t.since}
                    for t in late.get(row["id"], ())
                ]
            click.echo(json_line({"instance": row["id"], **row}))
        return
    called = any(row["parent_instance"] for row in rows)
    keyed = any(row["business_key"] is not None for row in rows)
    # a process run on several versions of its definitions (80 columns hold no more)
    versioned = len({(r["process"], r["definition"]) for r in rows}) > len(
        {r["process"] for r in rows}
    )
    table = Table(box=None)
    table.add_column("instance", no_wrap=True)
    if keyed:
        table.add_column("business key", overflow="fold")
    table.add_column("process", overflow="fold")  # a narrow terminal wraps it, never cuts it
    if versioned:  # of its definitions: the content hash, short
        table.add_column("version", no_wrap=True)
    table.add_column("state", no_wrap=True)
    table.add_column("tasks", justify="right", no_wrap=True)
    table.add_column("updated (UTC)", no_wrap=True)
    if called:
        table.add_column("called by", no_wrap=True)
    for row in rows:
        cells = [row["id"], *([row["business_key"] or ""] if keyed else [])]
        cells.append(row["process"])
        cells += [row["definition"][:VERSION_DIGITS]] if versioned else []
        state = row["state"] + (" (others wait)" if row["others_wait"] else "")
        cells += [state, str(row["waiting_tasks"] or "")]
        cells.append(minute(row["updated_at"] or ""))
        if called:
            cells.append(row["parent_instance"] or "")
        table.add_row(*(safe(c) for c in cells))
    console.print(table)
    db_opt = db_flag(db)
    for tokens in late.values():
        for token in tokens:
            console.print(
                f"[yellow]late:[/] {safe(token.instance)} at {safe(token.element)} "
                f"(token #{token.track}): {safe(token.reason)}; move it on: "
                f"[bold]bpmn resume {safe(token.instance)}{safe(db_opt)}[/] "
                "(or keep a `bpmn worker` running)",
                highlight=False,
            )


def minute(stamp: str) -> str:
    """An ISO time as `2026-12-04 07:09:06`: what fits beside the rest in 80 columns."""
    try:
        moment = datetime.fromisoformat(stamp).astimezone(UTC)
    except ValueError:
        return stamp
    return moment.strftime("%Y-%m-%d %H:%M:%S")


@click.command(name="store")
@click.argument("name", required=False)
@db_option
@json_option
def store_command(name: str | None, db: str, as_json: bool) -> None:
    """Show a data store's value and its last write; without NAME, list the stores.

    Data stores are kept in the database and shared by every instance (docs/data-stores.md)."""
    engine = new_engine(db, read_only=True)
    if name is None:
        stores = engine.data_stores()
        if as_json:
            for store in stores:
                click.echo(json_line(store.to_json()))
            return
        if not stores:
            console.print("no data store has been written in this database", highlight=False)
            return
        table = Table(box=None)
        table.add_column("store", overflow="fold")
        table.add_column("value", overflow="fold")
        table.add_column("written (UTC)", no_wrap=True)
        table.add_column("by", overflow="fold")
        for store in stores:
            by = f"{store.instance} at {store.element}"
            cells = (store.name, short(store.value), minute(store.written_at), by)
            table.add_row(*(safe(c) for c in cells))
        console.print(table)
        return
    found = engine.data_store(name)
    if found is None:
        raise UsageError(f"no data store {name!r} has been written in {redact(db)}")
    if as_json:
        click.echo(json_line(found.to_json()))
        return
    writes = "1 write" if found.writes == 1 else f"{found.writes} writes"
    console.print(
        f"data store [bold]{safe(found.name)}[/]: last written {minute(found.written_at)} UTC "
        f"by instance [bold]{safe(found.instance)}[/] at {safe(found.element)} ({writes})",
        highlight=False,
    )
    click.echo(json_safe(json.dumps(found.value, indent=2, ensure_ascii=False)))
