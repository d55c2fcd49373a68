"""Signals without a signalRef are addressed by the event's name (as SpiffWorkflow reads
them, like messages: `test_message_names.py`); a signal event with neither is refused before
the first step, by `bpmn run` and `bpmn validate` alike."""

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
    <startEvent id="s1"/>{flow("s1", "work")}
    <userTask id="work"/>{flow("work", "e1")}
    <boundaryEvent id="stop" name="stop" attachedToRef="work"><signalEventDefinition/>
    </boundaryEvent>{flow("stop", "stopped")}
    <endEvent id="e1"/><endEvent id="stopped"/>
  </process>
  <process id="sender" isExecutable="true">
    <startEvent id="s2"/>{flow("s2", "send")}
    <intermediateThrowEvent id="send" name="stop"><signalEventDefinition/>
    </intermediateThrowEvent>{flow("send", "e2")}
    <endEvent id="e2"/>
  </process>
</definitions>
"""


def test_a_boundary_and_a_throw_with_names_only_meet_by_name(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "pair.bpmn"
    path.write_text(PAIR)
    waiter = engine.start(path, "waiter")
    assert waiter.run().state == "waiting"
    assert engine.start(path, "sender").run().state == "completed"
    outcome = engine.instance(waiter.id).outcome()
    assert outcome.state == "completed" and outcome.end_event == "stopped"


NAMELESS = (
    f'<startEvent id="s"/>{flow("s", "work")}<userTask id="work"/>{flow("work", "e")}'
    '<boundaryEvent id="stop" attachedToRef="work"><signalEventDefinition id="sd"/>'
    f'</boundaryEvent>{flow("stop", "e")}<endEvent id="e"/>'
)


@pytest.mark.parametrize(
    "body",
    [
        NAMELESS,
        f'<startEvent id="s"/>{flow("s", "stop")}<intermediateThrowEvent id="stop">'
        f'<signalEventDefinition/></intermediateThrowEvent>{flow("stop", "e")}<endEvent id="e"/>',
        f'<startEvent id="s"/>{flow("s", "stop")}<intermediateCatchEvent id="stop">'
        f'<signalEventDefinition/></intermediateCatchEvent>{flow("stop", "e")}<endEvent id="e"/>',
    ],
)
def test_a_signal_with_neither_ref_nor_name_is_refused_before_the_first_step(
    bpmn: Bpmn, engine: Engine, body: str
) -> None:
    path = bpmn(body)
    with pytest.raises(LoadError) as refused:
        engine.start(path, "p")
    assert refused.value.element_id == "stop" and refused.value.line
    assert "names no signal" in str(refused.value)
    [finding] = [f for f in validate([path]).findings if f.rule == "executable"]
    assert (finding.element, finding.severity.value) == ("stop", "error")


def test_bpmn_run_refuses_a_nameless_signal_with_exit_2(bpmn: Bpmn, tmp_path: Path) -> None:
    path = bpmn(NAMELESS)
    done = subprocess.run(
        [sys.executable, "-m", "cli", "run", str(path), "--db", ":memory:"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert f"{path.name}:" in done.stderr and "stop" in done.stderr
    assert "names no signal" in done.stderr and "Traceback" not in done.stderr
