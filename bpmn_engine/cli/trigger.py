"""`bpmn trigger`: move on a wait state the API triggers, then run on (`Instance.trigger`)."""

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
@click.option(
    "--track",
    type=int,
    help="Which token, when several wait at ELEMENT (a parallel multi-instance): its track.",
)
@db_option
@run_options
@record_option
@json_option
def trigger(
    instance_id: str,
    element: str,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    track: int | None,
    db: str,
    settings: RunSettings,
    record: str | None,
    as_json: bool,
) -> None:
    """Move on a token that waits at ELEMENT for a trigger, and run on.

    ELEMENT (its id, or its name when unique) is a receive task with neither a message nor
    a name, or an intermediate catch event with no event definition: nothing but this
    command moves a token on from it (Camunda's runtimeService.trigger). It may wait in any
    instance INSTANCE called (call activities): the whole tree runs on. --var/--vars are set
    as process variables (through the element's output mappings, if it has any) as it moves.
    Example: bpmn trigger 3f9a2c Wait_ForDelivery --var delivered=true
    """
    variables = parse_variables(var_pairs, vars_file)

    def prepare(engine: Engine, instance: Instance) -> Act:
        holder = instance.trigger_holder(element)  # an error before anything is recorded

        def act(listener: Listener) -> Instance:
            holder.trigger(element, variables, listener, track=track)
            if holder is instance:
                return instance
            holder.run(listener, *settings.waits)  # a called instance's wait: it runs on first
            return engine.instance(instance.id)

        return act

    step = ("trigger", element, variables)
    act_then_run(instance_id, db, settings, as_json, record, step, prepare)
