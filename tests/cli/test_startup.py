"""`bpmn --help` and `bpmn --version` start without importing the runtime or its libraries,
and `bpmn run` imports what the diagram uses: FEEL, DMN, JUEL and JavaScript when it has them.

The command list shows summaries kept in `bpmn_engine.cli.main.COMMANDS`, so the commands
themselves are imported only when one runs; these tests keep that table honest.
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import bpmn_engine.cli
from bpmn_engine.cli.main import COMMANDS, cli

HEAVY = ("rich", "networkx", "sqlite_utils", "lxml", "lark", "bpmn_engine.runtime")

PROBE = """
import sys
from bpmn_engine.cli.main import main
sys.argv = ["bpmn", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
heavy = {heavy!r}
print(sorted(m for m in sys.modules if m in heavy or m.startswith(tuple(h + "." for h in heavy))))
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


# What `bpmn run` does not need for a diagram without FEEL, JUEL, JavaScript, business rule
# tasks, cron timers or inclusive joins, on a database that exists: the languages, DMN, the
# schema's migrations (sqlite_utils), networkx (a scope's graph is built when first read), and
# the rich parts that prompt and draw tables.
NOT_IN_A_PLAIN_RUN = (
    "networkx",
    "bpmn_engine.dmn",
    "bpmn_engine.expressions.feel",
    "bpmn_engine.expressions.juel",
    "bpmn_engine.expressions.v8",
    "croniter",
    "lark",
    "sqlite_utils",
    "rich.prompt",
    "rich.table",
)
FLOWS = (
    '<bpmn:sequenceFlow id="f1" sourceRef="S" targetRef="T"/>'
    '<bpmn:sequenceFlow id="f2" sourceRef="T" targetRef="E"/>'
)


def diagram(tmp_path: Path, condition: str = "") -> Path:
    """S -> T -> E; with `condition`, the flow to E is conditional."""
    flows = FLOWS
    if condition:
        flows = flows.replace(
            'targetRef="E"/>',
            'targetRef="E"><bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">'
            f"{condition}</bpmn:conditionExpression></bpmn:sequenceFlow>",
        )
    path = tmp_path / "plain.bpmn"
    path.write_text(
        '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" targetNamespace="t">'
        '<bpmn:process id="P" isExecutable="true"><bpmn:startEvent id="S"/>'
        f'<bpmn:task id="T"/><bpmn:endEvent id="E"/>{flows}</bpmn:process></bpmn:definitions>'
    )
    return path


def imported_by_run(tmp_path: Path, heavy: tuple[str, ...], condition: str = "") -> list[str]:
    """The `heavy` modules a second `bpmn run` of the diagram imports (the database exists)."""
    model, db = diagram(tmp_path, condition), tmp_path / "run.db"
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", PROBE.format(heavy=heavy), "run", str(model), "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert "completed instance" in done.stdout
    return eval(done.stdout.splitlines()[-1])


def test_run_of_a_plain_diagram_imports_no_language_it_does_not_use(tmp_path: Path) -> None:
    assert imported_by_run(tmp_path, NOT_IN_A_PLAIN_RUN) == []


@pytest.mark.parametrize(
    ("condition", "language"),
    [
        ("=true", "bpmn_engine.expressions.feel"),
        ("${true}", "bpmn_engine.expressions.juel"),
        ("True", "bpmn_engine.expressions.compiled"),
    ],
)
def test_run_imports_the_language_a_diagram_uses(
    tmp_path: Path, condition: str, language: str
) -> None:
    found = imported_by_run(tmp_path, (*NOT_IN_A_PLAIN_RUN, language), condition)
    assert language in found
    assert "bpmn_engine.dmn" not in found


COLLECTOR = """
import gc, sys
from bpmn_engine.cli.main import main
sys.argv = ["bpmn", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print(gc.isenabled(), gc.get_freeze_count() > 0)
"""


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["instances", "--db", "x.db"],
        ["run", "missing.bpmn", "--db", "x.db"],  # bad input
    ],
)
def test_the_collector_is_on_again_once_the_command_is_imported(
    tmp_path: Path, args: list[str]
) -> None:
    """`main` pauses the garbage collector while a command's modules are imported: it is on
    again, with what the import made frozen, whatever the command and however it ends."""
    done = subprocess.run(
        [sys.executable, "-c", COLLECTOR, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.stdout.splitlines()[-1] == "True True", done.stderr


def test_a_command_runs_with_the_collector_on(tmp_path: Path) -> None:
    """The pause ends before the command runs: a worker's garbage is collected as it goes."""
    model = (
        diagram(tmp_path).read_text().replace('<bpmn:task id="T"/>', '<bpmn:serviceTask id="T"/>')
    )
    (tmp_path / "plain.bpmn").write_text(model)
    handlers = tmp_path / "handlers.py"
    handlers.write_text("import gc\n\ndef T(ctx):\n    return {'collecting': gc.isenabled()}\n")
    done = subprocess.run(
        [sys.executable, "-m", "cli", "run", "plain.bpmn", "--handlers", str(handlers), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert '"collecting": true' in done.stdout


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


def test_the_bpmn_script_and_python_m_need_no_top_level_cli_module(tmp_path: Path) -> None:
    """The script was `cli:main`: an installed top-level `cli` clashed with any other
    `cli.py`. It names the package's own module, which `python -m bpmn_engine` runs too."""
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert 'bpmn = "bpmn_engine.cli:main"' in pyproject
    assert "py-modules" not in pyproject
    (tmp_path / "cli.py").write_text("raise SystemExit('the wrong cli.py')\n")  # someone else's
    done = subprocess.run(
        [sys.executable, "-m", "bpmn_engine", "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "version" in done.stdout
