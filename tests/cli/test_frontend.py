"""The front end's hardening: plain output in pipes and logs, deploy, resume --var, read-only
commands that never write, and clear errors for bad databases, values and durations."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.conftest import FIXTURES, MODELS, Bpmn

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
    want = f"bpmn resume {instance} --var amount=VALUE --db {db}"  # the variable it lacks
    assert resume and resume[0].endswith(want), done.stdout
    listed = bpmn("instances", "--db", db).stdout.splitlines()
    row = [line for line in listed if instance in line]
    assert row and process in row[0] and "failed" in row[0], listed


def test_instances_filters_by_state_and_process(bpmn: Bpmn, tmp_path: Path) -> None:
    db = str(tmp_path / "f.db")
    assert bpmn("run", LOAN, "--db", db).returncode == 1  # no income: failed
    loop = str(FIXTURES / "counter-loop.bpmn")
    ok = bpmn("run", loop, "--db", db, "--var", "n=0", "--var", "total=0", "--var", "limit=2")
    assert ok.returncode == 0, ok.stderr
    rows = [json.loads(x) for x in bpmn("instances", "--db", db, "--json").stdout.splitlines()]
    assert len(rows) == 2 and all(row["instance"] == row["id"] for row in rows)
    failed = bpmn("instances", "--db", db, "--state", "failed", "--json").stdout.splitlines()
    assert [json.loads(x)["state"] for x in failed] == ["failed"]
    process = rows[1]["process"]
    mine = bpmn("instances", "--db", db, "--process", process, "--json").stdout.splitlines()
    assert [json.loads(x)["id"] for x in mine] == [rows[1]["id"]]
    other = bpmn("instances", "--db", db, "--process", "nope", "--json")
    assert other.returncode == 0 and other.stdout == ""
    bad = bpmn("instances", "--db", db, "--state", "sleeping")
    assert bad.returncode == 2 and "'sleeping' is not one of" in bad.stderr


def test_show_gives_each_history_event_its_time_and_can_show_the_last_few(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    db = str(tmp_path / "h.db")
    assert bpmn("run", LOAN, "--db", db).returncode == 1
    instance = json.loads(bpmn("instances", "--db", db, "--json").stdout)["id"]
    payload = json.loads(bpmn("show", instance, "--db", db, "--json").stdout)
    assert len(payload["history"]) > 3
    assert all(
        re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d.*", e["at"]) for e in payload["history"]
    )
    last = json.loads(bpmn("show", instance, "--db", db, "--json", "--history", "2").stdout)
    assert last["history"] == payload["history"][-2:]
    text = bpmn("show", instance, "--db", db, "--history", "2").stdout
    assert f"history (the last 2 of {len(payload['history'])})" in text
    assert re.search(r"\d\d:\d\d:\d\d\s+instance\.failed", text), text


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


def ignoring_sigint() -> None:
    """As a shell without job control starts `bpmn run ... &`: SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("started_as", ["foreground", "background"])
def test_ctrl_c_says_how_to_go_on(bpmn: Bpmn, tmp_path: Path, started_as: str) -> None:
    """Also for a run started in the background, which inherits SIGINT ignored: `kill -INT`
    could not stop it (and the suite's Ctrl-C tests failed when run that way)."""
    diagram = tmp_path / "slow.bpmn"
    diagram.write_text(
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
        'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">'
        '<process id="Slow" isExecutable="true"><startEvent id="S"/>'
        '<serviceTask id="Work" camunda:type="external" camunda:topic="slow"/><endEvent id="E"/>'
        '<sequenceFlow id="a" sourceRef="S" targetRef="Work"/>'
        '<sequenceFlow id="b" sourceRef="Work" targetRef="E"/></process></definitions>'
    )
    started = tmp_path / "started"
    handlers = tmp_path / "slow.py"
    handlers.write_text(
        "import pathlib, time\n\n\ndef slow(ctx):\n"
        f"    pathlib.Path({str(started)!r}).touch()\n    time.sleep(120)\n"
    )
    db = str(tmp_path / "slow.db")
    command = [sys.executable, "-m", "cli", "run", str(diagram), "--handlers", str(handlers)]
    child = subprocess.Popen(
        [*command, "--db", db],
        cwd=bpmn.cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=ignoring_sigint if started_as == "background" else None,
    )
    for _ in range(600):  # until the handler runs; the step before it is committed
        if started.exists() or child.poll() is not None:
            break
        time.sleep(0.1)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    instance = json.loads(bpmn("instances", "--db", db, "--json").stdout)["id"]
    assert child.returncode == 130
    assert f"bpmn resume {instance} --db {db}" in err.decode()
    assert "aborted" not in err.decode() and "Traceback" not in err.decode()


def failed_loan(bpmn: Bpmn, db: str) -> str:
    """A loan run that failed (no variables): its instance id."""
    assert bpmn("run", LOAN, "--db", db).returncode == 1
    return json.loads(bpmn("instances", "--db", db, "--json").stdout)["id"]


