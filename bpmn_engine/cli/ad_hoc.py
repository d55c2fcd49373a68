"""`bpmn activate`: start an inner activity of a waiting ad-hoc subprocess, then run on."""

from __future__ import annotations

import click

from bpmn_engine.cli import recording
from bpmn_engine.cli.common import (
    RUNNING,
    RunSettings,
    db_option,
    event_listener,
    json_option,
    parse_variables,
    run_options,
    var_options,
)
from bpmn_engine.cli.recording import record_option, recorded
from bpmn_engine.cli.run import finish_tree


@click.command()
@click.argument("instance_id", metavar="INSTANCE")
@click.argument("element")
@var_options
@db_option
@run_options
@record_option
@json_option
def activate(
    instance_id: str,
    element: str,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    db: str,
    settings: RunSettings,
    record: str | None,
    as_json: bool,
) -> None:
    """Activate ELEMENT, an activity of an ad-hoc subprocess INSTANCE waits in, and run on.

    Only activities without incoming sequence flows can be activated; `bpmn show` lists
    them. --var sets process variables first, for the activity to read.
    Example: bpmn activate 3f9a2c Task_CheckCredit --var limit=5000
    """
    variables = parse_variables(var_pairs, vars_file)
    engine = settings.engine(db, as_json)
    instance = engine.instance(instance_id)
    RUNNING.append((instance.id, db))
    recorder = recording.go_on(record, engine, instance.id)
    listener = event_listener(as_json, instance, engine)
    if recorder is not None:
        recorder.step("activate", element, variables)
    with recorded(recorder, engine, instance.id):
        if variables:
            instance.set_variables(variables, on_event=listener)
        instance.activate(element, listener)
        outcome = instance.run(listener, settings.wait)
        finish_tree(engine, outcome, db, listener, settings.options)
