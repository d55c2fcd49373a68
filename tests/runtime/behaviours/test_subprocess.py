"""Embedded subprocesses: their own scope, the parent's variables, completion by the last track."""

from __future__ import annotations

from bpmn_engine import Engine
from tests.runtime.conftest import Bpmn, activations, events_named, flow, lifecycle, script


def scopes(engine: Engine, instance_id: str) -> list[tuple]:
    return engine.store.conn.execute(
        "SELECT id, element, parent, track, status FROM scopes WHERE instance = ? ORDER BY id",
        (instance_id,),
    ).fetchall()


def variable_rows(engine: Engine, instance_id: str) -> list[tuple]:
    return engine.store.conn.execute(
        "SELECT scope, name, value FROM variables WHERE instance = ? ORDER BY scope, name",
        (instance_id,),
    ).fetchall()


def sub(body: str, sub_id: str = "Sub") -> str:
    return f'<subProcess id="{sub_id}">{body}</subProcess>'


def around(inner: str) -> str:
    """S -> Sub(inner) -> After -> E."""
    return (
        '<startEvent id="S"/>'
        + inner
        + script("After", "after = True")
        + '<endEvent id="E"/>'
        + flow("S", "Sub")
        + flow("Sub", "After")
        + flow("After", "E")
    )


SIMPLE_INNER = sub(
    '<startEvent id="In"/>'
    + script("Work", "y = x * 2")
    + '<endEvent id="Out"/>'
    + flow("In", "Work")
    + flow("Work", "Out")
)


def test_subprocess_runs_in_its_own_scope_between_its_start_and_end(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(around(SIMPLE_INNER)), variables={"x": 2})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.end_event == "E"
    assert activations(instance) == ["S", "Sub", "In", "Work", "Out", "After", "E"]
    order = lifecycle(instance)
    assert order.index(("element.completed", "Out")) < order.index(("element.completed", "Sub"))
    assert scopes(engine, instance.id) == [
        (1, "p", None, None, "completed"),
        (2, "Sub", 1, 1, "completed"),
    ]
    [created] = events_named(instance, "track.created")
    assert (created.element, created.data["parent"]) == ("In", 1)


def test_subprocess_sees_parent_variables_and_its_new_variables_land_in_the_process_scope(
    bpmn: Bpmn, engine: Engine
):
    # given
    instance = engine.start(bpmn(around(SIMPLE_INNER)), variables={"x": 2})
    # when
    outcome = instance.run()
    # then
    assert outcome.variables == {"x": 2, "y": 4, "after": True}
    assert variable_rows(engine, instance.id) == [
        (1, "after", "true"),
        (1, "x", "2"),
        (1, "y", "4"),
    ]


def test_a_waiting_subprocess_shows_its_inner_token_and_the_task_it_waits_for(
    bpmn: Bpmn, engine: Engine
):
    # given
    inner = sub('<startEvent id="In"/><userTask id="Inside"/>' + flow("In", "Inside"))
    instance = engine.start(bpmn(around(inner)))
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "waiting"
    assert [w["element"] for w in outcome.waiting_for] == ["Inside"]
    assert [(t["element"], t["state"], t["scope"]) for t in instance.tokens()] == [
        ("Sub", "waiting", 1),
        ("Inside", "waiting", 2),
    ]
    instance.complete_task("Inside", {"done": 1})
    assert instance.run().variables == {"done": 1, "after": True}


def test_subprocess_completes_only_when_its_last_track_ends(bpmn: Bpmn, engine: Engine):
    # given: inside, a fork into a script (ends at once) and a user task
    inner = sub(
        '<startEvent id="In"/><parallelGateway id="Fork"/><userTask id="Slow"/>'
        + script("Fast", "fast = 1")
        + '<endEvent id="End1"/><endEvent id="End2"/>'
        + flow("In", "Fork")
        + flow("Fork", "Fast")
        + flow("Fork", "Slow")
        + flow("Fast", "End1")
        + flow("Slow", "End2")
    )
    instance = engine.start(bpmn(around(inner)))
    # when
    first = instance.run()
    # then: one inner track ended, the subprocess still waits for the other
    assert first.state == "waiting"
    assert ("element.completed", "End1") in lifecycle(instance)
    assert ("element.completed", "Sub") not in lifecycle(instance)
    assert activations(instance, "After") == []
    # when
    instance.complete_task("Slow")
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    order = lifecycle(instance)
    assert order.index(("element.completed", "End2")) < order.index(("element.completed", "Sub"))
    assert activations(instance, "After") == ["After"]


