"""The call tree as an object (`Engine.tree`, `CallTree`): what the command line, the test kit
and the stepper ask of a tree, asked in one place."""

from __future__ import annotations

import pytest

from bpmn_engine import Engine, UsageError
from tests.runtime.conftest import Bpmn, flow


def process(pid: str, body: str) -> str:
    return f'<process id="{pid}" isExecutable="true">{body}</process>'


def three_levels(bpmn: Bpmn):
    """top calls middle, which calls bottom, which waits at user task Sign."""
    top = '<startEvent id="S"/><callActivity id="C" calledElement="middle"/><endEvent id="E"/>'
    middle = (
        '<startEvent id="MS"/><callActivity id="MC" calledElement="bottom"/><endEvent id="ME"/>'
    )
    bottom = '<startEvent id="BS"/><userTask id="Sign" name="Sign it"/><endEvent id="BE"/>'
    body = (
        top
        + flow("S", "C")
        + flow("C", "E")
        + "</process>"
        + process("middle", middle + flow("MS", "MC") + flow("MC", "ME"))
        + process("bottom", bottom + flow("BS", "Sign") + flow("Sign", "BE"))
        + '<process id="unused" isExecutable="false">'
    )
    return bpmn(body, process='id="top" isExecutable="true"')


def test_a_tree_knows_its_members_top_first_and_breadth_first(bpmn: Bpmn, engine: Engine):
    # given
    top = engine.start(three_levels(bpmn), "top")
    top.run()
    # when
    tree = engine.tree(top.id)
    # then
    members = tree.members()
    assert [m.process_id for m in members] == ["top", "middle", "bottom"]
    assert tree.ids == [m.id for m in members]
    assert [m.id for m in tree.called()] == tree.ids[1:]
    assert [(m.process_id, t.element) for m, t in tree.waiting_tasks()] == [("bottom", "Sign")]


def test_a_tree_finds_a_task_anywhere_in_it_and_names_what_waits_when_not(
    bpmn: Bpmn, engine: Engine
):
    # given
    top = engine.start(three_levels(bpmn), "top")
    top.run()
    tree = engine.tree(top)
    # when / then: by element id or name, three levels down
    assert tree.task_holder("Sign").process_id == "bottom"
    assert tree.task_holder("Sign it").process_id == "bottom"
    with pytest.raises(UsageError) as refused:
        tree.task_holder("Approve")
    assert str(refused.value) == (
        f"instance {top.id} or any instance it called has no waiting user task 'Approve'; "
        "waiting: Sign (Sign it)"
    )


def test_the_root_of_any_member_is_the_top_instance(bpmn: Bpmn, engine: Engine):
    top = engine.start(three_levels(bpmn), "top")
    top.run()
    bottom = engine.tree(top).members()[-1]
    assert engine.root_of(bottom.id).id == top.id
    assert engine.root_of(top).id == top.id
    assert engine.tree(bottom).ids == [bottom.id]  # a member's own tree: itself and below
