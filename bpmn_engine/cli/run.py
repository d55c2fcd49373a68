"""`bpmn run`, `complete`, `resume` and `cancel`: the commands that move one instance."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from bpmn_engine import (
    Collaboration,
    Engine,
    Event,
    Instance,
    Outcome,
    UsageError,
)
from bpmn_engine.cli import recording
from bpmn_engine.cli.common import (
    RUNNING,
    JsonLines,
    RunSettings,
    chosen_processes,
    console,
    db_option,
    event_listener,
    existing_db,
    finish,
    json_option,
    load_files,
    open_engine,
    parse_variables,
    run_options,
    start_option,
    var_options,
)
from bpmn_engine.cli.recording import record_option, recorded
from bpmn_engine.cli.render import Trace, family_summary, json_line, outcome_summary
from bpmn_engine.exit_codes import ExitCode
from bpmn_engine.terminal import safe

Listener = Callable[[Event], None]
Act = Callable[[Listener], Instance]  # does the command's one thing; the instance to run on


@click.command()
@click.argument("files", nargs=-1, required=True, metavar="FILE [FILE...]")
@click.option(
    "--process",
    "process_id",
    help="Id of the process, or of the collaboration, to run, in any FILE (default: every "
    "process of the first FILE that starts by itself: one, or each pool of a collaboration).",
)
@start_option
@click.option(
    "--business-key",
    metavar="KEY",
    help="The key the instance is known by (Camunda's business key): bpmn instances "
    "--business-key KEY finds it.",
)
@var_options
@db_option
@run_options
@record_option
@json_option
def run(
    files: tuple[str, ...],
    process_id: str | None,
    start_event: str | None,
    business_key: str | None,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    db: str,
    settings: RunSettings,
    record: str | None,
    as_json: bool,
) -> None:
    """Run a process until it completes, fails or waits.

    The other FILEs hold the processes its call activities call, and the decisions its
    business rule tasks evaluate (*.dmn). Each process a call activity calls runs as a child
    instance; the run goes on until the whole tree waits or ends, and reports the first
    file's instance. A collaboration runs every pool that starts by itself, and the others
    start when a message or signal they start on is sent.

    A process whose start events all wait for a trigger (message, signal, timer, condition)
    starts waiting at them: the first to fire starts it. --start fires one now.

    Example: bpmn run models/loan-approval.bpmn --var income=4200 --var amount=15000
    """
    variables = parse_variables(var_pairs, vars_file)
    if start_event is not None and record is not None:
        raise UsageError("--record does not record a --start run: record it without --start")
    engine = settings.engine(db, as_json, existing=False)
    loaded = load_files(engine, files)
    for definitions in loaded:  # where called processes are found
        engine.deploy(definitions)
    main, target, together = chosen_processes(loaded, process_id)
    if start_event is not None:  # the process (pool) of the file whose start event it is
        target, together = (None if together else process_id), False
    listener = event_listener(as_json, None, engine)
    if together:  # a collaboration: every pool that starts by itself, the others on demand
        if record is not None or business_key is not None:
            given = "--record records" if record is not None else "--business-key names"
            raise UsageError(f"{given} one process: choose it with --process")
        collaboration = engine.start_collaboration(main, target, variables, on_event=listener)
        run_pools(engine, collaboration, listener, db, settings)
    recorder = recording.begin(record, engine, files, process_id, variables)
    instance = engine.start(
        main,
        target,
        variables,
        on_event=listener,
        start_event=start_event,
        business_key=business_key,
    )
    RUNNING.append((instance.id, db))
    if isinstance(listener, Trace):  # names come from the definitions, known only now
        listener.instance = instance
    with recorded(recorder, engine, instance.id):
        outcome = instance.run(listener, *settings.waits)
        finish_tree(engine, outcome, db, listener, settings.options)


def finish_tree(
    engine: Engine, outcome: Outcome, db: str, listener: Callable[[Event], None], options: str
) -> None:
    """The root's outcome, then (for people) what the instances it called wait for."""
    root = engine.instance(outcome.instance)
    stuck = outcome.state == "waiting" and root.is_stuck()
    if isinstance(listener, Trace):
        outcome_summary(console, outcome, db, options, root.incident_origin, stuck)
        family_summary(console, engine, outcome.instance, db, options)
        raise SystemExit(int(ExitCode.for_outcome(outcome.state, outcome.incident)))
    finish(outcome, db, listener, options, stuck=stuck)


def run_pools(
    engine: Engine,
    collaboration: Collaboration,
    listener: Callable[[Event], None],
    db: str,
    settings: RunSettings,
) -> None:
    """Run every pool (message flows between them go through the outbox), then report each
    instance, the pools started and those not started; the exit code is the most serious."""
    RUNNING.extend((i, db) for i in collaboration.pools)
    outcomes = collaboration.run(listener, *settings.waits)
    RUNNING.extend((i, db) for i in collaboration.instance_ids[len(collaboration.pools) :])
    pools = [engine.instance(i).process_id for i in collaboration.pools]
    not_started = collaboration.not_started()
    if isinstance(listener, JsonLines):
        for outcome in outcomes:
            click.echo(json_line(outcome.to_json()))
        for process, why in not_started:
            line = {"event": "process.not_started", "process": process, "reason": why}
            click.echo(json_line(line))
    else:
        for outcome in outcomes:
            origin = engine.instance(outcome.instance).incident_origin
            outcome_summary(console, outcome, db, settings.options, origin)
            family_summary(console, engine, outcome.instance, db, settings.options)
        ran = ", ".join(safe(p) for p in pools)
        started = f"{len(pools)} process" + ("es" if len(pools) > 1 else "")
        console.print(f"started {started}: {ran}", highlight=False)
        later = outcomes[len(pools) :]
        if later:
            by = ", ".join(safe(engine.instance(o.instance).process_id) for o in later)
            console.print(f"started by a message or signal: {by}", highlight=False)
        for process, why in not_started:
            console.print(f"not started: [bold]{safe(process)}[/]: {safe(why)}", highlight=False)
    raise SystemExit(int(ExitCode.for_state(collaboration.state())))


