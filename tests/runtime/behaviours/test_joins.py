"""Joins: the parallel join counts tokens per incoming flow, the OR-join looks upstream."""

from __future__ import annotations

import json

from bpmn_engine import Engine
from tests.runtime.conftest import Bpmn, activations, events_named, flow, lifecycle, script


def join_rows(engine: Engine, instance_id: str) -> list[tuple]:
    rows = engine.store.conn.execute(
        "SELECT scope, gateway, activation, tracks FROM joins WHERE instance = ? "
        "ORDER BY gateway, activation",
        (instance_id,),
    ).fetchall()
    return [
        (scope, gateway, activation, json.loads(tracks))
        for scope, gateway, activation, tracks in rows
    ]


# --- parallel join --------------------------------------------------------------------------

FORK_JOIN_WITH_USER_TASK = (
    '<startEvent id="S"/><parallelGateway id="Fork"/><parallelGateway id="Join"/>'
    + script("A", "a = 1")
    + '<userTask id="B"/><endEvent id="E"/>'
    + flow("S", "Fork")
    + flow("Fork", "A")
    + flow("Fork", "B")
    + flow("A", "Join", "AJ")
    + flow("B", "Join", "BJ")
    + flow("Join", "E")
)


def test_parallel_join_waits_for_a_token_on_every_incoming_flow(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(FORK_JOIN_WITH_USER_TASK))
    # when
    outcome = instance.run()
    # then: A's token waits at the join, B's at the user task
    assert outcome.state == "waiting"
    assert activations(instance, "Join") == []
    assert [(t["element"], t["state"], t["via"]) for t in instance.tokens()] == [
        ("Join", "waiting", "AJ"),
        ("B", "waiting", "Fork_B"),
    ]
    assert ("element.waiting", "Join") in lifecycle(instance)
    assert {"element": "Join", "reason": "join", "track": 1} in outcome.waiting_for


def test_parallel_join_fires_once_when_the_last_token_arrives(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(FORK_JOIN_WITH_USER_TASK))
    instance.run()
    # when
    instance.complete_task("B", {"b": 2})
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"a": 1, "b": 2}
    assert activations(instance, "Join") == ["Join"]
    assert activations(instance, "E") == ["E"]
    [merged] = events_named(instance, "track.merged")
    assert (merged.element, merged.track, merged.data) == ("Join", 1, {"into": 2})
    assert join_rows(engine, instance.id) == [(1, "Join", 1, [1, 2])]
    assert instance.tokens() == []


def test_two_tokens_on_the_same_incoming_flow_do_not_fire_a_two_flow_join(
    bpmn: Bpmn, engine: Engine
):
    # given: A and B merge through an exclusive gateway onto the join's first flow;
    # C, on the join's second flow, waits at a user task
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/><task id="A"/><task id="B"/>'
        '<userTask id="C"/><exclusiveGateway id="Merge"/><parallelGateway id="Join"/>'
        + script("After", "after = after + 1")
        + '<endEvent id="E"/>'
        + flow("S", "Fork")
        + flow("Fork", "A")
        + flow("Fork", "B")
        + flow("Fork", "C")
        + flow("A", "Merge")
        + flow("B", "Merge")
        + flow("Merge", "Join", "MJ")
        + flow("C", "Join", "CJ")
        + flow("Join", "After")
        + flow("After", "E")
    )
    instance = engine.start(path, variables={"after": 0})
    # when
    outcome = instance.run()
    # then: two tokens wait on MJ, and the join has not fired
    assert outcome.state == "waiting"
    assert activations(instance, "Join") == []
    assert [(t["element"], t["via"]) for t in instance.tokens() if t["element"] == "Join"] == [
        ("Join", "MJ"),
        ("Join", "MJ"),
    ]
    assert [t.element for t in instance.user_tasks()] == ["C"]
    assert join_rows(engine, instance.id) == []


