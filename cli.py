"""The `bpmn` command: a thin click layer over `bpmn_engine`.

Every command opens an `Engine`, calls one API method and renders the result. Errors are
mapped to exit codes in one place (`main`), so no user ever sees a traceback.
"""

from __future__ import annotations

import functools
import io
import json
import shlex
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import click
from rich.prompt import Confirm, Prompt

from bpmn_engine import BpmnEngineError, Engine, Instance, Outcome
from bpmn_engine.errors import LoadError, UsageError
from bpmn_engine.exit_codes import ExitCode
from bpmn_engine.records.rows import Event, UserTask
from bpmn_engine.render import Trace, json_line, outcome_summary, show, show_json
from bpmn_engine.runtime.clock import RealClock, VirtualClock
from bpmn_engine.runtime.events.timers import TimerValueError, parse_duration
from bpmn_engine.stepper import MAX_NESTING, nesting, parse_value
from bpmn_engine.store.sqlite import SqliteStore
from bpmn_engine.terminal import new_console, safe, visible
from bpmn_engine.userfiles import read_user_file

DEFAULT_DB = "bpmn-engine.db"
OUTCOME_EVENTS = {"instance.completed", "instance.failed", "instance.terminated"}

console = new_console()
errors = new_console(stderr=True)


def db_option(f: Callable) -> Callable:
    return click.option(
        "--db",
        default=DEFAULT_DB,
        envvar="BPMN_DB",
        show_default=True,
        help="SQLite file holding instances (':memory:' for a throwaway run).",
    )(f)


def json_option(f: Callable) -> Callable:
    return click.option("--json", "as_json", is_flag=True, help="JSON lines on stdout.")(f)


@dataclass(frozen=True)
class RunSettings:
    """The options every command that runs instances shares (`run_options`)."""

    answers: str | None
    handlers: str | None
    trust_scripts: bool
    clock: str
    wait_timers: str
    checkpoint: str

    def engine(self, db: str, as_json: bool) -> Engine:
        return open_engine(
            db,
            self.handlers,
            self.trust_scripts,
            self.answers,
            as_json,
            self.clock,
            self.checkpoint,
        )

    @property
    def wait(self) -> float:
        return seconds(self.wait_timers)

    @property
    def options(self) -> str:
        """These settings as options, for the commands a summary suggests to go on."""
        parts = [f"--handlers {shlex.quote(self.handlers)}"] if self.handlers else []
        parts += [f"--answers {shlex.quote(self.answers)}"] if self.answers else []
        parts += ["--trust-scripts"] if self.trust_scripts else []
        parts += ["--clock virtual"] if self.clock == "virtual" else []
        parts += ["--checkpoint wait"] if self.checkpoint == "wait" else []
        return "".join(f" {part}" for part in parts)


def run_options(command: Callable) -> Callable:
    """--answers, --handlers, --trust-scripts, --clock, --wait-timers, --checkpoint, passed
    as `settings`."""

    @functools.wraps(command)
    def collapsed(
        *args: Any,
        answers: str | None,
        handlers: str | None,
        trust_scripts: bool,
        clock: str,
        wait_timers: str,
        checkpoint: str,
        **kwargs: Any,
    ) -> Any:
        settings = RunSettings(answers, handlers, trust_scripts, clock, wait_timers, checkpoint)
        return command(*args, settings=settings, **kwargs)

    f: Callable = collapsed
    f = checkpoint_option(f)
    f = click.option(
        "--wait-timers",
        default="PT0S",
        metavar="DURATION",
        help="With the real clock, wait for timers due within this ISO 8601 duration (PT5M).",
    )(f)
    f = click.option(
        "--clock",
        type=click.Choice(["real", "virtual"]),
        default="real",
        show_default=True,
        help="virtual: time jumps to the next timer whenever nothing else can happen.",
    )(f)
    f = click.option(
        "--answers",
        type=click.Path(dir_okay=False),
        help="JSON file: user task id or name -> variables (a list: one per visit).",
    )(f)
    f = click.option(
        "--handlers",
        type=click.Path(dir_okay=False),
        help="Python file whose functions handle service tasks (by type or element id).",
    )(f)
    f = click.option(
        "--trust-scripts", is_flag=True, help="Run script tasks as full Python (not sandboxed)."
    )(f)
    return f


