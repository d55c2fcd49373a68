"""`bpmn run`, `complete`, `resume` and `cancel`: the commands that move one instance."""

from __future__ import annotations

import click

from bpmn_engine.cli.common import (
    RUNNING,
    RunSettings,
    db_option,
    event_listener,
    finish,
    json_option,
    open_engine,
    parse_variables,
    run_options,
    var_options,
)
from bpmn_engine.cli.render import Trace


@click.command()
@click.argument("file")
@click.option("--process", "process_id", help="Id of the process to run (default: the first).")
@var_options
@db_option
@run_options
@json_option
def run(
    file: str,
    process_id: str | None,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    db: str,
    settings: RunSettings,
    as_json: bool,
) -> None:
    """Run a process until it completes, fails or waits.

    Example: bpmn run models/loan-approval.bpmn --var income=4200 --var amount=15000
    """
    variables = parse_variables(var_pairs, vars_file)
    engine = settings.engine(db, as_json)
    listener = event_listener(as_json, None, engine)
    instance = engine.start(file, process_id, variables, on_event=listener)
    RUNNING.append((instance.id, db))
    if isinstance(listener, Trace):  # names come from the definitions, known only now
        listener.instance = instance
    finish(instance.run(listener, settings.wait), db, listener, settings.options)


@click.command()
@click.argument("instance_id", metavar="INSTANCE")
@click.argument("task")
@var_options
@db_option
@run_options
@json_option
def complete(
    instance_id: str,
    task: str,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    db: str,
    settings: RunSettings,
    as_json: bool,
) -> None:
    """Complete a waiting user task (its element id or name) and run on.

    Example: bpmn complete 3f9a2c Task_ApproveOrder --var approved=true
    """
    variables = parse_variables(var_pairs, vars_file)
    engine = settings.engine(db, as_json)
    instance = engine.instance(instance_id)
    RUNNING.append((instance.id, db))
    listener = event_listener(as_json, instance, engine)
    instance.complete_task(task, variables, listener)
    finish(instance.run(listener, settings.wait), db, listener, settings.options)


@click.command()
@click.argument("instance_id", metavar="INSTANCE")
@var_options
@db_option
@run_options
@json_option
def resume(
    instance_id: str,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    db: str,
    settings: RunSettings,
    as_json: bool,
) -> None:
    """Go on with an instance: after a crash, a fix, or a wait. Failed tracks are retried.

    --var/--vars set process variables in the same step as the retry (the fix for a
    missing or wrong value). Example: bpmn resume 3f9a2c --var income=4200
    """
    variables = parse_variables(var_pairs, vars_file)
    engine = settings.engine(db, as_json)
    instance = engine.instance(instance_id)
    RUNNING.append((instance.id, db))
    listener = event_listener(as_json, instance, engine)
    instance.retry(listener, variables)
    finish(instance.run(listener, settings.wait), db, listener, settings.options)


@click.command()
@click.argument("instance_id", metavar="INSTANCE")
@db_option
@json_option
def cancel(instance_id: str, db: str, as_json: bool) -> None:
    """Terminate an instance: every token is removed, every user task cancelled."""
    engine = open_engine(db, None, False, None, as_json)
    instance = engine.instance(instance_id)
    listener = event_listener(as_json, instance, engine)
    finish(instance.cancel(listener), db, listener)