def test_read_only_commands_never_create_a_database(bpmn: Bpmn, tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    for args in (["show", "abc"], ["instances"], ["instances", "--json"]):
        done = bpmn(*args, "--db", str(missing))
        assert done.returncode == 2 and "no such database" in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_foreign_sqlite_database_is_refused_untouched(bpmn: Bpmn, tmp_path: Path) -> None:
    foreign = tmp_path / "app.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE customers (name TEXT)")
        conn.execute("INSERT INTO customers VALUES ('Ada')")
    conn.close()
    before = foreign.read_bytes()
    for args in (["show", "abc"], ["instances"], ["run", LOAN], ["resume", "abc"]):
        done = bpmn(*args, "--db", str(foreign))
        assert done.returncode == 2, done.stderr
        assert f"{foreign}: not a bpmn-engine database" in done.stderr
    assert foreign.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.db"]  # no -wal, no -shm


def read_only(path: Path) -> None:
    """Make `path` unwritable, for root too (whom chmod does not stop)."""
    path.chmod(0o444)
    if os.geteuid() == 0 and subprocess.run(["chattr", "+i", str(path)]).returncode != 0:
        pytest.skip("root, and no chattr +i: cannot make a file read-only")


def test_a_read_only_database_is_read_and_writes_say_why_not(bpmn: Bpmn, tmp_path: Path) -> None:
    db = tmp_path / "ro.db"
    instance = failed_loan(bpmn, str(db))
    read_only(db)
    try:
        listed = bpmn("instances", "--db", str(db))
        assert listed.returncode == 0 and instance in listed.stdout, listed.stderr
        shown = bpmn("show", instance, "--db", str(db))
        assert shown.returncode == 0 and "Task_ScoreApplication" in shown.stdout, shown.stderr
        done = bpmn("resume", instance, "--db", str(db))
        assert done.returncode == 2 and "read-only" in done.stderr, done.stderr
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(db)])


def test_a_database_damaged_past_its_header_is_named(bpmn: Bpmn, tmp_path: Path) -> None:
    db = tmp_path / "damaged.db"
    instance = failed_loan(bpmn, str(db))
    with sqlite3.connect(db) as conn:
        pages = dict(conn.execute("SELECT name, rootpage FROM sqlite_master WHERE type='table'"))
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    data = bytearray(db.read_bytes())
    for table in ("history", "tracks"):  # the header and the schema stay intact
        start = (pages[table] - 1) * size
        data[start : start + size] = b"\xff" * size
    db.write_bytes(bytes(data))
    for args in (["show", instance], ["resume", instance]):
        done = bpmn(*args, "--db", str(db))
        assert done.returncode == 2, done.stdout + done.stderr
        assert str(db) in done.stderr and "malformed" in done.stderr
        assert "internal error" not in done.stderr


def test_a_var_nested_too_deep_is_bad_input(bpmn: Bpmn, tmp_path: Path) -> None:
    deep = "[" * 5000 + "]" * 5000
    done = bpmn("run", LOAN, "--db", ":memory:", "--var", f"deep={deep}")
    assert done.returncode == 2 and "--var" in done.stderr and "'deep'" in done.stderr
    assert "nested deeper than" in done.stderr
    file = tmp_path / "vars.json"
    file.write_text('{"deep": ' + deep + "}")
    done = bpmn("run", LOAN, "--db", ":memory:", "--vars", str(file))
    assert done.returncode == 2 and "--vars" in done.stderr, done.stderr


def test_a_timer_due_after_the_year_9999_is_refused_at_load(bpmn: Bpmn, tmp_path: Path) -> None:
    diagram = tmp_path / "far.bpmn"
    diagram.write_text(
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" '
        'targetNamespace="t"><process id="Far" isExecutable="true"><startEvent id="S"/>\n'
        '<intermediateCatchEvent id="Wait"><timerEventDefinition>'
        "<timeDuration>P99999999D</timeDuration></timerEventDefinition>"
        '</intermediateCatchEvent><endEvent id="E"/>'
        '<sequenceFlow id="a" sourceRef="S" targetRef="Wait"/>'
        '<sequenceFlow id="b" sourceRef="Wait" targetRef="E"/></process></definitions>'
    )
    for command in ("run", "deploy"):
        done = bpmn(command, str(diagram), "--db", str(tmp_path / "far.db"))
        assert done.returncode == 2, done.stderr
        assert f"{diagram}:2: Wait: timeDuration: 'P99999999D'" in done.stderr


def test_durations_past_the_year_9999_on_the_command_line_are_bad_input(bpmn: Bpmn) -> None:
    done = bpmn("message", "m", "--ttl", "P99999999D", "--db", ":memory:")
    assert done.returncode == 2 and "--ttl" in done.stderr and "9999" in done.stderr
    done = bpmn("step", LOAN, "--db", ":memory:", input="advance P99999999D\nquit\n")
    assert done.returncode == 3 and "past the year 9999" in done.stdout, done.stderr
