"""Ad-hoc subprocesses: activation, completion condition, cancelRemainingInstances, ordering."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine
from bpmn_engine.errors import LoadError, UsageError
from bpmn_engine.runtime.clock import VirtualClock
from tests.runtime.conftest import Bpmn, MakeEngine, activations, events_named, flow, script


def ad_hoc(
    inner: str,
    *,
    attrs: str = "",
    completion: str | None = None,
    extension: str = "",
) -> str:
    """S -> ad-hoc subprocess H (holding `inner`) -> After -> E."""
    condition = ""
    if completion is not None:
        text = completion.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        condition = f"<completionCondition>{text}</completionCondition>"
    return "\n".join(
        [
            '<startEvent id="S"/>',
            f'<adHocSubProcess id="H" {attrs}>{extension}{inner}{condition}</adHocSubProcess>',
            script("After", "after = True"),
            '<endEvent id="E"/>',
            flow("S", "H"),
            flow("H", "After"),
            flow("After", "E"),
        ]
    )


THREE_TASKS = (
    script("A", "done = done + ['A']")
    + script("B", "done = done + ['B']")
    + '<userTask id="Review"/>'
    + script("Then", "done = done + ['Then']")
    + flow("B", "Then")
)


def test_it_waits_for_activations_and_lists_what_can_be_activated(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(ad_hoc(THREE_TASKS)), variables={"done": []})
    # when
    outcome = instance.run()
    # then: nothing ran inside; Then has an incoming flow, so it is not activatable
    assert outcome.state == "waiting"
    assert [
        (w["element"], w["activatable"]) for w in outcome.waiting_for if w["reason"] == "ad-hoc"
    ] == [("H", ["A", "B", "Review"])]
    assert activations(instance) == ["S", "H"]


def test_activated_activities_run_in_the_order_of_activation_and_flows_inside_run(
    bpmn: Bpmn, engine: Engine
):
    # given
    instance = engine.start(bpmn(ad_hoc(THREE_TASKS)), variables={"done": []})
    instance.run()
    # when
    instance.activate("B")
    instance.activate("A")
    outcome = instance.run()
    # then: B's flow leads on to Then (ready after A); the subprocess completed after Then
    assert outcome.variables["done"] == ["B", "A", "Then"]
    assert outcome.state == "completed"
    assert [e.data["activity"] for e in events_named(instance, "ad-hoc.activated")] == ["B", "A"]


def test_without_a_completion_condition_it_completes_when_nothing_inside_runs(
    bpmn: Bpmn, engine: Engine
):
    # given
    instance = engine.start(bpmn(ad_hoc(THREE_TASKS)), variables={"done": []})
    instance.run()
    # when: Review waits for a person while A runs and ends
    instance.activate("Review")
    instance.activate("A")
    outcome = instance.run()
    # then: Review still runs: the subprocess waits
    assert outcome.state == "waiting"
    assert activations(instance, "After") == []
    # when
    instance.complete_task("Review")
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["done"] == ["A"]


def test_the_completion_condition_ends_it_and_cancels_the_remaining_activities(
    bpmn: Bpmn, engine: Engine
):
    # given
    body = ad_hoc(THREE_TASKS, completion="'A' in done")
    instance = engine.start(bpmn(body), variables={"done": []})
    instance.run()
    instance.activate("Review")
    instance.activate("B")
    instance.run()
    # then: after B (and Then) the condition is false: Review still waits
    assert instance.outcome().state == "waiting"
    assert [t.element for t in instance.user_tasks()] == ["Review"]
    # when
    instance.activate("A")
    outcome = instance.run()
    # then: A made it true: Review is cancelled, the process goes on
    assert outcome.state == "completed"
    assert outcome.variables["after"] is True
    assert instance.user_tasks() == []
    assert ("element.terminated", "Review") in [(e.event, e.element) for e in instance.history()]
    assert [e.data["after"] for e in events_named(instance, "ad-hoc.completion-condition")] == ["A"]


def test_with_cancel_remaining_instances_false_completion_waits_for_what_runs(
    bpmn: Bpmn, engine: Engine
):
    # given
    body = ad_hoc(THREE_TASKS, completion="'A' in done", attrs='cancelRemainingInstances="false"')
    instance = engine.start(bpmn(body), variables={"done": []})
    instance.run()
    instance.activate("Review")
    instance.activate("A")
    outcome = instance.run()
    # then: the condition held, but Review goes on and the subprocess waits for it
    assert outcome.state == "waiting"
    assert activations(instance, "After") == []
    assert [t.element for t in instance.user_tasks()] == ["Review"]
    # and: it takes no more activations
    with pytest.raises(UsageError, match="is completing"):
        instance.activate("B")
    # when
    instance.complete_task("Review")
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["done"] == ["A"]


def test_a_false_completion_condition_keeps_it_waiting_even_with_nothing_running(
    bpmn: Bpmn, engine: Engine
):
    # given
    body = ad_hoc(THREE_TASKS, completion="len(done) >= 2")
    instance = engine.start(bpmn(body), variables={"done": []})
    instance.run()
    # when
    instance.activate("A")
    outcome = instance.run()
    # then
    assert outcome.state == "waiting"
    # when: A again (an activity can run any number of times)
    instance.activate("A")
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["done"] == ["A", "A"]


def test_sequential_ordering_refuses_a_second_activity_while_one_runs(bpmn: Bpmn, engine: Engine):
    # given
    body = ad_hoc(THREE_TASKS, attrs='ordering="Sequential"', completion="False")
    instance = engine.start(bpmn(body), variables={"done": []})
    instance.run()
    instance.activate("Review")
    instance.run()
    # when / then
    with pytest.raises(UsageError, match=r"one activity at a time .*Review is still running"):
        instance.activate("A")
    # when: Review is done
    instance.complete_task("Review")
    instance.run()
    instance.activate("A")
    instance.run()
    # then
    assert instance.variables["done"] == ["A"]


def test_parallel_ordering_runs_activities_side_by_side(bpmn: Bpmn, engine: Engine):
    # given
    body = ad_hoc(THREE_TASKS, completion="False")
    instance = engine.start(bpmn(body), variables={"done": []})
    instance.run()
    # when
    instance.activate("Review")
    instance.activate("A")
    instance.run()
    # then
    assert instance.variables["done"] == ["A"]
    assert [t.element for t in instance.user_tasks()] == ["Review"]


@pytest.mark.parametrize(
    ("element", "message"),
    [
        ("Nope", "no element 'Nope'"),
        ("After", "not inside an ad-hoc subprocess"),
        ("Then", r"only activities without incoming sequence flows can \(activatable: A, B"),
    ],
)
def test_activating_what_cannot_be_activated_says_why(
    bpmn: Bpmn, engine: Engine, element: str, message: str
):
    instance = engine.start(bpmn(ad_hoc(THREE_TASKS)), variables={"done": []})
    instance.run()
    with pytest.raises(UsageError, match=message):
        instance.activate(element)


def test_activating_before_the_subprocess_is_reached_is_refused(bpmn: Bpmn, engine: Engine):
    instance = engine.start(bpmn(ad_hoc(THREE_TASKS)), variables={"done": []})
    with pytest.raises(UsageError, match="is not active in instance"):
        instance.activate("A")


def test_active_elements_collection_activates_on_entry(bpmn: Bpmn, engine: Engine):
    # given: Zeebe's activeElementsCollection
    extension = (
        '<extensionElements><zeebe:adHoc activeElementsCollection="=todo"/></extensionElements>'
    )
    instance = engine.start(
        bpmn(ad_hoc(THREE_TASKS, extension=extension)), variables={"done": [], "todo": ["B", "A"]}
    )
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["done"] == ["B", "A", "Then"]


def test_active_elements_collection_naming_a_stranger_is_an_incident(bpmn: Bpmn, engine: Engine):
    extension = (
        '<extensionElements><zeebe:adHoc activeElementsCollection="=todo"/></extensionElements>'
    )
    instance = engine.start(
        bpmn(ad_hoc(THREE_TASKS, extension=extension)), variables={"done": [], "todo": ["Then"]}
    )
    outcome = instance.run()
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert outcome.incident.startswith("H: activeElementsCollection names 'Then'")


def test_a_resumed_instance_can_be_activated(bpmn: Bpmn, make_engine: MakeEngine, tmp_path: Path):
    # given: one activation, then the engine closes
    db = tmp_path / "store.db"
    first = make_engine(db)
    body = ad_hoc(THREE_TASKS, completion="len(done) >= 2")
    instance = first.start(bpmn(body), variables={"done": []})
    instance.run()
    instance.activate("A")
    instance.run()
    first.close()
    # when: another engine loads it and activates B
    again = make_engine(db).instance(instance.id)
    again.activate("B")
    outcome = again.run()
    # then: the condition held after B: Then, ready after it, was cancelled
    assert outcome.state == "completed"
    assert outcome.variables["done"] == ["A", "B"]


def test_start_events_inside_are_refused_before_the_first_step(bpmn: Bpmn, engine: Engine):
    body = ad_hoc('<startEvent id="Inner"/>' + script("A", "x = 1") + flow("Inner", "A"))
    with pytest.raises(LoadError, match="an ad-hoc subprocess has no start or end events") as err:
        engine.start(bpmn(body))
    assert err.value.element_id == "Inner"


def test_an_interrupting_boundary_timer_ends_it_with_what_runs_inside(
    bpmn: Bpmn, make_engine: MakeEngine
):
    # given: a timer on the ad-hoc subprocess, and a person working inside it
    timer = (
        '<boundaryEvent id="Late" attachedToRef="H"><timerEventDefinition>'
        "<timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>"
        '<endEvent id="TooLate"/>' + flow("Late", "TooLate")
    )
    engine = make_engine(clock=VirtualClock())
    instance = engine.start(bpmn(ad_hoc(THREE_TASKS) + timer), variables={"done": []})
    instance.step()  # S
    instance.step()  # H opens and waits for activations
    instance.activate("Review")
    # when: nothing else can happen: the virtual clock reaches the timer
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.end_event == "TooLate"
    assert instance.user_tasks() == []
    terminated = [e.element for e in instance.history() if e.event == "element.terminated"]
    assert terminated == ["Review", "H"]
    with pytest.raises(UsageError, match="is completed: nothing to activate"):
        instance.activate("A")
