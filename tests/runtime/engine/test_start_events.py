"""A process whose start events all wait for a trigger (message, signal, timer, condition) is
created waiting at them: the first trigger fires its start event with its variables, the
others stop waiting. A parallel multiple start event fires once every one of its definitions
has come. `start_event` fires one start event now, whatever its kind."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bpmn_engine import Engine, Instance, UsageError
from bpmn_engine.runtime.clock import VirtualClock
from tests.runtime.conftest import Bpmn, MakeEngine, events_named, flow

TWO_STARTS = (
    '<startEvent id="byMessage"><messageEventDefinition messageRef="paid"/></startEvent>'
    '<startEvent id="bySignal"><signalEventDefinition signalRef="go"/></startEvent>'
    '<endEvent id="paidEnd"/><endEvent id="goEnd"/>'
    + flow("byMessage", "paidEnd")
    + flow("bySignal", "goEnd")
)


def waits(instance: Instance) -> list[tuple[str, str]]:
    return sorted((w["element"], w["reason"]) for w in instance.outcome().waiting_for)


def test_an_instance_is_created_waiting_at_its_message_and_signal_starts(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(TWO_STARTS))
    assert instance.run().state == "waiting"
    assert sorted((t["element"], t["state"]) for t in instance.tokens()) == [
        ("byMessage", "waiting"),
        ("bySignal", "waiting"),
    ]
    assert waits(instance) == [("byMessage", "message"), ("bySignal", "signal")]


def test_the_first_message_fires_its_start_with_its_variables_and_the_others_stop(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(TWO_STARTS))
    [woken] = engine.publish_message("paid", variables={"amount": 5})
    assert woken.id == instance.id
    outcome = woken.run()
    assert (outcome.state, outcome.end_event, outcome.variables) == (
        "completed",
        "paidEnd",
        {"amount": 5},
    )
    assert [e.element for e in events_named(woken, "element.terminated")] == ["bySignal"]
    assert engine.broadcast_signal("go") == []  # nobody waits for it any more
    assert len(engine.instances()) == 1


def test_a_signal_fires_its_start_and_the_message_start_stops_waiting(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(TWO_STARTS))
    [woken] = engine.broadcast_signal("go", {"who": "ops"})
    assert woken.id == instance.id
    assert (woken.run().end_event, woken.variables) == ("goEnd", {"who": "ops"})
    assert engine.publish_message("paid") == []  # expired: no one waits


def test_a_message_thrown_by_another_instance_fires_the_start(bpmn: Bpmn, engine: Engine) -> None:
    waiting = engine.start(bpmn(TWO_STARTS))
    sender = bpmn(
        '<startEvent id="s"/>'
        '<intermediateThrowEvent id="send"><messageEventDefinition messageRef="paid"/>'
        '</intermediateThrowEvent><endEvent id="e"/>' + flow("s", "send") + flow("send", "e")
    )
    assert engine.start(sender).run().state == "completed"
    assert engine.instance(waiting.id).outcome().end_event == "paidEnd"


def test_a_message_published_before_the_instance_is_taken_when_it_starts_waiting(
    bpmn: Bpmn, engine: Engine
) -> None:
    assert engine.publish_message("paid", variables={"amount": 7}, ttl=60) == []  # buffered
    instance = engine.start(bpmn(TWO_STARTS))
    outcome = engine.instance(instance.id).run()
    assert (outcome.state, outcome.end_event, outcome.variables) == (
        "completed",
        "paidEnd",
        {"amount": 7},
    )


MULTIPLE = (
    '<startEvent id="both" parallelMultiple="PARALLEL">'
    '<messageEventDefinition messageRef="paid"/><signalEventDefinition signalRef="go"/>'
    '</startEvent><endEvent id="e"/>' + flow("both", "e")
)


def test_a_multiple_start_event_fires_on_the_first_of_its_triggers(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(MULTIPLE.replace("PARALLEL", "false")))
    assert waits(instance) == [("both", "message"), ("both", "signal")]
    [woken] = engine.broadcast_signal("go")
    assert woken.run().state == "completed"
    assert engine.publish_message("paid") == []  # its message subscription was cancelled


def test_a_parallel_multiple_start_event_fires_once_every_trigger_came(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(MULTIPLE.replace("PARALLEL", "true")))
    [woken] = engine.publish_message("paid", variables={"amount": 5})
    assert woken.run().state == "waiting"  # the signal has not come yet
    assert waits(woken) == [("both", "signal")]
    [woken] = engine.broadcast_signal("go", {"who": "ops"})
    outcome = woken.run()
    assert (outcome.state, outcome.variables) == ("completed", {"amount": 5, "who": "ops"})
    assert woken.id == instance.id
    assert [e.event for e in woken.history() if e.event.endswith(".received")] == [
        "message.received",
        "signal.received",
    ]


def timer_start(element: str, what: str, value: str) -> str:
    return (
        f'<startEvent id="{element}"><timerEventDefinition><{what}>{value}</{what}>'
        "</timerEventDefinition></startEvent>"
    )


def conditional_start(element: str, condition: str) -> str:
    text = condition.replace(">", "&gt;").replace("<", "&lt;")
    return (
        f'<startEvent id="{element}"><conditionalEventDefinition><condition>{text}</condition>'
        "</conditionalEventDefinition></startEvent>"
    )


class SetClock:
    """A real (not jumping) clock that a test sets: `resume` once a timer is due."""

    virtual = False

    def __init__(self) -> None:
        self.moment = datetime(2026, 1, 1, tzinfo=UTC)

    def now(self) -> datetime:
        return self.moment


def test_a_timer_start_fires_at_once_on_the_virtual_clock_and_the_instance_runs(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    clock = VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))
    engine = make_engine(clock=clock)
    path = bpmn(timer_start("S", "timeDuration", "PT2H") + '<endEvent id="E"/>' + flow("S", "E"))
    instance = engine.start(path)  # it was refused: no none start event
    assert waits(instance) == [("S", "timer")]
    outcome = instance.run()
    assert (outcome.state, outcome.end_event) == ("completed", "E")
    assert [e.element for e in events_named(instance, "timer.fired")] == ["S"]
    assert clock.now() == datetime(2026, 1, 1, 2, tzinfo=UTC)  # the clock jumped to it


def test_a_timer_start_due_later_waits_and_fires_once_due(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    clock = SetClock()
    engine = make_engine(clock=clock)
    path = bpmn(timer_start("S", "timeDuration", "P1D") + '<endEvent id="E"/>' + flow("S", "E"))
    instance = engine.start(path)
    assert instance.run().state == "waiting"
    clock.moment += timedelta(hours=23)
    assert engine.instance(instance.id).run().state == "waiting"  # not due yet
    clock.moment += timedelta(hours=1)
    assert engine.instance(instance.id).run().end_event == "E"


def test_a_time_cycle_start_fires_once_for_the_run_and_says_so(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    engine = make_engine(clock=VirtualClock())
    path = bpmn(timer_start("S", "timeCycle", "R/PT1H") + '<endEvent id="E"/>' + flow("S", "E"))
    instance = engine.start(path)
    # an endless cycle would keep the virtual clock from jumping to it: it fires once
    assert instance.run().state == "completed"
    assert len(events_named(instance, "timer.fired")) == 1
    [warning] = events_named(instance, "warning")
    assert "fires no more" in warning.data["message"]
    assert "bpmn deploy" in warning.data["message"]


def test_a_conditional_start_fires_when_the_variables_given_make_it_true(
    bpmn: Bpmn, engine: Engine
) -> None:
    path = bpmn(conditional_start("S", "amount > 100") + '<endEvent id="E"/>' + flow("S", "E"))
    outcome = engine.start(path, variables={"amount": 500}).run()
    assert (outcome.state, outcome.end_event) == ("completed", "E")


def test_a_conditional_start_waits_until_a_change_makes_it_true(bpmn: Bpmn, engine: Engine) -> None:
    path = bpmn(conditional_start("S", "amount > 100") + '<endEvent id="E"/>' + flow("S", "E"))
    instance = engine.start(path, variables={"amount": 5})
    outcome = instance.run()
    assert outcome.state == "waiting"
    assert [(w["element"], w["reason"], w["condition"]) for w in outcome.waiting_for] == [
        ("S", "conditional", "amount > 100")  # once: not again for its track
    ]
    reopened = engine.instance(instance.id)
    reopened.retry(variables={"amount": 50})  # `bpmn resume --var`: still false
    assert reopened.run().state == "waiting"
    reopened.retry(variables={"amount": 500})
    assert reopened.run().end_event == "E"


def test_a_conditional_start_over_a_variable_not_given_fails_and_a_resume_with_it_waits(
    bpmn: Bpmn, engine: Engine
) -> None:
    """As at a conditional catch event: the incident names the variable, and the retry
    enters the start event again, waiting at it (it refused a triggered start before)."""
    path = bpmn(conditional_start("S", "amount > 100") + '<endEvent id="E"/>' + flow("S", "E"))
    instance = engine.start(path)
    outcome = instance.run()
    assert outcome.state == "failed"
    assert "unknown variable 'amount'" in str(outcome.incident)
    reopened = engine.instance(instance.id)
    reopened.retry(variables={"amount": 5})
    assert reopened.run().state == "waiting"
    assert waits(reopened) == [("S", "conditional")]
    reopened.retry(variables={"amount": 500})
    assert reopened.run().end_event == "E"


MIXED = (
    '<startEvent id="M"><messageEventDefinition messageRef="paid"/></startEvent>'
    + timer_start("T", "timeDuration", "PT1H")
    + conditional_start("C", "amount > 100")
    + '<endEvent id="ME"/><endEvent id="TE"/><endEvent id="CE"/>'
    + flow("M", "ME")
    + flow("T", "TE")
    + flow("C", "CE")
)


def stopped(instance: Instance) -> list[str]:
    return sorted(e.element for e in events_named(instance, "element.terminated"))


def test_of_mixed_starts_a_condition_that_holds_fires_first_and_the_others_stop(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    engine = make_engine(clock=VirtualClock())
    instance = engine.start(bpmn(MIXED), variables={"amount": 500})
    assert instance.run().end_event == "CE"
    assert stopped(instance) == ["M", "T"]
    assert instance.outcome().waiting_for == []
    assert engine.publish_message("paid") == []  # nobody waits for it any more


def test_of_mixed_starts_the_timer_fires_when_nothing_else_can(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    engine = make_engine(clock=VirtualClock())
    instance = engine.start(bpmn(MIXED), variables={"amount": 5})
    assert instance.run().end_event == "TE"
    assert stopped(instance) == ["C", "M"]


def test_of_mixed_starts_a_message_that_comes_first_wins(bpmn: Bpmn, engine: Engine) -> None:
    instance = engine.start(bpmn(MIXED), variables={"amount": 5})
    assert instance.run().state == "waiting"  # the real clock: the timer is an hour away
    assert waits(instance) == [
        ("C", "conditional"),
        ("M", "message"),
        ("T", "timer"),
    ]
    [woken] = engine.publish_message("paid", variables={"amount": 500})
    assert woken.run().end_event == "ME"  # the condition, true now, no longer waits
    assert stopped(woken) == ["C", "T"]
    assert woken.outcome().waiting_for == []


# --- start_event: one start event fired now ------------------------------------------------

EVERY_KIND = (
    '<startEvent id="M" name="Order paid"><messageEventDefinition messageRef="paid"/>'
    "</startEvent>"
    '<startEvent id="G"><signalEventDefinition signalRef="go"/></startEvent>'
    + timer_start("T", "timeDate", "2999-01-01T00:00:00Z")
    + conditional_start("C", "amount > 100")
    + '<endEvent id="ME"/><endEvent id="GE"/><endEvent id="TE"/><endEvent id="CE"/>'
    + flow("M", "ME")
    + flow("G", "GE")
    + flow("T", "TE")
    + flow("C", "CE")
)


@pytest.mark.parametrize(
    ("event", "fired_by", "end"),
    [
        ("M", "message.received", "ME"),
        ("Order paid", "message.received", "ME"),  # by its name
        ("G", "signal.received", "GE"),
        ("T", "timer.fired", "TE"),  # due in 2999
        ("C", "conditional.received", "CE"),  # its condition does not hold
    ],
)
def test_start_event_fires_that_start_event_now_with_the_variables(
    bpmn: Bpmn, engine: Engine, event: str, fired_by: str, end: str
) -> None:
    instance = engine.start(bpmn(EVERY_KIND), variables={"amount": 5}, start_event=event)
    outcome = instance.run()
    assert (outcome.state, outcome.end_event, outcome.variables) == (
        "completed",
        end,
        {"amount": 5},
    )
    [fired] = events_named(instance, fired_by)
    assert (fired.element, fired.data["on_request"]) == (end[0], True)
    assert events_named(instance, "element.terminated") == []  # nothing else waited
    assert engine.publish_message("paid") == []  # the message start did not wait either


def test_start_event_at_a_message_start_takes_the_variables_as_its_message(
    bpmn: Bpmn, engine: Engine
) -> None:
    path = bpmn(
        '<startEvent id="M"><messageEventDefinition messageRef="paid" '
        'xmlns:spiff="http://spiffworkflow.org/bpmn/schema/1.0/core">'
        "<extensionElements><spiff:messageVariable>order</spiff:messageVariable>"
        "</extensionElements></messageEventDefinition></startEvent>"
        '<endEvent id="E"/>' + flow("M", "E")
    )
    outcome = engine.start(path, variables={"amount": 5}, start_event="M").run()
    assert outcome.variables == {"order": {"amount": 5}}


def test_start_event_at_one_of_two_none_starts_starts_one_token(bpmn: Bpmn, engine: Engine) -> None:
    path = bpmn(
        '<startEvent id="A"/><startEvent id="B"/><endEvent id="AE"/><endEvent id="BE"/>'
        + flow("A", "AE")
        + flow("B", "BE")
    )
    instance = engine.start(path, start_event="B")
    assert instance.run().end_event == "BE"
    assert [e.element for e in events_named(instance, "element.completed")] == ["B", "BE"]


@pytest.mark.parametrize(
    ("event", "said"),
    [
        ("nope", "no start event 'nope'"),
        ("ME", "'ME' (endEvent) is not a start event"),
    ],
)
def test_start_event_that_is_not_a_start_event_is_refused_listing_them(
    bpmn: Bpmn, engine: Engine, event: str, said: str
) -> None:
    with pytest.raises(UsageError) as refused:
        engine.start(bpmn(EVERY_KIND), start_event=event)
    message = str(refused.value)
    assert said in message
    assert "M ('Order paid', message), G (signal), T (timer), C (conditional)" in message
    assert engine.instances() == []


def test_start_event_of_a_kind_only_an_event_subprocess_starts_on_is_refused(
    bpmn: Bpmn, engine: Engine
) -> None:
    path = bpmn('<startEvent id="S"><errorEventDefinition/></startEvent><endEvent id="E"/>')
    with pytest.raises(UsageError, match="S: it starts on error, which starts an event subpro"):
        engine.start(path, start_event="S")
    assert engine.instances() == []
