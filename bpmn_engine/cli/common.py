"""What the commands share: the consoles, the common options, reading values from the command
line, opening the engine, answering user tasks, and ending with an outcome and its exit code.

Everything here reaches the engine through the public API (`bpmn_engine`).
"""

from __future__ import annotations

import functools
import json
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

import bpmn_engine
from bpmn_engine import (
    ConcurrentModification,
    Definitions,
    Engine,
    Event,
    Instance,
    Outcome,
    RealClock,
    TimerValueError,
    UsageError,
    UserTask,
    VirtualClock,
    load,
    parse_duration,
)
from bpmn_engine.cli.render import DEFAULT_DB, Trace, db_flag, json_line, outcome_summary
from bpmn_engine.dsn import is_postgresql, redact
from bpmn_engine.errors import LoadError
from bpmn_engine.exit_codes import ExitCode
from bpmn_engine.terminal import new_console, safe
from bpmn_engine.userfiles import read_user_file

OUTCOME_EVENTS = {"instance.completed", "instance.failed", "instance.terminated"}
MAX_NESTING = 100  # levels of JSON arrays and objects in one value given on a command line

console = new_console()
errors = new_console(stderr=True)


# --- options -----------------------------------------------------------------------------------


def db_option(f: Callable) -> Callable:
    return click.option(
        "--db",
        default=DEFAULT_DB,
        envvar="BPMN_DB",
        show_default=True,
        help="SQLite file holding instances (':memory:' for a throwaway run), or a "
        "postgresql://user@host/database URL or libpq keyword string (one database for many "
        "workers).",
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
    simulate: bool = False
    search_path: tuple[str, ...] = ()  # --path: folders where called processes are found
    retries: int | None = None  # --retries: a failing handler's tries in all
    backoff: str | None = None  # --backoff: the wait before its first retry, doubling

    def engine(self, db: str, as_json: bool, *, existing: bool = True) -> Engine:
        """The engine on `db`; `existing`: the command acts on what a run left there."""
        if existing:
            existing_db(db)
        return open_engine(
            db,
            self.handlers,
            self.trust_scripts,
            self.answers,
            as_json,
            self.clock,
            self.checkpoint,
            simulate=self.simulate,
            search_path=self.search_path,
            retries=self.retries,
            backoff=seconds(self.backoff, "--backoff") if self.backoff else None,
        )

    @property
    def wait(self) -> float:
        return seconds(self.wait_timers)

    @property
    def waits(self) -> tuple[float, float]:
        """`Instance.run`'s waits: for timers (`--wait-timers`), and for a failed job's next
        try, which a command in the foreground waits for when due within a minute."""
        return self.wait, WAIT_RETRIES

    @property
    def options(self) -> str:
        """These settings as options, for the commands a summary suggests to go on."""
        parts = [f"--handlers {shlex.quote(self.handlers)}"] if self.handlers else []
        parts += [f"--answers {shlex.quote(self.answers)}"] if self.answers else []
        parts += ["--trust-scripts"] if self.trust_scripts else []
        parts += ["--clock virtual"] if self.clock == "virtual" else []
        parts += ["--checkpoint wait"] if self.checkpoint == "wait" else []
        parts += ["--simulate"] if self.simulate else []
        parts += [f"--path {shlex.quote(folder)}" for folder in self.search_path]
        parts += [f"--retries {self.retries}"] if self.retries else []
        parts += [f"--backoff {shlex.quote(self.backoff)}"] if self.backoff else []
        return "".join(f" {part}" for part in parts)


def run_options(command: Callable) -> Callable:
    """--answers, --handlers, --simulate, --trust-scripts, --clock, --wait-timers,
    --checkpoint, --path, passed as `settings`."""

    @functools.wraps(command)
    def collapsed(
        *args: Any,
        answers: str | None,
        handlers: str | None,
        trust_scripts: bool,
        clock: str,
        wait_timers: str,
        checkpoint: str,
        simulate: bool,
        search_path: tuple[str, ...],
        retries: int | None,
        backoff: str | None,
        **kwargs: Any,
    ) -> Any:
        settings = RunSettings(
            answers,
            handlers,
            trust_scripts,
            clock,
            wait_timers,
            checkpoint,
            simulate,
            search_path,
            retries,
            backoff,
        )
        return command(*args, settings=settings, **kwargs)

    f: Callable = collapsed
    f = retry_options(f)
    f = path_option(f)
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
    f = simulate_option(f)
    f = click.option(
        "--trust-scripts", is_flag=True, help="Run script tasks as full Python (not sandboxed)."
    )(f)
    return f


WAIT_RETRIES = 60.0
"""`bpmn run` (and the other commands that run in the foreground) wait for a failed job's
next try due within this many seconds: the default backoff's three tries take three. A
later one leaves the instance waiting for `bpmn resume` or `bpmn worker`."""


def retry_options(f: Callable) -> Callable:
    """--retries N and --backoff DURATION: how often a failing handler is tried by default."""
    f = click.option(
        "--backoff",
        metavar="DURATION",
        help="The wait before a failed handler's first retry (ISO 8601; default PT1S), "
        "doubling each time up to an hour, within 10 %; a task's own retry cycle goes first.",
    )(f)
    return click.option(
        "--retries",
        type=click.IntRange(min=1, max=1000),
        metavar="N",
        help="How often a handler that raises is tried in all (default 3), where its task "
        "says nothing (failedJobRetryTimeCycle, zeebe retries); then an incident.",
    )(f)


def simulate_option(f: Callable) -> Callable:
    return click.option(
        "--simulate",
        is_flag=True,
        help="A service task with no handler completes as a no-op (it waits for one otherwise).",
    )(f)


def checkpoint_option(f: Callable) -> Callable:
    return click.option(
        "--checkpoint",
        type=click.Choice(["step", "wait"]),
        default="step",
        show_default=True,
        help="When steps are committed: step = each one; wait = together when the run "
        "waits (faster; a crash loses the steps since the last wait, and resume redoes them).",
    )(f)


def path_option(f: Callable) -> Callable:
    """--path DIR (repeatable), passed as `search_path`."""
    return click.option(
        "--path",
        "search_path",
        multiple=True,
        type=click.Path(exists=True, file_okay=False),
        metavar="DIR",
        help="A folder whose BPMN files a call activity's process is looked for in, when no "
        "file given or deployed process is it and none beside the calling file (repeatable).",
    )(f)


def start_option(f: Callable) -> Callable:
    """`--start EVENT` (run, step): the start event that fires now."""
    return click.option(
        "--start",
        "start_event",
        metavar="EVENT",
        help="Fire this start event now (its id or name), whatever its trigger (message, "
        "signal, timer, condition, none); --var/--vars are its payload.",
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


# --- values from the command line --------------------------------------------------------------


def parse_value(text: str) -> Any:
    """JSON when `text` parses as JSON, else the text itself; a value nested deeper than
    MAX_NESTING is refused (Python's JSON reader and writer recurse, and would fail later)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise UsageError(f"the value is nested deeper than {MAX_NESTING} levels") from None
    except ValueError:
        return text
    if nesting(value) > MAX_NESTING:
        raise UsageError(f"the value is nested deeper than {MAX_NESTING} levels")
    return value


def nesting(value: Any) -> int:
    """How many arrays and objects deep `value` goes (counted without recursion)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_NESTING:
                return deepest
            stack.extend(
                (child, depth) for child in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


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


# --- files: BPMN and DMN -----------------------------------------------------------------------


def is_dmn(path: str) -> bool:
    """A DMN file is told from a BPMN file by its name: `*.dmn`."""
    return path.lower().endswith(".dmn")


def chosen_processes(
    loaded: list[Definitions], process_id: str | None
) -> tuple[Definitions, str | None, bool]:
    """(the file, the process or collaboration to start, whether several processes run
    together: a collaboration named, or a first file where more than one process starts by
    itself, or one does and another starts on a message or signal)."""
    if process_id is not None:
        holder = next(
            (d for d in loaded if process_id in d.processes or process_id in d.collaborations),
            loaded[0],
        )
        if process_id in holder.collaborations and process_id not in holder.processes:
            return holder, process_id, True
        return holder, holder.process(process_id).id, False
    main = loaded[0]
    started, waiting, _ = main.startable()
    on_demand = [p for p, _ in waiting if main.start_triggers(main.processes[p])]
    if len(started) > 1 or (started and on_demand):
        return main, None, True
    # one process (or none that starts by itself: the first waits at its start events, or
    # is refused saying why)
    return main, (started[0] if started else main.process(None)).id, False


def load_files(engine: Engine, files: tuple[str, ...]) -> list[Definitions]:
    """Every file read before anything is used: the BPMN files compiled, the DMN files given
    to the engine (business rule tasks find their decisions there first). The BPMN files, in
    order; at least one is needed."""
    bpmn_files = [f for f in files if not is_dmn(f)]
    dmn_files = [f for f in files if is_dmn(f)]
    if not bpmn_files:
        raise click.UsageError("give a BPMN file to run (the .dmn files only hold decisions)")
    loaded = [load(file) for file in bpmn_files]
    if dmn_files:
        # DMN (and FEEL behind it) is imported only when a .dmn file is given
        engine.add_decisions(bpmn_engine.load_decisions(*dmn_files))
    return loaded


# --- the engine --------------------------------------------------------------------------------

OPENED: list[str] = []  # the databases this command opened, for an error that names one
RUNNING: list[tuple[str, str]] = []  # (instance, database) a command runs, for Ctrl-C's hint


def existing_db(db: str) -> None:
    """A command that acts on instances a run left needs the database the run wrote: one
    that is not there holds none (a mistyped `--db` made an empty one, and said nothing)."""
    if is_postgresql(db):
        return
    if db == ":memory:":
        raise LoadError(
            "':memory:' keeps nothing between commands: give the --db the instance ran with",
            file=db,
        )
    if not Path(db).is_file():
        raise LoadError(
            f"no such database: give the --db the instance ran with (by default {DEFAULT_DB} "
            "in this folder)",
            file=db,
        )


def new_engine(db: str, *, read_only: bool = False, clock: str = "real", **options: Any) -> Engine:
    """The engine on `--db` (remembered for an error that names it); commands that only look
    open it read-only."""
    OPENED.append(redact(db))
    return Engine(
        db,
        read_only=read_only,
        clock=VirtualClock() if clock == "virtual" else RealClock(),
        **options,
    )


def open_engine(
    db: str,
    handlers: str | None,
    trust_scripts: bool,
    answers: str | None,
    as_json: bool,
    clock: str = "real",
    checkpoint: str = "step",
    read_only: bool = False,
    simulate: bool = False,
    search_path: tuple[str, ...] = (),
    retries: int | None = None,
    backoff: float | None = None,
) -> Engine:
    answer_book = AnswerBook(read_json(answers, "--answers") if answers else {}, as_json)
    return new_engine(
        db,
        read_only=read_only,
        clock=clock,
        handlers=handlers,
        trust_scripts=trust_scripts,
        on_user_task=answer_book,
        checkpoint=checkpoint,
        simulate=simulate,
        search_path=search_path,
        **({"retries": retries} if retries is not None else {}),
        **({"backoff": backoff} if backoff is not None else {}),
    )


def interrupted() -> str:
    """What Ctrl-C says: nothing committed is lost, and how to go on."""
    if not RUNNING:
        return "interrupted: every committed step is kept; go on with `bpmn resume INSTANCE`"
    instance, db = RUNNING[-1]
    where = db_flag(db)
    return f"interrupted: every committed step is kept; go on with: bpmn resume {instance}{where}"


# --- user tasks --------------------------------------------------------------------------------


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
    from rich.prompt import Confirm, Prompt  # only a run that asks pays for it

    node = instance.definitions.node(task.element)
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


# --- showing a run and ending it ---------------------------------------------------------------


class JsonLines:
    """Prints each event as a JSON line and remembers whether an outcome line went out."""

    def __init__(self) -> None:
        self.ended = False
        self.ended_instance: str | None = None  # whose outcome the last line was

    def __call__(self, event: Event) -> None:
        click.echo(json_line(event.to_json()))
        self.ended = event.event in OUTCOME_EVENTS
        self.ended_instance = event.instance if self.ended else None


def event_listener(
    as_json: bool, instance: Instance | None, engine: Engine | None = None
) -> Callable[[Event], None]:
    if as_json:
        return JsonLines()
    return Trace(console, instance, engine)


def finish(
    outcome: Outcome,
    db: str,
    listener: Callable[[Event], None],
    options: str = "",
    *,
    stuck: bool = False,
) -> None:
    """Print the outcome (as the last JSON line, or a summary) and exit with its code;
    `stuck`: the waiting instance can never go on (`Instance.is_stuck`), said in the line."""
    if isinstance(listener, JsonLines):
        if listener.ended_instance != outcome.instance:  # a called instance's end is not it
            line = outcome.to_json()
            if stuck:
                line["stuck"] = True
            click.echo(json_line(line))
    else:
        outcome_summary(console, outcome, db, options)
    raise SystemExit(int(ExitCode.for_outcome(outcome.state, outcome.incident)))


def finish_many(
    instances: list[Instance], db: str, listener: Callable[[Event], None], settings: RunSettings
) -> None:
    """Run every woken instance on; the exit code is the most serious outcome.

    The delivery that woke them is committed already: an instance another process (a
    worker) moves on meanwhile is that process's to run, not a failure of this command.
    """
    codes = []
    for instance in instances:
        if isinstance(listener, Trace):
            listener.instance = instance
        try:
            outcome = instance.run(listener, *settings.waits)
        except ConcurrentModification:
            elsewhere(isinstance(listener, JsonLines), instance.id)
            codes.append(ExitCode.OK)
            continue
        if isinstance(listener, JsonLines):
            if not listener.ended:
                click.echo(json_line(outcome.to_json()))
            listener.ended = False
        else:
            outcome_summary(console, outcome, db, settings.options)
        codes.append(ExitCode.for_outcome(outcome.state, outcome.incident))
    worst = max(codes, key=lambda c: {ExitCode.FAILED: 3, ExitCode.WAITING: 2}.get(c, 1))
    raise SystemExit(int(worst))


def elsewhere(as_json: bool, instance_id: str) -> None:
    """Say that another process (a worker) moved an instance this command woke: it is that
    process's to run on."""
    if as_json:
        click.echo(json_line({"event": "instance.running_elsewhere", "instance": instance_id}))
    else:
        console.print(f"instance [bold]{safe(instance_id)}[/]: another worker is running it")
