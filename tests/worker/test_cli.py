"""`bpmn deploy` and `bpmn worker` as a user runs them: subprocesses on one database file."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import Engine
from bpmn_engine.store import open_store
from tests.postgresql_server import shared_db
from tests.worker.conftest import bpmn_file, flow

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "subscription-renewal.bpmn"
MODEL_HANDLERS = ROOT / "models" / "subscription_renewal_handlers.py"

# start -> job -> a short real timer -> end
JOB_THEN_TIMER = (
    f'<startEvent id="s"/>{flow("s", "work")}<serviceTask id="work"/>{flow("work", "pause")}'
    '<intermediateCatchEvent id="pause"><timerEventDefinition><timeDuration>PT0.1S'
    f"</timeDuration></timerEventDefinition></intermediateCatchEvent>{flow('pause', 'e')}"
    '<endEvent id="e"/>'
)
# the same, with a message for this order between the timer and the end
JOB_TIMER_MESSAGE = JOB_THEN_TIMER.replace(
    flow("pause", "e"),
    f"{flow('pause', 'paid')}"
    '<intermediateCatchEvent id="paid"><messageEventDefinition messageRef="M_paid"/>'
    f"</intermediateCatchEvent>{flow('paid', 'e')}",
)
PAID = (
    '<message id="M_paid" name="paid"><extensionElements xmlns:zeebe="http://camunda.org/'
    'schema/zeebe/1.0"><zeebe:subscription correlationKey="=orderId"/></extensionElements>'
    "</message>"
)
HANDLERS = """
import time

def work(ctx):
    with open({log!r}, "a") as log:  # one line per call: the calls are counted from it
        log.write(ctx.idempotency_key + "\\n")
    time.sleep({delay})
    return {{"worked": True}}
