"""The pytest plugin: fixtures, fluent assertions that explain, scenario files collected."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bpmn_engine.testkit import Runner
from bpmn_engine.testkit.assertions import assert_that

MODELS = Path(__file__).resolve().parents[2] / "models"
PAYMENT = MODELS / "order-payment.bpmn"


def test_the_runner_fixture_drives_a_process_and_the_assertions_chain(bpmn_runner: Runner) -> None:
    bpmn_runner.mock("reserve_stock", {"status": "reserved"})
    bpmn_runner.mock("ship_order", error="ADDRESS_INVALID").mock(
        "ship_order", {"status": "shipped"}
    )
    bpmn_runner.start(PAYMENT, variables={"orderId": "A-1"})
    assert_that(bpmn_runner).waiting().waiting_at("Event_PaymentReceived", "Event_ThirtyMinutes")
    bpmn_runner.message("payment-received", "A-1", {"paymentId": "PAY-1"})
    assert_that(bpmn_runner).waiting_at("Task_FixAddress").passed("Event_AddressInvalid")
    bpmn_runner.complete("Fix address", {"address": "2 Side St"})
    (
        assert_that(bpmn_runner)
        .completed()
        .ended_at("EndEvent_OrderShipped")
        .variables(status="shipped", paymentId="PAY-1")
        .passed_in_order("Task_ReserveStock", "Event_PaymentReceived", "Task_FixAddress")
        .passed_times("Gateway_MergeShip", 2)
        .called("ship_order", 2)
        .not_passed("Task_ReleaseStock")
    )


def test_a_failed_assertion_shows_the_path_and_the_waits(bpmn_runner: Runner) -> None:
    bpmn_runner.mock("reserve_stock", {"status": "reserved"})
    bpmn_runner.start(PAYMENT, variables={"orderId": "A-1"})
    with pytest.raises(AssertionError) as caught:
        assert_that(bpmn_runner).completed()
    assert str(caught.value).splitlines() == [
        "expected state completed, got waiting",
        "state: waiting",
        "path taken: StartEvent_OrderPlaced -> Task_ReserveStock -> StartEvent_FulfilmentStarted",
        "waiting at: Event_OrderCancelled, Event_PaymentReceived, Event_ThirtyMinutes",
    ]


def test_time_passes_only_when_advanced(bpmn_runner: Runner) -> None:
    bpmn_runner.mock("reserve_stock", {"status": "reserved"})
    bpmn_runner.start(PAYMENT, variables={"orderId": "A-2"})
    bpmn_runner.mock("release_stock", {"status": "expired"})
    assert_that(bpmn_runner).waiting()
    bpmn_runner.advance("PT30M")
    assert_that(bpmn_runner).completed().ended_at("EndEvent_OrderExpired").called(
        "release_stock", 1
    )


def test_an_incident_is_asserted_with_its_element(bpmn_runner: Runner) -> None:
    bpmn_runner.start(MODELS / "loan-approval.bpmn", variables={"income": 1000})
    assert_that(bpmn_runner).failed().incident("amount", at="Task_ScoreApplication")


def test_assertions_take_an_instance_of_any_engine(bpmn_engine) -> None:
    instance = bpmn_engine.start(
        MODELS / "loan-approval.bpmn",
        variables={"income": 4200, "amount": 5000, "hasCollateral": False},
    )
    instance.run()
    assert_that(bpmn_engine.instance(instance.id)).completed().variables({"score": 698})


def test_scenario_files_are_collected_by_pytest(pytester: pytest.Pytester) -> None:
    shutil.copy(MODELS / "loan-approval.bpmn", pytester.path)
    (pytester.path / "loan.bpmntest.toml").write_text(
        'diagram = "loan-approval.bpmn"\n'
        '[[scenario]]\nname = "small loan"\n'
        "variables = { income = 4200, amount = 5000, hasCollateral = false }\n"
        'expect = { end_event = "EndEvent_LoanApproved" }\n'
        '[[scenario]]\nname = "expects the wrong end"\n'
        "variables = { income = 4200, amount = 5000, hasCollateral = false }\n"
        'expect = { end_event = "EndEvent_LoanRejected" }\n'
    )
    (pytester.path / "broken.bpmntest.toml").write_text('diagram = "x.bpmn"\n[[scenario]]\n')
    result = pytester.runpytest_subprocess(
        "-p", "bpmn_engine.testkit.pytest_plugin", "--continue-on-collection-errors"
    )
    result.assert_outcomes(passed=1, failed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*broken.bpmntest.toml:2: a scenario's `name` must be a non-empty string*",
            "*expected to end at EndEvent_LoanRejected, ended at EndEvent_LoanApproved*",
            "*path taken: StartEvent_ApplicationReceived -> Task_ScoreApplication*",
        ]
    )
