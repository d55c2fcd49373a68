"""Running scenarios: mocks, answers, messages, signals, the clock, and failures that explain."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bpmn_engine.testkit import Runner, load_scenarios, run_scenario
from bpmn_engine.testkit.runner import StillRunning

PAYMENT = 'diagram = "order-payment.bpmn"\nhandlers = "order_payment_handlers.py"\n' + (
    'variables = { orderId = "A-1", address = "1 Main St" }\n'
)

SIGNALS = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <signal id="Signal_Go" name="go" />
  <process id="P" isExecutable="true">
    <startEvent id="Start" />
    <intermediateCatchEvent id="WaitGo"><signalEventDefinition signalRef="Signal_Go" />
    </intermediateCatchEvent>
    <serviceTask id="Work" />
    <endEvent id="End" />
    <sequenceFlow id="f1" sourceRef="Start" targetRef="WaitGo" />
    <sequenceFlow id="f2" sourceRef="WaitGo" targetRef="Work" />
    <sequenceFlow id="f3" sourceRef="Work" targetRef="End" />
  </process>
</definitions>
"""


def run(path: Path) -> list:
    return [run_scenario(s) for s in load_scenarios(path)]


def test_a_timer_fires_only_when_the_scenario_advances_the_clock(scenario_file) -> None:
    [result] = run(
        scenario_file(
            PAYMENT + '[[scenario]]\nname = "t"\n'
            '[[scenario.steps]]\nadvance = "PT29M59S"\n'
            'expect = { state = "waiting", not_passed = ["Event_ThirtyMinutes"] }\n'
            '[[scenario.steps]]\nadvance = "PT1S"\n'
            '[scenario.expect]\nstate = "completed"\nend_event = "EndEvent_OrderExpired"\n'
        )
    )
    assert result.passed, result.report()


def test_a_broken_expectation_says_which_and_shows_the_path(scenario_file) -> None:
    [result] = run(
        scenario_file(
            PAYMENT + '[[scenario]]\nname = "t"\n'
            '[scenario.expect]\nstate = "completed"\n'
            'variables = { status = "shipped", missing = 1 }\n'
        )
    )
    assert result.outcome == "failed"
    report = result.report()
    assert "at the end, line 6: expected state completed, got waiting" in report
    assert 'variable \'status\' is "reserved", expected "shipped"' in report
    assert "variable 'missing' is not set" in report
    assert "path taken: StartEvent_OrderPlaced -> Task_ReserveStock ->" in report
    assert "waiting at: Event_OrderCancelled, Event_PaymentReceived, Event_ThirtyMinutes" in report


def test_mocks_return_throw_and_fail_in_turn(scenario_file) -> None:
    [result] = run(
        scenario_file(
            PAYMENT + '[[scenario]]\nname = "t"\n'
            "mocks.ship_order.calls = [\n"
            '  { error = "ADDRESS_INVALID" },\n'
            '  { fail = "carrier offline" },\n'
            "]\n"
            '[[scenario.steps]]\nmessage = "payment-received"\nkey = "A-1"\n'
            '[[scenario.steps]]\ncomplete = "Task_FixAddress"\n'
            'variables = { address = "2 Side St" }\n'
            '[scenario.expect]\nstate = "failed"\nincident = "carrier offline"\n'
            # the failure is tried three times (the default): four calls in all
            'incident_at = "Task_ShipOrder"\ncalls = { ship_order = 4 }\n'
            'passed = ["Event_AddressInvalid", "Task_FixAddress"]\n'
        )
    )
    assert result.passed, result.report()


def test_a_mock_repeats_its_last_call(scenario_file) -> None:
    [result] = run(
        scenario_file(
            'diagram = "trip-booking.bpmn"\nhandlers = "trip_booking_handlers.py"\n'
            '[[scenario]]\nname = "t"\n'
            'mocks.reserve_car = { returns = { carId = "C-1" } }\n'
            '[scenario.expect]\nstate = "completed"\ncalls = { reserve_car = 1 }\n'
            'not_passed = ["Task_CancelFlight"]\n'
        )
    )
    assert result.passed, result.report()


def test_completing_a_task_that_does_not_wait_fails_the_scenario(scenario_file) -> None:
    [result] = run(
        scenario_file(
            PAYMENT + '[[scenario]]\nname = "t"\n'
            '[[scenario.steps]]\ncomplete = "Task_FixAddress"\n'
            '[scenario.expect]\nstate = "completed"\n'
        )
    )
    assert result.outcome == "failed"
    assert result.failures == [
        "step 1, line 7: complete 'Task_FixAddress': no such user task waits (waiting: none)"
    ]


