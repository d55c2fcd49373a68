"""`bpmn run / complete / resume / show / instances / cancel`: exit codes and JSON lines."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import FIXTURES, MODELS, Bpmn

ORDER = str(MODELS / "order-fulfilment.bpmn")
ORDER_HANDLERS = str(MODELS / "order_fulfilment_handlers.py")
ORDER_VARS = ["--var", 'items=["book","lamp"]', "--var", "total=1250"]


def test_run_completes_and_the_last_json_line_is_the_outcome(bpmn: Bpmn) -> None:
    code, lines = bpmn.json_lines(
        "run",
        ORDER,
        "--handlers",
        ORDER_HANDLERS,
        "--answers",
        str(MODELS / "order-fulfilment.answers.json"),
        *ORDER_VARS,
    )
    assert code == 0
    assert all("event" in line and "instance" in line for line in lines)
    assert lines[0]["event"] == "instance.started"
    assert lines[-1]["event"] == "instance.completed"
    assert lines[-1]["variables"]["shipped"] is True
    completed = [line["element"] for line in lines if line["event"] == "element.completed"]
    assert completed[0] == "StartEvent_OrderReceived"
    assert completed[-1] == "EndEvent_OrderShipped"
    assert "Task_ApproveOrder" in completed


def test_run_waits_at_a_user_task_then_complete_finishes_it(bpmn: Bpmn) -> None:
    code, lines = bpmn.json_lines("run", ORDER, "--handlers", ORDER_HANDLERS, *ORDER_VARS)
    assert code == 3
    outcome = lines[-1]
    assert outcome["event"] == "instance.waiting"
    assert [w["element"] for w in outcome["waiting_for"]] == ["Task_ApproveOrder"]
    instance = outcome["instance"]

    shown = json.loads(bpmn("show", instance, "--json").stdout)
    assert shown["state"] == "waiting"
    tokens = [(t["track"], t["element"], t["state"]) for t in shown["tokens"]]
    assert tokens == [(1, "Task_ApproveOrder", "waiting")]
    assert {"event", "element"} <= set(shown["history"][1])

    code, lines = bpmn.json_lines(
        "complete",
        instance,
        "Task_ApproveOrder",
        "--var",
        "approved=false",
        "--handlers",
        ORDER_HANDLERS,
    )
    assert code == 0
    assert lines[-1]["event"] == "instance.completed"
    assert lines[-1]["end_event"] == "EndEvent_OrderRejected"


def test_instances_lists_what_was_run(bpmn: Bpmn) -> None:
    bpmn("run", ORDER, "--handlers", ORDER_HANDLERS, *ORDER_VARS)
    done = bpmn("instances", "--json")
    assert done.returncode == 0
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["process"], r["state"], r["waiting_tasks"]) for r in rows] == [
        ("Process_OrderFulfilment", "waiting", 1)  # as `bpmn show` says it
    ]
    for state, listed in (("active", 1), ("waiting", 1), ("completed", 0)):
        done = bpmn("instances", "--json", "--state", state)
        assert len(done.stdout.splitlines()) == listed, state


def test_instances_fit_an_80_column_terminal_without_cutting_names_or_times(
    bpmn: Bpmn,
) -> None:
    """Process names and times were cut to "Process_ClaimH…" and "2026-12-04T07:…"."""
    bpmn("run", ORDER, "--handlers", ORDER_HANDLERS, *ORDER_VARS)
    leader, follower = pty.openpty()  # a terminal: piped output is never cut anyway
    with os.fdopen(leader, "rb") as terminal:
        subprocess.run(
            [sys.executable, "-m", "cli", "instances"],
            cwd=bpmn.cwd,
            stdout=follower,
            env={**os.environ, "COLUMNS": "80", "LINES": "40"},
            timeout=120,
            check=True,
        )
        os.close(follower)
        raw = b""
        with contextlib.suppress(OSError):  # the end of a pty reads as EIO
            while chunk := terminal.read1(4096):
                raw += chunk
    text = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", raw.decode()).replace("\r", "")
    assert "…" not in text
    assert all(len(line) <= 80 for line in text.splitlines())
    [row] = [line for line in text.splitlines() if "waiting" in line]
    assert "Process_OrderFulfilment" in row
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", row)


def test_cancel_terminates_a_waiting_instance(bpmn: Bpmn) -> None:
    _, lines = bpmn.json_lines("run", ORDER, "--handlers", ORDER_HANDLERS, *ORDER_VARS)
    instance = lines[-1]["instance"]
    code, lines = bpmn.json_lines("cancel", instance)
    assert code == 0
    assert lines[-1]["event"] == "instance.terminated"
    assert any(
        line["event"] == "element.terminated" and line["element"] == "Task_ApproveOrder"
        for line in lines
    )
    shown = json.loads(bpmn("show", instance, "--json").stdout)
    assert shown["state"] == "terminated"
    assert shown["tokens"] == []


def test_a_failing_handler_fails_the_run_and_resume_retries(bpmn: Bpmn, tmp_path: Path) -> None:
    handlers = tmp_path / "handlers.py"
    handlers.write_text("def check_stock(ctx):\n    raise RuntimeError('stock service down')\n")
    code, lines = bpmn.json_lines("run", ORDER, "--handlers", str(handlers), *ORDER_VARS)
    assert code == 1
    assert lines[-1]["event"] == "instance.failed"
    assert "stock service down" in lines[-1]["incident"]
    assert "Task_CheckStock" in lines[-1]["incident"]

    code, lines = bpmn.json_lines(
        "resume",
        lines[-1]["instance"],
        "--handlers",
        ORDER_HANDLERS,
        "--answers",
        str(MODELS / "order-fulfilment.answers.json"),
    )
    assert code == 0
    assert lines[-1]["event"] == "instance.completed"


def test_a_handler_calling_sys_exit_fails_the_run_it_does_not_end_it(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    """`sys.exit(0)` in a handler made `bpmn run` exit 0, as if completed, with the instance
    still active; loading a handlers file that exits is an error too."""
    handlers = tmp_path / "handlers.py"
    handlers.write_text("import sys\n\ndef check_stock(ctx):\n    sys.exit(0)\n")
    code, lines = bpmn.json_lines("run", ORDER, "--handlers", str(handlers), *ORDER_VARS)
    assert code == 1
    assert lines[-1]["event"] == "instance.failed"
    assert "called sys.exit(0)" in lines[-1]["incident"]
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\nsys.exit(3)\n")
    done = bpmn("run", ORDER, "--handlers", str(exits), *ORDER_VARS)
    assert done.returncode == 2
    assert "loading failed: called sys.exit(3)" in done.stderr
    assert "Traceback" not in done.stderr


def test_var_values_are_json_when_they_parse(bpmn: Bpmn) -> None:
    code, lines = bpmn.json_lines(
        "run",
        str(FIXTURES / "counter-loop.bpmn"),
        "--db",
        ":memory:",
        "--var",
        "n=0",
        "--var",
        "total=0",
        "--var",
        "limit=3",
        "--var",
        "label=hello",
    )
    assert code == 0
    assert lines[-1]["variables"] == {"n": 3, "total": 6, "limit": 3, "label": "hello"}


def test_people_see_a_trace_and_a_summary(bpmn: Bpmn) -> None:
    done = bpmn("run", ORDER, "--handlers", ORDER_HANDLERS, *ORDER_VARS)
    assert done.returncode == 3
    assert "Check stock" in done.stdout
    assert "waiting" in done.stdout
    assert "bpmn complete" in done.stdout and "--var approved=VALUE" in done.stdout
    assert "bpmn-engine.db" in done.stdout
    assert (bpmn.cwd / "bpmn-engine.db").exists()


def test_message_wakes_the_waiting_instance_and_runs_it(bpmn: Bpmn, tmp_path: Path) -> None:
    path = tmp_path / "pay.bpmn"
    path.write_text(
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
        'xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">'
        '<message id="M" name="paid"><extensionElements>'
        '<zeebe:subscription correlationKey="=orderId"/></extensionElements></message>'
        '<process id="p" isExecutable="true"><startEvent id="s"/>'
        '<sequenceFlow id="f1" sourceRef="s" targetRef="w"/><receiveTask id="w" messageRef="M"/>'
        '<sequenceFlow id="f2" sourceRef="w" targetRef="e"/><endEvent id="e"/></process>'
        "</definitions>"
    )
    code, lines = bpmn.json_lines("run", str(path), "--var", "orderId=A-1")
    assert code == 3
    assert lines[-1]["waiting_for"][0]["reason"] == "message"
    done = bpmn("run", str(path), "--var", "orderId=B-2")
    assert "bpmn message paid --key B-2" in done.stdout
    code, lines = bpmn.json_lines("message", "paid", "--key", "A-1", "--var", "amount=5")
    assert code == 0
    assert lines[-1]["event"] == "instance.completed"
    assert lines[-1]["variables"] == {"amount": 5, "orderId": "A-1"}
    code, lines = bpmn.json_lines("message", "paid", "--key", "nobody", "--ttl", "PT1H")
    assert code == 0 and lines == [
        {"event": "message.unclaimed", "name": "paid", "key": "nobody", "buffered": True}
    ]
    # reaching nobody is not success: a script chaining commands must see it
    nothing = bpmn("signal", "nothing")
    assert nothing.returncode == 4 and "no instance waits for signal 'nothing'" in nothing.stdout
    code, lines = bpmn.json_lines("message", "paid", "--key", "nobody")
    assert code == 4 and lines == [
        {"event": "message.unclaimed", "name": "paid", "key": "nobody", "buffered": False}
    ]


STARTS = (
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" '
    'targetNamespace="t"><message id="M" name="paid"/><signal id="S" name="go"/>'
    '<process id="p" isExecutable="true">'
    '<startEvent id="byMessage"><messageEventDefinition messageRef="M"/></startEvent>'
    '<startEvent id="bySignal"><signalEventDefinition signalRef="S"/></startEvent>'
    '<sequenceFlow id="f1" sourceRef="byMessage" targetRef="paidEnd"/>'
    '<sequenceFlow id="f2" sourceRef="bySignal" targetRef="goEnd"/>'
    '<endEvent id="paidEnd"/><endEvent id="goEnd"/></process></definitions>'
)


def test_run_creates_an_instance_waiting_at_its_message_and_signal_starts(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    path = tmp_path / "starts.bpmn"
    path.write_text(STARTS)
    code, lines = bpmn.json_lines("run", str(path))
    assert code == 3  # it was refused (2) before: no none start event
    waiting = lines[-1]
    assert sorted((w["element"], w["reason"]) for w in waiting["waiting_for"]) == [
        ("byMessage", "message"),
        ("bySignal", "signal"),
    ]
    people = bpmn("run", str(path)).stdout
    assert "bpmn message paid" in people and "bpmn signal go" in people
    code, lines = bpmn.json_lines("message", "paid", "--var", "amount=5")
    assert code == 0
    done = next(e for e in lines if e["instance"] == waiting["instance"] and "end_event" in e)
    assert (done["end_event"], done["variables"]) == ("paidEnd", {"amount": 5})
    code, lines = bpmn.json_lines("signal", "go", "--var", "who=ops")
    assert code == 0  # the second instance, from the people's run above
    ended = [e for e in lines if e["event"] == "instance.completed"]
    assert [(e["end_event"], e["variables"]) for e in ended] == [("goEnd", {"who": "ops"})]
    shown = bpmn("show", waiting["instance"], "--json").stdout
    assert '"bySignal"' in shown and "element.terminated" in shown


DESCRIBED = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="Described" isExecutable="false">
    <startEvent id="S"/>
    <callActivity id="Call"/>
    <endEvent id="E"/>
    <sequenceFlow id="f1" sourceRef="S" targetRef="Call"/>
    <sequenceFlow id="f2" sourceRef="Call" targetRef="E"/>
  </process>
</definitions>
"""

