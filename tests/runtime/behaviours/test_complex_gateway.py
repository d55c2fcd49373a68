"""The complex gateway (BPMN 2.0.2, 13.3.5): activation condition, reset, late tokens."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine import Engine
from tests.runtime.conftest import Bpmn, MakeEngine, activations, events_named, flow, script


def complex_join(
    condition: str | None,
    *,
    twice_a: bool = False,
    outgoing: str = "",
    after_when: str | None = "waitingForStart",
    to_c: str = "",
) -> str:
    """Fork -> user tasks A, B, C -> complex gateway G (flows fA, fB, fC) -> After -> End.

    With `twice_a`, two tokens reach A (so two tokens can come on fA). G -> After holds when
    `after_when` does (by default at the activation only, not at the reset). `to_c` replaces
    the path from C to G (flow fC must end at G)."""
    activation = (
        ""
        if condition is None
        else f"<activationCondition>{condition.replace('>', '&gt;')}</activationCondition>"
    )
    body = [
        '<startEvent id="S"/><parallelGateway id="Fork"/>',
        '<userTask id="A"/><userTask id="B"/><userTask id="C"/>',
        f'<complexGateway id="G">{activation}</complexGateway>',
        flow("S", "Fork"),
        flow("Fork", "B"),
        flow("Fork", "C"),
        flow("A", "G", "fA"),
        flow("B", "G", "fB"),
        to_c or flow("C", "G", "fC"),
    ]
    if twice_a:
        body += [flow("Fork", "A", "Fork_A1"), flow("Fork", "A", "Fork_A2")]
    else:
        body += [flow("Fork", "A")]
    body += [
        outgoing
        or (script("After", "fired = fired + 1") + '<endEvent id="End"/>')
        + flow("G", "After", "toAfter", after_when)
        + flow("After", "End")
    ]
    return "\n".join(body)


def waiting_at_g(instance) -> list[str | None]:
    return [t["via"] for t in instance.tokens() if t["element"] == "G"]


def test_it_fires_when_two_of_three_tokens_arrived_and_consumes_the_third(
    bpmn: Bpmn, engine: Engine
):
    # given
    instance = engine.start(bpmn(complex_join("activationCount >= 2")), variables={"fired": 0})
    instance.run()
    # when: A alone does not fire it
    instance.complete_task("A")
    instance.run()
    # then
    assert activations(instance, "After") == []
    assert waiting_at_g(instance) == ["fA"]
    # when: B makes two
    instance.complete_task("B")
    instance.run()
    # then: it fired once; C still runs, the gateway waits for reset (no token there)
    assert activations(instance, "After") == ["After"]
    assert waiting_at_g(instance) == []
    [fired] = events_named(instance, "gateway.activated")
    assert fired.data["activationCount"] == 2
    assert fired.data["activationCounts"] == {"fA": 1, "fB": 1, "fC": 0}
    # when: C's token comes later
    instance.complete_task("C")
    outcome = instance.run()
    # then: consumed without firing again; the gateway resets and the instance completes
    assert outcome.state == "completed"
    assert outcome.variables["fired"] == 1
    assert [e.data["flow"] for e in events_named(instance, "gateway.consumed")] == ["fC"]
    assert len(events_named(instance, "gateway.reset")) == 1


def test_a_late_token_on_a_flow_that_delivered_waits_for_the_next_activation(
    bpmn: Bpmn, engine: Engine
):
    # given: a discriminator (the first token fires it), and two tokens on fA
    instance = engine.start(
        bpmn(complex_join("activationCount >= 1", twice_a=True)), variables={"fired": 0}
    )
    instance.run()
    instance.complete_task("A")
    instance.run()
    assert instance.variables["fired"] == 1
    # when: the second A token arrives before the reset
    instance.complete_task("A")
    instance.run()
    # then: it waits at the gateway, nothing fires
    assert instance.variables["fired"] == 1
    assert waiting_at_g(instance) == ["fA"]
    # when: B is consumed (no reset yet: C has not delivered, and still can)
    instance.complete_task("B")
    instance.run()
    assert instance.variables["fired"] == 1
    assert sorted(waiting_at_g(instance)) == ["fA", "fB"]  # B's until the reset
    # when: C delivers: the gateway resets, and the waiting token fires it again
    instance.complete_task("C")
    outcome = instance.run()
    # then
    assert instance.variables["fired"] == 2
    assert outcome.state == "completed"
    joins = [e for e in instance.history() if e.event == "gateway.activated"]
    assert [e.data["activationCounts"] for e in joins] == [
        {"fA": 1, "fB": 0, "fC": 0},
        {"fA": 1, "fB": 0, "fC": 0},
    ]


def test_the_condition_can_read_the_count_of_one_incoming_flow(bpmn: Bpmn, engine: Engine):
    # given: only a token on fC counts
    condition = 'activationCounts["fC"] >= 1'
    instance = engine.start(bpmn(complex_join(condition)), variables={"fired": 0})
    instance.run()
    # when
    instance.complete_task("A")
    instance.complete_task("B")
    instance.run()
    # then
    assert instance.variables["fired"] == 0
    assert sorted(waiting_at_g(instance)) == ["fA", "fB"]
    # when
    instance.complete_task("C")
    outcome = instance.run()
    # then: one activation consumed all three (each flow had a token)
    assert outcome.state == "completed"
    assert outcome.variables["fired"] == 1
    assert events_named(instance, "gateway.consumed") == []


def test_without_an_activation_condition_it_waits_for_every_incoming_flow(
    bpmn: Bpmn, engine: Engine
):
    # given
    instance = engine.start(bpmn(complex_join(None)), variables={"fired": 0})
    instance.run()
    # when
    instance.complete_task("A")
    instance.complete_task("B")
    instance.run()
    # then
    assert instance.variables["fired"] == 0
    # when
    instance.complete_task("C")
    # then
    assert instance.run().variables["fired"] == 1


def test_its_outgoing_flows_are_chosen_like_an_inclusive_gateway_with_a_default(
    bpmn: Bpmn, engine: Engine
):
    # given: G -> Hi when x > 5, else the default flow to Lo
    outgoing = "\n".join(
        [
            script("Hi", "path = 'hi'"),
            script("Lo", "path = 'lo'"),
            '<endEvent id="End"/>',
            flow("G", "Hi", "toHi", "x > 5"),
            flow("G", "Lo", "toLo"),
            flow("Hi", "End"),
            flow("Lo", "End"),
        ]
    )
    body = complex_join("activationCount >= 2", outgoing=outgoing).replace(
        '<complexGateway id="G">', '<complexGateway id="G" default="toLo">'
    )
    instance = engine.start(bpmn(body), variables={"x": 1})
    instance.run()
    # when
    instance.complete_task("A")
    instance.complete_task("C")
    instance.complete_task("B")
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["path"] == "lo"
    assert activations(instance, "Hi") == []


def test_a_condition_that_is_not_a_boolean_is_an_incident_naming_the_gateway(
    bpmn: Bpmn, engine: Engine
):
    # given
    instance = engine.start(bpmn(complex_join("activationCount")), variables={"fired": 0})
    instance.run()
    # when
    instance.complete_task("A")
    outcome = instance.run()
    # then
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert outcome.incident.startswith("G: ")
    assert "must be a boolean" in outcome.incident


def test_the_reset_state_survives_a_fresh_engine(
    bpmn: Bpmn, make_engine: MakeEngine, tmp_path: Path
):
    # given: fired by A and B, then the engine closes
    db = tmp_path / "store.db"
    first = make_engine(db)
    instance = first.start(bpmn(complex_join("activationCount >= 2")), variables={"fired": 0})
    instance.run()
    instance.complete_task("A")
    instance.complete_task("B")
    instance.run()
    first.close()
    # when: C's token comes to the instance loaded by another engine
    again = make_engine(db).instance(instance.id)
    again.complete_task("C")
    outcome = again.run()
    # then: still waiting for reset there: consumed, not fired again
    assert outcome.state == "completed"
    assert outcome.variables["fired"] == 1


def test_rewinding_the_consuming_step_puts_the_gateway_back_to_waiting_for_reset(
    bpmn: Bpmn, make_engine: MakeEngine, tmp_path: Path
):
    # given: fired by A and B; C's token consumed and the gateway reset
    engine = make_engine(tmp_path / "undo.db", undo=True)
    instance = engine.start(bpmn(complex_join("activationCount >= 2")), variables={"fired": 0})
    instance.run()
    instance.complete_task("A")
    instance.complete_task("B")
    instance.run()
    before_c = instance.version
    instance.complete_task("C")
    instance.run()
    assert instance.outcome().state == "completed"
    assert len(events_named(instance, "gateway.consumed")) == 1
    # when: every step since C's completion is undone
    instance = engine.rewind(instance.id, instance.version - before_c)
    # then: C waits again, and the gateway still waits for reset (its records came back)
    assert [t.element for t in instance.user_tasks()] == ["C"]
    assert events_named(instance, "gateway.consumed") == []
    instance.complete_task("C")
    outcome = instance.run()
    assert outcome.state == "completed"
    assert outcome.variables["fired"] == 1
    assert len(events_named(instance, "gateway.consumed")) == 1


def c_may_go_elsewhere() -> str:
    """C -> exclusive X -> G (fC) when `go_c`, else -> EndC: C's branch may never reach G."""
    return "\n".join(
        [
            '<exclusiveGateway id="X" default="xEnd"/><endEvent id="EndC"/>',
            flow("C", "X"),
            flow("X", "G", "fC", "go_c"),
            flow("X", "EndC", "xEnd"),
        ]
    )