def test_signals_wake_what_waits_for_them(scenario_file, models: Path) -> None:
    (models / "signals.bpmn").write_text(SIGNALS)
    [result] = run(
        scenario_file(
            'diagram = "signals.bpmn"\n[[scenario]]\nname = "t"\n'
            "mocks.Work = { returns = { done = true } }\n"
            '[[scenario.steps]]\nexpect = { waiting_at = ["WaitGo"], calls = { Work = 0 } }\n'
            '[[scenario.steps]]\nsignal = "go"\nvariables = { by = "test" }\n'
            '[scenario.expect]\nstate = "completed"\nvariables = { done = true }\n'
            "calls = { Work = 1 }\n"
        )
    )
    assert result.passed, result.report()


def test_a_step_expectation_stops_the_scenario_where_it_broke(scenario_file) -> None:
    [result] = run(
        scenario_file(
            PAYMENT + '[[scenario]]\nname = "t"\n'
            '[[scenario.steps]]\nexpect = { waiting_at = ["Task_FixAddress"] }\n'
            '[[scenario.steps]]\nmessage = "payment-received"\nkey = "A-1"\n'
            '[scenario.expect]\nstate = "completed"\n'
        )
    )
    assert result.failures == [
        "after step 1, line 6: expected to wait at Task_FixAddress, "
        "waiting at: Event_OrderCancelled, Event_PaymentReceived, Event_ThirtyMinutes"
    ]
    assert "Task_ShipOrder" not in result.path  # the message step never ran


def test_a_diagram_that_does_not_load_is_an_error_naming_it(scenario_file, models: Path) -> None:
    (models / "broken.bpmn").write_text("<definitions")
    [result] = run(
        scenario_file(
            'diagram = "broken.bpmn"\n[[scenario]]\nname = "t"\nexpect = { state = "completed" }\n'
        )
    )
    assert result.outcome == "error"
    assert result.failures[0].startswith(str(models / "broken.bpmn"))


def test_a_call_activity_is_followed_into_the_called_diagram(scenario_file) -> None:
    [result] = run(
        scenario_file(
            'diagrams = ["order-with-payment.bpmn", "payment.bpmn"]\n'
            'handlers = "payment_handlers.py"\n'
            '[[scenario]]\nname = "t"\n'
            'variables = { orderId = "B-1", lines = [{ sku = "book", qty = 2, price = 12.5 }] }\n'
            '[scenario.expect]\nstate = "completed"\npassed = ["Task_ChargeCard"]\n'
        )
    )
    assert result.passed, result.report()
    assert set(result.coverage.diagrams) == {str(Path(p)) for p in result.scenario.diagrams}


def test_coverage_matches_a_hand_count(scenario_file) -> None:
    [result] = run(
        scenario_file(
            'diagram = "loan-approval.bpmn"\n[[scenario]]\nname = "small loan"\n'
            "variables = { income = 4200, amount = 5000, hasCollateral = false }\n"
            'expect = { end_event = "EndEvent_LoanApproved" }\n'
        )
    )
    [diagram] = result.coverage.diagrams.values()
    # start, score, which checks?, credit check, checks done, decide, approved?, approved end
    assert len(diagram.reached_elements) == 8 and len(diagram.elements) == 11
    assert diagram.missed_elements == [
        "EndEvent_LoanRejected",
        "Task_AppraiseCollateral",
        "Task_ManualReview",
    ]
    # to score, to which checks, always credit check, credit checked, to decide, to approved,
    # loan approved
    assert len(diagram.reached_flows) == 7 and len(diagram.flows) == 12
    assert round(diagram.percent, 1) == round(100 * 15 / 23, 1)


LOOP = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="P" isExecutable="true">
    <startEvent id="Start" />
    <exclusiveGateway id="Again" />
    <task id="Work" />
    <sequenceFlow id="f1" sourceRef="Start" targetRef="Again" />
    <sequenceFlow id="f2" sourceRef="Again" targetRef="Work" />
    <sequenceFlow id="f3" sourceRef="Work" targetRef="Again" />
  </process>
