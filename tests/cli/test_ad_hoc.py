"""`bpmn activate`, `activate` in `bpmn step`, and ad-hoc waits in `bpmn show`/summaries."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine import Engine
from bpmn_engine.cli.step import Stepper
from tests.cli.conftest import Bpmn

MODEL = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
<process id="triage" isExecutable="true">
  <startEvent id="S"/>
  <adHocSubProcess id="Checks" ordering="Sequential">
    <scriptTask id="Credit" scriptFormat="python">
      <script>checked = checked + ["credit"]</script>
    </scriptTask>
    <userTask id="Call"/>
    <completionCondition>len(checked) &gt;= 1</completionCondition>
  </adHocSubProcess>
  <endEvent id="E"/>
  <sequenceFlow id="f1" sourceRef="S" targetRef="Checks"/>
  <sequenceFlow id="f2" sourceRef="Checks" targetRef="E"/>
</process>
</definitions>
"""


def model(tmp_path: Path) -> str:
    path = tmp_path / "triage.bpmn"
    path.write_text(MODEL, encoding="utf-8")
    return str(path)


def started(bpmn: Bpmn, tmp_path: Path) -> str:
    code, lines = bpmn.json_lines("run", model(tmp_path), "--var", "checked=[]")
    assert code == 3
    [wait] = lines[-1]["waiting_for"]
    assert (wait["element"], wait["reason"], wait["activatable"]) == (
        "Checks",
        "ad-hoc",
        ["Credit", "Call"],
    )
    return lines[-1]["instance"]


def test_activate_runs_the_activity_and_exits_with_the_instance_state(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    instance = started(bpmn, tmp_path)
    # waiting for a person: exit 3
    code, lines = bpmn.json_lines("activate", instance, "Call")
    assert code == 3
    assert [w["element"] for w in lines[-1]["waiting_for"]] == ["Call"]
    # one at a time (Sequential): a clear refusal, exit 2, no traceback
    done = bpmn("activate", instance, "Credit")
    assert done.returncode == 2
    assert "runs one activity at a time (ordering Sequential): Call is still running" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr
    # the person finishes; the condition is still false: waiting for activations again
    assert bpmn("complete", instance, "Call").returncode == 3
    code, lines = bpmn.json_lines("activate", instance, "Credit")
    assert code == 0
    assert lines[-1]["event"] == "instance.completed"
    assert lines[-1]["variables"]["checked"] == ["credit"]


def test_activate_says_why_it_cannot(bpmn: Bpmn, tmp_path: Path) -> None:
    instance = started(bpmn, tmp_path)
    unknown = bpmn("activate", instance, "Nope")
    assert unknown.returncode == 2
    assert "no element 'Nope'" in unknown.stderr
    outside = bpmn("activate", instance, "E")
    assert outside.returncode == 2
    assert "E is not inside an ad-hoc subprocess" in outside.stderr
    nobody = bpmn("activate", "ffffffff", "Credit")
    assert nobody.returncode == 2
    assert "Traceback" not in nobody.stderr + unknown.stderr + outside.stderr


def test_show_and_the_summary_name_what_can_be_activated(bpmn: Bpmn, tmp_path: Path) -> None:
    ran = bpmn("run", model(tmp_path), "--var", "checked=[]")
    assert ran.returncode == 3
    assert "ad-hoc subprocess Checks: activatable Credit, Call" in ran.stdout
    assert "bpmn activate" in ran.stdout
    instance = started(bpmn, tmp_path)
    shown = bpmn("show", instance)
    assert shown.returncode == 0
    assert "waiting: ad-hoc subprocess Checks: activatable Credit, Call" in shown.stdout


def test_activate_in_bpmn_step(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "step.db")
    s = Stepper(engine, engine.start(model(tmp_path), variables={"checked": []}))
    assert s.execute("continue").ok
    refused = s.execute("activate Nope")
    assert not refused.ok
    assert "no element 'Nope'" in refused.message
    report = s.execute("activate Credit")
    assert report.ok
    assert report.message == "activated Credit"
    assert s.execute("continue").ok
    assert s.instance.outcome().state == "completed"
    # and back undoes the activation like any other step
    assert s.execute("back 2").ok
    assert [t["element"] for t in s.instance.tokens()] == ["Checks"]
    engine.close()


def test_activate_sets_the_variables_it_is_given_first(bpmn: Bpmn, tmp_path: Path) -> None:
    """`activate` had no --var: the activity could not be given what it reads."""
    instance = started(bpmn, tmp_path)
    code, lines = bpmn.json_lines("activate", instance, "Credit", "--var", 'checked=["call"]')
    assert code == 0
    assert lines[-1]["variables"]["checked"] == ["call", "credit"]


def test_activate_is_recorded_and_replays(bpmn: Bpmn, tmp_path: Path) -> None:
    """`activate` had no --record, and scenarios no `activate` step."""
    path = model(tmp_path)
    run = bpmn("run", path, "--var", "checked=[]", "--record", "triage.bpmntest.toml")
    assert run.returncode == 3, run.stdout + run.stderr
    instance = run.stdout.split("bpmn activate ")[1].split()[0]
    done = bpmn("activate", instance, "Credit", "--record", "triage.bpmntest.toml")
    assert done.returncode == 0, done.stdout + done.stderr
    text = (tmp_path / "triage.bpmntest.toml").read_text()
    assert 'activate = "Credit"' in text
    replay = bpmn("test", "triage.bpmntest.toml")
    assert replay.returncode == 0, replay.stdout
    assert "1 passed" in replay.stdout