def checkpoint_option(f: Callable) -> Callable:
    return click.option(
        "--checkpoint",
        type=click.Choice(["step", "wait"]),
        default="step",
        show_default=True,
        help="When steps are committed: step = each one; wait = together when the run "
        "waits (faster; a crash loses the steps since the last wait, and resume redoes them).",
    )(f)


def var_options(f: Callable) -> Callable:
    f = click.option(
        "--vars", "vars_file", type=click.Path(dir_okay=False), help="JSON file of variables."
    )(f)
    f = click.option(
        "--var",
        "var_pairs",
        multiple=True,
        metavar="NAME=VALUE",
        help="A variable; VALUE is JSON when it parses as JSON (n=3, ok=true), else a string.",
    )(f)
    return f


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bpmn-engine")
def cli() -> None:
    """Run BPMN 2.0 diagrams locally, checkpointing every step in SQLite.

    Exit codes: 0 completed (or terminated), 1 failed, 2 bad input, 3 waiting.
    """


@cli.command()
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


@cli.command()
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


@cli.command()
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


@cli.command()
@click.argument("name")
@click.option(
    "--key", help="Correlation key: only a subscription with this key (or none) takes it."
)
@click.option("--id", "message_id", help="Message id: a message published twice is used once.")
@click.option(
    "--ttl", default="PT0S", metavar="DURATION", help="Buffer it this long (PT1H) if no one waits."
)
@var_options
@db_option
@run_options
@json_option
def message(
    name: str,
    key: str | None,
    message_id: str | None,
    ttl: str,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    db: str,
    settings: RunSettings,
    as_json: bool,
) -> None:
    """Publish a message and run the instance it wakes until it completes, fails or waits.

    Example: bpmn message payment-received --key A-1 --var amount=12 --ttl PT1H
    """
    variables = parse_variables(var_pairs, vars_file)
    engine = settings.engine(db, as_json)
    listener = event_listener(as_json, None, engine)
    woken = engine.publish_message(
        name, key, variables, message_id=message_id, ttl=seconds(ttl, "--ttl"), on_event=listener
    )
    if not woken:
        say(
            as_json,
            {
                "event": "message.unclaimed",
                "name": name,
                "key": key,
                "buffered": seconds(ttl, "--ttl") > 0,
            },
        )
        raise SystemExit(int(ExitCode.OK))
    finish_many(woken, db, listener, settings)


@cli.command()
@click.argument("name")
@var_options
@db_option
@run_options
@json_option
def signal(
    name: str,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    db: str,
    settings: RunSettings,
    as_json: bool,
) -> None:
    """Broadcast a signal to every waiting catcher and run the instances it wakes."""
    variables = parse_variables(var_pairs, vars_file)
    engine = settings.engine(db, as_json)
    listener = event_listener(as_json, None, engine)
    woken = engine.broadcast_signal(name, variables, on_event=listener)
    if not woken:
        say(as_json, {"event": "signal.unclaimed", "name": name})
        raise SystemExit(int(ExitCode.OK))
    finish_many(woken, db, listener, settings)


def say(as_json: bool, payload: dict[str, Any]) -> None:
    if as_json:
        click.echo(json_line(payload))
    else:
        console.print(
            f"no instance waits for {payload['event'].split('.')[0]} {safe(repr(payload['name']))}"
            + (" (buffered)" if payload.get("buffered") else "")
        )


