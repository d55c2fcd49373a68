"""Transactions: a cancel end event compensates what completed inside, last first, and leaves
through the cancel boundary event; an error leaves at once without compensation; the history
and `Instance.transactions()` tell a cancelled transaction from a completed one."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine import Engine
from tests.runtime.conftest import Bpmn
from tests.runtime.events.test_compensation import chain, compensable, script

HEAD = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <error id="Err_Car" errorCode="NO_CAR"/>
  <process id="p" isExecutable="true">
"""


def trip(ending: str) -> str:
    """Book flight and hotel in a transaction, then `ending` decides how it ends."""
    return (
        '<startEvent id="s"/>'
        '<transaction id="tx"><startEvent id="ts"/>'
        + compensable("flight", "flight", "cancel flight")
        + compensable("hotel", "hotel", "cancel hotel")
        + '<exclusiveGateway id="car" default="no_car"/>'
        '<sequenceFlow id="car_ok" sourceRef="car" targetRef="booked">'
        "<conditionExpression>car_available</conditionExpression></sequenceFlow>"
        '<sequenceFlow id="no_car" sourceRef="car" targetRef="fail"/>'
        '<endEvent id="booked"/>'
        + ending
        + chain("ts", "flight", "hotel", "car")
        + "</transaction>"
        '<boundaryEvent id="cancelled" attachedToRef="tx"><cancelEventDefinition/></boundaryEvent>'
        '<boundaryEvent id="failed" attachedToRef="tx"><errorEventDefinition errorRef="Err_Car"/>'
        "</boundaryEvent>"
        + script("notify", 'log = log + ["trip cancelled"]')
        + '<endEvent id="done"/><endEvent id="undone"/><endEvent id="broken"/>'
        + chain("s", "tx", "done")
        + chain("cancelled", "notify", "undone")
        + chain("failed", "broken")
    )


CANCEL = '<endEvent id="fail"><cancelEventDefinition/></endEvent>'
ERROR = '<endEvent id="fail"><errorEventDefinition errorRef="Err_Car"/></endEvent>'


def test_a_cancel_end_event_compensates_in_reverse_and_leaves_by_the_cancel_boundary(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(trip(CANCEL)), variables={"log": [], "car_available": False})
    outcome = instance.run()
    assert outcome.state == "completed"
    assert outcome.end_event == "undone"
    assert outcome.variables["log"] == [
        *("flight", "hotel"),
        *("cancel hotel", "cancel flight"),
        "trip cancelled",
    ]
    assert instance.transactions() == [{"element": "tx", "track": 1, "outcome": "cancelled"}]
    events = [e.event for e in instance.history()]
    assert events.index("transaction.cancelled") > events.index("compensation.completed")


def test_a_transaction_that_ends_normally_is_completed_and_nothing_is_compensated(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(trip(CANCEL)), variables={"log": [], "car_available": True})
    outcome = instance.run()
    assert outcome.end_event == "done"
    assert outcome.variables["log"] == ["flight", "hotel"]
    assert instance.transactions() == [{"element": "tx", "track": 1, "outcome": "completed"}]


def test_an_error_leaves_the_transaction_without_compensation(
    bpmn: Bpmn, engine: Engine, tmp_path: Path
) -> None:
    path = tmp_path / "error.bpmn"
    path.write_text(HEAD + trip(ERROR) + "</process></definitions>")
    instance = engine.start(path, variables={"log": [], "car_available": False})
    outcome = instance.run()
    assert outcome.end_event == "broken"
    assert outcome.variables["log"] == ["flight", "hotel"]  # nothing undone
    assert not any(e.event.startswith("compensation.started") for e in instance.history())
    assert instance.transactions() == [{"element": "tx", "track": 1, "outcome": "interrupted"}]


def test_a_cancel_ends_the_other_tokens_of_the_transaction_first(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = (
        '<startEvent id="s"/>'
        '<transaction id="tx"><startEvent id="ts"/><parallelGateway id="split"/>'
        + compensable("flight", "flight", "cancel flight")
        + '<userTask id="approve"/>'
        + '<endEvent id="fail"><cancelEventDefinition/></endEvent><endEvent id="ok"/>'
        + chain("ts", "split", "flight", "fail")
        + chain("split", "approve", "ok")
        + "</transaction>"
        '<boundaryEvent id="cancelled" attachedToRef="tx"><cancelEventDefinition/></boundaryEvent>'
        '<endEvent id="done"/><endEvent id="undone"/>'
        + chain("s", "tx", "done")
        + chain("cancelled", "undone")
    )
    instance = engine.start(bpmn(body), variables={"log": []})
    outcome = instance.run()
    assert outcome.end_event == "undone"
    assert outcome.variables["log"] == ["flight", "cancel flight"]
    assert instance.user_tasks() == []
    history = [(e.event, e.element) for e in instance.history()]
    assert history.index(("element.terminated", "approve")) < history.index(
        ("compensation.started", "flight")
    )
    assert instance.transactions()[0]["outcome"] == "cancelled"
