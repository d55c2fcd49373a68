"""`bpmn deploy` and `bpmn worker`: processes that start by themselves, and the long-running
process that runs every instance of a database."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

import click

import bpmn_engine
from bpmn_engine import Event, Worker, load, stop_on_signals
from bpmn_engine.cli.common import (
    OUTCOME_EVENTS,
    checkpoint_option,
    console,
    db_option,
    errors,
    is_dmn,
    json_option,
    new_engine,
    path_option,
    retry_options,
    seconds,
    simulate_option,
)
from bpmn_engine.cli.render import json_line
from bpmn_engine.dsn import redact
from bpmn_engine.terminal import print_line, safe, visible

if TYPE_CHECKING:
    from bpmn_engine import Decisions


@click.command()
@click.argument("files", nargs=-1, required=True, metavar="FILE [FILE...]")
@click.option("--trust-scripts", is_flag=True, help="Scripts will run as full Python.")
@db_option
@json_option
def deploy(files: tuple[str, ...], trust_scripts: bool, db: str, as_json: bool) -> None:
    """Deploy BPMN files: `bpmn worker` fires their timer start events, and `bpmn message`
    starts them at a message start event. A new version replaces the active one. Call
    activities of later runs find the deployed processes by id. DMN files (*.dmn): business
    rule tasks of later runs find their decisions there (the newest deployment first).

    Example: bpmn deploy models/subscription-renewal.bpmn && bpmn worker
    """
    engine = new_engine(db, trust_scripts=trust_scripts)
    dmn_files = [f for f in files if is_dmn(f)]
    loaded = [load(file) for file in files if not is_dmn(file)]  # read before any is deployed
    # DMN (and FEEL behind it) is imported only when a .dmn file is given
    decisions = bpmn_engine.load_decisions(*dmn_files) if dmn_files else None
    if decisions is not None:  # first: the processes deployed next may decide with them
        changed = engine.deploy_decisions(decisions)
        show_decisions(decisions, changed, as_json)
    deployments = [d for definitions in loaded for d in engine.deploy_processes(definitions)]
    for deployment in deployments:
        payload = deployment.to_json()
        if as_json:
            click.echo(json_line(payload))
            continue
        verb = "deployed" if deployment.changed else "unchanged:"
        replaced = f", replacing deployment {deployment.previous}" if payload["replaces"] else ""
        console.print(
            f"{verb} [bold]{safe(deployment.process)}[/] "
            f"(version {deployment.version[:12]}, deployment {deployment.id}{replaced})"
        )
        for timer in payload["start_timers"]:
            left = "forever" if timer["repeat"] < 0 else f"{timer['repeat']} more times"
            every = ""
            if timer["repeat"] and timer["interval"] is None:  # cron, or calendar months
                every = f", then at each time its cycle (cron or calendar) names, {left}"
            elif timer["repeat"]:
                every = f", then every {timer['interval']:g} s {left}"
            console.print(f"  timer start {safe(timer['element'])}: due {timer['due']}{every}")
        for start in payload["message_starts"]:
            console.print(
                f"  message start {safe(start['element'])}: message {safe(repr(start['name']))}"
            )
        for element in payload["not_started_by_triggers"]:
            console.print(f"  [yellow]not started by anything yet:[/] {safe(element)}")


def show_decisions(decisions: Decisions, changed: bool, as_json: bool) -> None:
    names = decisions.names()
    if as_json:
        payload = {
            "event": "decisions.deployed",
            "version": decisions.version,
            "files": decisions.paths,
            "decisions": names,
            "changed": changed,
        }
        click.echo(json_line(payload))
        return
    verb = "deployed" if changed else "unchanged:"
    console.print(
        f"{verb} decisions {', '.join(safe(repr(n)) for n in names)} "
        f"(version {decisions.version[:12]}, from {', '.join(safe(p) for p in decisions.paths)})",
        highlight=False,
    )


@click.command()
@db_option
@click.option(
    "--clock",
    type=click.Choice(["real", "virtual"]),
    default="real",
    show_default=True,
    help="virtual: when nothing can run, time jumps to the next timer of any instance.",
)
@click.option(
    "--handlers",
    type=click.Path(dir_okay=False),
    help="Python file whose functions handle service tasks (by type or element id).",
)
@click.option("--trust-scripts", is_flag=True, help="Run script tasks as full Python.")
@simulate_option
@click.option(
    "--poll",
    type=click.FloatRange(min=0),
    default=1.0,
    show_default=True,
    metavar="SECONDS",
    help="Pause between looks at the database when there is nothing to do (at most until "
    "the next timer; on PostgreSQL a commit that leaves work ends it at once).",
)
@click.option(
    "--lease",
    type=click.FloatRange(min=0.1),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="How long a running job's claim holds without a heartbeat (renewed every third).",
)
@click.option("--once", is_flag=True, help="Run until nothing can happen now, then exit.")
@click.option(
    "--horizon",
    metavar="DURATION",
    help="With --clock virtual: simulate at most this much time (endless cycles need it).",
)
@click.option(
    "--job-timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Absolute cap on a handler call: this worker stops renewing a longer call's lease, "
    "and gives up any job called longer ago, whoever holds it, as an incident (default: none).",
)
@checkpoint_option
@path_option
@retry_options
@json_option
def worker(
    db: str,
    clock: str,
    handlers: str | None,
    trust_scripts: bool,
    simulate: bool,
    poll: float,
    lease: float,
    once: bool,
    horizon: str | None,
    job_timeout: float | None,
    checkpoint: str,
    search_path: tuple[str, ...],
    retries: int | None,
    backoff: str | None,
    as_json: bool,
) -> None:
    """Run every instance in the database that has something to do, and start instances
    from due timer start events, until Ctrl-C or SIGTERM (the step in progress finishes).

    Example: bpmn worker --handlers models/subscription_renewal_handlers.py
    """
    span = timedelta(seconds=seconds(horizon, "--horizon")) if horizon else None
    if span is not None and clock != "virtual":
        raise click.BadParameter("needs --clock virtual", param_hint="--horizon")
    engine = new_engine(
        db,
        clock=clock,
        handlers=handlers,
        trust_scripts=trust_scripts,
        checkpoint=checkpoint,
        job_timeout=job_timeout,
        simulate=simulate,
        search_path=search_path,
        **({"retries": retries} if retries is not None else {}),
        **({"backoff": seconds(backoff, "--backoff")} if backoff else {}),
    )

    def notice(event: Event) -> None:
        if event.event != "instance.started" and event.event not in OUTCOME_EVENTS:
            return
        if as_json:
            click.echo(json_line(event.to_json()))
            return
        state = event.event.split(".")[1]
        where = event.data.get("start_event") or event.data.get("end_event") or event.element
        extra = f": {event.data['incident']}" if "incident" in event.data else ""
        print_line(
            console,
            f"{state} instance [bold]{safe(event.instance)}[/] at {safe(f'{where}{extra}')}",
            f"{state} instance {visible(event.instance)} at {visible(f'{where}{extra}')}",
        )

    def complain(message: str) -> None:
        errors.print(f"[red]error:[/] {safe(message)}")

    runner = Worker(
        engine,
        poll=poll,
        lease=lease,
        once=once,
        horizon=span,
        on_event=notice,
        on_error=complain,
    )
    if not as_json:
        mode = "until idle" if once else "until Ctrl-C"
        console.print(
            f"worker {safe(engine.worker_id)} on {safe(redact(db))} ({clock} clock), {mode}"
        )
    with stop_on_signals(runner):
        report = runner.run()
    summary = report.to_json()
    if as_json:
        click.echo(json_line(summary))
        return
    console.print(
        f"worker stopped: {summary['steps']} steps in {summary['instances']} instances "
        f"({summary['started']} started by timers, {summary['conflicts']} conflicts, "
        f"{summary['ghosts']} job results refused, "
        f"{summary['leases_released']} expired leases released, {summary['errors']} errors)"
    )