def finish_many(
    instances: list[Instance], db: str, listener: Callable[[Event], None], settings: RunSettings
) -> None:
    """Run every woken instance on; the exit code is the most serious outcome."""
    codes = []
    for instance in instances:
        if isinstance(listener, Trace):
            listener.instance = instance
        outcome = instance.run(listener, settings.wait)
        if isinstance(listener, JsonLines):
            if not listener.ended:
                click.echo(json_line(outcome.to_json()))
            listener.ended = False
        else:
            outcome_summary(console, outcome, db, settings.options)
        codes.append(ExitCode.for_state(outcome.state))
    worst = max(codes, key=lambda c: {ExitCode.FAILED: 3, ExitCode.WAITING: 2}.get(c, 1))
    raise SystemExit(int(worst))


@cli.command()
@click.argument("file", required=False)
@click.option("--process", "process_id", help="Id of the process to run (default: the first).")
@click.option("--instance", "instance_id", help="Step an existing instance instead.")
@var_options
@db_option
@click.option("--handlers", type=click.Path(dir_okay=False), help="Service task handlers (.py).")
@click.option("--trust-scripts", is_flag=True, help="Run script tasks as full Python.")
@click.option(
    "--clock",
    type=click.Choice(["real", "virtual"]),
    default="virtual",
    show_default=True,
    help="virtual: `advance DURATION` moves time; timers fire when nothing else can happen.",
)
@json_option
def step(
    file: str | None,
    process_id: str | None,
    instance_id: str | None,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    db: str,
    handlers: str | None,
    trust_scripts: bool,
    clock: str,
    as_json: bool,
) -> None:
    """Walk through the token flow one step at a time (type help at the prompt).

    Commands are read from the terminal, or line by line from a pipe:
    echo -e "next\ncontinue" | bpmn step models/loan-approval.bpmn --var amount=5000
    """
    from bpmn_engine.render import step_json, step_report
    from bpmn_engine.stepper import Report, Stepper

    if (file is None) == (instance_id is None):
        raise click.UsageError("give a FILE to start, or --instance ID to go on with")
    engine = Engine(
        open_store(db),
        handlers=handlers,
        trust_scripts=trust_scripts,
        clock=VirtualClock() if clock == "virtual" else RealClock(),
        undo=True,  # `back` rewinds from the store's undo log, also in a later session
    )
    if instance_id is not None:
        instance = engine.instance(instance_id)
    else:
        instance = engine.start(file, process_id, parse_variables(var_pairs, vars_file))
    stepper = Stepper(engine, instance)
    interactive = sys.stdin.isatty() and not as_json

    def render(report: Report) -> None:
        if as_json:
            click.echo(json_line(step_json(stepper, report)))
        else:
            step_report(console, stepper, report)

    render(Report("start", message=f"instance {instance.id} of {instance.process_id}"))
    if interactive:
        enable_completion(stepper)
    last = ""
    while not stepper.done:
        try:
            line = input("step> ") if interactive else sys.stdin.readline()
        except EOFError:
            break
        except KeyboardInterrupt:  # like a shell: Ctrl-C drops the line, not the session
            console.print("^C")
            continue
        if not interactive and not line:
            break
        if interactive and not line.strip():  # like pdb: Enter repeats the last command
            line = last
        last = line if line.strip() else last
        try:
            render(stepper.execute(line))
        except KeyboardInterrupt:  # a long `continue`: what is committed stays
            stepper.reload()
            console.print("[red]✗ interrupted[/]: every committed step is kept")
    raise SystemExit(int(ExitCode.for_state(stepper.instance.outcome().state)))


def enable_completion(stepper: object) -> None:
    """Tab completes commands and element ids at the `step>` prompt."""
    try:
        import readline
    except ImportError:  # not every Python has it; stepping works without
        return

    def complete(text: str, state: int) -> str | None:
        words = [*stepper.command_names, *stepper.element_ids()]  # type: ignore[attr-defined]
        matches = [w for w in words if w.startswith(text)]
        return matches[state] if state < len(matches) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" ")
    readline.parse_and_bind("tab: complete")


@cli.command()
@click.argument("instance_id", metavar="INSTANCE")
@db_option
@json_option
def cancel(instance_id: str, db: str, as_json: bool) -> None:
    """Terminate an instance: every token is removed, every user task cancelled."""
    engine = open_engine(db, None, False, None, as_json)
    instance = engine.instance(instance_id)
    listener = event_listener(as_json, instance, engine)
    finish(instance.cancel(listener), db, listener)


