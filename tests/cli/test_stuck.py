"""`bpmn instances --stuck`: active instances nothing can move on, on both stores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import FIXTURES, Bpmn
from tests.postgresql_server import fresh_url

STUCK = FIXTURES / "stuck-join.bpmn"
REVIEW = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
<process id="review" isExecutable="true"><startEvent id="s"/>
<sequenceFlow id="f1" sourceRef="s" targetRef="r"/><userTask id="r"/>
<sequenceFlow id="f2" sourceRef="r" targetRef="e"/><endEvent id="e"/></process></definitions>
"""


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_only_instances_nothing_can_move_on_are_listed_as_stuck(
    bpmn: Bpmn, tmp_path: Path, store: str
) -> None:
    db = str(tmp_path / "stuck.db") if store == "sqlite" else fresh_url()
    review = tmp_path / "review.bpmn"
    review.write_text(REVIEW, encoding="utf-8")
    runs = [
        ("run", str(STUCK), "--var", "go=false"),  # the join waits for a token that ended
        ("run", str(STUCK), "--var", "go=true"),  # completes
        ("run", str(review)),  # waits at a user task: not stuck
    ]
    started = []
    for args in runs:
        done = bpmn(*args, "--db", db, "--json", input="")
        assert "Traceback" not in done.stderr
        started.append(json.loads(done.stdout.splitlines()[0])["instance"])

    listed = bpmn("instances", "--stuck", "--db", db, "--json")
    every = bpmn("instances", "--db", db, "--json")

    assert listed.returncode == 0, listed.stderr
    assert [json.loads(line)["id"] for line in listed.stdout.splitlines()] == [started[0]]
    states = [json.loads(line)["state"] for line in every.stdout.splitlines()]
    assert sorted(states) == ["completed", "waiting", "waiting"]


def test_a_run_that_can_never_go_on_says_it_is_stuck(bpmn: Bpmn, tmp_path: Path) -> None:
    """It was reported as an ordinary wait."""
    db = str(tmp_path / "s.db")
    stuck = bpmn("run", str(STUCK), "--var", "go=false", "--db", db)
    assert stuck.returncode == 3
    assert "stuck: no token can move and nothing it waits for exists" in stuck.stdout
    assert "bpmn cancel " in stuck.stdout
    review = tmp_path / "review.bpmn"
    review.write_text(REVIEW, encoding="utf-8")
    waiting = bpmn("run", str(review), "--db", db)
    assert waiting.returncode == 3 and "stuck" not in waiting.stdout


@pytest.mark.parametrize("db", ["file", ":memory:"])
def test_a_stuck_run_says_so_in_its_last_json_line_and_in_memory_too(
    bpmn: Bpmn, tmp_path: Path, db: str
) -> None:
    """A run that can never go on was an ordinary wait to a script (and to `:memory:`)."""
    where = str(tmp_path / "s.db") if db == "file" else db
    review = tmp_path / "review.bpmn"
    review.write_text(REVIEW, encoding="utf-8")
    stuck = bpmn("run", str(STUCK), "--var", "go=false", "--db", where, "--json")
    waiting = bpmn("run", str(review), "--db", where, "--json")
    said = bpmn("run", str(STUCK), "--var", "go=false", "--db", where)

    assert stuck.returncode == waiting.returncode == 3
    assert json.loads(stuck.stdout.splitlines()[-1])["stuck"] is True
    assert "stuck" not in json.loads(waiting.stdout.splitlines()[-1])
    assert "stuck: no token can move" in said.stdout
    assert ("bpmn cancel " in said.stdout) is (db == "file")