def test_a_join_fired_by_one_of_two_tokens_on_a_flow_keeps_the_other_waiting(
    bpmn: Bpmn, engine: Engine
):
    # given: the same model as above, run to the user task
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/><task id="A"/><task id="B"/>'
        '<userTask id="C"/><exclusiveGateway id="Merge"/><parallelGateway id="Join"/>'
        '<endEvent id="E"/>'
        + flow("S", "Fork")
        + flow("Fork", "A")
        + flow("Fork", "B")
        + flow("Fork", "C")
        + flow("A", "Merge")
        + flow("B", "Merge")
        + flow("Merge", "Join", "MJ")
        + flow("C", "Join", "CJ")
        + flow("Join", "E")
    )
    instance = engine.start(path)
    instance.run()
    # when
    instance.complete_task("C")
    outcome = instance.run()
    # then: the join fired exactly once, with the earlier MJ token; the later one still waits
    assert activations(instance, "Join") == ["Join"]
    assert activations(instance, "E") == ["E"]
    assert outcome.state == "waiting"
    [(scope, gateway, activation, tracks)] = join_rows(engine, instance.id)
    assert (scope, gateway, activation) == (1, "Join", 1)
    assert len(tracks) == 2
    [left] = instance.tokens()
    assert (left["element"], left["via"], left["state"]) == ("Join", "MJ", "waiting")
    assert left["track"] not in tracks


def test_nested_fork_and_join(bpmn: Bpmn, engine: Engine):
    # given: Outer forks into an inner fork/join (X, Y) and Z; Outer's join waits for both
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Outer"/><parallelGateway id="Inner"/>'
        '<parallelGateway id="InnerJoin"/><parallelGateway id="OuterJoin"/>'
        + script("X", "x = 1")
        + script("Y", "y = 1")
        + script("Z", "z = 1")
        + script("Done", "done = x + y + z")
        + '<endEvent id="E"/>'
        + flow("S", "Outer")
        + flow("Outer", "Inner")
        + flow("Outer", "Z")
        + flow("Inner", "X")
        + flow("Inner", "Y")
        + flow("X", "InnerJoin")
        + flow("Y", "InnerJoin")
        + flow("InnerJoin", "OuterJoin")
        + flow("Z", "OuterJoin")
        + flow("OuterJoin", "Done")
        + flow("Done", "E")
    )
    instance = engine.start(path)
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"x": 1, "y": 1, "z": 1, "done": 3}
    assert activations(instance, "InnerJoin") == ["InnerJoin"]
    assert activations(instance, "OuterJoin") == ["OuterJoin"]
    assert activations(instance, "E") == ["E"]
    assert [(g, a) for _, g, a, _ in join_rows(engine, instance.id)] == [
        ("InnerJoin", 1),
        ("OuterJoin", 1),
    ]


def test_a_parallel_region_inside_a_loop_joins_exactly_once_per_turn(bpmn: Bpmn, engine: Engine):
    # given: Loop -> Fork -> A, B -> Join -> Count -> (n < 3 ? back to Loop : end)
    path = bpmn(
        '<startEvent id="S"/><exclusiveGateway id="Loop"/><parallelGateway id="Fork"/>'
        '<task id="A"/><task id="B"/>'
        '<parallelGateway id="Join"/><exclusiveGateway id="Again" default="Out"/>'
        + script("Count", "n = n + 1")
        + '<endEvent id="E"/>'
        + flow("S", "Loop")
        + flow("Loop", "Fork")
        + flow("Fork", "A")
        + flow("Fork", "B")
        + flow("A", "Join")
        + flow("B", "Join")
        + flow("Join", "Count")
        + flow("Count", "Again")
        + flow("Again", "Loop", "Back", "n < 3")
        + flow("Again", "E", "Out")
    )
    instance = engine.start(path, variables={"n": 0})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"n": 3}
    assert len(activations(instance, "Join")) == 3
    assert len(activations(instance, "A")) == 3
    assert len(activations(instance, "E")) == 1
    assert [(g, a) for _, g, a, _ in join_rows(engine, instance.id)] == [
        ("Join", 1),
        ("Join", 2),
        ("Join", 3),
    ]


