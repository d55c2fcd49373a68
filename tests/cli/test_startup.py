"""`bpmn --help` and `bpmn --version` start without importing the runtime or its libraries.

The command list shows summaries kept in `bpmn_engine.cli.main.COMMANDS`, so the commands
themselves are imported only when one runs; these tests keep that table honest.
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

import bpmn_engine.cli
from bpmn_engine.cli.main import COMMANDS, cli

HEAVY = ("rich", "networkx", "sqlite_utils", "lxml", "lark", "bpmn_engine.runtime")

PROBE = """
import sys
from bpmn_engine.cli.main import main
sys.argv = ["bpmn", sys.argv[1]]
try:
    main()
except SystemExit:
    pass
heavy = {heavy!r}
print(sorted(m for m in sys.modules if m.startswith(heavy)))
"""


@pytest.mark.parametrize("option", ["--help", "--version"])
def test_help_and_version_import_nothing_heavy(option: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), option],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


def test_every_command_is_listed_with_its_own_summary() -> None:
    for name, (module, function, summary) in COMMANDS.items():
        command = getattr(importlib.import_module(module), function)
        assert command.name == name
        first_paragraph = " ".join(command.help.split("\n\n")[0].split())
        assert first_paragraph.startswith(summary), name


def test_no_command_is_left_out_of_the_table() -> None:
    """A command written in `bpmn_engine.cli` but missing from COMMANDS would never run."""
    listed = {(module, function) for module, function, _ in COMMANDS.values()}
    for info in pkgutil.iter_modules(bpmn_engine.cli.__path__):
        module = importlib.import_module(f"bpmn_engine.cli.{info.name}")
        for attribute, value in vars(module).items():
            if value is cli or not isinstance(value, click.Command) or value.callback is None:
                continue
            if value.callback.__module__ == module.__name__:  # defined here, not imported
                assert (module.__name__, attribute) in listed, f"{module.__name__}.{attribute}"


def test_help_lists_every_command_and_version_matches_the_package() -> None:
    runner = CliRunner()
    shown = runner.invoke(cli, ["--help"]).output
    for name in COMMANDS:
        assert f"\n  {name} " in shown
    assert bpmn_engine.__version__ in runner.invoke(cli, ["--version"]).output


def test_version_is_the_one_in_pyproject() -> None:
    import tomllib
    from pathlib import Path

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    declared = tomllib.loads(pyproject.read_text())["project"]["version"]
    assert bpmn_engine.__version__ == declared
