"""Helpers for the worker suite: BPMN written inline, engines on one file, history checks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import Engine
from bpmn_engine.runtime.clock import VirtualClock
from tests.postgresql_server import each_store, shared_db

__all__ = ["each_store"]  # autouse: every test here runs on each store

START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">\n'
)


def bpmn_file(path: Path, body: str, *, process: str = "p", extra: str = "") -> Path:
    """Write one executable process (plus `extra` root elements such as messages)."""
    path.write_text(
        f'{HEADER}{extra}<process id="{process}" isExecutable="true">\n{body}\n</process>\n'
        "</definitions>\n",
        encoding="utf-8",
    )
    return path


def timer_start(start_id: str, kind: str, value: str) -> str:
    return (
        f'<startEvent id="{start_id}"><timerEventDefinition><{kind}>{value}</{kind}>'
        "</timerEventDefinition></startEvent>"
    )


def flow(source: str, target: str) -> str:
    return f'<sequenceFlow id="{source}_{target}" sourceRef="{source}" targetRef="{target}"/>'


# start -> service task `work` -> end: the smallest process with a job
JOB = f'<startEvent id="s"/>{flow("s", "work")}<serviceTask id="work"/>{flow("work", "e")}' + (
    '<endEvent id="e"/>'
)


@pytest.fixture
def engines() -> Iterator[Any]:
    """`engines(db, **options)`: Engines on one database file (in the PostgreSQL pass, one
    schema per file), closed when the test ends."""
    made: list[Engine] = []

    def make(db: Path | str, **options: Any) -> Engine:
        made.append(Engine(shared_db(db) if isinstance(db, Path) else db, **options))
        return made[-1]

    yield make
    for engine in made:
        engine.close()


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock(START)


def completions(engine: Engine, instance_id: str) -> Counter[str]:
    """How often each element completed in one instance's history."""
    return Counter(
        e.element for e in engine.store.history(instance_id) if e.event == "element.completed"
    )


def events(engine: Engine, instance_ids: Iterable[str], name: str) -> list[Any]:
    return [e for i in instance_ids for e in engine.store.history(i) if e.event == name]