@cli.command(name="show")
@click.argument("instance_id", metavar="INSTANCE")
@db_option
@json_option
def show_command(instance_id: str, db: str, as_json: bool) -> None:
    """Show an instance: state, tokens, variables and history."""
    engine = open_engine(db, None, False, None, as_json, read_only=True)
    instance = engine.instance(instance_id)
    if as_json:
        click.echo(json_line(show_json(instance)))
    else:
        show(console, instance)


@cli.command()
@db_option
@json_option
def instances(db: str, as_json: bool) -> None:
    """List the instances in the database."""
    engine = open_engine(db, None, False, None, as_json, read_only=True)
    rows = engine.instances()
    if as_json:
        for row in rows:
            click.echo(json_line(row))
        return
    from rich.table import Table

    table = Table("instance", "process", "state", "waiting tasks", "updated", box=None)
    for row in rows:
        table.add_row(
            *(safe(row[k]) for k in ("id", "process", "state", "waiting_tasks", "updated_at"))
        )
    console.print(table)


@cli.command()
@click.argument("file")
@click.option("--trust-scripts", is_flag=True, help="Scripts will run as full Python.")
@db_option
@json_option
def deploy(file: str, trust_scripts: bool, db: str, as_json: bool) -> None:
    """Deploy a BPMN file: `bpmn worker` fires its timer start events, and `bpmn message`
    starts it at a message start event. A new version replaces the active one.

    Example: bpmn deploy models/subscription-renewal.bpmn && bpmn worker
    """
    engine = Engine(open_store(db), trust_scripts=trust_scripts)
    for deployment in engine.deploy_processes(file):
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


@cli.command()
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
@click.option(
    "--poll",
    type=click.FloatRange(min=0),
    default=1.0,
    show_default=True,
    metavar="SECONDS",
    help="Pause between looks at the database when there is nothing to do.",
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
    help="Stop renewing the lease of a handler call that runs longer: another worker may "
    "then run the job again (default: renew while this worker lives).",
)
@checkpoint_option
@json_option
def worker(
    db: str,
    clock: str,
    handlers: str | None,
    trust_scripts: bool,
    poll: float,
    lease: float,
    once: bool,
    horizon: str | None,
    job_timeout: float | None,
    checkpoint: str,
    as_json: bool,
) -> None:
    """Run every instance in the database that has something to do, and start instances
    from due timer start events, until Ctrl-C or SIGTERM (the step in progress finishes).

    Example: bpmn worker --handlers models/subscription_renewal_handlers.py
    """
    from datetime import timedelta

    from bpmn_engine.runtime.worker import Worker, stop_on_signals

    span = timedelta(seconds=seconds(horizon, "--horizon")) if horizon else None
    if span is not None and clock != "virtual":
        raise click.BadParameter("needs --clock virtual", param_hint="--horizon")
    engine = Engine(
        open_store(db),
        handlers=handlers,
        trust_scripts=trust_scripts,
        clock=VirtualClock() if clock == "virtual" else RealClock(),
        checkpoint=checkpoint,
        job_timeout=job_timeout,
    )

    def notice(event: Event) -> None:
        if event.event != "instance.started" and event.event not in OUTCOME_EVENTS:
            return
        if as_json:
            click.echo(json_line(event.to_json()))
            return
        state = event.event.split(".")[1]
        where = event.data.get("start_event") or event.data.get("end_event") or event.element
        extra = f": {safe(str(event.data['incident']))}" if "incident" in event.data else ""
        console.print(f"{state} instance [bold]{event.instance}[/] at {safe(str(where))}{extra}")

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
        console.print(f"worker {safe(engine.store.worker)} on {safe(db)} ({clock} clock), {mode}")
    with stop_on_signals(runner):
        report = runner.run()
    summary = report.to_json()
    if as_json:
        click.echo(json_line(summary))
        return
    console.print(
        f"worker stopped: {summary['steps']} steps in {summary['instances']} instances "
        f"({summary['started']} started by timers, {summary['conflicts']} conflicts, "
        f"{summary['leases_released']} expired leases released, {summary['errors']} errors)"
    )


