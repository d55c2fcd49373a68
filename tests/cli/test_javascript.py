"""JavaScript through the `bpmn` command: a Camunda 7 diagram runs, a syntax error is bad
input (exit 2, file:line: element), a runaway script is an incident (exit 1), and without the
extra both `bpmn run` and `bpmn validate` refuse, naming it, before anything runs."""

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

from tests.cli.conftest import FIXTURES, ROOT, Bpmn

HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="d" targetNamespace="t">\n'
)
# what a machine without mini-racer sees: importing it fails (sys.modules entry None)
WITHOUT_EXTRA = "import sys; sys.modules['py_mini_racer'] = None; import cli; cli.main()"


def script_process(path: Path, *scripts: str) -> str:
    """start -> one JavaScript script task per script (s1, s2...) -> end, one per line."""
    tasks = "".join(
        f'<scriptTask id="s{n}" scriptFormat="javascript">\n'
        f"<script>{escape(text)}</script></scriptTask>\n"
        for n, text in enumerate(scripts, 1)
    )
    ids = ["start", *(f"s{n}" for n in range(1, len(scripts) + 1)), "end"]
    flows = "".join(
        f'<sequenceFlow id="f{n}" sourceRef="{a}" targetRef="{b}"/>\n'
        for n, (a, b) in enumerate(itertools.pairwise(ids))
    )
    path.write_text(
        f'{HEADER}<process id="p" isExecutable="true">\n<startEvent id="start"/>\n{tasks}'
        f'<endEvent id="end"/>\n{flows}</process></definitions>\n'
    )
    return str(path)


def approval_process(path: Path) -> str:
    """Camunda 7 style: a JavaScript gateway condition and a script with a result variable."""
    path.write_text(
        f'{HEADER}<process id="p" isExecutable="true">\n'
        '<startEvent id="start"/>\n'
        '<scriptTask id="score" scriptFormat="javascript" camunda:resultVariable="score">\n'
        "<script>var s = amount / 100;\nexecution.setVariable('scored', true);\ns</script>\n"
        "</scriptTask>\n"
        '<exclusiveGateway id="check"/>\n'
        '<endEvent id="approved"/>\n<endEvent id="rejected"/>\n'
        '<sequenceFlow id="f1" sourceRef="start" targetRef="score"/>\n'
        '<sequenceFlow id="f2" sourceRef="score" targetRef="check"/>\n'
        '<sequenceFlow id="yes" sourceRef="check" targetRef="approved">\n'
        '<conditionExpression xsi:type="tFormalExpression" language="javascript">'
        "score &lt; 10 &amp;&amp; execution.getVariable('scored')</conditionExpression>"
        "</sequenceFlow>\n"
        '<sequenceFlow id="no" sourceRef="check" targetRef="rejected">\n'
        '<conditionExpression xsi:type="tFormalExpression" language="javascript">'
        "score &gt;= 10</conditionExpression></sequenceFlow>\n"
        "</process></definitions>\n"
    )
    return str(path)


