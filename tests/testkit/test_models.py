"""The models' stories (models/README.md) through the pytest plugin's runner and assertions.

The same stories run as scenario files (models/*.bpmntest.toml, `bpmn test models/`); here
they show what a team's own pytest suite looks like.
"""

from __future__ import annotations

from pathlib import Path

from bpmn_engine.testkit import Runner, assert_that

MODELS = Path(__file__).resolve().parents[2] / "models"


def test_order_fulfilment_a_large_order_is_approved_and_shipped(bpmn_runner: Runner) -> None:
    bpmn_runner.use_handlers(MODELS / "order_fulfilment_handlers.py")
    bpmn_runner.start(
        MODELS / "order-fulfilment.bpmn", variables={"items": ["book", "lamp"], "total": 1250}
    )
    assert_that(bpmn_runner).waiting_at("Task_ApproveOrder").called("check_stock", 1)
    bpmn_runner.complete("Approve order", {"approved": True})
    (
        assert_that(bpmn_runner)
        .completed()
        .ended_at("EndEvent_OrderShipped")
        .variables(inStock=True, approved=True, charged=1250, reservedUnits=2)
        .passed("Task_ChargePayment", "Task_ReserveStock", "Task_PrintInvoice")
    )


def test_claim_handling_loops_until_an_estimate_is_accepted(bpmn_runner: Runner) -> None:
    bpmn_runner.use_handlers(MODELS / "claim_handling_handlers.py")
    bpmn_runner.answer("Review estimate", [{"accepted": False}, {"accepted": True}])
    bpmn_runner.start(
        MODELS / "claim-handling.bpmn",
        variables={"claimedAmount": 4800, "policyLimit": 10000, "deductible": 500},
    )
    (
        assert_that(bpmn_runner)
        .completed()
        .ended_at("EndEvent_ClaimPaid")
        .passed_times("Task_ReviewEstimate", 2)
        .variables(revision=2, estimate=4320, payout=3820, paidAmount=3820)
    )


def test_ticket_escalation_reminds_twice_then_escalates(bpmn_runner: Runner) -> None:
    bpmn_runner.start(MODELS / "ticket-escalation.bpmn", variables={"reminders": 0})
    bpmn_runner.advance("P1D")
    (
        assert_that(bpmn_runner)
        .waiting_at("Task_TeamLeadReview")
        .passed_times("Event_Reminder", 2)
        .passed("Event_SlaBreached", "EndEvent_TicketClosed")
    )
    bpmn_runner.complete("Task_TeamLeadReview", {"leadNote": "Reassigned"})
    assert_that(bpmn_runner).completed().ended_at("EndEvent_Reviewed")


def test_trip_booking_cancels_the_hotel_then_the_flight(bpmn_runner: Runner) -> None:
    bpmn_runner.use_handlers(MODELS / "trip_booking_handlers.py")
    bpmn_runner.start(MODELS / "trip-booking.bpmn", variables={"city": "Rome"})
    (
        assert_that(bpmn_runner)
        .completed()
        .passed_in_order("Task_ReserveHotel", "Task_CancelHotel", "Task_CancelFlight")
        .called("cancel_car", 0)
    )


def test_order_with_payment_calls_the_payment_process(bpmn_runner: Runner) -> None:
    bpmn_runner.use_handlers(MODELS / "payment_handlers.py")
    bpmn_runner.start(
        MODELS / "order-with-payment.bpmn",
        MODELS / "payment.bpmn",
        variables={"orderId": "B-2", "lines": [{"sku": "desk", "qty": 10, "price": 250}]},
    )
    (
        assert_that(bpmn_runner)
        .completed()
        .ended_at("EndEvent_OrderCancelled")
        .passed("Event_PaymentDeclined")
        .not_passed("Task_ChargeCard")  # it threw PAYMENT_DECLINED
        .called("charge_card", 1)
        .variables(total=2500, status="cancelled")
    )