@click.command()
@click.argument("instance_id", metavar="INSTANCE")
@click.argument("task")
@var_options
@db_option
@run_options
@record_option
@json_option
def complete(
    instance_id: str,
    task: str,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    db: str,
    settings: RunSettings,
    record: str | None,
    as_json: bool,
) -> None:
    """Complete a waiting user task (its element id or name) and run on.

    The task may wait in any instance INSTANCE called (call activities): the whole tree
    runs on.

    Example: bpmn complete 3f9a2c Task_ApproveOrder --var approved=true
    """
    variables = parse_variables(var_pairs, vars_file)

    def prepare(engine: Engine, instance: Instance) -> Act:
        holder = engine.tree(instance).task_holder(task)  # an error before anything is recorded

        def act(listener: Listener) -> Instance:
            holder.complete_task(task, variables, listener)
            if holder is instance:
                return instance
            holder.run(listener, *settings.waits)  # a called instance's task: it runs on first
            return engine.instance(instance.id)

        return act

    act_then_run(instance_id, db, settings, as_json, record, ("complete", task, variables), prepare)


@click.command()
@click.argument("instance_id", metavar="INSTANCE")
@var_options
@db_option
@run_options
@record_option
@json_option
def resume(
    instance_id: str,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    db: str,
    settings: RunSettings,
    record: str | None,
    as_json: bool,
) -> None:
    """Go on with an instance: after a crash, a fix, or a wait. Failed tracks are retried.

    --var/--vars set process variables in the same step as the retry (the fix for a
    missing or wrong value). Example: bpmn resume 3f9a2c --var income=4200
    """
    retry_then_run(instance_id, db, settings, as_json, record, var_pairs, vars_file)


def retry_then_run(
    instance_id: str,
    db: str,
    settings: RunSettings,
    as_json: bool,
    record: str | None,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
) -> None:
    """`bpmn resume` and `bpmn retry`: its failed tokens run again, the variables set in the
    same step, then on."""
    variables = parse_variables(var_pairs, vars_file)

    def prepare(engine: Engine, instance: Instance) -> Act:
        def act(listener: Listener) -> Instance:
            instance.retry(listener, variables)
            return instance

        return act

    act_then_run(instance_id, db, settings, as_json, record, ("resume", True, variables), prepare)


@click.command()
@click.argument("target", metavar="INCIDENT|INSTANCE")
@var_options
@db_option
@run_options
@record_option
@json_option
def retry(
    target: str,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    db: str,
    settings: RunSettings,
    record: str | None,
    as_json: bool,
) -> None:
    """Run a token stopped on an incident again, and run on (Camunda's "set retries").

    INCIDENT is an id from `bpmn incidents`; an INSTANCE retries all of its incidents.
    --var/--vars set process variables in the same step (the fix); its tries are counted
    afresh (--retries N: for a job with no retry policy of its own). Example: bpmn retry
    3f9a2c#7 --var income=4200
    """
    instance_id = settings.engine(db, as_json).incident_instance(target)
    retry_then_run(instance_id, db, settings, as_json, record, var_pairs, vars_file)


def act_then_run(
    instance_id: str,
    db: str,
    settings: RunSettings,
    as_json: bool,
    record: str | None,
    step: tuple[str, Any, dict[str, Any]],
    prepare: Callable[[Engine, Instance], Act],
) -> None:
    """The commands that do one thing to an instance (complete a task, trigger a wait,
    activate an activity, retry what failed), then run on and report its tree: `prepare`
    checks what the command names, before anything is recorded, and returns the doing of it,
    which gives the instance to run on. `step` is what `--record` adds to the scenario."""
    engine = settings.engine(db, as_json)
    instance = engine.instance(instance_id)
    RUNNING.append((instance.id, db))
    root = engine.root_of(instance).id  # what a recording records
    recorder = recording.go_on(record, engine, root)
    listener = event_listener(as_json, instance, engine)
    act = prepare(engine, instance)
    if recorder is not None:
        recorder.step(*step)
    with recorded(recorder, engine, root):
        outcome = act(listener).run(listener, *settings.waits)
        finish_tree(engine, outcome, db, listener, settings.options)


@click.command()
@click.argument("instance_id", metavar="INSTANCE")
@click.option(
    "--handlers",
    type=click.Path(dir_okay=False),
    help="Python file whose functions handle the listeners that run as it ends (Camunda 7 "
    "end listeners with a class or delegate expression).",
)
@click.option("--trust-scripts", is_flag=True, help="Run listener scripts as full Python.")
@db_option
@json_option
def cancel(
    instance_id: str, handlers: str | None, trust_scripts: bool, db: str, as_json: bool
) -> None:
    """Terminate an instance: every token is removed, every user task cancelled.

    Its end listeners run as it ends (those a handler serves with --handlers)."""
    existing_db(db)
    engine = open_engine(db, handlers, trust_scripts, None, as_json)
    instance = engine.instance(instance_id)
    listener = event_listener(as_json, instance, engine)
    finish(instance.cancel(listener), db, listener)