def test_a_branch_that_is_never_taken_does_not_keep_it_waiting_for_reset(
    bpmn: Bpmn, engine: Engine
):
    # given: a discriminator, two tokens for A; C's token goes elsewhere
    body = complex_join("activationCount >= 1", twice_a=True, to_c=c_may_go_elsewhere())
    instance = engine.start(bpmn(body), variables={"fired": 0, "go_c": False})
    instance.run()
    instance.complete_task("C")
    instance.complete_task("A")
    instance.run()
    assert instance.variables["fired"] == 1
    instance.complete_task("A")
    instance.run()
    assert waiting_at_g(instance) == ["fA"]  # waits for the next activation
    # when: B is consumed, and no token can come on fC any more
    instance.complete_task("B")
    outcome = instance.run()
    # then: the gateway resets at once, and the second A token fires it again
    assert outcome.variables["fired"] == 2
    assert outcome.state == "completed"
    [reset, *_] = events_named(instance, "gateway.reset")
    assert reset.data["consumed"] == ["fB"]


def test_it_resets_when_the_last_token_that_could_come_goes_elsewhere_on_a_fresh_engine(
    bpmn: Bpmn, make_engine: MakeEngine, tmp_path: Path
):
    # given: fired by the first A; the second A waits; B consumed while C may still come
    db = tmp_path / "store.db"
    first = make_engine(db)
    body = complex_join("activationCount >= 1", twice_a=True, to_c=c_may_go_elsewhere())
    instance = first.start(bpmn(body), variables={"fired": 0, "go_c": False})
    instance.run()
    instance.complete_task("A")
    instance.complete_task("A")
    instance.complete_task("B")
    instance.run()
    assert instance.variables["fired"] == 1
    assert events_named(instance, "gateway.reset") == []
    first.close()
    # when: C's token ends elsewhere, in an instance loaded by another engine
    again = make_engine(db).instance(instance.id)
    again.complete_task("C")
    outcome = again.run()
    # then: nothing else can move, so the gateway resets, and the waiting A token fires it
    assert outcome.state == "completed"
    assert outcome.variables["fired"] == 2
    assert next(e.data["consumed"] for e in events_named(again, "gateway.reset")) == ["fB"]


