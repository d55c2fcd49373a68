"""`bpmn run`, `step`, `complete`, `test` and `validate` find a called process in a file
beside the caller's, or in `--path DIR`, and say which file they took."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from .conftest import Bpmn

HEAD = (
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">'
)


def caller(path: Path, called: str = "child", before: str = "") -> Path:
    first = "wait" if before else "call"
    then = '<sequenceFlow id="p1" sourceRef="wait" targetRef="call"/>' if before else ""
    return write(
        path,
        f"""<process id="parent" isExecutable="true">
    <startEvent id="ps"/>
    <sequenceFlow id="p0" sourceRef="ps" targetRef="{first}"/>{before}{then}
    <callActivity id="call" calledElement="{called}"/>
    <sequenceFlow id="p2" sourceRef="call" targetRef="pe"/>
    <endEvent id="pe"/>
  </process>""",
    )


def callee(path: Path, value: int = 1) -> Path:
    return write(
        path,
        f"""<process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="work"/>
    <scriptTask id="work" scriptFormat="python"><script>y = {value}</script></scriptTask>
    <sequenceFlow id="c2" sourceRef="work" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>""",
    )


def write(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{HEAD}\n  {body}\n</definitions>\n")
    return path


def test_run_calls_the_process_beside_and_says_which_file(bpmn: Bpmn) -> None:
    caller(bpmn.cwd / "app" / "caller.bpmn")
    callee(bpmn.cwd / "app" / "child.bpmn", 7)
    code, lines = bpmn.json_lines("run", "app/caller.bpmn", "--db", ":memory:")
    assert code == 0
    [found] = [line for line in lines if line["event"] == "process.found"]
    assert found["message"] == "calls child from app/child.bpmn (found beside app/caller.bpmn)"
    assert lines[-1]["event"] == "instance.completed" and lines[-1]["variables"]["y"] == 7
    people = bpmn("run", "app/caller.bpmn", "--db", ":memory:")
    assert people.returncode == 0, people.stderr
    assert "calls child from app/child.bpmn (found beside app/caller.bpmn)" in people.stdout


def test_run_searches_the_folders_given_with_path(bpmn: Bpmn) -> None:
    caller(bpmn.cwd / "app" / "caller.bpmn")
    callee(bpmn.cwd / "lib" / "child.bpmn", 3)
    alone = bpmn("run", "app/caller.bpmn", "--db", ":memory:")
    assert alone.returncode == 2 and "Traceback" not in alone.stderr
    assert "nor in the BPMN files beside app/caller.bpmn" in alone.stderr
    code, lines = bpmn.json_lines("run", "app/caller.bpmn", "--db", ":memory:", "--path", "lib")
    assert code == 0 and lines[-1]["variables"]["y"] == 3
    assert "(found in the search path lib)" in json.dumps(lines)
    missing = bpmn("run", "app/caller.bpmn", "--db", ":memory:", "--path", "nowhere")
    assert missing.returncode == 2 and "'nowhere' does not exist" in missing.stderr


def test_two_files_defining_the_process_are_refused_naming_both(bpmn: Bpmn) -> None:
    caller(bpmn.cwd / "app" / "caller.bpmn")
    callee(bpmn.cwd / "app" / "child.bpmn")
    callee(bpmn.cwd / "lib" / "copy.bpmn")
    done = bpmn("run", "app/caller.bpmn", "--db", ":memory:", "--path", "lib")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: app/caller.bpmn:5: call: calls process 'child', which")
    assert "app/child.bpmn (beside app/caller.bpmn)" in done.stderr
    assert "lib/copy.bpmn (in the search path lib)" in done.stderr
    assert done.stdout == ""  # before the first step


def test_complete_and_resume_take_path_for_a_call_made_after_the_run(bpmn: Bpmn) -> None:
    caller(bpmn.cwd / "app" / "caller.bpmn", called="${which}", before='<userTask id="wait"/>')
    callee(bpmn.cwd / "lib" / "child.bpmn", 5)
    run = ("run", "app/caller.bpmn", "--var", "which=child", "--db", "e.db", "--path", "lib")
    waiting = bpmn(*run)
    assert waiting.returncode == 3, waiting.stderr
    [root] = re.findall(r"waiting instance (\w+)", waiting.stdout)
    assert f"bpmn complete {root} wait --var NAME=VALUE --db e.db --path lib" in waiting.stdout
    without = bpmn("complete", root, "wait", "--db", "e.db")  # the call is computed now
    assert without.returncode == 1 and "no process 'child' to call" in without.stdout
    done = bpmn("resume", root, "--db", "e.db", "--path", "lib")
    assert done.returncode == 0, done.stderr
    assert "calls child from lib/child.bpmn (found in the search path lib)" in done.stdout


def test_worker_takes_path(bpmn: Bpmn) -> None:
    timer = (
        '<intermediateCatchEvent id="wait"><timerEventDefinition><timeDuration>PT0.05S'
        "</timeDuration></timerEventDefinition></intermediateCatchEvent>"
    )
    caller(bpmn.cwd / "app" / "caller.bpmn", called="${which}", before=timer)
    callee(bpmn.cwd / "lib" / "child.bpmn", 6)
    code, lines = bpmn.json_lines("run", "app/caller.bpmn", "--var", "which=child", "--db", "e.db")
    assert code == 3
    time.sleep(0.1)
    done = bpmn("worker", "--once", "--db", "e.db", "--path", "lib")
    assert done.returncode == 0, done.stderr
    shown = bpmn("show", lines[-1]["instance"], "--db", "e.db", "--json")
    assert json.loads(shown.stdout)["state"] == "completed"


def test_step_finds_the_process_beside_and_in_path(bpmn: Bpmn) -> None:
    caller(bpmn.cwd / "app" / "caller.bpmn")
    callee(bpmn.cwd / "lib" / "child.bpmn")
    args = ("step", "app/caller.bpmn", "--db", ":memory:")
    assert bpmn(*args, input="continue\n").returncode == 2
    done = bpmn(*args, "--path", "lib", input="continue\n")
    assert done.returncode == 0, done.stderr
    assert "calls child from lib/child.bpmn (found in the search path lib)" in done.stdout


def test_test_runs_scenarios_whose_called_process_is_beside_or_in_path(bpmn: Bpmn) -> None:
    caller(bpmn.cwd / "app" / "caller.bpmn")
    callee(bpmn.cwd / "app" / "child.bpmn", 4)
    (bpmn.cwd / "app" / "caller.bpmntest.toml").write_text(
        'diagrams = ["caller.bpmn"]\n\n[[scenario]]\nname = "calls the child"\n\n'
        '[scenario.expect]\nstate = "completed"\nvariables = { y = 4 }\n'
    )
    beside = bpmn("test", "app")
    assert beside.returncode == 0, beside.stdout
    (bpmn.cwd / "app" / "child.bpmn").rename(bpmn.cwd / "child.bpmn")
    assert bpmn("test", "app").returncode == 1
    assert bpmn("test", "app", "--path", ".").returncode == 0


def test_validate_resolves_beside_and_in_path_and_reports_ambiguity(bpmn: Bpmn) -> None:
    caller(bpmn.cwd / "app" / "caller.bpmn")
    callee(bpmn.cwd / "lib" / "child.bpmn")
    args = ("validate", "app/caller.bpmn", "--preset", "correctness")
    alone = bpmn(*args)
    assert alone.returncode == 1 and "calledElement 'child' is not defined" in alone.stdout
    assert bpmn(*args, "--path", "lib").returncode == 0
    callee(bpmn.cwd / "app" / "child.bpmn")
    beside = bpmn(*args)
    assert beside.returncode == 0, beside.stdout
    both = bpmn(*args, "--path", "lib")
    assert both.returncode == 1
    assert "app/child.bpmn (beside app/caller.bpmn)" in both.stdout
    assert "lib/child.bpmn (in the search path lib)" in both.stdout
