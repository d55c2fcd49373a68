"""The `bpmn` group: every command registered, and `main`, the one place where errors become
messages and exit codes (no user ever sees a traceback)."""

from __future__ import annotations

import gc
import importlib
import io
import signal
import sqlite3
import sys

import click

from bpmn_engine import BpmnEngineError, __version__
from bpmn_engine.exit_codes import ExitCode

# name -> (module, function, the summary `bpmn --help` shows). A command's module is imported
# when the command runs, so `bpmn --help` and `bpmn --version` start in a fraction of the time
# the runtime and its libraries take to import (tests/cli/test_startup.py keeps the summaries
# equal to the commands' own help, and every command in the table).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "run": ("bpmn_engine.cli.run", "run", "Run a process until it completes, fails or waits."),
    "complete": (
        "bpmn_engine.cli.run",
        "complete",
        "Complete a waiting user task (its element id or name) and run on.",
    ),
    "resume": (
        "bpmn_engine.cli.run",
        "resume",
        "Go on with an instance: after a crash, a fix, or a wait.",
    ),
    "migrate": (
        "bpmn_engine.cli.migrate",
        "migrate",
        "Move running instances onto another version of their definitions.",
    ),
    "modify": (
        "bpmn_engine.cli.modify",
        "modify",
        "Move an instance's tokens by hand (Camunda's instance modification), and run on.",
    ),
    "retry": (
        "bpmn_engine.cli.run",
        "retry",
        'Run a token stopped on an incident again, and run on (Camunda\'s "set retries").',
    ),
    "incidents": (
        "bpmn_engine.cli.incidents",
        "incidents",
        "List the open incidents: tokens stopped at an element, the oldest first.",
    ),
    "message": (
        "bpmn_engine.cli.events",
        "message",
        "Publish a message and run the instance it wakes until it completes, fails or waits.",
    ),
    "signal": (
        "bpmn_engine.cli.events",
        "signal",
        "Broadcast a signal to every waiting catcher and run the instances it wakes.",
    ),
    "step": (
        "bpmn_engine.cli.step",
        "step",
        "Walk through the token flow one step at a time (type help at the prompt).",
    ),
    "activate": (
        "bpmn_engine.cli.ad_hoc",
        "activate",
        "Activate ELEMENT, an activity of an ad-hoc subprocess INSTANCE waits in, and run on.",
    ),
    "trigger": (
        "bpmn_engine.cli.trigger",
        "trigger",
        "Move on a token that waits at ELEMENT for a trigger, and run on.",
    ),
    "cancel": (
        "bpmn_engine.cli.run",
        "cancel",
        "Terminate an instance: every token is removed, every user task cancelled.",
    ),
    "show": (
        "bpmn_engine.cli.inspect",
        "show_command",
        "Show an instance: state, tokens, variables and history.",
    ),
    "instances": ("bpmn_engine.cli.inspect", "instances", "List the instances in the database."),
    "tasks": (
        "bpmn_engine.cli.tasks",
        "tasks",
        "List the open user tasks of every active instance, oldest first.",
    ),
    "store": (
        "bpmn_engine.cli.inspect",
        "store_command",
        "Show a data store's value and its last write; without NAME, list the stores.",
    ),
    "deploy": (
        "bpmn_engine.cli.deploy",
        "deploy",
        "Deploy BPMN files: `bpmn worker` fires their timer start events, and `bpmn message` "
        "starts them at a message start event.",
    ),
    "worker": (
        "bpmn_engine.cli.deploy",
        "worker",
        "Run every instance in the database that has something to do, and start instances "
        "from due timer start events, until Ctrl-C or SIGTERM (the step in progress finishes).",
    ),
    "serve": (
        "bpmn_engine.cli.serve",
        "serve",
        "Serve the JSON API and the cockpit over the database, with --worker a worker too.",
    ),
    "decide": (
        "bpmn_engine.cli.decide",
        "decide",
        "Evaluate a DMN decision: its required decisions first, then its table or expression.",
    ),
    "test": (
        "bpmn_engine.cli.test",
        "test",
        "Run the scenario files (*.bpmntest.toml) in PATHs (default: this folder, recursively).",
    ),
    "render": (
        "bpmn_engine.cli.picture",
        "render",
        "Draw a BPMN diagram as SVG, from its BPMN DI (laid out automatically without one).",
    ),
    "validate": (
        "bpmn_engine.cli.validate",
        "validate",
        "Check BPMN files before deploy: schema, references, bpmnlint's rules, what the engine "
        "can run, and soundness (deadlocks, missing synchronisation, dead elements, livelocks).",
    ),
}


