"""Migration (issue 28, item 6): running instances onto another version of their
definitions, each token and wait kept in its place by id or by the mapping given; every
problem refuses the whole migration with nothing changed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bpmn_engine import Engine, UsageError, VirtualClock
from tests.postgresql_server import shared_db
from tests.runtime.conftest import HEADER, MakeEngine, events_named, flow

V1 = '<startEvent id="s"/><userTask id="A"/><endEvent id="e"/>' + flow("s", "A") + flow("A", "e")
# version 2: a review after A
V2 = (
    '<startEvent id="s"/><userTask id="A"/><userTask id="Review"/><endEvent id="e"/>'
    + flow("s", "A")
    + flow("A", "Review")
    + flow("Review", "e")
)
RENAMED = V2.replace('"A"', '"Approve"').replace("s-A", "s-Approve").replace("A-R", "Approve-R")
AS_SERVICE = V2.replace('<userTask id="A"/>', '<serviceTask id="A"/>')
TIMER = (
    '<startEvent id="s"/><intermediateCatchEvent id="wait"><timerEventDefinition>'
    "<timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>"
    '<endEvent id="e"/>' + flow("s", "wait") + flow("wait", "e")
)
TIMER_V2 = TIMER.replace('<endEvent id="e"/>', '<userTask id="After"/><endEvent id="e"/>').replace(
    flow("wait", "e"), flow("wait", "After") + flow("After", "e")
)


def write(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.bpmn"
    path.write_text(
        f'<?xml version="1.0"?>\n{HEADER}<process id="p" isExecutable="true">{body}'
        "</process></definitions>\n",
        encoding="utf-8",
    )
    return path


def test_a_waiting_instance_goes_on_in_the_new_version(
    tmp_path: Path, make_engine: MakeEngine
) -> None:
    engine = make_engine()
    instance = engine.start(write(tmp_path, "v1", V1))
    instance.run()
    old = instance.data.head.definition
    [plan] = engine.migrate([instance.id], write(tmp_path, "v2", V2))
    assert plan.problems == [] and plan.moves == {"A": "A"}
    moved = engine.instance(instance.id)
    assert moved.data.head.definition == plan.target_version != old
    moved.complete_task("A")
    assert [t.element for t in moved.user_tasks()] == []
    moved.run()
    assert [t.element for t in moved.user_tasks()] == ["Review"]  # the new version's path
    [migrated] = events_named(moved, "instance.migrated")
    assert (migrated.data["source_version"], migrated.data["target_version"]) == (
        old,
        plan.target_version,
    )


def test_a_mapping_says_where_a_renamed_element_went(
    tmp_path: Path, make_engine: MakeEngine
) -> None:
    engine = make_engine()
    instance = engine.start(write(tmp_path, "v1", V1))
    instance.run()
    engine.migrate([instance.id], write(tmp_path, "v2", RENAMED), {"A": "Approve"})
    moved = engine.instance(instance.id)
    assert [t.element for t in moved.user_tasks()] == ["Approve"]
    assert [t["element"] for t in moved.tokens()] == ["Approve"]
    moved.complete_task("Approve")
    moved.run()
    assert [t.element for t in moved.user_tasks()] == ["Review"]
    assert events_named(moved, "instance.migrated")[0].data["moves"] == {"A": "Approve"}


@pytest.mark.parametrize(
    ("body", "mapping", "message"),
    [
        (RENAMED, None, "the new version has no 'A' \\(say where with --map A=NEW_ID\\)"),
        (AS_SERVICE, None, "'A' is a serviceTask in the new version, not a userTask"),
        (V2, {"Nope": "A"}, "'Nope' is no element of the old version"),
    ],
)
def test_a_problem_refuses_the_whole_migration_and_changes_nothing(
    tmp_path: Path, make_engine: MakeEngine, body: str, mapping: dict | None, message: str
) -> None:
    engine = make_engine()
    first = engine.start(write(tmp_path, "v1", V1))
    first.run()
    second = engine.start(write(tmp_path, "v1", V1))
    second.run()
    target = write(tmp_path, "v2", body)
    with pytest.raises(UsageError, match=message):
        engine.migrate([first.id, second.id], target, mapping)
    for instance_id in (first.id, second.id):
        unchanged = engine.instance(instance_id)
        assert unchanged.data.head.definition == first.data.head.definition
        assert events_named(unchanged, "instance.migrated") == []
    plans = engine.migrate([first.id], target, mapping, dry_run=True)
    assert plans[0].problems and plans[0].to_json()["problems"] == plans[0].problems


def test_a_timer_keeps_its_due_time_and_fires_in_the_new_version(
    tmp_path: Path, make_engine: MakeEngine
) -> None:
    db = shared_db(tmp_path / "timer.db")
    engine = make_engine(db)
    instance = engine.start(write(tmp_path, "t1", TIMER))
    assert instance.run().state == "waiting"  # an hour to go, on the real clock
    [timer] = [t for t in instance.data.timers.values()]
    engine.migrate([instance.id], write(tmp_path, "t2", TIMER_V2))
    later = make_engine(db, clock=VirtualClock(datetime.now(UTC) + timedelta(hours=2)))
    moved = later.instance(instance.id)
    assert [t.due for t in moved.data.timers.values()] == [timer.due]
    assert moved.run().state == "waiting"
    assert [t.element for t in moved.user_tasks()] == ["After"]  # the new version's path


def test_a_dry_run_writes_nothing(tmp_path: Path, make_engine: MakeEngine) -> None:
    engine = make_engine()
    instance = engine.start(write(tmp_path, "v1", V1))
    instance.run()
    history = len(instance.history())
    [plan] = engine.migrate([instance.id], write(tmp_path, "v2", V2), dry_run=True)
    assert plan.problems == [] and plan.moves == {"A": "A"}
    again = engine.instance(instance.id)
    assert len(again.history()) == history and again.data.head.definition == plan.source_version
    assert engine.running_instances("p") == [instance.id]


def test_an_ended_instance_is_not_migrated(tmp_path: Path, make_engine: MakeEngine) -> None:
    engine = make_engine()
    instance = engine.start(write(tmp_path, "v1", V1))
    instance.run()
    instance.cancel()
    with pytest.raises(UsageError, match="only a running one moves"):
        engine.migrate([instance.id], write(tmp_path, "v2", V2))
    assert engine.running_instances("p") == []


def test_a_migration_is_rewound_like_any_step(tmp_path: Path, make_engine: MakeEngine) -> None:
    engine = make_engine(undo=True)
    instance = engine.start(write(tmp_path, "v1", V1))
    instance.run()
    old = instance.data.head.definition
    engine.migrate([instance.id], write(tmp_path, "v2", RENAMED), {"A": "Approve"})
    back = engine.rewind(instance.id)
    assert back.data.head.definition == old
    assert [t.element for t in back.user_tasks()] == ["A"]
    back.complete_task("A")
    assert back.run().state == "completed"  # on the old version's path


KILLED = """
import sys
from bpmn_engine import Engine

