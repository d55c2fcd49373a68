"""models/flaky-payment.bpmn as its README says: two failed tries, then the payment."""

from __future__ import annotations

import pytest

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


def test_the_runbook_a_gateway_down_stops_on_an_incident_and_a_retry_pays(
    bpmn: Bpmn, monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/operations.md#runbook: every try times out while the gateway is down
    handlers = ("--handlers", str(MODELS / "flaky_payment_handlers.py"), "--db", "ops.db")
    monkeypatch.setenv("GATEWAY_DOWN", "1")
    code, lines = bpmn.json_lines(
        "run", str(MODELS / "flaky-payment.bpmn"), "--var", "amount=40", *handlers
    )
    assert code == 1 and lines[-1]["event"] == "instance.failed"
    _, [incident] = bpmn.json_lines("incidents", "--db", "ops.db")
    assert (incident["element"], incident["kind"], incident["attempt"]) == (
        "Task_ChargeCard",
        "job",
        3,
    )
    # the gateway is back: the retry tries afresh (two more time-outs, then the payment)
    monkeypatch.delenv("GATEWAY_DOWN")
    code, lines = bpmn.json_lines("retry", incident["incident"], *handlers)
    assert code == 0 and lines[-1]["event"] == "instance.completed"
    assert [f["attempt"] for f in lines if f.get("event") == "job.failed"] == [1, 2]
    assert bpmn.json_lines("incidents", "--db", "ops.db")[1] == []
