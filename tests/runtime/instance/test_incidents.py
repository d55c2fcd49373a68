"""An incident stops its token, not the instance (issue 28, item 3): the other tokens go on,
as in Camunda, and the instance is failed only once none of them can (it has stopped on its
incidents). A run that stops on an incident is `failed` either way (`others_wait` says the
instance stays active). `retry` (`bpmn resume`) re-runs the failed token whether or not the
instance stopped."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine import Engine
from tests.runtime.conftest import Bpmn, events_named, flow

SPLIT = (
    '<startEvent id="s"/><parallelGateway id="f"/>'
    '<scriptTask id="bad" scriptFormat="python"><script>x = 1 / y</script></scriptTask>'
    '<userTask id="ask"/>' + flow("s", "f") + flow("f", "bad") + flow("f", "ask")
)
JOINED = (
    SPLIT
    + '<parallelGateway id="j"/><endEvent id="e"/>'
    + flow("bad", "j")
    + flow("ask", "j")
    + flow("j", "e")
)
APART = SPLIT + '<endEvent id="e1"/><endEvent id="e2"/>' + flow("bad", "e1") + flow("ask", "e2")


def started(bpmn: Bpmn, engine: Engine, body: str) -> tuple[Path, str]:
    path = bpmn(body)
    instance = engine.start(path, "p", variables={"y": 0})
    instance.run()
    return path, instance.id


def test_the_other_tokens_go_on_and_the_instance_stays_active(bpmn: Bpmn, engine: Engine) -> None:
    _, instance_id = started(bpmn, engine, JOINED)
    instance = engine.instance(instance_id)
    outcome = instance.outcome()
    # the run stopped on the incident (failed), the instance stays active: `ask` waits
    assert instance.state == "active" and outcome.state == "failed" and outcome.others_wait
    assert outcome.to_json()["others_wait"] is True
    assert outcome.incident is not None and "division by zero" in outcome.incident
    assert [w["element"] for w in outcome.waiting_for] == ["ask"]
    [created] = events_named(instance, "incident.created")
    assert created.element == "bad"
    assert events_named(instance, "instance.failed") == []


def test_the_instance_fails_once_no_other_token_can_go_on(bpmn: Bpmn, engine: Engine) -> None:
    _, instance_id = started(bpmn, engine, JOINED)
    instance = engine.instance(instance_id)
    instance.complete_task("ask")  # its token goes on to the join, which waits for `bad`
    outcome = instance.run()
    assert instance.state == "failed" and outcome.state == "failed"
    assert not outcome.others_wait
    [failed] = events_named(instance, "instance.failed")
    assert failed.element == "bad" and "division by zero" in failed.data["incident"]


def test_a_sibling_that_ends_leaves_the_instance_failed(bpmn: Bpmn, engine: Engine) -> None:
    _, instance_id = started(bpmn, engine, APART)
    instance = engine.instance(instance_id)
    instance.complete_task("ask")
    assert instance.run().state == "failed"
    ended = [e.element for e in instance.history() if e.event == "element.completed"]
    assert "e2" in ended  # the sibling reached its end event before the instance failed


def test_a_retry_while_active_runs_the_failed_token_again(bpmn: Bpmn, engine: Engine) -> None:
    _, instance_id = started(bpmn, engine, JOINED)
    instance = engine.instance(instance_id)
    assert instance.retry(variables={"y": 2}) == 1
    assert instance.outcome().incident is None
    instance.run()
    instance.complete_task("ask")
    outcome = instance.run()
    assert outcome.state == "completed" and outcome.variables["x"] == 0.5


def test_a_retry_after_the_instance_stopped_goes_on_too(bpmn: Bpmn, engine: Engine) -> None:
    _, instance_id = started(bpmn, engine, JOINED)
    instance = engine.instance(instance_id)
    instance.complete_task("ask")
    assert instance.run().state == "failed"
    assert instance.retry(variables={"y": 4}) == 1
    outcome = instance.run()
    assert outcome.state == "completed" and outcome.end_event == "e"


def test_the_instance_list_says_failed_while_the_other_tokens_wait(
    bpmn: Bpmn, engine: Engine
) -> None:
    _, instance_id = started(bpmn, engine, JOINED)
    [row] = engine.instances()
    assert (row["id"], row["state"], row["others_wait"]) == (instance_id, "failed", True)
    assert [r["id"] for r in engine.instances(state="failed")] == [instance_id]
    assert [r["id"] for r in engine.instances(state="active")] == [instance_id]  # not ended
    engine.instance(instance_id).complete_task("ask")
    engine.instance(instance_id).run()
    [row] = engine.instances()
    assert (row["state"], row["others_wait"]) == ("failed", False)
    assert engine.instances(state="active") == []


def test_incidents_are_records_open_then_resolved(bpmn: Bpmn, engine: Engine) -> None:
    _, instance_id = started(bpmn, engine, JOINED)
    [open_one] = engine.incidents()
    assert (open_one.element, open_one.kind, open_one.resolved_at) == ("bad", "step", None)
    assert (
        open_one.id
        == f"{instance_id}#{events_named(engine.instance(instance_id), 'incident.created')[0].seq}"
    )
    instance = engine.instance(instance_id)
    instance.retry(variables={"y": 0})  # the same fault again: a second incident
    instance.run()
    first, second = engine.incidents(resolved=True)
    assert first.id == open_one.id and first.resolved_at is not None
    assert second.resolved_at is None and [i.id for i in engine.incidents()] == [second.id]
    engine.instance(instance_id).modify(cancel=["bad"], start_after=["bad"])
    assert engine.incidents() == []
    assert all(i.resolved_at for i in engine.incidents(instance_id, resolved=True))
