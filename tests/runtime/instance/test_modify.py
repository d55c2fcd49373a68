"""`Instance.modify` (issue 28, item 5): an operator cancels tokens, starts tokens before or
after an element and sets variables, in one step recorded in the history; bad requests
change nothing."""

from __future__ import annotations

import pytest

from bpmn_engine import Engine, UsageError
from tests.runtime.conftest import Bpmn, events_named, flow

SPLIT = (
    '<startEvent id="s"/><parallelGateway id="f"/><parallelGateway id="j"/>'
    '<scriptTask id="bad" scriptFormat="python"><script>x = 1 / y</script></scriptTask>'
    '<userTask id="ask"/><userTask id="review"/><endEvent id="e"/>'
    + flow("s", "f")
    + flow("f", "bad")
    + flow("f", "ask")
    + flow("bad", "j")
    + flow("ask", "j")
    + flow("j", "e")
    + '<sequenceFlow id="r" sourceRef="review" targetRef="e"/>'
)
SUB = (
    '<startEvent id="s"/><subProcess id="sub"><startEvent id="ss"/><userTask id="inner"/>'
    '<endEvent id="se"/>' + flow("ss", "inner") + flow("inner", "se") + "</subProcess>"
    '<userTask id="after"/><endEvent id="e"/>'
    + flow("s", "sub")
    + flow("sub", "after")
    + flow("after", "e")
)


def elements(instance) -> list[str]:
    return sorted(t["element"] for t in instance.tokens())


def test_a_failed_token_is_cancelled_and_one_started_after_it(bpmn: Bpmn, engine: Engine) -> None:
    instance = engine.start(bpmn(SPLIT), variables={"y": 0})
    assert instance.run().state == "failed"
    tokens = instance.modify(cancel=["bad"], start_after=["bad"], variables={"x": 7})
    assert sorted(t["element"] for t in tokens) == ["ask", "j"]
    assert instance.outcome().incident is None  # its failed token went
    instance.run()
    instance.complete_task("ask")
    outcome = instance.run()
    assert outcome.state == "completed" and outcome.variables["x"] == 7
    [modified] = events_named(instance, "instance.modified")
    assert modified.data["cancelled"] == [1] and modified.data["variables"] == ["x"]
    assert [e.element for e in events_named(instance, "token.cancelled")] == ["bad"]


def test_a_token_started_before_an_element_enters_it(bpmn: Bpmn, engine: Engine) -> None:
    instance = engine.start(bpmn(SPLIT), variables={"y": 1})
    instance.run()
    instance.modify(start_before=["review"])
    instance.run()
    assert sorted(t.element for t in instance.user_tasks()) == ["ask", "review"]
    [started] = events_named(instance, "token.started")
    assert started.element == "review" and started.data["before"] == "review"


def test_a_cancelled_user_task_ends_with_its_token(bpmn: Bpmn, engine: Engine) -> None:
    instance = engine.start(bpmn(SPLIT), variables={"y": 1})
    instance.run()
    instance.modify(cancel=["ask"], start_after=["ask"])
    assert [t.element for t in instance.user_tasks()] == []
    assert instance.run().state == "completed"


def test_an_instance_left_with_no_token_is_terminated(bpmn: Bpmn, engine: Engine) -> None:
    instance = engine.start(bpmn(SPLIT), variables={"y": 0})
    instance.run()
    instance.modify(cancel=["bad", "ask"])
    assert instance.state == "terminated" and instance.tokens() == []
    with pytest.raises(UsageError, match="only a running one is modified"):
        instance.modify(start_before=["ask"])


def test_the_last_token_of_a_subprocess_takes_the_subprocess_with_it(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(SUB))
    instance.run()
    assert elements(instance) == ["inner", "sub"]
    instance.modify(cancel=["inner"], start_before=["after"])
    assert elements(instance) == ["after"]
    instance.run()
    instance.complete_task("after")
    assert instance.run().state == "completed"