RELAY = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <message id="M_Job" name="job"/>
  <collaboration id="relay">
    <participant id="P_Boss" processRef="boss"/>
    <participant id="P_Worker" processRef="worker"/>
  </collaboration>
  <process id="boss" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="hand_out"/>
    <intermediateThrowEvent id="hand_out"><messageEventDefinition messageRef="M_Job"/>
    </intermediateThrowEvent>
    <sequenceFlow id="f2" sourceRef="hand_out" targetRef="done"/>
    <endEvent id="done"/>
  </process>
  <process id="worker" isExecutable="true">
    <startEvent id="got"><messageEventDefinition messageRef="M_Job"/></startEvent>
    <sequenceFlow id="w1" sourceRef="got" targetRef="work"/>
    <scriptTask id="work" scriptFormat="python"><script>x = 1 / 0</script></scriptTask>
    <sequenceFlow id="w2" sourceRef="work" targetRef="worked"/>
    <endEvent id="worked"/>
  </process>
</definitions>
"""


def test_validate_checks_the_non_executable_process_that_run_runs(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    # given: the file's only process, marked isExecutable="false", calling nothing
    path = tmp_path / "described.bpmn"
    path.write_text(DESCRIBED, encoding="utf-8")
    # when
    ran = bpmn("run", str(path))
    checked = bpmn("validate", str(path))
    # then: run runs it (and fails at the call); validate says both things beforehand
    assert ran.returncode == 1
    assert 'marked isExecutable="false"; running it anyway' in ran.stdout
    assert "Call: the call activity names no process to call" in ran.stdout
    assert checked.returncode == 1
    assert f'{path}:3:3 warning executable process is marked isExecutable="false"' in (
        checked.stdout
    )
    assert (
        f"{path}:5:5 error executable call activity names no process to call (calledElement)"
        in checked.stdout
    )


def test_run_of_a_collaboration_id_fails_when_an_instance_a_message_started_fails(
    bpmn: Bpmn,
) -> None:
    """The boss's message starts the worker, whose script fails: the run fails (exit 1).
    Before, `--process relay` was no process, and the run of the file started only the boss
    and exited 0 with the job never done."""
    (bpmn.cwd / "relay.bpmn").write_text(RELAY)
    for chosen in (["--process", "relay"], []):
        code, lines = bpmn.json_lines("run", "relay.bpmn", *chosen)
        assert code == 1, lines
        outcomes = [e for e in lines if e["event"].startswith("instance.") and "variables" in e]
        assert [e["event"] for e in outcomes[-2:]] == ["instance.completed", "instance.failed"]
        started = {e["instance"]: e["process"] for e in lines if e["event"] == "instance.started"}
        assert sorted(started.values()) == ["boss", "worker"]
    people = bpmn("run", "relay.bpmn", "--process", "relay")
    assert "started 1 process: boss" in people.stdout
    assert "started by a message or signal: worker" in people.stdout


def test_run_names_a_collaboration_that_is_not_there(bpmn: Bpmn) -> None:
    (bpmn.cwd / "relay.bpmn").write_text(RELAY)
    done = bpmn("run", "relay.bpmn", "--process", "nowhere")
    assert done.returncode == 2
    assert "no process 'nowhere' (processes: boss, worker, collaboration relay)" in done.stderr


def test_a_missing_variable_is_named_in_the_command_that_goes_on(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    loan = str(MODELS / "loan-approval.bpmn")
    done = bpmn("run", loan, "--db", "l.db")
    assert done.returncode == 1
    assert "unknown variable 'amount'" in done.stdout
    assert "give it and go on: bpmn resume " in done.stdout
    assert "--var amount=VALUE --db l.db" in done.stdout


def test_a_run_in_memory_that_stops_prints_no_command_that_cannot_work(bpmn: Bpmn) -> None:
    """The database goes with the process: `bpmn resume ... --db :memory:` never works."""
    failed = bpmn("run", str(MODELS / "loan-approval.bpmn"), "--db", ":memory:")
    assert failed.returncode == 1 and "unknown variable 'amount'" in failed.stdout
    assert "bpmn resume" not in failed.stdout
    assert "--db :memory: keeps nothing after this command" in failed.stdout
    waiting = bpmn("run", ORDER, "--db", ":memory:", "--handlers", ORDER_HANDLERS, *ORDER_VARS)
    assert waiting.returncode == 3, waiting.stdout + waiting.stderr
    assert "bpmn complete" not in waiting.stdout and "waiting at " in waiting.stdout


CHARGE = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
<process id="P" isExecutable="true"><startEvent id="s"/>
<sequenceFlow id="f1" sourceRef="s" targetRef="Charge"/>
<serviceTask id="Charge" implementation="charge_card"/>
<sequenceFlow id="f2" sourceRef="Charge" targetRef="e"/><endEvent id="e"/></process>
</definitions>
"""


