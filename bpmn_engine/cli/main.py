"""The `bpmn` group: every command registered, and `main`, the one place where errors become
messages and exit codes (no user ever sees a traceback)."""

from __future__ import annotations

import io
import sqlite3
import sys

import click

from bpmn_engine import BpmnEngineError
from bpmn_engine.cli.common import OPENED, errors, interrupted
from bpmn_engine.cli.decide import decide
from bpmn_engine.cli.deploy import deploy, worker
from bpmn_engine.cli.events import message, signal
from bpmn_engine.cli.inspect import instances, show_command
from bpmn_engine.cli.run import cancel, complete, resume, run
from bpmn_engine.cli.step import step
from bpmn_engine.cli.validate import validate
from bpmn_engine.exit_codes import ExitCode
from bpmn_engine.terminal import safe, visible


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bpmn-engine")
def cli() -> None:
    """Run BPMN 2.0 diagrams locally, checkpointing every step in SQLite.

    Exit codes: 0 completed (or terminated), 1 failed, 2 bad input, 3 waiting.
    """


for command in (
    run,
    complete,
    resume,
    message,
    signal,
    step,
    cancel,
    show_command,
    instances,
    deploy,
    worker,
    validate,
    decide,
):
    cli.add_command(command)


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