</definitions>
"""


def test_a_loop_that_never_ends_is_stopped_and_said(models: Path) -> None:
    (models / "loop.bpmn").write_text(LOOP)
    with Runner(max_events=300) as runner:
        with pytest.raises(StillRunning, match="still running after 300 events"):
            runner.start(models / "loop.bpmn")
        assert runner.calls == {}
        assert runner.instance.state.value == "active"  # stopped between two steps


def test_a_deployment_is_tested_through_the_instances_it_starts(scenario_file) -> None:
    [result] = run(
        scenario_file(
            'diagram = "subscription-renewal.bpmn"\nhandlers = "subscription_renewal_handlers.py"\n'
            'deploy = true\n[[scenario]]\nname = "t"\n'
            '[[scenario.steps]]\nadvance = "P1D"\n'
            '[[scenario.steps]]\nadvance = "P1D"\n'
            '[scenario.expect]\ninstances = 2\nstate = "completed"\n'
        )
    )
    # the first run has ended; the second, started a day later, waits for its grace period
    [failure] = result.failures
    assert re.fullmatch(
        r"at the end, line 10: instance \w+: expected state completed, got waiting", failure
    ), failure


TRIGGERED = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="P" isExecutable="true">
    <startEvent id="Start" />
    <intermediateCatchEvent id="WaitClick" name="Click" />
    <endEvent id="End" />
    <sequenceFlow id="f1" sourceRef="Start" targetRef="WaitClick" />
    <sequenceFlow id="f2" sourceRef="WaitClick" targetRef="End" />
  </process>
</definitions>
"""


def test_a_trigger_step_moves_a_wait_state_on(scenario_file, models: Path) -> None:
    (models / "click.bpmn").write_text(TRIGGERED)
    [result] = run(
        scenario_file(
            'diagram = "click.bpmn"\n[[scenario]]\nname = "t"\n'
            '[[scenario.steps]]\nexpect = { state = "waiting", waiting_at = ["WaitClick"] }\n'
            '[[scenario.steps]]\ntrigger = "Click"\nvariables = { clicked = true }\n'
            '[scenario.expect]\nstate = "completed"\nvariables = { clicked = true }\n'
        )
    )
    assert result.passed, result.report()


def test_triggering_what_does_not_wait_fails_the_scenario(scenario_file, models: Path) -> None:
    (models / "click.bpmn").write_text(TRIGGERED)
    [result] = run(
        scenario_file(
            'diagram = "click.bpmn"\n[[scenario]]\nname = "t"\n'
            '[[scenario.steps]]\ntrigger = "End"\n'
            '[scenario.expect]\nstate = "completed"\n'
        )
    )
    assert result.outcome == "failed"
    [failure] = result.failures
    assert failure.startswith("step 1, line 5: trigger 'End': no token of instance ")
    assert failure.endswith("waiting for a trigger: WaitClick (Click)")


def test_the_runner_triggers_in_python(models: Path) -> None:
    (models / "click.bpmn").write_text(TRIGGERED)
    with Runner() as runner:
        runner.start(models / "click.bpmn")
        runner.trigger("WaitClick", {"n": 1})
        assert runner.instance.outcome().state == "completed"
        assert runner.instance.variables == {"n": 1}


STARTS = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <message id="M_Paid" name="paid" />
  <process id="P" isExecutable="true">
    <startEvent id="Paid"><messageEventDefinition messageRef="M_Paid" /></startEvent>
    <startEvent id="Nightly" name="Every night">
      <timerEventDefinition><timeDuration>PT12H</timeDuration></timerEventDefinition>
    </startEvent>
    <endEvent id="PaidEnd" />
    <endEvent id="NightlyEnd" />
    <sequenceFlow id="f1" sourceRef="Paid" targetRef="PaidEnd" />
    <sequenceFlow id="f2" sourceRef="Nightly" targetRef="NightlyEnd" />
  </process>
</definitions>
"""


def test_a_run_waits_at_its_timer_start_until_advanced_or_fires_the_start_named(
    models: Path,
) -> None:
    (models / "starts.bpmn").write_text(STARTS)
    with Runner() as runner:
        runner.start(models / "starts.bpmn")
        assert runner.instance.outcome().state == "waiting"
        runner.advance("PT12H")
        assert runner.instance.outcome().end_event == "NightlyEnd"
    with Runner() as runner:
        runner.start(models / "starts.bpmn", start_event="Every night", variables={"n": 1})
        assert (runner.instance.outcome().end_event, runner.instance.variables) == (
            "NightlyEnd",
            {"n": 1},
        )
