"""`bpmn activate`: start an inner activity of a waiting ad-hoc subprocess, then run on."""

from __future__ import annotations

import click

from bpmn_engine import Engine, Instance
from bpmn_engine.cli.common import (
    RunSettings,
    db_option,
    json_option,
    parse_variables,
    run_options,
    var_options,
)
from bpmn_engine.cli.recording import record_option
from bpmn_engine.cli.run import Act, Listener, act_then_run


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

    def prepare(engine: Engine, instance: Instance) -> Act:
        def act(listener: Listener) -> Instance:
            if variables:
                instance.set_variables(variables, on_event=listener)
            instance.activate(element, listener)
            return instance

        return act

    step = ("activate", element, variables)
    act_then_run(instance_id, db, settings, as_json, record, step, prepare)
