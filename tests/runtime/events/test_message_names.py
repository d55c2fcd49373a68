"""Messages without a messageRef are addressed by the event's name (as SpiffWorkflow does);
a message event with neither is refused before the first step. A receive task with neither
is no message event: it waits for `bpmn trigger` (`test_triggers.py`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bpmn_engine import Engine
from bpmn_engine.errors import LoadError
from bpmn_engine.validate import validate
from tests.runtime.conftest import HEADER, Bpmn, flow

PAIR = f"""<?xml version="1.0"?>
{HEADER}
  <process id="waiter" isExecutable="true">
    <startEvent id="s1"/>{flow("s1", "ping")}
    <intermediateCatchEvent id="ping" name="ping"><messageEventDefinition/>
    </intermediateCatchEvent>{flow("ping", "e1")}
    <endEvent id="e1"/>
  </process>
  <process id="sender" isExecutable="true">
    <startEvent id="s2"/>{flow("s2", "send")}
    <intermediateThrowEvent id="send" name="ping"><messageEventDefinition/>
    </intermediateThrowEvent>{flow("send", "e2")}
    <endEvent id="e2"/>
  </process>
</definitions>
"""


def test_a_catch_and_a_throw_with_names_only_meet_by_name(tmp_path: Path, engine: Engine) -> None:
    path = tmp_path / "pair.bpmn"
    path.write_text(PAIR)
    waiter = engine.start(path, "waiter")
    assert waiter.run().state == "waiting"
    assert engine.start(path, "sender").run().state == "completed"
    assert engine.instance(waiter.id).outcome().state == "completed"


def test_a_receive_task_without_message_ref_waits_for_its_name(bpmn: Bpmn, engine: Engine) -> None:
    path = bpmn(
        f'<startEvent id="s"/>{flow("s", "r")}<receiveTask id="r" name="parcel"/>'
        f'{flow("r", "e")}<endEvent id="e"/>'
    )
    instance = engine.start(path, "p")
    assert instance.run().state == "waiting"
    [woken] = engine.publish_message("parcel", None, {"weight": 3})
    assert woken.run().state == "completed"
    assert woken.variables["weight"] == 3


NAMELESS = (
    f'<startEvent id="s"/>{flow("s", "ping")}'
    '<intermediateCatchEvent id="ping"><messageEventDefinition id="md"/>'
    f'</intermediateCatchEvent>{flow("ping", "e")}<endEvent id="e"/>'
)


@pytest.mark.parametrize(
    "body",
    [
        NAMELESS,
        f'<startEvent id="s"/>{flow("s", "ping")}<intermediateThrowEvent id="ping">'
        f'<messageEventDefinition/></intermediateThrowEvent>{flow("ping", "e")}<endEvent id="e"/>',
        '<startEvent id="ping"><messageEventDefinition/></startEvent>'
        f'{flow("ping", "e")}<endEvent id="e"/>',
    ],
)
def test_a_message_with_neither_ref_nor_name_is_refused_before_the_first_step(
    bpmn: Bpmn, engine: Engine, body: str
) -> None:
    path = bpmn(body)
    with pytest.raises(LoadError) as refused:
        engine.start(path, "p")
    assert refused.value.element_id == "ping"
    assert "names no message" in str(refused.value)
    [finding] = [f for f in validate([path]).findings if f.rule == "executable"]
    assert (finding.element, finding.severity.value) == ("ping", "error")
    assert "names no message" in finding.message


def test_bpmn_run_refuses_a_nameless_message_with_exit_2(bpmn: Bpmn, tmp_path: Path) -> None:
    path = bpmn(NAMELESS)
    done = subprocess.run(
        [sys.executable, "-m", "cli", "run", str(path), "--db", str(tmp_path / "r.db")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert f"{path.name}:" in done.stderr and "ping" in done.stderr
    assert "names no message" in done.stderr
    assert "Traceback" not in done.stderr


TASKS = f"""<?xml version="1.0"?>
{HEADER}
  <message id="M_Note" name="note"/>
  <process id="reader" isExecutable="true">
    <startEvent id="s1"/>{flow("s1", "read")}
    <receiveTask id="read"><messageEventDefinition messageRef="M_Note"/></receiveTask>
    {flow("read", "e1")}<endEvent id="e1"/>
  </process>
  <process id="writer" isExecutable="true">
    <startEvent id="s2"/>{flow("s2", "write")}
    <sendTask id="write"><messageEventDefinition messageRef="M_Note"/></sendTask>
    {flow("write", "e2")}<endEvent id="e2"/>
  </process>
</definitions>
"""


def test_send_and_receive_tasks_name_their_message_by_an_inner_definition(
    tmp_path: Path, engine: Engine
) -> None:
    # as SpiffWorkflow reads them: a messageEventDefinition inside the task
    path = tmp_path / "tasks.bpmn"
    path.write_text(TASKS)
    reader = engine.start(path, "reader")
    assert reader.run().state == "waiting"
    assert reader.outcome().waiting_for[0]["name"] == "note"
    assert engine.start(path, "writer").run().state == "completed"
    assert engine.instance(reader.id).outcome().state == "completed"
