"""`bpmn migrate`: running instances onto another version of their definitions
(`Engine.migrate`), the plan checked whole first."""

from __future__ import annotations

import click

from bpmn_engine import UsageError
from bpmn_engine.cli.common import console, db_option, json_option, new_engine
from bpmn_engine.cli.render import json_line
from bpmn_engine.terminal import safe


@click.command()
@click.argument("instance_ids", nargs=-1, metavar="INSTANCE...")
@click.option(
    "--to",
    "target",
    required=True,
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="The new version of the definitions.",
)
@click.option(
    "--map",
    "pairs",
    multiple=True,
    metavar="OLD=NEW",
    help="Where an element went: its id in the new version.",
)
@click.option("--all", "every", is_flag=True, help="Every running instance of --process.")
@click.option(
    "--process", "process_id", metavar="ID", help="With --all: the process whose instances move."
)
@click.option("--dry-run", is_flag=True, help="Print the plan; change nothing.")
@db_option
@json_option
def migrate(
    instance_ids: tuple[str, ...],
    target: str,
    pairs: tuple[str, ...],
    every: bool,
    process_id: str | None,
    dry_run: bool,
    db: str,
    as_json: bool,
) -> None:
    """Move running instances onto another version of their definitions.

    Each token, user task, timer and subscription keeps its place where its element exists
    in the new version (same id, or --map OLD=NEW) and is of the same kind; the whole plan
    is checked first, and one element with no place refuses it all (exit 2, nothing
    changed). Each instance moves in one step, recorded in its history. Example: bpmn
    migrate 3f9a2c --to order-v2.bpmn --map Task_Check=Task_Verify
    """
    mapping: dict[str, str] = {}
    for pair in pairs:
        old, sep, new = pair.partition("=")
        if not sep or not old.strip() or not new.strip():
            raise UsageError(f"--map {pair!r}: expected OLD=NEW (element ids)")
        mapping[old.strip()] = new.strip()
    engine = new_engine(db)
    ids = list(instance_ids)
    if every:
        if process_id is None:
            raise UsageError("--all needs --process ID: the process whose instances move")
        ids += engine.running_instances(process_id)
    elif process_id is not None:
        raise UsageError("--process goes with --all")
    plans = engine.migrate(ids, target, mapping, dry_run=dry_run)
    if as_json:
        for plan in plans:
            click.echo(json_line(plan.to_json()))
    else:
        for plan in plans:
            moved = {old: new for old, new in plan.moves.items() if old != new}
            where = ", ".join(f"{old} → {new}" for old, new in moved.items()) or "same ids"
            verb = "would move" if dry_run else "moved"
            console.print(
                f"{safe(plan.instance)}: {verb} {plan.source_version[:8]} → "
                f"{plan.target_version[:8]} ({safe(where)})",
                highlight=False,
            )
            for problem in plan.problems:
                console.print(f"  [red]✗[/] {safe(problem)}", highlight=False)
    if any(plan.problems for plan in plans):
        raise SystemExit(2)