def test_a_loop_back_into_a_join_region_with_a_user_task_waits_each_turn(
    bpmn: Bpmn, engine: Engine
):
    # given: one branch of the region is a user task, so every turn waits for a person
    path = bpmn(
        '<startEvent id="S"/><exclusiveGateway id="Loop"/><parallelGateway id="Fork"/>'
        '<userTask id="Check"/>'
        '<parallelGateway id="Join"/><exclusiveGateway id="Again" default="Out"/>'
        + script("Count", "n = n + 1")
        + '<endEvent id="E"/>'
        + flow("S", "Loop")
        + flow("Loop", "Fork")
        + flow("Fork", "Count")
        + flow("Fork", "Check")
        + flow("Count", "Join")
        + flow("Check", "Join")
        + flow("Join", "Again")
        + flow("Again", "Loop", "Back", "n < 2")
        + flow("Again", "E", "Out")
    )
    instance = engine.start(path, variables={"n": 0})
    # when / then: each turn the join waits for the user task, then fires once
    for turn in (1, 2):
        outcome = instance.run()
        assert outcome.state == "waiting"
        assert len(activations(instance, "Join")) == turn - 1
        instance.complete_task("Check")
    outcome = instance.run()
    assert outcome.state == "completed"
    assert len(activations(instance, "Join")) == 2
    assert len(join_rows(engine, instance.id)) == 2


def test_a_parallel_gateway_with_a_loop_back_flow_is_a_join_and_waits_for_it(
    bpmn: Bpmn, engine: Engine
):
    # given: the loop flows straight back into the forking parallel gateway, which therefore
    # has two incoming flows: by the spec it joins them, so the first turn never starts
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/><task id="A"/>'
        '<exclusiveGateway id="Again" default="Out"/><endEvent id="E"/>'
        + flow("S", "Fork", "SF")
        + flow("Fork", "A")
        + flow("A", "Again")
        + flow("Again", "Fork", "Back", "${true}")
        + flow("Again", "E", "Out")
    )
    instance = engine.start(path)
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "waiting"
    assert activations(instance, "Fork") == []
    assert [(t["element"], t["via"]) for t in instance.tokens()] == [("Fork", "SF")]


def test_a_task_with_two_incoming_flows_runs_once_per_token(bpmn: Bpmn, engine: Engine):
    # given: an implicit (uncontrolled) merge
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/><task id="A"/><task id="B"/>'
        + script("T", "runs = runs + 1")
        + '<endEvent id="E"/>'
        + flow("S", "Fork")
        + flow("Fork", "A")
        + flow("Fork", "B")
        + flow("A", "T")
        + flow("B", "T")
        + flow("T", "E")
    )
    instance = engine.start(path, variables={"runs": 0})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"runs": 2}
    assert activations(instance, "T") == ["T", "T"]
    assert activations(instance, "E") == ["E", "E"]


def test_a_parallel_join_reached_by_an_exclusive_choice_waits_forever(bpmn: Bpmn, engine: Engine):
    # given: only one of the join's flows can ever get a token (a modelling error)
    path = bpmn(
        '<startEvent id="S"/><exclusiveGateway id="X" default="XA"/><task id="A"/><task id="B"/>'
        '<parallelGateway id="Join"/><endEvent id="E"/>'
        + flow("S", "X")
        + flow("X", "A", "XA")
        + flow("X", "B", "XB", "${false}")
        + flow("A", "Join")
        + flow("B", "Join")
        + flow("Join", "E")
    )
    # when
    outcome = engine.start(path).run()
    # then: not completed, not failed: the token waits at the join
    assert outcome.state == "waiting"
    assert [(w["element"], w["reason"]) for w in outcome.waiting_for] == [("Join", "join")]


# --- inclusive join -------------------------------------------------------------------------


def or_region(a_condition: str, b_condition: str, b_task: str = "") -> str:
    """S -> Split -(a)-> A -> Join; Split -(b)-> B -> Join; Join -> E."""
    b = b_task or script("B", "b = 1")
    return (
        '<startEvent id="S"/><inclusiveGateway id="Split"/><inclusiveGateway id="Join"/>'
        + script("A", "a = 1")
        + b
        + '<endEvent id="E"/>'
        + flow("S", "Split")
        + flow("Split", "A", "SA", a_condition)
        + flow("Split", "B", "SB", b_condition)
        + flow("A", "Join", "AJ")
        + flow("B", "Join", "BJ")
        + flow("Join", "E")
    )


