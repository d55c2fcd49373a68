"""A hostile expression or script gets an incident on its element: `bpmn run` never crashes,
hangs, or leaves an instance it cannot resume."""

from __future__ import annotations

import itertools
import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from tests.cli.conftest import Bpmn

HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="d" targetNamespace="t">\n'
)
DEEP_TUPLE = "[len({a}) for a in [()] for i in range(200000) for a in [(a,)] if i == 199999] == [1]"


def script_process(path: Path, *scripts: str) -> str:
    """start -> one script task per script (s1, s2...) -> end."""
    tasks = "".join(
        f'<scriptTask id="s{n}" scriptFormat="python"><script>{escape(text)}</script></scriptTask>'
        for n, text in enumerate(scripts, 1)
    )
    ids = ["start", *(f"s{n}" for n in range(1, len(scripts) + 1)), "end"]
    flows = "".join(
        f'<sequenceFlow id="f{n}" sourceRef="{a}" targetRef="{b}"/>'
        for n, (a, b) in enumerate(itertools.pairwise(ids))
    )
    path.write_text(
        f'{HEADER}<process id="p" isExecutable="true"><startEvent id="start"/>{tasks}'
        f'<endEvent id="end"/>{flows}</process></definitions>\n'
    )
    return str(path)


def gateway_process(path: Path, condition: str) -> str:
    """start -> exclusive gateway `choose` whose only flow has `condition` -> end."""
    path.write_text(
        f'{HEADER}<process id="p" isExecutable="true"><startEvent id="start"/>'
        '<exclusiveGateway id="choose"/><endEvent id="end"/>'
        '<sequenceFlow id="in" sourceRef="start" targetRef="choose"/>'
        '<sequenceFlow id="out" sourceRef="choose" targetRef="end">'
        f'<conditionExpression xsi:type="tFormalExpression">{escape(condition)}'
        "</conditionExpression></sequenceFlow></process></definitions>\n"
    )
    return str(path)


def failed(bpmn: Bpmn, *args: str) -> dict:
    """Run a command that must end in an incident (exit 1); its last JSON line."""
    done = bpmn(*args, "--json")
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["event"] == "instance.failed"
    return last


def test_a_condition_that_crashed_the_process_is_an_incident(bpmn: Bpmn, tmp_path: Path) -> None:
    """The tuple nested 200,000 deep killed `bpmn run` (and `resume`) with SIGSEGV."""
    db = str(tmp_path / "deep.db")
    diagram = gateway_process(tmp_path / "deep.bpmn", DEEP_TUPLE)
    outcome = failed(bpmn, "run", diagram, "--db", db)
    assert "nested more than 200 levels deep" in outcome["incident"]
    assert "choose" in outcome["incident"]
    again = failed(bpmn, "resume", outcome["instance"], "--db", db)
    assert "nested more than 200 levels deep" in again["incident"]


def test_the_worker_records_the_incident_and_goes_on(bpmn: Bpmn, tmp_path: Path) -> None:
    """The same tuple, reached by the worker after a timer: it once killed every worker run."""
    deep = escape(f"x = {DEEP_TUPLE}")
    (tmp_path / "later.bpmn").write_text(
        f'{HEADER}<process id="p" isExecutable="true"><startEvent id="start"/>'
        '<intermediateCatchEvent id="pause"><timerEventDefinition><timeDuration>PT1S'
        "</timeDuration></timerEventDefinition></intermediateCatchEvent>"
        f'<scriptTask id="deep"><script>{deep}</script></scriptTask><endEvent id="end"/>'
        '<sequenceFlow id="f1" sourceRef="start" targetRef="pause"/>'
        '<sequenceFlow id="f2" sourceRef="pause" targetRef="deep"/>'
        '<sequenceFlow id="f3" sourceRef="deep" targetRef="end"/></process></definitions>\n'
    )
    db = str(tmp_path / "later.db")
    assert bpmn("run", str(tmp_path / "later.bpmn"), "--db", db).returncode == 3  # waits
    done = bpmn("worker", "--db", db, "--once", "--clock", "virtual", "--json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[-1]["event"] == "worker.stopped"
    failure = next(e for e in events if e["event"] == "instance.failed")
    assert failure["element"] == "deep"
    assert "nested more than 200 levels deep" in failure["incident"]


def test_comparing_shared_lists_is_an_incident_not_a_hang(bpmn: Bpmn, tmp_path: Path) -> None:
    """40 doublings: 2**41 items to compare in one C call, which Ctrl-C could not stop."""
    script = "a = [0]\nb = [0]\nfor i in range(40):\n    a = [a, a]\n    b = [b, b]\nx = a == b"
    outcome = failed(bpmn, "run", script_process(tmp_path / "dag.bpmn", script))
    assert "more than 1,000,000 items" in outcome["incident"]
    assert "s1" in outcome["incident"]


@pytest.mark.parametrize("text", ["x = 2**20000", "x = int('1' * 20000, 2)"])
def test_an_integer_too_big_to_store_is_an_incident(bpmn: Bpmn, tmp_path: Path, text: str) -> None:
    """It once passed the sandbox and then wedged the instance: the store could not write it."""
    db = str(tmp_path / "big.db")
    outcome = failed(bpmn, "run", script_process(tmp_path / "big.bpmn", text), "--db", db)
    assert "bits (limit 14,000)" in outcome["incident"]
    again = failed(bpmn, "resume", outcome["instance"], "--db", db)
    assert "bits (limit 14,000)" in again["incident"]


def _started(db: Path) -> bool:
    """The first script task is done, so the second (the long one) is running."""
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            rows = conn.execute(
                "SELECT count(*) FROM history WHERE event = 'element.completed' AND element = 's1'"
            ).fetchone()
    except sqlite3.OperationalError:
        return False
    return bool(rows[0])


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX")
def test_ctrl_c_stops_a_long_evaluation(tmp_path: Path) -> None:
    """A legal but long script (it would end on the work limit, exit 1) stops at Ctrl-C: 130."""
    db = tmp_path / "long.db"
    spin = "x = 2**13000\nn = 0\nwhile True:\n    s = str(x)\n    n = n + 1"
    diagram = script_process(tmp_path / "long.bpmn", "ready = True", spin)
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "run", diagram, "--db", str(db), "--checkpoint", "step"],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while not _started(db) and process.poll() is None:
            time.sleep(0.01)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert "aborted" in err or "interrupted" in err
    assert "Traceback" not in err
