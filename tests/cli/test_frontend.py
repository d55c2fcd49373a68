"""The front end's hardening: plain output in pipes and logs, deploy, resume --var, read-only
commands that never write, and clear errors for bad databases, values and durations."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import MODELS, Bpmn

LOAN = str(MODELS / "loan-approval.bpmn")


def test_output_in_a_pipe_is_never_wrapped_or_cut(bpmn: Bpmn, tmp_path: Path) -> None:
    db = str(tmp_path / ("a-database-in-a-folder-with-a-long-name-" * 4 + ".db"))
    process = "Process_LoanApproval_" + "with_a_long_id_" * 6
    diagram = tmp_path / "long.bpmn"
    diagram.write_text(Path(LOAN).read_text().replace("Process_LoanApproval", process))
    done = bpmn("run", str(diagram), "--db", db)  # no income: the first script fails
    assert done.returncode == 1, done.stderr
    instance = json.loads(bpmn("instances", "--db", db, "--json").stdout)["id"]
    resume = [line for line in done.stdout.splitlines() if "bpmn resume" in line]
    assert resume and resume[0].endswith(f"bpmn resume {instance} --db {db}"), done.stdout
    listed = bpmn("instances", "--db", db).stdout.splitlines()
    row = [line for line in listed if instance in line]
    assert row and process in row[0] and "failed" in row[0], listed


def test_deploy_shows_a_cron_timer_start(bpmn: Bpmn, tmp_path: Path) -> None:
    diagram = tmp_path / "cron.bpmn"
    diagram.write_text(
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" '
        'targetNamespace="t"><process id="Weekdays" isExecutable="true">'
        '<startEvent id="Every9"><outgoing>f</outgoing><timerEventDefinition>'
        "<timeCycle>0 9 * * MON-FRI</timeCycle></timerEventDefinition></startEvent>"
        '<endEvent id="End"><incoming>f</incoming></endEvent>'
        '<sequenceFlow id="f" sourceRef="Every9" targetRef="End"/></process></definitions>'
    )
    done = bpmn("deploy", str(diagram))
    assert done.returncode == 0, done.stderr
    assert "timer start Every9: due " in done.stdout and "cron" in done.stdout


def test_complete_refuses_a_value_a_boolean_form_field_cannot_take(bpmn: Bpmn) -> None:
    order = [str(MODELS / "order-fulfilment.bpmn")]
    order += ["--handlers", str(MODELS / "order_fulfilment_handlers.py")]
    order += ["--var", 'items=["book"]', "--var", "total=1250"]
    assert bpmn("run", *order).returncode == 3
    instance = json.loads(bpmn("instances", "--json").stdout)["id"]
    handlers = ("--handlers", str(MODELS / "order_fulfilment_handlers.py"))
    done = bpmn("complete", instance, "Task_ApproveOrder", "--var", "approved=maybe", *handlers)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Task_ApproveOrder" in done.stderr and "'approved' = 'maybe'" in done.stderr
    assert json.loads(bpmn("show", instance, "--json").stdout)["state"] == "waiting"
    done = bpmn("complete", instance, "Task_ApproveOrder", "--var", 'approved="false"', *handlers)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Order rejected" in done.stdout


def test_resume_sets_the_missing_variable_in_the_step_that_retries(bpmn: Bpmn) -> None:
    assert bpmn("run", LOAN).returncode == 1  # the score script needs amount and income
    instance = json.loads(bpmn("instances", "--json").stdout)["id"]
    fix = ["--var", "income=4200", "--var", "amount=5000", "--var", "hasCollateral=false"]
    code, lines = bpmn.json_lines("resume", instance, *fix)
    assert code == 0, lines
    assert lines[-1]["event"] == "instance.completed"
    assert lines[-1]["variables"]["decision"] == "approved"
    events = [line["event"] for line in lines]
    assert events[:2] == ["variables.updated", "incident.retried"]
    done = bpmn("resume", instance, "--var", "broken")
    assert done.returncode == 2 and "NAME=VALUE" in done.stderr
