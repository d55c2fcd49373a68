"""Standard loops: repeat an activity while its loopCondition holds, at most loopMaximum times."""

from __future__ import annotations

import pytest

from bpmn_engine import Engine
from tests.runtime.conftest import Bpmn, activations, flow


def looped(code: str, condition: str | None, test_before: bool, maximum: int | None = None) -> str:
    attrs = f' testBefore="{str(test_before).lower()}"'
    attrs += f' loopMaximum="{maximum}"' if maximum is not None else ""
    text = condition.replace("<", "&lt;") if condition else None
    inner = f"<loopCondition>{text}</loopCondition>" if text else ""
    return (
        '<startEvent id="S"/>'
        f'<scriptTask id="A" scriptFormat="python">'
        f"<standardLoopCharacteristics{attrs}>{inner}</standardLoopCharacteristics>"
        f"<script>{code}</script></scriptTask>"
        '<endEvent id="E"/>' + flow("S", "A") + flow("A", "E")
    )


@pytest.mark.parametrize(
    ("test_before", "start", "runs"),
    [(False, 0, 3), (True, 0, 3), (False, 5, 1), (True, 5, 0)],
    ids=["after-loops", "before-loops", "after-runs-once", "before-runs-never"],
)
def test_the_loop_condition_is_tested_after_or_before_each_iteration(
    bpmn: Bpmn, engine: Engine, test_before: bool, start: int, runs: int
):
    # given: count up while count < 3
    path = bpmn(looped("count = count + 1", "count < 3", test_before))
    # when
    instance = engine.start(path, variables={"count": start})
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["count"] == start + runs
    assert activations(instance, "A") == ["A"] * (runs + 1)  # the body, then each iteration


def test_loop_maximum_ends_a_loop_whose_condition_always_holds(bpmn: Bpmn, engine: Engine):
    # given: loopCounter counts the iterations from 1
    path = bpmn(looped("seen = seen + [loopCounter]", "True", False, maximum=4))
    # when
    outcome = engine.start(path, variables={"seen": []}).run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["seen"] == [1, 2, 3, 4]
    assert "loopCounter" not in outcome.variables


def test_the_loop_condition_sees_the_loop_counter(bpmn: Bpmn, engine: Engine):
    path = bpmn(looped("seen = seen + [loopCounter]", "loopCounter < 2", True))
    outcome = engine.start(path, variables={"seen": []}).run()
    assert outcome.variables["seen"] == [1, 2]


def test_a_looped_user_task_waits_once_per_iteration(bpmn: Bpmn, engine: Engine):
    # given: review until approved
    body = (
        '<startEvent id="S"/><userTask id="A"><standardLoopCharacteristics>'
        "<loopCondition>not approved</loopCondition></standardLoopCharacteristics></userTask>"
        '<endEvent id="E"/>' + flow("S", "A") + flow("A", "E")
    )
    instance = engine.start(bpmn(body))
    # when: rejected twice, then approved
    for approved in (False, False, True):
        assert instance.run().state == "waiting"
        instance.complete_task("A", {"approved": approved})
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert activations(instance, "A") == ["A"] * 4