db, v1, v2, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
with Engine(db) as engine:
    ids = [engine.start(v1).id for _ in range(count)]
    for instance_id in ids:
        engine.instance(instance_id).run()
    print("started", flush=True)
    for instance_id in ids:
        engine.migrate([instance_id], v2, {"A": "Approve"})
        print(instance_id, flush=True)
"""


def test_kill_9_during_a_migration_leaves_each_instance_on_one_version(tmp_path: Path) -> None:
    if not hasattr(signal, "SIGKILL"):
        pytest.skip("no SIGKILL here")
    program, db = tmp_path / "m.py", tmp_path / "m.db"
    program.write_text(KILLED)
    v1, v2 = write(tmp_path, "v1", V1), write(tmp_path, "v2", RENAMED)
    child = subprocess.Popen(
        [sys.executable, str(program), str(db), str(v1), str(v2), "40"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "started"
    moved = [child.stdout.readline().strip() for _ in range(3)]  # three moved, more on the way
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    with Engine(str(db)) as engine:
        rows = engine.instances()
        assert len(rows) == 40
        versions = {row["definition"] for row in rows}
        assert len(versions) in (1, 2)
        for row in rows:
            instance = engine.instance(row["id"])
            [task] = instance.user_tasks()
            new = events_named(instance, "instance.migrated") != []
            # each wholly on one version: its row, its token, its task and its history agree
            assert task.element == ("Approve" if new else "A")
            assert [t["element"] for t in instance.tokens()] == [task.element]
            assert (row["id"] in moved) <= new
            instance.complete_task(task.element)
            instance.run()
            expected = ["Review"] if new else []
            assert [t.element for t in instance.user_tasks()] == expected
