"""Compensation through a called process is not run yet, so it is refused before the first
step (by `Engine.start`, what `bpmn run` calls, and by `bpmn validate`'s executable rule):
a compensation thrown in a process must never silently skip what a call activity's child
did. What still runs: a call activity with its own boundary handler, and a called process
holding nothing to compensate."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine
from bpmn_engine.errors import LoadError
from bpmn_engine.validate import validate

from ..conftest import HEADER

THROW = '<intermediateThrowEvent id="t"><compensateEventDefinition/></intermediateThrowEvent>'


def script(task_id: str, text: str, extra: str = "") -> str:
    return (
        f'<scriptTask id="{task_id}" scriptFormat="python"{extra}>'
        f"<script>{text}</script></scriptTask>"
    )


def compensable(task_id: str) -> str:
    return (
        script(task_id, f'log = log + ["{task_id}"]')
        + f'<boundaryEvent id="{task_id}_comp" attachedToRef="{task_id}">'
        "<compensateEventDefinition/></boundaryEvent>"
        + script(f"undo_{task_id}", f'log = log + ["undo {task_id}"]', ' isForCompensation="true"')
        + f'<association id="{task_id}_a" sourceRef="{task_id}_comp" targetRef="undo_{task_id}"/>'
    )


def caller(call: str, extra: str = "", throw: str = THROW, pid: str = "parent") -> str:
    """A process that calls, then throws compensation (the call activity is on line 3)."""
    return (
        f'\n<process id="{pid}" isExecutable="true"><startEvent id="{pid}_s"/>\n{call}\n{extra}'
        + throw.replace('id="t"', f'id="{pid}_t"')
        + f'<endEvent id="{pid}_e"/>'
        f'<sequenceFlow id="{pid}_1" sourceRef="{pid}_s" targetRef="call"/>'
        f'<sequenceFlow id="{pid}_2" sourceRef="call" targetRef="{pid}_t"/>'
        f'<sequenceFlow id="{pid}_3" sourceRef="{pid}_t" targetRef="{pid}_e"/></process>'
    )


def child(body: str, first: str = "c", pid: str = "child") -> str:
    return (
        f'\n<process id="{pid}" isExecutable="true"><startEvent id="{pid}_s"/>{body}'
        f'<endEvent id="{pid}_e"/>'
        f'<sequenceFlow id="{pid}_1" sourceRef="{pid}_s" targetRef="{first}"/>'
        f'<sequenceFlow id="{pid}_2" sourceRef="{first}" targetRef="{pid}_e"/></process>'
    )


def diagram(tmp_path: Path, *processes: str) -> Path:
    path = tmp_path / "calls.bpmn"
    path.write_text(HEADER + "".join(processes) + "\n</definitions>")
    return path


CALL = '<callActivity id="call" calledElement="child"/>'
CHILD_EVENT_SUBPROCESS = child(
    script("c", 'log = log + ["c"]') + '<subProcess id="comp" triggeredByEvent="true">'
    '<startEvent id="cs2"><compensateEventDefinition/></startEvent>'
    + script("undo", 'log = log + ["undo child"]')
    + '<endEvent id="ce2"/><sequenceFlow id="e1" sourceRef="cs2" targetRef="undo"/>'
    '<sequenceFlow id="e2" sourceRef="undo" targetRef="ce2"/></subProcess>'
)


def assert_refused(path: Path, element: str = "call", line: int = 3) -> None:
    with pytest.raises(LoadError) as refused:
        Engine(path.parent / "e.db").start(path, "parent", {"log": []})
    assert refused.value.element_id == element
    assert refused.value.line == line
    assert refused.value.file == str(path)
    assert "compensating the called process" in str(refused.value)
    errors = [f for f in validate(path).findings if f.rule == "executable" and f.element == element]
    assert errors and "compensating the called process" in errors[0].message
    assert errors[0].line == line
    assert not Engine(path.parent / "e.db").instances()  # nothing started


def test_a_called_process_with_compensable_activities_is_refused(tmp_path: Path) -> None:
    assert_refused(diagram(tmp_path, caller(CALL), child(compensable("c"))))


def test_a_called_process_with_a_compensation_event_subprocess_is_refused(tmp_path: Path) -> None:
    assert_refused(diagram(tmp_path, caller(CALL), CHILD_EVENT_SUBPROCESS))


def test_a_multi_instance_call_is_refused(tmp_path: Path) -> None:
    mi = (
        '<callActivity id="call" calledElement="child"><multiInstanceLoopCharacteristics '
        'isSequential="true"><loopCardinality>2</loopCardinality>'
        "</multiInstanceLoopCharacteristics></callActivity>"
    )
    assert_refused(diagram(tmp_path, caller(mi), child(compensable("c"))))


def test_a_computed_called_element_is_refused_in_a_process_that_compensates(
    tmp_path: Path,
) -> None:
    computed = '<callActivity id="call" calledElement="${which}"/>'
    assert_refused(diagram(tmp_path, caller(computed), child(script("c", "x = 1"))))


def test_a_grandchild_with_compensable_activities_is_refused_at_the_call(tmp_path: Path) -> None:
    middle = child('<callActivity id="c" calledElement="grandchild"/>')
    grandchild = child(compensable("g"), first="g", pid="grandchild")
    assert_refused(diagram(tmp_path, caller(CALL), middle, grandchild))


def test_a_child_that_compensates_over_its_own_call_is_refused(tmp_path: Path) -> None:
    middle = caller('<callActivity id="call" calledElement="grandchild"/>', pid="child")
    middle = middle.replace('id="call"', 'id="call2"').replace('"call"', '"call2"')
    grandchild = child(compensable("g"), first="g", pid="grandchild")
    root = caller(CALL, throw='<intermediateThrowEvent id="t"/>')  # the root throws nothing
    path = diagram(tmp_path, root, middle, grandchild)
    with pytest.raises(LoadError) as refused:
        Engine(tmp_path / "e.db").start(path, "parent", {"log": []})
    assert (refused.value.element_id, refused.value.line) == ("call2", 6)
    assert "compensating the called process 'grandchild'" in str(refused.value)
    messages = [f.message for f in validate(path).findings if f.rule == "executable"]
    assert sum("compensating the called process 'grandchild'" in m for m in messages) == 1


def test_a_cancel_end_event_over_a_call_in_a_transaction_is_refused(tmp_path: Path) -> None:
    transaction = (
        '<transaction id="tx"><startEvent id="ts"/>'
        '<callActivity id="call" calledElement="child"/>'
        '<endEvent id="te"><cancelEventDefinition/></endEvent>'
        '<sequenceFlow id="t1" sourceRef="ts" targetRef="call"/>'
        '<sequenceFlow id="t2" sourceRef="call" targetRef="te"/></transaction>'
        '<boundaryEvent id="cb" attachedToRef="tx"><cancelEventDefinition/></boundaryEvent>'
    )
    root = (
        '\n<process id="parent" isExecutable="true"><startEvent id="ps"/>\n'
        + transaction
        + '<endEvent id="pe"/><endEvent id="pc"/>'
        '<sequenceFlow id="p1" sourceRef="ps" targetRef="tx"/>'
        '<sequenceFlow id="p2" sourceRef="tx" targetRef="pe"/>'
        '<sequenceFlow id="p3" sourceRef="cb" targetRef="pc"/></process>'
    )
    assert_refused(diagram(tmp_path, root, child(compensable("c"))))


def test_a_call_activity_with_its_own_handler_still_runs_it(tmp_path: Path) -> None:
    own = (
        CALL + '<boundaryEvent id="call_comp" attachedToRef="call"><compensateEventDefinition/>'
        "</boundaryEvent>"
        + script("undo_call", 'log = log + ["undo call"]', ' isForCompensation="true"')
        + '<association id="ca" sourceRef="call_comp" targetRef="undo_call"/>'
    )
    path = diagram(tmp_path, caller(own), child(compensable("c")))
    assert not [f for f in validate(path).findings if f.rule == "executable"]
    outcome = Engine(tmp_path / "e.db").start(path, "parent", {"log": []}).run()
    assert outcome.state == "completed"
    assert outcome.variables["log"] == ["c", "undo call"]


def test_a_called_process_with_nothing_to_compensate_runs(tmp_path: Path) -> None:
    path = diagram(tmp_path, caller(CALL), child(script("c", 'log = log + ["c"]')))
    assert not [f for f in validate(path).findings if f.rule == "executable"]
    outcome = Engine(tmp_path / "e.db").start(path, "parent", {"log": []}).run()
    assert outcome.state == "completed"
    assert outcome.variables["log"] == ["c"]


def test_a_process_that_throws_no_compensation_calls_a_compensable_child(tmp_path: Path) -> None:
    root = caller(CALL, throw='<intermediateThrowEvent id="t"/>')
    path = diagram(tmp_path, root, child(compensable("c")))
    outcome = Engine(tmp_path / "e.db").start(path, "parent", {"log": []}).run()
    assert outcome.state == "completed"
    assert outcome.variables["log"] == ["c"]


def test_deploying_or_starting_at_an_event_is_refused_too(tmp_path: Path) -> None:
    path = diagram(tmp_path, caller(CALL), child(compensable("c")))
    engine = Engine(tmp_path / "e.db")
    with pytest.raises(LoadError) as refused:
        engine.deploy_processes(path)
    assert (refused.value.element_id, refused.value.line) == ("call", 3)
    assert not engine.store.deployments()
    with pytest.raises(LoadError) as refused:
        engine.start_at(path, "parent", "parent_s", {"log": []})
    assert "compensating the called process 'child'" in str(refused.value)
    assert not engine.instances()


def test_a_called_process_found_nowhere_is_refused_for_that(tmp_path: Path) -> None:
    missing = '<callActivity id="call" calledElement="nowhere"/>'
    path = diagram(tmp_path, caller(missing))
    with pytest.raises(LoadError) as refused:
        Engine(tmp_path / "e.db").start(path, "parent", {"log": []})
    assert "calls process 'nowhere', which is in none of the files given" in str(refused.value)