# --- helpers -------------------------------------------------------------------------------


def parse_variables(pairs: tuple[str, ...], vars_file: str | None) -> dict[str, Any]:
    variables: dict[str, Any] = {}
    if vars_file:
        loaded = read_json(vars_file, "--vars")
        if nesting(loaded) > MAX_NESTING:
            raise click.BadParameter(
                f"nested deeper than {MAX_NESTING} levels", param_hint="--vars"
            )
        if not isinstance(loaded, dict):
            raise click.BadParameter("must hold a JSON object", param_hint="--vars")
        variables.update(loaded)
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{pair!r} is not NAME=VALUE", param_hint="--var")
        try:
            variables[name.strip()] = parse_value(text)
        except UsageError as error:
            raise click.BadParameter(f"{name.strip()!r}: {error}", param_hint="--var") from None
    return variables


def read_json(path: str, option: str) -> Any:
    """A JSON file the user names: a regular file under the size cap (see `userfiles`)."""
    try:
        return json.loads(read_user_file(path).decode("utf-8"))
    except LoadError as error:
        raise click.BadParameter(str(error), param_hint=option) from None
    except ValueError as error:  # bad JSON or bad UTF-8
        raise click.BadParameter(f"{path}: {error}", param_hint=option) from None
    except RecursionError:
        raise click.BadParameter(f"{path}: nested too deep", param_hint=option) from None


def open_engine(
    db: str,
    handlers: str | None,
    trust_scripts: bool,
    answers: str | None,
    as_json: bool,
    clock: str = "real",
    checkpoint: str = "step",
    read_only: bool = False,
) -> Engine:
    answer_book = AnswerBook(read_json(answers, "--answers") if answers else {}, as_json)
    return Engine(
        open_store(db, read_only),
        handlers=handlers,
        trust_scripts=trust_scripts,
        on_user_task=answer_book,
        clock=VirtualClock() if clock == "virtual" else RealClock(),
        checkpoint=checkpoint,
    )


OPENED: list[str] = []  # the databases this command opened, for an error that names one
RUNNING: list[tuple[str, str]] = []  # (instance, database) a command runs, for Ctrl-C's hint


def interrupted() -> str:
    """What Ctrl-C says: nothing committed is lost, and how to go on."""
    if not RUNNING:
        return "interrupted: every committed step is kept; go on with `bpmn resume INSTANCE`"
    instance, db = RUNNING[-1]
    where = "" if db == DEFAULT_DB else f" --db {shlex.quote(db)}"
    return f"interrupted: every committed step is kept; go on with: bpmn resume {instance}{where}"


def open_store(db: str, read_only: bool = False) -> SqliteStore:
    """The store of `--db`; commands that only look open it read-only."""
    OPENED.append(db)
    return SqliteStore(db, read_only=read_only)


def seconds(duration: str, option: str = "--wait-timers") -> float:
    try:
        span = parse_duration(duration)
        datetime.now(UTC) + span  # a wait that ends after the year 9999 cannot be scheduled
    except TimerValueError as error:
        raise click.BadParameter(str(error), param_hint=option) from None
    except OverflowError:
        too_far = f"{duration!r} ends after the year 9999"
        raise click.BadParameter(too_far, param_hint=option) from None
    return span.total_seconds()


class AnswerBook:
    """Answers user tasks from the answers file, else asks a person at a terminal."""

    def __init__(self, answers: Any, as_json: bool) -> None:
        if not isinstance(answers, dict):
            raise click.BadParameter("must hold a JSON object", param_hint="--answers")
        self.answers = answers
        self.interactive = sys.stdin.isatty() and sys.stdout.isatty() and not as_json

    def __call__(self, instance: Instance, task: UserTask) -> dict[str, Any] | None:
        for key in (task.element, task.name):
            if key in self.answers:
                answer = self.answers[key]
                if isinstance(answer, list):
                    if not answer:
                        continue
                    answer = answer.pop(0)
                if not isinstance(answer, dict):
                    raise UsageError(f"--answers: the answer for {key!r} must be a JSON object")
                return answer
        if self.interactive:
            return ask(instance, task)
        return None


