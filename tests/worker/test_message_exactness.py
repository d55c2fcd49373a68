"""`bpmn message` says exactly whether its message was delivered, with workers running.

A publisher whose receiver a worker moves on first has still delivered its message: it says
so and exits 0 (a caller that retried on an error would deliver twice; one that did not would
think it lost). With `--id`, publishing again delivers nothing and says what became of it.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import Engine, VirtualClock
from tests.postgresql_server import shared_db
from tests.worker.conftest import bpmn_file, flow
from tests.worker.test_cli import PAID, bpmn, json_lines, states, wait_until, worker

# start -> catch `paid` (correlated by orderId) -> three plain tasks -> end: after the
# delivery there is work any worker may take before the publisher runs it on
RECEIVER = (
    f'<startEvent id="s"/>{flow("s", "paid")}'
    '<intermediateCatchEvent id="paid"><messageEventDefinition messageRef="M_paid"/>'
    f"</intermediateCatchEvent>{flow('paid', 'a')}"
    f'<task id="a"/>{flow("a", "b")}<task id="b"/>{flow("b", "c")}<task id="c"/>'
    f'{flow("c", "e")}<endEvent id="e"/>'
)
# start -> catch `paid` -> a short timer -> end: the publisher sleeps on the timer, and
# whoever fires it first moves the instance on
RECEIVER_THEN_TIMER = (
    f'<startEvent id="s"/>{flow("s", "paid")}'
    '<intermediateCatchEvent id="paid"><messageEventDefinition messageRef="M_paid"/>'
    f"</intermediateCatchEvent>{flow('paid', 'pause')}"
    '<intermediateCatchEvent id="pause"><timerEventDefinition><timeDuration>PT3S'
    f"</timeDuration></timerEventDefinition></intermediateCatchEvent>{flow('pause', 'e')}"
    '<endEvent id="e"/>'
)


def publish(db: Path, key: str, message_id: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable, "-m", "cli", "message", "paid", "--key", key, "--id", message_id,
            "--var", f"paid={json.dumps(key)}", "--db", str(db), "--json",
        ],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip


def correlated(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in lines if line.get("event") == "message.correlated"]


def received(engine: Engine, instance_id: str) -> list[Any]:
    return [e for e in engine.instance(instance_id).history() if e.event == "message.received"]


@pytest.mark.skipif(sys.platform == "win32", reason="signals are POSIX here")
def test_twelve_publishers_and_two_workers_every_message_delivered_once_and_said_so(
    tmp_path: Path,
) -> None:
    db = shared_db(tmp_path / "twelve.db")
    path = bpmn_file(tmp_path / "receiver.bpmn", RECEIVER, extra=PAID)
    with Engine(db) as engine:
        waiting = [engine.start(path, variables={"orderId": f"o{i}"}) for i in range(12)]
        ids = {f"o{i}": w.id for i, w in enumerate(waiting) if w.run().state == "waiting"}
    assert len(ids) == 12
    workers = [worker(db, "--poll", "0.01", cwd=tmp_path) for _ in range(2)]
    try:
        publishers = {key: publish(db, key, f"m-{key}", tmp_path) for key in ids}
        outputs = {key: p.communicate(timeout=120) for key, p in publishers.items()}
        finished = wait_until(lambda: states(db) == {"completed": 12}, 30)
    finally:
        for process in workers:
            process.send_signal(signal.SIGTERM)
        stopped = [process.communicate(timeout=30) for process in workers]

    for process, (out, err) in zip(workers, stopped, strict=True):
        assert process.returncode == 0, err
        assert json_lines(out)[-1]["event"] == "worker.stopped"
    for key, (out, err) in outputs.items():
        assert publishers[key].returncode == 0, (key, out, err)
        assert "Traceback" not in err and "changed by someone else" not in err, err
        [said] = correlated(json_lines(out))
        assert said["instance"] == ids[key] and said["message_id"] == f"m-{key}"
        assert said["already"] is False
    assert finished, states(db)
    with Engine(db) as engine:
        for key, instance_id in ids.items():
            [got] = received(engine, instance_id)
            assert got.element == "paid"
            instance = engine.instance(instance_id)
            assert instance.variables == {"orderId": key, "paid": key}
            done = Counter(e.element for e in instance.history() if e.event == "element.completed")
            assert done == {"s": 1, "paid": 1, "a": 1, "b": 1, "c": 1, "e": 1}, key
            assert engine.message_status(f"m-{key}") == ("correlated", instance_id)
        before = {i: len(engine.instance(i).history()) for i in ids.values()}

    again = bpmn("message", "paid", "--key", "o3", "--id", "m-o3", "--db", str(db), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "already published" in again.stdout and ids["o3"] in again.stdout
    assert "no instance waits" not in again.stdout
    other_key = bpmn(
        "message", "paid", "--key", "o5", "--id", "m-o3", "--db", str(db), "--json", cwd=tmp_path
    )
    assert other_key.returncode == 0, other_key.stderr
    [said] = correlated(json_lines(other_key.stdout))
    assert (said["instance"], said["already"]) == (ids["o3"], True)
    with Engine(db) as engine:
        assert {i: len(engine.instance(i).history()) for i in ids.values()} == before


def test_a_publisher_whose_receiver_another_process_moves_on_still_says_delivered(
    tmp_path: Path,
) -> None:
    db = shared_db(tmp_path / "moved.db")
    path = bpmn_file(tmp_path / "receiver.bpmn", RECEIVER_THEN_TIMER, extra=PAID)
    with Engine(db) as engine:
        instance = engine.start(path, variables={"orderId": "A-1"})
        assert instance.run().state == "waiting"
        instance_id = instance.id
    publisher = subprocess.Popen(
        [
            sys.executable, "-m", "cli", "message", "paid", "--key", "A-1",
            "--wait-timers", "PT1M", "--db", str(db), "--json",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip

    def sleeping_on_the_timer() -> bool:  # the delivery is committed, the timer row too
        with Engine(db, read_only=True) as engine:
            waits = engine.instance(instance_id).outcome().waiting_for
        return [w["reason"] for w in waits] == ["timer"]

    try:
        assert wait_until(sleeping_on_the_timer, 60), "the publisher never reached the timer"
        later = VirtualClock(datetime.now(UTC) + timedelta(days=1))
        with Engine(db, clock=later) as other:  # another worker: it fires the timer first
            assert other.instance(instance_id).run().state == "completed"
        out, err = publisher.communicate(timeout=60)
    finally:
        if publisher.poll() is None:
            publisher.kill()
            publisher.communicate()

    assert publisher.returncode == 0, (out, err)
    assert "Traceback" not in err and err == "", err
    lines = json_lines(out)
    [said] = correlated(lines)
    assert said["instance"] == instance_id and said["already"] is False
    assert {"event": "instance.running_elsewhere", "instance": instance_id} in lines
    with Engine(db) as engine:
        assert len(received(engine, instance_id)) == 1
        history = engine.instance(instance_id).history()
        assert [e.event for e in history].count("instance.completed") == 1
        assert Counter(e.element for e in history if e.event == "element.completed") == {
            "s": 1,
            "paid": 1,
            "pause": 1,
            "e": 1,
        }


def test_an_id_published_again_says_what_became_of_it(tmp_path: Path) -> None:
    db = shared_db(tmp_path / "again.db")
    args = ("--db", str(db), "--id", "order-7")
    first = bpmn("message", "paid", "--key", "nobody", "--ttl", "PT1H", *args, cwd=tmp_path)
    assert first.returncode == 0 and "no instance waits" in first.stdout
    assert "(buffered)" in first.stdout
    again = bpmn("message", "paid", "--key", "nobody", "--ttl", "PT1H", *args, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "already published: message order-7 buffered" in again.stdout
    [line] = json_lines(bpmn("message", "paid", *args, "--json", cwd=tmp_path).stdout)
    assert line["event"] == "message.already_published" and line["status"] == "buffered"

    dropped = bpmn("message", "gone", "--db", str(db), "--id", "drop-1", cwd=tmp_path)
    assert dropped.returncode == 4 and "no instance waits for message 'gone'" in dropped.stdout
    again = bpmn("message", "gone", "--db", str(db), "--id", "drop-1", cwd=tmp_path)
    assert "already published: message drop-1 expired" in again.stdout