def test_nested_subprocesses_each_get_a_scope_and_share_variables_upwards(
    bpmn: Bpmn, engine: Engine
):
    # given
    innermost = sub(
        '<startEvent id="I3"/>' + script("Deep", "deep = x + 1") + flow("I3", "Deep"),
        "Inner",
    )
    middle = sub(
        '<startEvent id="I2"/>'
        + innermost
        + script("Mid", "mid = deep * 10")
        + flow("I2", "Inner")
        + flow("Inner", "Mid")
    )
    instance = engine.start(bpmn(around(middle)), variables={"x": 1})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"x": 1, "deep": 2, "mid": 20, "after": True}
    assert [(s[1], s[2], s[4]) for s in scopes(engine, instance.id)] == [
        ("p", None, "completed"),
        ("Sub", 1, "completed"),
        ("Inner", 2, "completed"),
    ]
    order = lifecycle(instance)
    assert order.index(("element.completed", "Inner")) < order.index(("element.completed", "Sub"))


def test_a_subprocess_updates_a_parent_variable_where_it_lives(bpmn: Bpmn, engine: Engine):
    # given
    inner = sub('<startEvent id="In"/>' + script("Inc", "n = n + 1") + flow("In", "Inc"))
    instance = engine.start(bpmn(around(inner)), variables={"n": 41})
    # when
    outcome = instance.run()
    # then
    assert outcome.variables == {"n": 42, "after": True}
    assert (1, "n", "42") in variable_rows(engine, instance.id)
    assert [row for row in variable_rows(engine, instance.id) if row[0] != 1] == []


def test_a_subprocess_without_start_event_starts_at_its_nodes_without_incoming_flow(
    bpmn: Bpmn, engine: Engine
):
    # given
    inner = sub(script("A", "a = 1") + script("B", "b = 1"))
    # when
    outcome = engine.start(bpmn(around(inner))).run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"a": 1, "b": 1, "after": True}


def test_an_empty_subprocess_completes_at_once(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(around(sub(""))))
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert activations(instance) == ["S", "Sub", "After", "E"]


def test_a_subprocess_entered_twice_in_a_loop_gets_a_fresh_scope_each_time(
    bpmn: Bpmn, engine: Engine
):
    # given
    path = bpmn(
        '<startEvent id="S"/><exclusiveGateway id="Loop"/>'
        + sub('<startEvent id="In"/>' + script("Inc", "n = n + 1") + flow("In", "Inc"))
        + '<exclusiveGateway id="Again" default="Out"/><endEvent id="E"/>'
        + flow("S", "Loop")
        + flow("Loop", "Sub")
        + flow("Sub", "Again")
        + flow("Again", "Loop", "Back", "n < 3")
        + flow("Again", "E", "Out")
    )
    instance = engine.start(path, variables={"n": 0})
    # when
    outcome = instance.run()
    # then
    assert outcome.variables == {"n": 3}
    assert [(s[1], s[4]) for s in scopes(engine, instance.id)] == [
        ("p", "completed"),
        ("Sub", "completed"),
        ("Sub", "completed"),
        ("Sub", "completed"),
    ]


def test_a_compensation_event_subprocess_waits_for_compensation(bpmn: Bpmn, engine: Engine):
    # given: a compensation event subprocess (the others: test_event_subprocesses.py); it runs
    # only when its completed subprocess is compensated (test_compensation.py)
    inner = sub(
        '<startEvent id="In"/><endEvent id="Out"/>'
        + flow("In", "Out")
        + '<subProcess id="OnError" triggeredByEvent="true">'
        '<startEvent id="ErrStart"><compensateEventDefinition/></startEvent>'
        + script("Handle", "handled = True")
        + flow("ErrStart", "Handle")
        + "</subProcess>"
    )
    instance = engine.start(bpmn(around(inner)))
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert "handled" not in outcome.variables
    assert events_named(instance, "warning") == []  # armed: nothing to warn about
    assert activations(instance, "OnError") == []