def test_a_service_task_without_handler_waits_and_resume_with_handlers_serves_it(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    """It completed as a no-op with a ⚠ line: forgetting --handlers changed the path."""
    (tmp_path / "charge.bpmn").write_text(CHARGE)
    done = bpmn("run", "charge.bpmn", "--db", "jobs.db")
    assert done.returncode == 3, done.stdout
    instance = done.stdout.split("waiting instance ", 1)[1].split()[0]
    hint = " ".join(done.stdout.split())
    assert "waiting for a handler for service task Charge" in hint
    assert "a function named charge_card or Charge" in hint
    assert f"bpmn resume {instance} --handlers FILE --db jobs.db" in hint
    (tmp_path / "handlers.py").write_text("def charge_card(ctx):\n    return {'paid': True}\n")
    code, lines = bpmn.json_lines(
        "resume", instance, "--handlers", "handlers.py", "--db", "jobs.db"
    )
    assert code == 0
    assert lines[-1]["event"] == "instance.completed"
    assert lines[-1]["variables"] == {"paid": True}


def test_simulate_walks_past_a_service_task_without_handler(bpmn: Bpmn, tmp_path: Path) -> None:
    (tmp_path / "charge.bpmn").write_text(CHARGE)
    code, lines = bpmn.json_lines("run", "charge.bpmn", "--db", ":memory:", "--simulate")
    assert code == 0
    assert lines[-1]["event"] == "instance.completed"
    [warning] = [line for line in lines if line["event"] == "warning"]
    assert "simulated" in warning["message"]


def test_piped_output_shows_values_whole(bpmn: Bpmn, tmp_path: Path) -> None:
    """docs/cli.md: piped output is never cut; values were cut at 40, 60 and 80 characters."""
    (tmp_path / "charge.bpmn").write_text(CHARGE)
    long = "x" * 150
    done = bpmn("run", "charge.bpmn", "--db", "long.db", "--simulate", "--var", f"note={long}")
    assert done.returncode == 0
    assert f'"{long}"' in done.stdout.split("completed instance", 1)[1]  # the summary's table
    instance = done.stdout.split("completed instance ", 1)[1].split()[0]
    shown = bpmn("show", instance, "--db", "long.db")
    assert "…" not in shown.stdout
    assert f'"{long}"' in shown.stdout


def test_run_with_a_business_key_and_find_the_instance_by_it(bpmn: Bpmn) -> None:
    """`bpmn instances` could not filter by business key: there was none to give."""
    code, lines = bpmn.json_lines("run", ORDER, "--business-key", "ORDER-7", *ORDER_VARS)
    assert code == 3
    instance = lines[-1]["instance"]
    bpmn("run", ORDER, *ORDER_VARS)  # another, without a key
    done = bpmn("instances", "--business-key", "ORDER-7", "--json")
    assert [json.loads(line)["id"] for line in done.stdout.splitlines()] == [instance]
    shown = bpmn("show", instance)
    assert "business key: ORDER-7" in shown.stdout
    assert json.loads(bpmn("show", instance, "--json").stdout)["business_key"] == "ORDER-7"