def test_inclusive_join_of_two_taken_branches_fires_once(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(or_region("${true}", "${true}")))
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"a": 1, "b": 1}
    assert activations(instance, "Join") == ["Join"]
    assert activations(instance, "E") == ["E"]
    assert [(g, a, len(t)) for _, g, a, t in join_rows(engine, instance.id)] == [("Join", 1, 2)]


def test_or_join_with_a_dead_branch_fires_without_waiting(bpmn: Bpmn, engine: Engine):
    # given: the split takes only A
    instance = engine.start(bpmn(or_region("x > 1", "x > 100")), variables={"x": 5})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"x": 5, "a": 1}
    assert activations(instance, "B") == []
    assert activations(instance, "Join") == ["Join"]
    assert join_rows(engine, instance.id) == [(1, "Join", 1, [1])]


def test_or_join_waits_for_a_branch_that_is_still_running(bpmn: Bpmn, engine: Engine):
    # given: both branches taken; B is a user task
    instance = engine.start(bpmn(or_region("${true}", "${true}", '<userTask id="B"/>')))
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "waiting"
    assert activations(instance, "Join") == []
    assert sorted((w["element"], w.get("reason")) for w in outcome.waiting_for) == [
        ("B", None),
        ("Join", "join"),
    ]


def test_or_join_fires_once_the_running_branch_arrives(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(or_region("${true}", "${true}", '<userTask id="B"/>')))
    instance.run()
    # when
    instance.complete_task("B", {"b": 7})
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"a": 1, "b": 7}
    assert activations(instance, "Join") == ["Join"]
    assert activations(instance, "E") == ["E"]
    [(_, _, _, tracks)] = join_rows(engine, instance.id)
    assert sorted(tracks) == [1, 2]


def test_or_join_after_a_split_that_took_only_the_branch_with_a_user_task(
    bpmn: Bpmn, engine: Engine
):
    # given
    instance = engine.start(bpmn(or_region("${false}", "${true}", '<userTask id="B"/>')))
    # when
    first = instance.run()
    instance.complete_task("B")
    outcome = instance.run()
    # then
    assert first.state == "waiting"
    assert [w["element"] for w in first.waiting_for] == ["B"]
    assert outcome.state == "completed"
    assert activations(instance, "A") == []
    assert activations(instance, "Join") == ["Join"]


def test_or_join_waits_for_a_token_inside_a_subprocess_on_the_other_branch(
    bpmn: Bpmn, engine: Engine
):
    # given: branch B is a subprocess whose token waits at a user task inside it
    sub = (
        '<subProcess id="B"><startEvent id="BS"/><userTask id="Inside"/><endEvent id="BE"/>'
        + flow("BS", "Inside")
        + flow("Inside", "BE")
        + "</subProcess>"
    )
    instance = engine.start(bpmn(or_region("${true}", "${true}", sub)))
    # when
    waiting = instance.run()
    instance.complete_task("Inside")
    outcome = instance.run()
    # then
    assert waiting.state == "waiting"
    assert outcome.state == "completed"
    assert activations(instance, "Join") == ["Join"]
    join_activated = activations(instance).index("Join")
    assert activations(instance).index("BE") < join_activated


def test_or_join_of_a_parallel_split_waits_for_every_branch(bpmn: Bpmn, engine: Engine):
    # given: a parallel fork into an inclusive join (every branch is taken)
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/><inclusiveGateway id="Join"/>'
        '<userTask id="A"/><userTask id="B"/><endEvent id="E"/>'
        + flow("S", "Fork")
        + flow("Fork", "A")
        + flow("Fork", "B")
        + flow("A", "Join")
        + flow("B", "Join")
        + flow("Join", "E")
    )
    instance = engine.start(path)
    instance.run()
    # when
    instance.complete_task("A")
    after_a = instance.run()
    instance.complete_task("B")
    outcome = instance.run()
    # then
    assert after_a.state == "waiting"
    assert outcome.state == "completed"
    assert activations(instance, "Join") == ["Join"]
    assert activations(instance, "E") == ["E"]


