"""models/flaky-payment.bpmn as its README says: two failed tries, then the payment."""

from __future__ import annotations

from tests.cli.conftest import MODELS, Bpmn


def test_the_gateway_times_out_twice_and_the_third_try_pays(bpmn: Bpmn) -> None:
    code, lines = bpmn.json_lines(
        "run",
        str(MODELS / "flaky-payment.bpmn"),
        "--handlers",
        str(MODELS / "flaky_payment_handlers.py"),
        "--var",
        "amount=40",
        "--db",
        ":memory:",
    )
    assert code == 0
    failed = [line for line in lines if line.get("event") == "job.failed"]
    assert [(f["attempt"], f["tries"]) for f in failed] == [(1, 3), (2, 3)]
    assert all("payment gateway timed out" in f["error"] for f in failed)
    assert lines[-1]["event"] == "instance.completed"
    assert lines[-1]["end_event"] == "EndEvent_PaymentTaken"
    assert lines[-1]["variables"]["charged"] == 40
