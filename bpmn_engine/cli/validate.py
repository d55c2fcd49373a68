"""`bpmn validate PATH...`: the click command, a thin layer over `bpmn_engine.validate`.

Exit codes: 0 no errors (and warnings within `--max-warnings`), 1 errors found, 2 a file could
not be read, was not XML or not BPMN (the other files are still checked and reported).
"""

from __future__ import annotations

import sys
from types import TracebackType

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

from bpmn_engine.terminal import visible
from bpmn_engine.validate import PRESETS, load_config
from bpmn_engine.validate import validate as validate_paths
from bpmn_engine.validate.output import EMITTERS, FORMATS

PROGRESS_ABOVE = 20  # files: below this a run is over before a bar would help


class ProgressBar:
    """A rich bar on stderr, shown only for many files and only when stderr is a terminal."""

    def __init__(self) -> None:
        self.console = Console(stderr=True)
        self.bar: Progress | None = None
        self.task = 0

    def __call__(self, done: int, total: int) -> None:
        """`total` counts two steps per file: reading it, then checking it."""
        if self.bar is None:
            if total <= 2 * PROGRESS_ABOVE or not self.console.is_terminal:
                return
            self.bar = Progress(
                TextColumn(f"validating {total // 2} files"),
                BarColumn(),
                TaskProgressColumn(),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task("validate", total=total)
        self.bar.update(self.task, completed=done)

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.bar is not None:
            self.bar.stop()


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text for people, json for scripts, github for Actions annotations, sarif for "
    "code scanning.",
)
@click.option(
    "--preset",
    type=click.Choice(PRESETS),
    help="Rule levels to start from (overrides the config's `extends`; default recommended).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    help="A .bpmnlintrc (JSON) or pyproject.toml; default: the one in the current folder.",
)
@click.option(
    "--max-warnings",
    type=int,
    default=-1,
    show_default=True,
    help="Exit 1 when there are more warnings than this (-1: any number).",
)
@click.option("--strict", is_flag=True, help="Warnings count as errors: any warning exits 1.")
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
@click.option(
    "--path",
    "search_path",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    metavar="DIR",
    help="A folder whose BPMN files a call activity's process is looked for in, when no "
    "file validated defines it and none beside the calling file does (repeatable).",
)
def validate(
    paths: tuple[str, ...],
    output_format: str,
    preset: str | None,
    config_file: str | None,
    max_warnings: int,
    strict: bool,
    as_json: bool,
    search_path: tuple[str, ...],
) -> None:
    """Check BPMN files before deploy: schema, references, bpmnlint's rules, what the engine
    can run, and soundness (deadlocks, missing synchronisation, dead elements, livelocks).

    PATH is a file, a folder (searched for *.bpmn, *.bpmn2, *.bpmn20.xml) or a glob.
    Exit codes: 0 no errors, 1 errors (or too many warnings), 2 a file could not be read.

    Example: bpmn validate models/ --format github --max-warnings 0
    """
    if as_json and output_format not in ("text", "json"):
        raise click.UsageError(
            f"--json is --format json: give one of --json, --format {output_format}"
        )
    output_format = "json" if as_json else output_format
    config = load_config(config_file)
    with ProgressBar() as progress:
        report = validate_paths(
            paths, preset=preset, config=config, progress=progress, search_path=search_path
        )
    for note in report.notes:
        click.echo(visible(f"note: {note}"), err=True)
    EMITTERS[output_format](report, sys.stdout)
    sys.stdout.flush()
    raise SystemExit(report.exit_code(max_warnings=max_warnings, strict=strict))
