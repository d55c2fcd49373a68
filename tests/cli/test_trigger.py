"""`bpmn trigger`, the waiting hint that names it, `bpmn show`, `trigger` in `bpmn step`, and
`--record`: wait states the API triggers (runtime behaviour:
tests/runtime/step/test_triggers.py)."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine import Engine
from bpmn_engine.cli.step import Stepper
from tests.cli.conftest import Bpmn

HEAD = (
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">'
)
DELIVERY = f"""<?xml version="1.0" encoding="UTF-8"?>
{HEAD}
<process id="delivery" isExecutable="true">
  <startEvent id="S"/>
  <intermediateCatchEvent id="Wait_Parcel" name="Parcel arrives"/>
  <receiveTask id="Sign"/>
  <endEvent id="E"/>
  <sequenceFlow id="f1" sourceRef="S" targetRef="Wait_Parcel"/>
  <sequenceFlow id="f2" sourceRef="Wait_Parcel" targetRef="Sign"/>
  <sequenceFlow id="f3" sourceRef="Sign" targetRef="E"/>
</process>
</definitions>
"""
CALLS = f"""<?xml version="1.0" encoding="UTF-8"?>
{HEAD}
<process id="order" isExecutable="true">
  <startEvent id="OS"/>
  <callActivity id="Ship" calledElement="delivery"/>
  <endEvent id="OE"/>
  <sequenceFlow id="o1" sourceRef="OS" targetRef="Ship"/>
  <sequenceFlow id="o2" sourceRef="Ship" targetRef="OE"/>
</process>
{DELIVERY.split(HEAD)[1].replace("</definitions>", "")}
</definitions>
"""


def write(tmp_path: Path, text: str = DELIVERY) -> str:
    path = tmp_path / "delivery.bpmn"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_run_waits_and_its_hint_names_bpmn_trigger(bpmn: Bpmn, tmp_path: Path) -> None:
    ran = bpmn("run", write(tmp_path), "--db", "d.db")
    assert ran.returncode == 3, ran.stderr
    assert "Parcel arrives waits for a trigger" in ran.stdout
    instance = ran.stdout.split("waiting instance ")[1].split()[0]
    assert (
        f"waiting at Wait_Parcel (Parcel arrives) for a trigger; to move it on: "
        f"bpmn trigger {instance} Wait_Parcel --db d.db"
    ) in ran.stdout
    code, lines = bpmn.json_lines("run", write(tmp_path), "--db", "d.db")
    assert code == 3
    assert lines[-1]["waiting_for"] == [
        {"element": "Wait_Parcel", "reason": "trigger", "track": 1, "name": "Parcel arrives"}
    ]


def test_trigger_moves_on_with_the_variables_and_runs_on(bpmn: Bpmn, tmp_path: Path) -> None:
    code, lines = bpmn.json_lines("run", write(tmp_path))
    instance = lines[-1]["instance"]
    moved = bpmn("trigger", instance, "Parcel arrives", "--var", "weight=3")
    assert moved.returncode == 3, moved.stderr
    assert f"bpmn trigger {instance} Sign" in moved.stdout  # the next wait, by its id
    code, lines = bpmn.json_lines("trigger", instance, "Sign", "--var", 'by="Ann"')
    assert code == 0
    assert lines[-1]["event"] == "instance.completed"
    assert lines[-1]["variables"] == {"by": "Ann", "weight": 3}


def test_trigger_refuses_what_does_not_wait_clearly(bpmn: Bpmn, tmp_path: Path) -> None:
    _, lines = bpmn.json_lines("run", write(tmp_path))
    instance = lines[-1]["instance"]
    early = bpmn("trigger", instance, "Sign")
    assert early.returncode == 2
    assert (
        f"no token of instance {instance} waits at 'Sign' for a trigger; waiting for a "
        "trigger: Wait_Parcel (Parcel arrives)"
    ) in early.stderr
    unknown = bpmn("trigger", "ffffffff", "Sign")
    assert unknown.returncode == 2
    assert "Traceback" not in early.stderr + unknown.stderr


def test_show_lists_the_wait_with_its_command(bpmn: Bpmn, tmp_path: Path) -> None:
    _, lines = bpmn.json_lines("run", write(tmp_path))
    instance = lines[-1]["instance"]
    shown = bpmn("show", instance)
    assert shown.returncode == 0
    assert (
        f"waiting: Wait_Parcel (Parcel arrives) for a trigger: bpmn trigger {instance} Wait_Parcel"
    ) in shown.stdout
    _, lines = bpmn.json_lines("show", instance)
    assert lines[0]["waiting_for"][0]["reason"] == "trigger"


def test_a_wait_in_a_called_instance_is_triggered_through_the_root(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    ran = bpmn("run", write(tmp_path, CALLS), "--process", "order")
    assert ran.returncode == 3, ran.stderr
    root = ran.stdout.split("waiting instance ")[1].split()[0]
    assert f"waiting at Wait_Parcel for a trigger: bpmn trigger {root} Wait_Parcel" in ran.stdout
    assert bpmn("trigger", root, "Wait_Parcel").returncode == 3
    code, lines = bpmn.json_lines("trigger", root, "Sign", "--var", "signed=true")
    assert code == 0
    assert lines[-1]["event"] == "instance.completed"
    assert lines[-1]["instance"] == root
    assert lines[-1]["variables"] == {"signed": True}  # back from the called instance


def test_trigger_in_bpmn_step_and_back(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "step.db")
    s = Stepper(engine, engine.start(write(tmp_path)))
    assert s.execute("continue").ok
    [action] = s.actions()
    assert (action.kind, action.element) == ("trigger", "Wait_Parcel")
    refused = s.execute("next")  # never taken by the stepper itself
    assert not refused.ok and "trigger a wait" in refused.message
    refused = s.execute("next 1")
    assert refused.message == "Wait_Parcel waits for a trigger: trigger Wait_Parcel ..."
    assert not s.execute("trigger Sign").ok
    report = s.execute("trigger 'Parcel arrives' weight=3")
    assert report.ok, report.message
    assert report.message == "triggered Parcel arrives"
    assert report.variable_changes() == {"weight": (None, 3)}
    assert s.execute("back").ok
    assert [t["element"] for t in s.instance.tokens()] == ["Wait_Parcel"]
    assert s.instance.variables == {}
    engine.close()


def test_trigger_is_recorded_and_replays(bpmn: Bpmn, tmp_path: Path) -> None:
    path = write(tmp_path)
    run = bpmn("run", path, "--record", "delivery.bpmntest.toml")
    assert run.returncode == 3, run.stdout + run.stderr
    instance = run.stdout.split("bpmn trigger ")[1].split()[0]
    for element in ("Wait_Parcel", "Sign"):
        done = bpmn(
            "trigger", instance, element, "--var", "n=1", "--record", "delivery.bpmntest.toml"
        )
        assert done.returncode in (0, 3), done.stdout + done.stderr
    text = (tmp_path / "delivery.bpmntest.toml").read_text()
    assert 'trigger = "Wait_Parcel"' in text and 'trigger = "Sign"' in text
    replay = bpmn("test", "delivery.bpmntest.toml")
    assert replay.returncode == 0, replay.stdout
    assert "1 passed" in replay.stdout