def test_at_the_reset_the_outgoing_conditions_are_evaluated_again_for_the_late_tokens(
    bpmn: Bpmn, engine: Engine
):
    # given: G -> After while waiting for start, G -> Late at the reset
    outgoing = "\n".join(
        [
            script("After", "fired = fired + 1"),
            script("Late", "late = late + 1"),
            '<endEvent id="End"/>',
            flow("G", "After", "toAfter", "waitingForStart"),
            flow("G", "Late", "toLate", "not waitingForStart"),
            flow("After", "End"),
            flow("Late", "End"),
        ]
    )
    body = complex_join("activationCount >= 2", outgoing=outgoing)
    instance = engine.start(bpmn(body), variables={"fired": 0, "late": 0})
    instance.run()
    instance.complete_task("A")
    instance.complete_task("B")
    instance.run()
    assert (instance.variables["fired"], instance.variables["late"]) == (1, 0)
    # when: C's token comes after the activation
    instance.complete_task("C")
    outcome = instance.run()
    # then: it is consumed, and the reset passes it on where waitingForStart is false
    assert outcome.state == "completed"
    assert (outcome.variables["fired"], outcome.variables["late"]) == (1, 1)


def test_a_reset_with_an_unconditional_outgoing_flow_passes_the_late_token_on(
    bpmn: Bpmn, engine: Engine
):
    # given: G -> After without a condition (the spec's reset takes it again)
    instance = engine.start(
        bpmn(complex_join("activationCount >= 2", after_when=None)), variables={"fired": 0}
    )
    instance.run()
    instance.complete_task("A")
    instance.complete_task("B")
    instance.run()
    # when
    instance.complete_task("C")
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["fired"] == 2
