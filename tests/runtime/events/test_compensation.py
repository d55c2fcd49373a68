"""Compensation: boundary handlers, throw and end events, activityRef, waitForCompletion,
subprocesses (their compensation event subprocess, or what they hold), multi-instance, and a
resumed run compensating exactly as the first would have."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from bpmn_engine import Engine
from bpmn_engine.errors import LoadError
from bpmn_engine.model import Activity
from bpmn_engine.parse import load_file
from bpmn_engine.runtime.engine.precheck import check_process
from bpmn_engine.validate import validate
from tests.runtime.conftest import Bpmn, MakeEngine


def script(task_id: str, text: str, extra: str = "") -> str:
    return (
        f'<scriptTask id="{task_id}" scriptFormat="python"{extra}>'
        f"<script>{text}</script></scriptTask>"
    )


def compensable(task_id: str, did: str, undid: str) -> str:
    """A task that logs `did`, with a compensation boundary event whose handler logs `undid`
    (and the value of `seen` as the handler reads it)."""
    return (
        script(task_id, f'log = log + ["{did}"]')
        + f'<boundaryEvent id="{task_id}_comp" attachedToRef="{task_id}">'
        "<compensateEventDefinition/></boundaryEvent>"
        + script(f"undo_{task_id}", f'log = log + ["{undid}"]', ' isForCompensation="true"')
        + f'<association id="{task_id}_a" sourceRef="{task_id}_comp" targetRef="undo_{task_id}"/>'
    )


def chain(*ids: str) -> str:
    return "".join(
        f'<sequenceFlow id="f_{a}_{b}" sourceRef="{a}" targetRef="{b}"/>' for a, b in pairwise(ids)
    )


THREE = (
    '<startEvent id="s"/>'
    + compensable("a", "A", "undo A")
    + compensable("b", "B", "undo B")
    + compensable("c", "C", "undo C")
)


def run(engine: Engine, path: Path, **variables: object):
    instance = engine.start(path, variables={"log": [], **variables})
    return instance, instance.run()


def test_a_throw_event_compensates_every_completed_activity_in_reverse_order(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = (
        THREE
        + '<intermediateThrowEvent id="t"><compensateEventDefinition/></intermediateThrowEvent>'
        + script("after", 'log = log + ["after"]')
        + '<endEvent id="e"/>'
        + chain("s", "a", "b", "c", "t", "after", "e")
    )
    instance, outcome = run(engine, bpmn(body))
    assert outcome.state == "completed"
    assert outcome.variables["log"] == ["A", "B", "C", "undo C", "undo B", "undo A", "after"]
    started = [e.data["handler"] for e in instance.history() if e.event == "compensation.started"]
    assert started == ["undo_c", "undo_b", "undo_a"]


def test_only_completed_activities_are_compensated_and_only_once(
    bpmn: Bpmn, engine: Engine
) -> None:
    throw = '<intermediateThrowEvent id="{0}"><compensateEventDefinition/></intermediateThrowEvent>'
    body = (
        '<startEvent id="s"/>'
        + compensable("a", "A", "undo A")
        + throw.format("t1")
        + compensable("b", "B", "undo B")
        + throw.format("t2")
        + '<endEvent id="e"/>'
        + compensable("never", "N", "undo N")  # not reached: never compensated
        + chain("s", "a", "t1", "b", "t2", "e")
    )
    _, outcome = run(engine, bpmn(body))
    assert outcome.state == "completed"
    assert outcome.variables["log"] == ["A", "undo A", "B", "undo B"]


def test_activity_ref_compensates_only_the_activity_it_names(bpmn: Bpmn, engine: Engine) -> None:
    body = (
        THREE + '<intermediateThrowEvent id="t"><compensateEventDefinition activityRef="a"/>'
        "</intermediateThrowEvent>" + '<endEvent id="e"/>' + chain("s", "a", "b", "c", "t", "e")
    )
    _, outcome = run(engine, bpmn(body))
    assert outcome.variables["log"] == ["A", "B", "C", "undo A"]


def test_a_compensation_end_event_waits_for_the_handlers(bpmn: Bpmn, engine: Engine) -> None:
    body = (
        THREE
        + '<endEvent id="e"><compensateEventDefinition/></endEvent>'
        + chain("s", "a", "b", "c", "e")
    )
    _, outcome = run(engine, bpmn(body))
    assert outcome.state == "completed"
    assert outcome.end_event == "e"
    assert outcome.variables["log"] == ["A", "B", "C", "undo C", "undo B", "undo A"]


def waiting_handler(task_id: str) -> str:
    """A task whose compensation handler is a user task (it waits for a person)."""
    return (
        script(task_id, f'log = log + ["{task_id}"]')
        + f'<boundaryEvent id="{task_id}_comp" attachedToRef="{task_id}">'
        "<compensateEventDefinition/></boundaryEvent>"
        + f'<userTask id="undo_{task_id}" isForCompensation="true"/>'
        + f'<association id="{task_id}_a" sourceRef="{task_id}_comp" targetRef="undo_{task_id}"/>'
    )


WAITING_HANDLERS = (
    '<startEvent id="s"/>'
    + waiting_handler("a")
    + waiting_handler("b")
    + '<intermediateThrowEvent id="t"><compensateEventDefinition{}/></intermediateThrowEvent>'
    + script("after", 'log = log + ["after"]')
    + '<endEvent id="e"/>'
    + chain("s", "a", "b", "t", "after", "e")
)


def test_wait_for_completion_false_goes_on_while_the_handlers_run(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance, outcome = run(engine, bpmn(WAITING_HANDLERS.format(' waitForCompletion="false"')))
    assert outcome.variables["log"] == ["a", "b", "after"]  # the thrower went on at once
    assert [t.element for t in instance.user_tasks()] == ["undo_b"]  # last completed first
    assert outcome.state == "waiting"  # the handlers' token keeps the process open
    instance.complete_task("undo_b")
    instance.run()
    assert [t.element for t in instance.user_tasks()] == ["undo_a"]
    instance.complete_task("undo_a")
    assert instance.run().state == "completed"


def test_wait_for_completion_true_holds_the_thrower_until_the_handlers_end(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance, outcome = run(engine, bpmn(WAITING_HANDLERS.format("")))
    assert outcome.variables["log"] == ["a", "b"]
    assert [t.element for t in instance.user_tasks()] == ["undo_b"]
    instance.complete_task("undo_b")
    assert instance.run().variables["log"] == ["a", "b"]
    instance.complete_task("undo_a")
    outcome = instance.run()
    assert outcome.state == "completed"
    assert outcome.variables["log"] == ["a", "b", "after"]


def test_a_fresh_engine_on_the_same_store_compensates_the_same(
    bpmn: Bpmn, make_engine: MakeEngine, tmp_path: Path
) -> None:
    """What was completed, in which order, and what is compensated already are rows: a
    second engine resumes mid-compensation and finishes it exactly."""
    db = tmp_path / "store.db"
    path = bpmn(
        '<startEvent id="s"/>'
        + compensable("a", "A", "undo A")
        + waiting_handler("b")
        + compensable("c", "C", "undo C")
        + '<userTask id="pause"/>'
        + '<intermediateThrowEvent id="t"><compensateEventDefinition/></intermediateThrowEvent>'
        + '<endEvent id="e"/>'
        + chain("s", "a", "b", "c", "pause", "t", "e")
    )
    first = make_engine(db)
    instance_id = first.start(path, variables={"log": []}).id
    first.instance(instance_id).run()
    first.close()
    second = make_engine(db)
    instance = second.instance(instance_id)
    instance.complete_task("pause")
    outcome = instance.run()
    assert outcome.variables["log"] == ["A", "b", "C", "undo C"]
    assert [t.element for t in instance.user_tasks()] == ["undo_b"]
    second.close()
    third = make_engine(db)
    instance = third.instance(instance_id)
    instance.complete_task("undo_b")
    outcome = instance.run()
    assert outcome.state == "completed"
    assert outcome.variables["log"] == ["A", "b", "C", "undo C", "undo A"]
    started = [e.element for e in instance.history() if e.event == "compensation.started"]
    assert started == ["c", "b", "a"]


def test_each_multi_instance_completion_is_compensated_with_its_own_variables(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = (
        '<startEvent id="s"/>'
        + script("book", 'log = log + ["book " + city]; booking = city').replace(
            "<script>",
            '<multiInstanceLoopCharacteristics isSequential="true" camunda:collection="cities"'
            ' camunda:elementVariable="city"/><script>',
        )
        + '<boundaryEvent id="bc" attachedToRef="book"><compensateEventDefinition/></boundaryEvent>'
        + script(
            "undo",
            'log = log + ["cancel " + city + " " + str(loopCounter)]; cancelled = True',
            ' isForCompensation="true"',
        )
        + '<association id="as" sourceRef="bc" targetRef="undo"/>'
        + '<intermediateThrowEvent id="t"><compensateEventDefinition/></intermediateThrowEvent>'
        + '<endEvent id="e"/>'
        + chain("s", "book", "t", "e")
    )
    _, outcome = run(engine, bpmn(body), cities=["Oslo", "Rome", "Lima"])
    assert outcome.state == "completed"
    assert outcome.variables["log"] == [
        "book Oslo",
        "book Rome",
        "book Lima",
        "cancel Lima 2",
        "cancel Rome 1",
        "cancel Oslo 0",
    ]
    # what the handler writes lands in the live variables, not in the snapshot
    assert outcome.variables["cancelled"] is True
    assert "city" not in outcome.variables


THROW = '<intermediateThrowEvent id="{0}"><compensateEventDefinition/></intermediateThrowEvent>'


def test_a_completed_subprocess_is_compensated_through_what_it_holds(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = (
        '<startEvent id="s"/>'
        + compensable("a", "A", "undo A")
        + '<subProcess id="sub"><startEvent id="ss"/>'
        + compensable("x", "X", "undo X")
        + compensable("y", "Y", "undo Y")
        + '<endEvent id="se"/>'
        + chain("ss", "x", "y", "se")
        + "</subProcess>"
        + compensable("b", "B", "undo B")
        + THROW.format("t")
        + '<endEvent id="e"/>'
        + chain("s", "a", "sub", "b", "t", "e")
    )
    _, outcome = run(engine, bpmn(body))
    assert outcome.state == "completed"
    assert outcome.variables["log"] == [
        *("A", "X", "Y", "B"),
        *("undo B", "undo Y", "undo X", "undo A"),
    ]


def test_a_throw_inside_a_subprocess_compensates_only_its_own_scope(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = (
        '<startEvent id="s"/>'
        + compensable("a", "A", "undo A")
        + '<subProcess id="sub"><startEvent id="ss"/>'
        + compensable("x", "X", "undo X")
        + compensable("y", "Y", "undo Y")
        + THROW.format("inner")
        + '<endEvent id="se"/>'
        + chain("ss", "x", "y", "inner", "se")
        + "</subProcess>"
        + '<endEvent id="e"/>'
        + chain("s", "a", "sub", "e")
    )
    _, outcome = run(engine, bpmn(body))
    assert outcome.variables["log"] == ["A", "X", "Y", "undo Y", "undo X"]


def test_a_compensation_event_subprocess_compensates_its_subprocess_with_its_locals(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = (
        '<startEvent id="s"/>'
        + '<subProcess id="sub"><dataObject id="trip"/><startEvent id="ss"/>'
        + script("plan", 'trip = "Rome"')
        + compensable("x", "X", "undo X")
        + compensable("y", "Y", "undo Y")
        + '<endEvent id="se"/>'
        + chain("ss", "plan", "x", "y", "se")
        + '<subProcess id="esp" triggeredByEvent="true">'
        '<startEvent id="es"><compensateEventDefinition/></startEvent>'
        + script("note", 'log = log + ["undo trip to " + trip]')
        + THROW.format("all_inside")
        + '<endEvent id="ee"/>'
        + chain("es", "note", "all_inside", "ee")
        + "</subProcess></subProcess>"
        + script("later", 'trip = "changed"')
        + THROW.format("t")
        + '<endEvent id="e"/>'
        + chain("s", "sub", "later", "t", "e")
    )
    instance, outcome = run(engine, bpmn(body))
    assert outcome.state == "completed", outcome.incident
    # the event subprocess saw the subprocess's data object as the subprocess left it, and its
    # own throw compensated the subprocess's activities, last completed first
    assert outcome.variables["log"] == ["X", "Y", "undo trip to Rome", "undo Y", "undo X"]
    started = [e.data["handler"] for e in instance.history() if e.event == "compensation.started"]
    assert started == ["esp", "undo_y", "undo_x"]


def test_a_subprocess_with_its_own_handler_is_compensated_by_it_alone(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = (
        '<startEvent id="s"/>'
        + '<subProcess id="sub"><startEvent id="ss"/>'
        + compensable("x", "X", "undo X")
        + '<endEvent id="se"/>'
        + chain("ss", "x", "se")
        + "</subProcess>"
        + '<boundaryEvent id="sub_comp" attachedToRef="sub"><compensateEventDefinition/>'
        "</boundaryEvent>"
        + script("undo_sub", 'log = log + ["undo sub"]', ' isForCompensation="true"')
        + '<association id="sub_a" sourceRef="sub_comp" targetRef="undo_sub"/>'
        + THROW.format("t")
        + '<endEvent id="e"/>'
        + chain("s", "sub", "t", "e")
    )
    _, outcome = run(engine, bpmn(body))
    assert outcome.variables["log"] == ["X", "undo sub"]


REFUSED = {
    "compensate-catch": (
        '<intermediateCatchEvent id="X"><compensateEventDefinition/></intermediateCatchEvent>'
        + chain("s", "X", "e"),
        "compensation is caught by a boundary event or an event subprocess",
    ),
    "cancel-end-outside-a-transaction": (
        '<endEvent id="X"><cancelEventDefinition/></endEvent>' + chain("s", "X"),
        "only directly inside a transaction",
    ),
    "cancel-boundary-on-a-subprocess": (
        '<subProcess id="sub"/><boundaryEvent id="X" attachedToRef="sub">'
        "<cancelEventDefinition/></boundaryEvent>" + chain("s", "sub", "e"),
        "only on a transaction",
    ),
    "compensation-boundary-without-handler": (
        '<task id="a"/><boundaryEvent id="X" attachedToRef="a">'
        "<compensateEventDefinition/></boundaryEvent>" + chain("s", "a", "e"),
        "needs exactly one association",
    ),
    "handler-with-flows": (
        '<task id="X" isForCompensation="true"/>' + chain("s", "X", "e"),
        "has no incoming or outgoing sequence flows",
    ),
    "activity-ref-unknown": (
        '<intermediateThrowEvent id="X"><compensateEventDefinition activityRef="nope"/>'
        "</intermediateThrowEvent>" + chain("s", "X", "e"),
        "activityRef 'nope' is not an activity of the same scope",
    ),
    "transaction-method-store": (
        '<transaction id="X" method="##Store"/>' + chain("s", "X", "e"),
        "transaction method '##Store'",
    ),
    "compensation-start-of-a-process": (
        '<startEvent id="X"><compensateEventDefinition/></startEvent>',
        "starts only an event subprocess",
    ),
}


@pytest.mark.parametrize("case", list(REFUSED.values()), ids=list(REFUSED))
def test_what_cannot_run_is_refused_before_the_first_step_by_run_and_validate(
    bpmn: Bpmn, engine: Engine, case: tuple[str, str]
) -> None:
    body, reason = case
    path = bpmn('<startEvent id="s"/><endEvent id="e"/>\n' + body)
    with pytest.raises(LoadError) as refused:
        engine.start(path)
    assert refused.value.element_id == "X"
    assert reason in str(refused.value)
    assert refused.value.line == 5  # the line the body is on
    report = validate(path)
    errors = [f for f in report.findings if f.rule == "executable" and f.element == "X"]
    assert errors and reason in errors[0].message, report.findings


def test_a_throw_with_nothing_to_compensate_passes_through(bpmn: Bpmn, engine: Engine) -> None:
    body = THROW.format("t") + '<endEvent id="e"><compensateEventDefinition/></endEvent>'
    _, outcome = run(engine, bpmn('<startEvent id="s"/>' + body + chain("s", "t", "e")))
    assert outcome.state == "completed"
    assert outcome.end_event == "e"


def test_miwg_c60_links_its_handlers_and_validates_its_compensation_cleanly(
    miwg_dir: Path,
) -> None:
    """C.6.0 (booking with compensation): its boundary events find their handlers through
    the associations, and neither `validate` nor the check before a run finds anything about
    its compensation to refuse."""
    path = miwg_dir / "C.6.0.bpmn"
    definitions = load_file(path)
    handlers = {
        definitions.node(n.id).name: definitions.node(n.compensation_handler).name
        for _, n in definitions.process().walk()
        if isinstance(n, Activity) and n.compensation_handler
    }
    assert handlers == {"Book Hotel": "Cancel Hotel", "Book Flight": "Cancel Flight"}
    findings = [f for f in validate(path).findings if f.rule == "executable"]
    assert not [f for f in findings if "compensat" in f.message.lower()]
    assert not definitions.process().refused
    check_process(definitions, definitions.process(), trusted=False)  # what run checks first


def test_each_compensation_step_rewinds_to_exactly_the_rows_before_it(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    """The rows that record and run compensation go back with `bpmn step`'s `back`, and the
    run forward again compensates the same way."""
    from tests.runtime.instance.test_rewind import rows

    path = bpmn(
        '<startEvent id="s"/>'
        + '<subProcess id="sub"><startEvent id="ss"/>'
        + compensable("x", "X", "undo X")
        + '<endEvent id="se"/>'
        + chain("ss", "x", "se")
        + "</subProcess>"
        + compensable("a", "A", "undo A")
        + '<endEvent id="e"><compensateEventDefinition/></endEvent>'
        + chain("s", "sub", "a", "e")
    )
    with Engine(tmp_path / "r.db", undo=True) as engine:
        instance = engine.start(path, variables={"log": []})
        seen = [rows(engine, instance.id)]
        while instance.step_once():
            seen.append(rows(engine, instance.id))
        assert instance.variables["log"] == ["X", "A", "undo A", "undo X"]
        for expected in reversed(seen[:-1]):
            instance = engine.rewind(instance.id)
            assert rows(engine, instance.id) == expected
        while instance.step_once():
            pass
        assert rows(engine, instance.id) == seen[-1]


def test_an_error_event_subprocess_compensates_the_scope_it_interrupted(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = (
        '<startEvent id="s"/>'
        + '<subProcess id="sub"><startEvent id="ss"/>'
        + compensable("x", "X", "undo X")
        + compensable("y", "Y", "undo Y")
        + '<endEvent id="boom"><errorEventDefinition/></endEvent>'
        + chain("ss", "x", "y", "boom")
        + '<subProcess id="on_error" triggeredByEvent="true">'
        '<startEvent id="es"><errorEventDefinition/></startEvent>'
        + THROW.format("undo_all")
        + '<endEvent id="ee"/>'
        + chain("es", "undo_all", "ee")
        + "</subProcess></subProcess>"
        + '<endEvent id="e"/>'
        + chain("s", "sub", "e")
    )
    _, outcome = run(engine, bpmn(body))
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["log"] == ["X", "Y", "undo Y", "undo X"]


def test_a_handler_may_be_a_subprocess(bpmn: Bpmn, engine: Engine) -> None:
    body = (
        '<startEvent id="s"/>'
        + script("book", 'log = log + ["book"]')
        + '<boundaryEvent id="bc" attachedToRef="book"><compensateEventDefinition/></boundaryEvent>'
        + '<subProcess id="undo" isForCompensation="true"><startEvent id="us"/>'
        + script("refund", 'log = log + ["refund"]')
        + script("release", 'log = log + ["release"]')
        + chain("us", "refund", "release")
        + "</subProcess>"
        + '<association id="as" sourceRef="bc" targetRef="undo"/>'
        + THROW.format("t")
        + script("after", 'log = log + ["after"]')
        + '<endEvent id="e"/>'
        + chain("s", "book", "t", "after", "e")
    )
    _, outcome = run(engine, bpmn(body))
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["log"] == ["book", "refund", "release", "after"]