"""


def bpmn(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args], cwd=cwd, capture_output=True, text=True, timeout=60
    )


def worker(db: Path, *args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "cli", "worker", "--db", str(db), "--json", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def handlers_file(tmp_path: Path, delay: float = 0.0) -> tuple[Path, Path]:
    log = tmp_path / "calls.log"
    path = tmp_path / "handlers.py"
    path.write_text(HANDLERS.format(log=str(log), delay=delay), encoding="utf-8")
    return path, log


def states(db: Path | str) -> Counter[str]:
    store = open_store(db, read_only=True)
    try:
        return Counter(i["state"] for i in store.list_instances())
    finally:
        store.close()


def wait_until(condition: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_deploy_then_worker_once_runs_the_model_on_a_virtual_clock(tmp_path: Path) -> None:
    db = shared_db(tmp_path / "renewal.db")
    deployed = bpmn("deploy", str(MODEL), "--db", str(db), "--json", cwd=tmp_path)
    assert deployed.returncode == 0, deployed.stderr
    [line] = json_lines(deployed.stdout)
    assert (line["event"], line["process"]) == ("process.deployed", "Process_SubscriptionRenewal")
    assert line["start_timers"][0]["repeat"] == -1

    done = bpmn(
        "worker", "--db", str(db), "--handlers", str(MODEL_HANDLERS), "--clock", "virtual",
        "--once", "--horizon", "P3DT12H", "--json",
        cwd=tmp_path,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    lines = json_lines(done.stdout)
    assert [e["event"] for e in lines].count("instance.started") == 3
    ends = [e["end_event"] for e in lines if e["event"] == "instance.completed"]
    assert ends == ["EndEvent_Renewed"] * 3
    assert lines[-1]["event"] == "worker.stopped" and lines[-1]["started"] == 3
    assert states(db) == {"completed": 3}
    again = bpmn("deploy", str(MODEL), "--db", str(db), cwd=tmp_path)
    assert again.returncode == 0 and "unchanged" in again.stdout


def test_worker_once_on_an_empty_database_exits_at_once(tmp_path: Path) -> None:
    done = bpmn("worker", "--db", str(tmp_path / "empty.db"), "--once", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "worker stopped: 0 steps in 0 instances" in done.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is POSIX")
def test_sigterm_stops_the_worker_after_the_step_in_progress(tmp_path: Path) -> None:
    db = shared_db(tmp_path / "stop.db")
    handlers, log = handlers_file(tmp_path, delay=1.0)
    with Engine(db) as engine:
        instance_id = engine.start(bpmn_file(tmp_path / "job.bpmn", JOB_THEN_TIMER)).id
    process = worker(db, "--handlers", str(handlers), "--poll", "0.05", cwd=tmp_path)
    assert wait_until(log.exists, 20), "the handler never ran"

    process.send_signal(signal.SIGTERM)  # while the handler sleeps
    out, err = process.communicate(timeout=20)

    assert process.returncode == 0, err
    assert "Traceback" not in err
    assert json_lines(out)[-1]["event"] == "worker.stopped"
    with Engine(db) as engine:  # the job's result was committed; nothing after it ran
        instance = engine.instance(instance_id)
        completed = [e.element for e in instance.history() if e.event == "element.completed"]
        assert completed == ["s", "work"]
        assert instance.variables == {"worked": True}
        assert [t["element"] for t in instance.tokens()] == ["pause"]


@pytest.mark.skipif(sys.platform == "win32", reason="signals and pids are POSIX here")
def test_two_workers_run_a_hundred_instances_each_track_once(tmp_path: Path) -> None:
    db = shared_db(tmp_path / "two.db")
    handlers, log = handlers_file(tmp_path)
    path = bpmn_file(tmp_path / "job.bpmn", JOB_TIMER_MESSAGE, extra=PAID)
    with Engine(db) as engine:
        ids = [engine.start(path, variables={"orderId": f"o{i}"}).id for i in range(100)]
    args = ("--handlers", str(handlers), "--poll", "0.05", "--lease", "30")
    workers = [worker(db, *args, cwd=tmp_path) for _ in range(2)]
    try:
        with Engine(db) as publisher:  # while the workers run: some wait already, some not yet
            for i in range(100):
                publisher.publish_message("paid", f"o{i}", {"paid": i}, ttl=120)
        finished = wait_until(lambda: states(db) == {"completed": 100}, 25)
    finally:
        for process in workers:
            process.send_signal(signal.SIGTERM)
        outputs = [process.communicate(timeout=20) for process in workers]

    for process, (out, err) in zip(workers, outputs, strict=True):
        assert process.returncode == 0, err
        assert "Traceback" not in err and "error" not in err, err
        assert json_lines(out)[-1]["event"] == "worker.stopped"
    assert finished, states(db)
    with Engine(db) as engine:
        for instance_id in ids:
            history = engine.store.history(instance_id)
            completed = Counter(e.element for e in history if e.event == "element.completed")
            assert completed == {"s": 1, "work": 1, "pause": 1, "paid": 1, "e": 1}, instance_id
            assert [e.event for e in history].count("message.received") == 1
            assert [e.event for e in history].count("instance.completed") == 1
            assert [e.event for e in history].count("job.started") == 1
    calls = Counter(log.read_text().split())
    assert len(calls) == 100 and set(calls.values()) == {1}  # no handler ran twice
    reports = [json_lines(out)[-1] for out, _ in outputs]
    assert sum(r["started"] for r in reports) == 0
    assert sum(r["instances"] for r in reports) >= 100


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_killed_workers_job_is_taken_over_at_once_by_the_next(tmp_path: Path) -> None:
    db = shared_db(tmp_path / "killed.db")
    handlers, log = handlers_file(tmp_path, delay=30.0)
    with Engine(db) as engine:
        instance_id = engine.start(bpmn_file(tmp_path / "job.bpmn", JOB_THEN_TIMER)).id
    doomed = worker(db, "--handlers", str(handlers), "--lease", "3600", cwd=tmp_path)
    assert wait_until(log.exists, 20), "the handler never ran"
    doomed.kill()  # mid-handler: the claim is committed, its result never will be
    doomed.communicate(timeout=20)
    quick, _ = handlers_file(tmp_path, delay=0.0)

    done = bpmn(
        "worker", "--db", str(db), "--handlers", str(quick), "--once", "--clock", "virtual",
        cwd=tmp_path,
    )  # fmt: skip
    # no clock here: waiting out the hour-long lease would end in bpmn()'s timeout instead

    assert done.returncode == 0, done.stderr
    assert states(db) == {"completed": 1}
    with Engine(db) as engine:
        history = engine.store.history(instance_id)
    completed = Counter(e.element for e in history if e.event == "element.completed")
    assert completed == {"s": 1, "work": 1, "pause": 1, "e": 1}
    assert [e.data["attempt"] for e in history if e.event == "job.started"] == [1, 2]
    assert log.read_text().split() == [f"{instance_id}-1-2"] * 2  # at least once, same key
