"""`--record FILE`: a run, a message and a completion become a scenario `bpmn test` replays."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from tests.cli.conftest import MODELS, Bpmn


def copy_models(tmp_path: Path) -> Path:
    target = tmp_path / "models"
    shutil.copytree(MODELS, target, ignore=shutil.ignore_patterns("*.db*", "*.bpmntest.toml"))
    return target


def test_a_run_a_message_and_a_completion_replay_to_the_same_end(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    models = copy_models(tmp_path)
    handlers = ["--handlers", "models/order_payment_handlers.py", "--db", "r.db"]
    record = ["--record", "bug.bpmntest.toml"]
    code, lines = bpmn.json_lines(
        "run",
        "models/order-payment.bpmn",
        "--var",
        "orderId=A-4",
        "--var",
        'address=""',
        *handlers,
        *record,
    )
    assert code == 3
    instance = lines[-1]["instance"]
    code, _ = bpmn.json_lines(
        "message",
        "payment-received",
        "--key",
        "A-4",
        "--var",
        "paymentId=PAY-4",
        *handlers,
        *record,
    )
    assert code == 3
    done = bpmn(
        "complete", instance, "Fix address", "--var", 'address="2 Side St"', *handlers, *record
    )
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "bug.bpmntest.toml").read_text()
    assert text.startswith(f"# Recorded by bpmn-engine from instance {instance};")
    [scenario] = tomllib.loads(text)["scenario"]
    assert scenario["steps"] == [
        {"message": "payment-received", "key": "A-4", "variables": {"paymentId": "PAY-4"}},
        {"complete": "Fix address", "variables": {"address": "2 Side St"}},
    ]
    assert scenario["mocks"]["ship_order"]["calls"][0] == {
        "error": "ADDRESS_INVALID",
        "message": "order A-4 has no delivery address",
    }
    assert scenario["expect"]["end_event"] == "EndEvent_OrderShipped"
    # the handlers are not needed any more: each call is replayed as recorded
    (models / "order_payment_handlers.py").write_text("raise SystemExit('not for replays')\n")
    replay = bpmn("test", "bug.bpmntest.toml")
    assert replay.returncode == 0, replay.stdout
    assert "1 passed" in replay.stdout
    # and the scenario catches a change of the diagram
    diagram = models / "order-payment.bpmn"
    diagram.write_text(
        diagram.read_text().replace('targetRef="Task_FixAddress"', 'targetRef="Gateway_MergeShip"')
    )
    broken = bpmn("test", "bug.bpmntest.toml")
    assert broken.returncode == 1
    assert "complete 'Fix address': no such user task waits" in broken.stdout


def test_answers_are_recorded_one_per_visit(bpmn: Bpmn, tmp_path: Path) -> None:
    copy_models(tmp_path)
    done = bpmn(
        "run",
        "models/claim-handling.bpmn",
        "--handlers",
        "models/claim_handling_handlers.py",
        "--answers",
        "models/claim-handling.answers.json",
        "--var",
        "claimedAmount=4800",
        "--var",
        "policyLimit=10000",
        "--var",
        "deductible=500",
        "--db",
        "c.db",
        "--record",
        "claim.bpmntest.toml",
    )
    assert done.returncode == 0, done.stderr
    [scenario] = tomllib.loads((tmp_path / "claim.bpmntest.toml").read_text())["scenario"]
    assert scenario["answers"] == {"Task_ReviewEstimate": [{"accepted": False}, {"accepted": True}]}
    assert len(scenario["mocks"]["pay_out"]["calls"]) == 1
    replay = bpmn("test", "claim.bpmntest.toml", "--json")
    assert replay.returncode == 0, replay.stdout


def test_a_recording_belongs_to_one_instance(bpmn: Bpmn, tmp_path: Path) -> None:
    copy_models(tmp_path)
    run = ["run", "models/order-payment.bpmn", "--var", "orderId=A-1", "--db", "r.db"]
    assert bpmn(*run, "--record", "one.bpmntest.toml").returncode == 3
    _, lines = bpmn.json_lines(*run)
    other = lines[-1]["instance"]
    done = bpmn("complete", other, "Fix address", "--db", "r.db", "--record", "one.bpmntest.toml")
    assert done.returncode == 2
    assert "records instance" in done.stderr and f"not {other}" in done.stderr
    missing = bpmn("message", "x", "--db", "r.db", "--record", "none.bpmntest.toml")
    assert missing.returncode == 2 and "none.bpmntest.toml: no such file" in missing.stderr


def test_one_run_with_answers_a_handler_and_a_message_replays(bpmn: Bpmn, tmp_path: Path) -> None:
    copy_models(tmp_path)
    (tmp_path / "fix.json").write_text('{"Task_FixAddress": {"address": "2 Side St"}}')
    options = ["--handlers", "models/order_payment_handlers.py", "--db", "r.db"]
    options += ["--answers", "fix.json", "--record", "all.bpmntest.toml"]
    start = ["run", "models/order-payment.bpmn", "--var", "orderId=A-5", "--var", 'address=""']
    assert bpmn(*start, *options).returncode == 3
    done = bpmn("message", "payment-received", "--key", "A-5", *options)
    assert done.returncode == 0, done.stdout + done.stderr
    [scenario] = tomllib.loads((tmp_path / "all.bpmntest.toml").read_text())["scenario"]
    assert scenario["answers"] == {"Task_FixAddress": [{"address": "2 Side St"}]}
    assert [len(m["calls"]) for m in scenario["mocks"].values()] == [1, 2]  # reserve, ship x2
    assert scenario["steps"] == [{"message": "payment-received", "key": "A-5"}]
    assert scenario["expect"]["end_event"] == "EndEvent_OrderShipped"
    replay = bpmn("test", "all.bpmntest.toml")
    assert replay.returncode == 0, replay.stdout


PAY = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
<process id="P" isExecutable="true"><startEvent id="s"/>
<sequenceFlow id="f1" sourceRef="s" targetRef="Pay"/>
<serviceTask id="Pay" implementation="pay"/>
<sequenceFlow id="f2" sourceRef="Pay" targetRef="e"/><endEvent id="e"/></process>
</definitions>
"""


def test_a_failed_run_and_its_resume_replay_to_the_same_end(bpmn: Bpmn, tmp_path: Path) -> None:
    """`resume` had no --record: a bug fixed by a resume could not become a scenario."""
    (tmp_path / "pay.bpmn").write_text(PAY)
    (tmp_path / "down.py").write_text("def pay(ctx):\n    raise RuntimeError('bank down')\n")
    (tmp_path / "up.py").write_text("def pay(ctx):\n    return {'paid': ctx.variables['sum']}\n")
    record = ["--db", "r.db", "--record", "bug.bpmntest.toml"]
    code, lines = bpmn.json_lines("run", "pay.bpmn", "--handlers", "down.py", *record)
    assert code == 1
    instance = lines[-1]["instance"]
    code, lines = bpmn.json_lines(
        "resume", instance, "--handlers", "up.py", "--var", "sum=12", *record
    )
    assert code == 0
    assert lines[-1]["variables"] == {"paid": 12, "sum": 12}
    [scenario] = tomllib.loads((tmp_path / "bug.bpmntest.toml").read_text())["scenario"]
    assert scenario["steps"] == [{"resume": True, "variables": {"sum": 12}}]
    assert scenario["mocks"]["pay"]["calls"] == [
        *[{"fail": "RuntimeError: bank down"}] * 3,  # the default three tries
        {"returns": {"paid": 12}},
    ]
    assert scenario["expect"]["state"] == "completed"
    replayed = bpmn("test", "bug.bpmntest.toml")
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