def without_extra(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_EXTRA, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_camunda_7_javascript_process_runs(bpmn: Bpmn, tmp_path: Path) -> None:
    diagram = approval_process(tmp_path / "approval.bpmn")
    code, lines = bpmn.json_lines(
        "run", diagram, "--db", str(tmp_path / "a.db"), "--var", "amount=250"
    )
    assert code == 0
    last = lines[-1]
    assert last["event"] == "instance.completed"
    assert last["variables"]["score"] == 2.5
    assert last["variables"]["scored"] is True
    assert any(line.get("element") == "approved" for line in lines)


CAMUNDA7 = str(FIXTURES / "camunda7-javascript.bpmn")


@pytest.mark.parametrize(
    ("customer", "lines", "end", "due"),
    [
        (
            '{"name": "Ada", "vip": true}',
            '[{"price": 40, "quantity": 2}, {"price": 12.5, "quantity": 4}]',
            "EndEvent_Discounted",
            110.5,
        ),
        (
            '{"name": "Bo", "vip": false}',
            '[{"price": 40, "quantity": 2}]',
            "EndEvent_FullPrice",
            80,
        ),
    ],
)
def test_a_camunda_modeler_diagram_with_javascript_runs_and_validates(
    bpmn: Bpmn, tmp_path: Path, customer: str, lines: str, end: str, due: float
) -> None:
    args = ["--var", f"customer={customer}", "--var", f"lines={lines}"]
    code, events = bpmn.json_lines("run", CAMUNDA7, "--db", str(tmp_path / "c.db"), *args)
    assert code == 0
    assert events[-1]["event"] == "instance.completed"
    assert events[-1]["end_event"] == end
    assert events[-1]["variables"]["due"] == due
    assert events[-1]["variables"]["lineCount"] == len(json.loads(lines))
    checked = bpmn("validate", CAMUNDA7)
    assert checked.returncode == 0, checked.stdout
    assert "0 problems" in checked.stdout


def test_a_syntax_error_is_bad_input_naming_file_line_and_element(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    diagram = script_process(tmp_path / "typo.bpmn", "execution.setVariable('a', 1)", "var x = ;")
    done = bpmn("run", diagram, "--db", str(tmp_path / "t.db"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    # the script task's line (the message says where in the script)
    assert f"{diagram}:7: s2: SyntaxError: Unexpected token ';' (line 1 of the script)" in (
        done.stderr
    )
    checked = bpmn("validate", diagram)
    assert checked.returncode == 1
    assert "typo.bpmn:7:1 error executable script does not compile: SyntaxError" in checked.stdout


def test_a_runaway_script_is_an_incident(bpmn: Bpmn, tmp_path: Path) -> None:
    diagram = script_process(tmp_path / "spin.bpmn", "while (true) {}")
    done = bpmn("run", diagram, "--db", str(tmp_path / "s.db"), "--json")
    assert done.returncode == 1, done.stderr
    assert done.stderr == ""  # nothing from V8 or its host reaches the terminal
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["event"] == "instance.failed"
    assert last["element"] == "s1"
    assert "evaluation exceeded the time limit of 5 seconds" in last["incident"]


def test_without_the_extra_run_refuses_before_the_first_step(tmp_path: Path) -> None:
    diagram = approval_process(tmp_path / "approval.bpmn")
    done = without_extra(tmp_path, "run", diagram, "--db", str(tmp_path / "n.db"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    # the first JavaScript the engine compiles is the gateway's first condition
    assert f"{diagram}:16: yes: JavaScript needs the optional JavaScript engine" in done.stderr
    assert "pip install 'bpmn-engine[js]'" in done.stderr
    with sqlite3.connect(tmp_path / "n.db") as db:  # nothing ran, nothing was stored
        assert db.execute("select count(*) from instances").fetchone() == (0,)


def test_without_the_extra_validate_refuses_naming_it(tmp_path: Path) -> None:
    diagram = approval_process(tmp_path / "approval.bpmn")
    done = without_extra(tmp_path, "validate", diagram)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    refused = [line for line in done.stdout.splitlines() if "bpmn-engine[js]" in line]
    assert [line.split()[-1] for line in refused] == ["[score]", "[yes]", "[no]"]
    assert all(" error executable " in line for line in refused)


def _started(db: Path) -> bool:
    try:
        with sqlite3.connect(db) as connection:
            rows = connection.execute("select 1 from variables where name = 'ready'").fetchall()
    except sqlite3.Error:
        return False
    return bool(rows)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX")
def test_ctrl_c_stops_a_javascript_loop(tmp_path: Path) -> None:
    db = tmp_path / "long.db"
    diagram = script_process(
        tmp_path / "long.bpmn", "execution.setVariable('ready', true)", "for (;;) {}"
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "run", diagram, "--db", str(db), "--checkpoint", "step"],
        cwd=ROOT,
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
    assert "Traceback" not in err
