"""Kill `bpmn run` with SIGKILL mid-run; `bpmn resume` ends exactly as an unbroken run does."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.conftest import FIXTURES, Bpmn

LOOP = str(FIXTURES / "counter-loop.bpmn")
TURNS = 1500
VARS = ["--var", "n=0", "--var", "total=0", "--var", f"limit={TURNS}"]


def history(db: Path) -> tuple[str, list[tuple[str, str | None, int | None, str]]]:
    with sqlite3.connect(db) as conn:
        (instance,) = conn.execute("SELECT id FROM instances").fetchone()
        rows = conn.execute(
            "SELECT event, element, track, data FROM history WHERE instance = ? ORDER BY seq",
            (instance,),
        ).fetchall()
    return instance, rows


def history_rows(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT count(*) FROM history").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
@pytest.mark.parametrize(
    ("checkpoint", "turns"),
    [("step", TURNS), ("wait", 5 * TURNS)],  # a run that commits in batches is faster
)
def test_sigkill_mid_run_then_resume_matches_an_uninterrupted_run(
    bpmn: Bpmn, tmp_path: Path, checkpoint: str, turns: int
) -> None:
    # given: an uninterrupted run, for reference
    variables = [*VARS[:-1], f"limit={turns}", "--checkpoint", checkpoint]
    reference_db = tmp_path / "reference.db"
    done = bpmn("run", LOOP, "--db", str(reference_db), "--json", *variables)
    assert done.returncode == 0, done.stderr
    _, expected = history(reference_db)

    # when: the same run is killed with SIGKILL part way through
    crash_db = tmp_path / "crash.db"
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "run", LOOP, "--db", str(crash_db), "--json", *variables],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while history_rows(crash_db) < len(expected) // 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    instance, partial = history(crash_db)
    assert 0 < len(partial) < len(expected), "the kill must land in the middle of the run"

    # then: resume finishes it, with the same variables and the same history
    code, lines = bpmn.json_lines(
        "resume", instance, "--db", str(crash_db), "--checkpoint", checkpoint
    )
    assert code == 0
    assert lines[-1]["event"] == "instance.completed"
    assert lines[-1]["variables"] == {
        "n": turns,
        "total": turns * (turns + 1) // 2,
        "limit": turns,
    }
    _, resumed = history(crash_db)
    assert resumed == expected
    completed = [row for row in resumed if row[0] == "element.completed" and row[1] == "Count"]
    assert len(completed) == turns


def test_resume_of_a_finished_instance_changes_nothing(bpmn: Bpmn, tmp_path: Path) -> None:
    db = tmp_path / "done.db"
    _, lines = bpmn.json_lines(
        "run", LOOP, "--db", str(db), "--var", "n=0", "--var", "total=0", "--var", "limit=2"
    )
    instance = lines[-1]["instance"]
    before = history(db)
    code, lines = bpmn.json_lines("resume", instance, "--db", str(db))
    assert code == 0
    assert [line["event"] for line in lines] == ["instance.completed"]
    assert history(db) == before
    shown = json.loads(bpmn("show", instance, "--db", str(db), "--json").stdout)
    assert shown["state"] == "completed"


MULTI = str(FIXTURES / "multi-instance-sum.bpmn")

# `bpmn` with its checkpoint writes counted: SIGKILL itself once N history events are in.
DIE_AFTER_EVENTS = """
import os, signal, sys
from bpmn_engine.runtime.instance import checkpoints
target, written = int(sys.argv[1]), [0]
real = checkpoints.Checkpoints._write
def write_then_die(self, step, new):
    real(self, step, new)
    written[0] += len(step.events)
    if written[0] >= target:
        os.kill(os.getpid(), signal.SIGKILL)
checkpoints.Checkpoints._write = write_then_die
from bpmn_engine.cli.main import main
sys.argv = ["bpmn", *sys.argv[2:]]
main()
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
@pytest.mark.parametrize("checkpoint", ["step", "wait"])
def test_sigkill_mid_multi_instance_then_resume_matches_an_uninterrupted_run(
    bpmn: Bpmn, tmp_path: Path, checkpoint: str
) -> None:
    # given: an uninterrupted run of a parallel then a sequential multi-instance body
    turns = 400
    variables = ["--var", f"limit={turns}", "--var", "total=0", "--var", "n=0", "--var", "sum=0"]
    variables += ["--checkpoint", checkpoint]
    reference_db = tmp_path / "reference.db"
    done = bpmn("run", MULTI, "--db", str(reference_db), "--json", *variables)
    assert done.returncode == 0, done.stderr
    _, expected = history(reference_db)

    # when: the same run is killed (SIGKILL) once a third of its history is committed; the
    # process kills itself right after that commit, so the kill lands mid-run however loaded
    # the machine is (the `wait` policy commits in batches of thousands of events)
    crash_db = tmp_path / "crash.db"
    script = tmp_path / "die.py"
    script.write_text(DIE_AFTER_EVENTS)
    command = [sys.executable, str(script), str(len(expected) // 3), "run", MULTI]
    process = subprocess.run(
        [*command, "--db", str(crash_db), "--json", *variables],
        cwd=tmp_path,
        capture_output=True,
        timeout=300,
    )
    assert process.returncode == -signal.SIGKILL, process.stderr
    instance, partial = history(crash_db)
    assert 0 < len(partial) < len(expected), "the kill must land in the middle of the run"

    # then: resume ends with the same variables and the same history
    code, lines = bpmn.json_lines(
        "resume", instance, "--db", str(crash_db), "--checkpoint", checkpoint
    )
    assert code == 0
    assert lines[-1]["event"] == "instance.completed"
    doubles = [2 * i for i in range(1, turns + 1)]
    assert lines[-1]["variables"] == {
        "limit": turns,
        "total": turns * (turns + 1) // 2,
        "doubles": doubles,
        "n": turns,
        "sum": sum(doubles),
    }
    _, resumed = history(crash_db)
    assert resumed == expected