@pytest.mark.parametrize(
    ("asked", "message"),
    [
        ({"cancel": ["nowhere"]}, "'nowhere' is no element of process p"),
        ({"cancel": ["review"]}, "no token of instance .* is at 'review'"),
        ({"cancel_tokens": [99]}, "has no token #99"),
        ({"start_after": ["f"]}, "'f' has 2 outgoing sequence flows"),
        ({"start_before": ["inner"]}, "'inner' is no element"),
        ({}, "nothing to modify"),
    ],
)
def test_a_bad_request_changes_nothing(
    bpmn: Bpmn, engine: Engine, asked: dict, message: str
) -> None:
    instance = engine.start(bpmn(SPLIT), variables={"y": 1})
    instance.run()
    before = (instance.tokens(), len(instance.history()))
    with pytest.raises(UsageError, match=message):
        instance.modify(**asked)
    reopened = engine.instance(instance.id)
    assert (reopened.tokens(), len(reopened.history())) == before


def test_a_token_inside_a_subprocess_that_is_not_running_is_refused(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(SUB))
    instance.run()
    instance.complete_task("inner")
    instance.run()  # the subprocess ended; `after` waits
    with pytest.raises(UsageError, match="inside 'sub', which is not running"):
        instance.modify(start_before=["inner"])


def test_a_dry_run_says_the_tokens_and_changes_nothing(bpmn: Bpmn, engine: Engine) -> None:
    instance = engine.start(bpmn(SPLIT), variables={"y": 0})
    instance.run()
    history = len(instance.history())
    tokens = instance.modify(cancel=["bad"], start_before=["review"], dry_run=True)
    assert sorted(t["element"] for t in tokens) == ["ask", "review"]
    assert elements(instance) == ["ask", "bad"] and len(instance.history()) == history
    assert elements(engine.instance(instance.id)) == ["ask", "bad"]


def test_a_called_instance_is_not_left_without_a_token(tmp_path, engine: Engine) -> None:
    from tests.runtime.conftest import HEADER

    path = tmp_path / "calls.bpmn"
    path.write_text(
        f"""<?xml version="1.0"?>{HEADER}
  <process id="parent" isExecutable="true"><startEvent id="ps"/>
    <callActivity id="call" calledElement="child"/><endEvent id="pe"/>
    {flow("ps", "call")}{flow("call", "pe")}</process>
  <process id="child" isExecutable="true"><startEvent id="cs"/><userTask id="work"/>
    <endEvent id="ce"/>{flow("cs", "work")}{flow("work", "ce")}</process>
</definitions>""",
        encoding="utf-8",
    )
    parent = engine.start(path, "parent")
    parent.run()
    [child_id] = [i for i in engine.family(parent.id) if i != parent.id]
    child = engine.instance(child_id)
    with pytest.raises(UsageError, match="modify that one"):
        child.modify(cancel=["work"])
    assert elements(engine.instance(child_id)) == ["work"]
    child.modify(cancel=["work"], start_after=["work"])  # it ends, and its caller goes on
    child.run()
    assert engine.instance(parent.id).run().state == "completed"


def test_cancelling_a_called_instances_failed_token_frees_its_caller(
    tmp_path, engine: Engine
) -> None:
    from tests.runtime.conftest import HEADER

    path = tmp_path / "calls.bpmn"
    path.write_text(
        f"""<?xml version="1.0"?>{HEADER}
  <process id="parent" isExecutable="true"><startEvent id="ps"/>
    <callActivity id="call" calledElement="child"/><endEvent id="pe"/>
    {flow("ps", "call")}{flow("call", "pe")}</process>
  <process id="child" isExecutable="true"><startEvent id="cs"/>
    <scriptTask id="bad" scriptFormat="python"><script>x = 1 / 0</script></scriptTask>
    <endEvent id="ce"/>{flow("cs", "bad")}{flow("bad", "ce")}</process>
</definitions>""",
        encoding="utf-8",
    )
    parent = engine.start(path, "parent")
    assert parent.run().state == "failed"  # through its call activity
    [child_id] = [i for i in engine.family(parent.id) if i != parent.id]
    engine.instance(child_id).modify(cancel=["bad"], start_after=["bad"])
    engine.instance(child_id).run()
    assert engine.instance(child_id).state == "completed"
    outcome = engine.instance(parent.id).run()
    assert outcome.state == "completed" and outcome.incident is None