class LazyGroup(click.Group):
    """A group whose commands are imported by name when one of them is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*COMMANDS, *super().list_commands(ctx)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        module, function, _ = COMMANDS[cmd_name]
        command = getattr(importlib.import_module(module), function)
        resume_collector()
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the summaries, without importing a single command."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, _short(summary, limit)) for name, (_, _, summary) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _short(summary: str, limit: int) -> str:
    """A summary cut to `limit` characters at a word, as `--help` lists commands (ours: click
    deprecates its helper for this)."""
    if len(summary) <= limit:
        return summary
    cut = summary[: max(limit - 3, 1)].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "..."


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, package_name="bpmn-engine")
def cli() -> None:
    """Run BPMN 2.0 diagrams locally, checkpointing every step in SQLite.

    Exit codes: 0 completed (or terminated), 1 failed, 2 bad input, 3 waiting, 4 a message
    or signal reached nobody.
    """


# Whether `main` paused the cyclic garbage collector for the command's import (see there).
_PAUSED: list[bool] = []


def resume_collector() -> None:
    """After the command's import: keep what it made out of later collections, collect again."""
    if _PAUSED:
        _PAUSED.clear()
        gc.freeze()
        gc.enable()


def main() -> None:
    """Entry point: run the click group and turn every error into a message and an exit code.

    Importing a command makes tens of thousands of objects that live as long as the process
    (modules, classes, functions); the collector would walk them all several times while they
    are made, and again at exit, for no garbage: a good part of `bpmn run`'s start-up. So it is
    paused until the command is imported, and what exists then is frozen (`gc.freeze`), out
    of every later collection. Only here, in the process's own entry point: a program that
    calls `cli` itself keeps its collector as it set it.
    """
    if gc.isenabled():
        gc.disable()
        _PAUSED.append(True)
    # started in the background by a shell without job control, the process inherits SIGINT
    # ignored: `kill -INT` (and a test runner's Ctrl-C) could not stop it
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for stream in (sys.stdout, sys.stderr):
        # text the terminal's encoding cannot take (a lone surrogate from a script, anything
        # beyond ASCII on an ASCII terminal) is written as \u escapes, never a crash; in a
        # --json line that is still JSON
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        code = cli.main(standalone_mode=False)
    except (Exception, KeyboardInterrupt) as error:
        raise SystemExit(_report(error)) from None
    finally:
        resume_collector()  # --help, --version, an unknown command: nothing was imported
    raise SystemExit(code if isinstance(code, int) else 0)


def _report(error: BaseException) -> int:
    """Say what went wrong on stderr, never as a traceback; the exit code."""
    from bpmn_engine.cli.common import OPENED, errors, interrupted  # rich, only when needed
    from bpmn_engine.terminal import safe, visible

    if isinstance(error, click.exceptions.Abort | KeyboardInterrupt):
        # click's Abort is Ctrl-C (or end of input) at a prompt
        errors.print(safe(interrupted()))
        return 130
    if isinstance(error, click.ClickException):
        shown = io.StringIO()
        error.show(file=shown)  # the message may quote an argument: show its control bytes
        sys.stderr.write(visible(shown.getvalue()))
        return ExitCode.BAD_INPUT
    if isinstance(error, BpmnEngineError):
        errors.print(f"[red]error:[/] {safe(str(error))}")
        return ExitCode.BAD_INPUT
    if isinstance(error, sqlite3.DatabaseError) or type(error).__module__.startswith("psycopg"):
        # SQLite: damaged past the header, locked, read-only...; PostgreSQL: the server went
        # away, or refused a statement (its message never holds the URL's password)
        where = OPENED[-1] if OPENED else "the database"
        errors.print(f"[red]error:[/] {safe(where)}: the database cannot be used: {safe(error)}")
        return ExitCode.BAD_INPUT
    # a bug: say so plainly, never a traceback
    errors.print(
        f"[red]internal error:[/] {safe(type(error).__name__)}: {safe(str(error))}\n"
        "please report it with the command you ran; committed steps are safe"
    )
    return ExitCode.FAILED
