"""Shared helpers for the runtime behaviour suite: inline BPMN, an engine, history views."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from itertools import count
from pathlib import Path
from typing import Any, Protocol

import pytest

from bpmn_engine import Engine, Instance
from bpmn_engine.records.data import InstanceData, Step
from tests.postgresql_server import each_store, on_postgresql, scratch_db

HEADER = (
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"'
    ' xmlns:camunda="http://camunda.org/schema/1.0/bpmn"'
    ' xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"'
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    ' id="d" targetNamespace="t">'
)


class Bpmn(Protocol):
    """The `bpmn` fixture: write a process body into a BPMN file and return its path."""

    def __call__(self, body: str, *, process: str = ...) -> Path: ...


LIFECYCLE = (
    "element.activated",
    "element.waiting",
    "element.completed",
    "element.terminated",
)


def indexes(data: InstanceData) -> tuple[Any, ...]:
    """The track indexes, order aside: live tracks per scope, join waits, what is listed."""
    live = {scope: set(ids) for scope, ids in data._live.items()}
    joins = {
        key: {flow: set(ids) for flow, ids in flows.items()}
        for key, flows in data._join_waits.items()
    }
    return live, joins, set(data._indexed)


def rebuilt(data: InstanceData) -> InstanceData:
    return InstanceData(data.head, tracks=dict(data.tracks), scopes=data.scopes)


@pytest.fixture(autouse=True)
def exact_indexes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every step of every runtime test ends with indexes equal to ones built from scratch:
    they are kept up to date per step, and a stale entry would be a scheduling bug."""
    commit, rollback = Instance._commit, Step.rollback

    def checked(data: InstanceData) -> None:
        fresh = rebuilt(data)
        assert indexes(data) == indexes(fresh)

    def checked_commit(self: Instance, step: Step, *args: Any, **kwargs: Any) -> None:
        commit(self, step, *args, **kwargs)
        checked(self.data)

    def checked_rollback(self: Step) -> None:
        rollback(self)
        checked(self.data)

    monkeypatch.setattr(Instance, "_commit", checked_commit)
    monkeypatch.setattr(Step, "rollback", checked_rollback)


__all__ = ["each_store"]  # autouse: every test here runs on each store


@pytest.fixture(autouse=True)
def _close_engines(monkeypatch: pytest.MonkeyPatch, each_store: str) -> Iterator[None]:
    """In the PostgreSQL pass, the engines a test opened itself are closed when it ends:
    their connections and heartbeat threads must not outlive the test's schema."""
    if not on_postgresql():
        yield
        return
    opened: list[Engine] = []
    init = Engine.__init__

    def tracked(self: Engine, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        opened.append(self)

    monkeypatch.setattr(Engine, "__init__", tracked)
    yield
    for eng in opened:
        eng.close()


@pytest.fixture
def bpmn(tmp_path: Path) -> Bpmn:
    """Write `<process id="p">` + body + `</process>` to a fresh file; return its path."""
    numbers = count(1)

    def write(body: str, *, process: str = 'id="p" isExecutable="true"') -> Path:
        path = tmp_path / f"model{next(numbers)}.bpmn"
        path.write_text(
            f'<?xml version="1.0" encoding="UTF-8"?>\n{HEADER}\n'
            f"<process {process}>\n{body}\n</process>\n</definitions>\n",
            encoding="utf-8",
        )
        return path

    return write


@pytest.fixture(params=["step", "wait"])
def engine(request: pytest.FixtureRequest, each_store: str) -> Iterable[Engine]:
    """An engine on an in-memory store (PostgreSQL in that pass); each test runs once per
    checkpoint policy, since both must behave alike."""
    with Engine(scratch_db(), checkpoint=request.param) as eng:
        yield eng


MakeEngine = Callable[..., Engine]


@pytest.fixture
def make_engine() -> Iterable[MakeEngine]:
    """`make_engine(db=":memory:", **options)`: an Engine closed when the test ends (in the
    PostgreSQL pass, `:memory:` is a fresh PostgreSQL schema)."""
    made: list[Engine] = []

    def make(db: Any = ":memory:", **options: Any) -> Engine:
        made.append(Engine(scratch_db() if db == ":memory:" else db, **options))
        return made[-1]

    yield make
    for eng in made:
        eng.close()


def lifecycle(instance: Instance, events: tuple[str, ...] = LIFECYCLE) -> list[tuple[str, str]]:
    """The ordered (event, element) pairs of the element lifecycle events in the history."""
    return [(e.event, e.element) for e in instance.history() if e.event in events]


def activations(instance: Instance, element: str | None = None) -> list[str]:
    """The elements activated, in order (or only the activations of one element)."""
    found = [e.element for e in instance.history() if e.event == "element.activated"]
    return [x for x in found if element is None or x == element]


def events_named(instance: Instance, name: str) -> list[Any]:
    return [e for e in instance.history() if e.event == name]


def flow(source: str, target: str, fid: str | None = None, condition: str | None = None) -> str:
    """A sequence flow; `condition` is put in a conditionExpression (XML-escaped)."""
    fid = fid or f"{source}_{target}"
    if condition is None:
        return f'<sequenceFlow id="{fid}" sourceRef="{source}" targetRef="{target}"/>'
    text = condition.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (
        f'<sequenceFlow id="{fid}" sourceRef="{source}" targetRef="{target}">'
        f'<conditionExpression xsi:type="tFormalExpression">{text}</conditionExpression>'
        "</sequenceFlow>"
    )


def script(task_id: str, code: str, name: str | None = None) -> str:
    """A python script task."""
    named = f' name="{name}"' if name else ""
    text = code.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (
        f'<scriptTask id="{task_id}"{named} scriptFormat="python">'
        f"<script>{text}</script></scriptTask>"
    )


def dump_tables(engine: Engine, instance_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row the store keeps for one instance, table by table, in a stable order."""
    conn = engine.store.conn
    tables = ("instances", "tracks", "scopes", "variables", "user_tasks", "joins", "history")
    dump: dict[str, list[tuple[Any, ...]]] = {}
    for table in tables:
        key = "id" if table == "instances" else "instance"
        order = "seq" if table == "history" else "1"
        rows = conn.execute(
            f"SELECT * FROM {table} WHERE {key} = ? ORDER BY {order}", (instance_id,)
        ).fetchall()
        dump[table] = rows if table == "history" else sorted(rows, key=repr)
    return dump


def crash_with(tmp_path: Path, script: str, diagram: Path, crash: str) -> Path:
    """Run `script` (a program that starts `diagram` on a database and kills itself with
    `os._exit` at the point `crash` names) in its own process; the database it left."""
    program, db = tmp_path / "crash.py", tmp_path / "crash.db"
    program.write_text(script)
    done = subprocess.run(
        [sys.executable, str(program), str(db), str(diagram), crash],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return db
