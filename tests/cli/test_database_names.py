"""`--db` names a database or is refused: never taken silently as something else (issue 26,
item 6). An empty name was a throwaway database, `file:` URIs and `?mode=ro` files of those
literal names, and a mistyped `--db` for `cancel` an empty new database that held nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError
from tests.cli.conftest import FIXTURES, Bpmn

LOOP = str(FIXTURES / "counter-loop.bpmn")


@pytest.mark.parametrize(
    ("db", "says"),
    [
        ("", "an empty database name"),
        ("  ", "an empty database name"),
        ("file:runs.db", "a file: URI is not read as one"),
        ("runs.db?mode=ro", "query parameters (?mode=...) are not read"),
    ],
)
def test_a_name_sqlite_would_read_as_something_else_is_refused(
    bpmn: Bpmn, tmp_path: Path, db: str, says: str
) -> None:
    done = bpmn("run", LOOP, "--db", db, "--var", "n=0", "--var", "total=0", "--var", "limit=1")
    assert done.returncode == 2
    assert says in done.stderr
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(LoadError, match=re.escape(says)):
        Engine(db)


@pytest.mark.parametrize(
    "command",
    [
        ("cancel", "abc123"),
        ("resume", "abc123"),
        ("complete", "abc123", "Task"),
        ("message", "ping"),
        ("signal", "go"),
        ("activate", "abc123", "Task"),
    ],
    ids=lambda c: c[0],
)
def test_a_command_on_instances_needs_the_database_a_run_wrote(
    bpmn: Bpmn, tmp_path: Path, command: tuple[str, ...]
) -> None:
    done = bpmn(*command, "--db", "typo.db")
    assert done.returncode == 2
    assert "typo.db: no such database: give the --db the instance ran with" in done.stderr
    assert not (tmp_path / "typo.db").exists()
    memory = bpmn(*command, "--db", ":memory:")
    assert memory.returncode == 2
    assert "':memory:' keeps nothing between commands" in memory.stderr
