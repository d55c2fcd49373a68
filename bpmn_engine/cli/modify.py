"""`bpmn modify`: the operator's hand on an instance's tokens (`Instance.modify`), then run on."""

from __future__ import annotations

import click

from bpmn_engine import Engine, Instance
from bpmn_engine.cli.common import (
    RunSettings,
    console,
    db_option,
    json_option,
    parse_variables,
    run_options,
    var_options,
)
from bpmn_engine.cli.render import json_line
from bpmn_engine.cli.run import Act, Listener, act_then_run
from bpmn_engine.terminal import safe


@click.command()
@click.argument("instance_id", metavar="INSTANCE")
@click.option(
    "--cancel", "cancel", multiple=True, metavar="ELEMENT", help="Cancel every token at ELEMENT."
)
@click.option(
    "--cancel-token",
    "cancel_tokens",
    multiple=True,
    type=int,
    metavar="N",
    help="Cancel token N (its track, as `bpmn show` lists it).",
)
@click.option(
    "--start-before",
    "start_before",
    multiple=True,
    metavar="ELEMENT",
    help="Start a token that enters ELEMENT.",
)
@click.option(
    "--start-after",
    "start_after",
    multiple=True,
    metavar="ELEMENT",
    help="Start a token on ELEMENT's one outgoing flow.",
)
@var_options
@click.option("--dry-run", is_flag=True, help="Print the tokens it would leave; change nothing.")
@db_option
@run_options
@json_option
def modify(
    instance_id: str,
    cancel: tuple[str, ...],
    cancel_tokens: tuple[int, ...],
    start_before: tuple[str, ...],
    start_after: tuple[str, ...],
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    dry_run: bool,
    db: str,
    settings: RunSettings,
    as_json: bool,
) -> None:
    """Move an instance's tokens by hand (Camunda's instance modification), and run on.

    All of it is one step, recorded in the history (instance.modified): --cancel ELEMENT
    ends every token there (its user task, timers and called instance with it),
    --cancel-token N one token, --start-before ELEMENT starts a token that enters ELEMENT,
    --start-after ELEMENT one that leaves by its single outgoing flow, --var sets a process
    variable. An instance left with no token is terminated. --dry-run prints the tokens it
    would leave. Example: bpmn modify 3f9a2c --cancel Task_Charge --start-before Task_Refund
    """
    variables = parse_variables(var_pairs, vars_file)
    asked = {
        "cancel": cancel,
        "cancel_tokens": cancel_tokens,
        "start_before": start_before,
        "start_after": start_after,
        "variables": variables,
    }
    if dry_run:
        engine = settings.engine(db, as_json)
        tokens = engine.instance(instance_id).modify(**asked, dry_run=True)
        if as_json:
            for token in tokens:
                click.echo(json_line(token))
            return
        console.print(f"{len(tokens)} token(s) after the modification (nothing changed):")
        for token in tokens:
            console.print(
                f"  #{token['track']} at {safe(token['element'])} ({token['state']})",
                highlight=False,
            )
        return

    def prepare(engine: Engine, instance: Instance) -> Act:
        def act(listener: Listener) -> Instance:  # a bad request changes nothing (one step)
            instance.modify(**asked, on_event=listener)
            return instance

        return act

    act_then_run(instance_id, db, settings, as_json, None, ("modify", True, variables), prepare)