def test_or_join_fires_again_for_a_second_token_on_the_same_flow(bpmn: Bpmn, engine: Engine):
    # given: two parallel tokens reach the OR-join on the same flow; its other flow can never
    # get a token (Never is not a start node: the process has a none start event)
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/><task id="A"/><task id="B"/>'
        '<exclusiveGateway id="Merge"/><inclusiveGateway id="Join"/><task id="Never"/>'
        + script("After", "after = after + 1")
        + flow("S", "Fork")
        + flow("Fork", "A")
        + flow("Fork", "B")
        + flow("A", "Merge")
        + flow("B", "Merge")
        + flow("Merge", "Join", "MJ")
        + flow("Never", "Join", "NJ")
        + flow("Join", "After")
    )
    instance = engine.start(path, variables={"after": 0})
    # when
    outcome = instance.run()
    # then: one activation per token, each consuming one token
    assert outcome.state == "completed"
    assert outcome.variables == {"after": 2}
    assert activations(instance, "Join") == ["Join", "Join"]
    assert activations(instance, "Never") == []
    assert [(a, len(t)) for _, _, a, t in join_rows(engine, instance.id)] == [(1, 1), (2, 1)]


def test_a_token_on_its_way_into_an_or_join_does_not_break_enabled(engine: Engine) -> None:
    """A token at the OR-join itself (not yet waiting there) reaches nothing but through the
    join: `enabled()` and the join rule used to ask networkx for paths from a removed node."""
    from tests.cli.conftest import MODELS

    variables = {"income": 4200, "amount": 15000, "hasCollateral": True}
    instance = engine.start(MODELS / "loan-approval.bpmn", variables=variables)
    assert instance.run().state == "waiting"
    instance.complete_task("Task_ManualReview", {"reviewOk": True})
    at_join = [t for t in instance.tokens() if t["element"] == "Gateway_ChecksDone"]
    assert [t["state"] for t in at_join].count("alive") == 1
    assert {a.element for a in instance.enabled()} == {"Gateway_ChecksDone"}
    outcome = instance.run()
    assert outcome.state == "completed" and outcome.end_event == "EndEvent_LoanApproved"


def test_the_last_arrival_at_an_or_join_whose_rule_holds_fires_it_in_the_same_step(
    bpmn: Bpmn, engine: Engine
) -> None:
    """As the last arrival at a parallel join does: no separate `join` step is left for the
    scheduler (or the debugger) to take once the join has nothing left to wait for."""
    instance = engine.start(bpmn(or_region("${true}", "${true}")))
    steps: list[tuple[str, str, list[tuple[str, str | None]]]] = []
    while instance.enabled():
        events: list = []
        action = instance.step(on_event=events.append)
        assert action is not None
        steps.append((action.kind, action.element, [(e.event, e.element) for e in events]))
    assert instance.outcome().state == "completed"
    assert "join" not in [kind for kind, _, _ in steps]
    arrivals = [events for kind, element, events in steps if element == "Join"]
    assert len(arrivals) == 2  # the first waits, the second fires
    assert ("element.waiting", "Join") in arrivals[0]
    assert ("element.activated", "Join") not in arrivals[0]
    assert ("element.activated", "Join") in arrivals[1]
    assert ("track.merged", "Join") in arrivals[1]
    [(_, _, _, tracks)] = join_rows(engine, instance.id)
    assert sorted(tracks) == [1, 2]


def test_an_or_join_does_not_fire_while_another_token_stands_at_it_unarrived(
    bpmn: Bpmn, engine: Engine
) -> None:
    """Two tokens reach the join one after the other in one step order where the second is
    still ready at the gateway when the first arrives: the join fires once, with both."""
    instance = engine.start(bpmn(or_region("${true}", "${true}")))
    while True:  # move every token up to the join without letting one arrive there
        ready = [a for a in instance.enabled() if a.kind == "enter" and a.element != "Join"]
        if not ready:
            break
        instance.step(ready[0])
    at_join = [a for a in instance.enabled() if a.element == "Join"]
    assert len(at_join) == 2
    instance.step(at_join[0])
    assert activations(instance, "Join") == []
    assert instance.run().state == "completed"
    assert activations(instance, "Join") == ["Join"]
    [(_, _, _, tracks)] = join_rows(engine, instance.id)
    assert sorted(tracks) == [1, 2]