def ask(instance: Instance, task: UserTask) -> dict[str, Any] | None:
    """Ask a person at the terminal to complete a user task."""
    node = instance.definitions.node_scopes[task.element].nodes[task.element]
    console.print(
        f"[bold cyan]user task[/] {safe(task.name or task.element)} [dim]({safe(task.element)})[/]"
    )
    if not Confirm.ask("complete it now?", default=True, console=console):
        return None
    fields = getattr(node, "form_fields", ())
    values: dict[str, Any] = {}
    for field in fields:
        label = safe(field.label or field.id)
        if field.type == "boolean":
            values[field.id] = Confirm.ask(label, console=console)
        else:
            text = Prompt.ask(label, default=field.default, console=console)
            values[field.id] = parse_variables((f"{field.id}={text}",), None)[field.id]
    if not fields:
        console.print("[dim]variables as NAME=VALUE, one per line; an empty line finishes[/]")
        while line := Prompt.ask("", default="", show_default=False, console=console).strip():
            try:
                values.update(parse_variables((line,), None))
            except click.BadParameter as error:
                console.print(f"[red]{safe(error.message)}[/]")
    return values


class JsonLines:
    """Prints each event as a JSON line and remembers whether an outcome line went out."""

    def __init__(self) -> None:
        self.ended = False

    def __call__(self, event: Event) -> None:
        click.echo(json_line(event.to_json()))
        self.ended = event.event in OUTCOME_EVENTS


def event_listener(
    as_json: bool, instance: Instance | None, engine: Engine | None = None
) -> Callable[[Event], None]:
    if as_json:
        return JsonLines()
    return Trace(console, instance, engine)


def finish(outcome: Outcome, db: str, listener: Callable[[Event], None], options: str = "") -> None:
    """Print the outcome (as the last JSON line, or a summary) and exit with its code."""
    if isinstance(listener, JsonLines):
        if not listener.ended:
            click.echo(json_line(outcome.to_json()))
    else:
        outcome_summary(console, outcome, db, options)
    raise SystemExit(int(ExitCode.for_state(outcome.state)))


from bpmn_engine.validate.command import validate as validate_command  # noqa: E402

cli.add_command(validate_command)


def main() -> None:
    """Entry point: run the click group and turn every error into a message and an exit code."""
    try:
        code = cli.main(standalone_mode=False)
    except click.exceptions.Abort:  # click's name for Ctrl-C (or end of input) at a prompt
        errors.print(safe(interrupted()))
        raise SystemExit(130) from None
    except click.ClickException as error:
        shown = io.StringIO()
        error.show(file=shown)  # the message may quote an argument: show its control bytes
        sys.stderr.write(visible(shown.getvalue()))
        raise SystemExit(ExitCode.BAD_INPUT) from None
    except BpmnEngineError as error:
        errors.print(f"[red]error:[/] {safe(str(error))}")
        raise SystemExit(ExitCode.BAD_INPUT) from None
    except sqlite3.DatabaseError as error:  # damaged past the header, locked, read-only...
        where = OPENED[-1] if OPENED else "the database"
        errors.print(f"[red]error:[/] {safe(where)}: the database cannot be used: {safe(error)}")
        raise SystemExit(ExitCode.BAD_INPUT) from None
    except KeyboardInterrupt:
        errors.print(safe(interrupted()))
        raise SystemExit(130) from None
    except Exception as error:  # a bug: say so plainly, never a traceback
        errors.print(
            f"[red]internal error:[/] {safe(type(error).__name__)}: {safe(str(error))}\n"
            "please report it with the command you ran; committed steps are safe"
        )
        raise SystemExit(ExitCode.FAILED) from None
    raise SystemExit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
