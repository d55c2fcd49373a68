"""What the front end (and any other client) reads through the public API instead of rows."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import bpmn_engine
from bpmn_engine import ActionKind, Engine, LoadError, VirtualClock
from tests.worker.conftest import bpmn_file, flow

ROOT = Path(__file__).resolve().parents[1]
FORK = ROOT / "tests" / "fixtures" / "fork-and-subprocess.bpmn"
START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
# start -> a one-hour timer and a message catch in parallel -> join -> end
TIMER_AND_MESSAGE = (
    f'<startEvent id="s"/>{flow("s", "fork")}<parallelGateway id="fork"/>'
    f"{flow('fork', 'hour')}{flow('fork', 'paid')}"
    '<intermediateCatchEvent id="hour"><timerEventDefinition><timeDuration>PT1H'
    "</timeDuration></timerEventDefinition></intermediateCatchEvent>"
    '<intermediateCatchEvent id="paid"><messageEventDefinition messageRef="M"/>'
    f"</intermediateCatchEvent>{flow('hour', 'join')}{flow('paid', 'join')}"
    f'<parallelGateway id="join"/>{flow("join", "e")}<endEvent id="e"/>'
)


def test_definitions_find_a_node_in_any_scope() -> None:
    definitions = bpmn_engine.load(FORK)
    assert definitions.node("Score").name == "Score"  # inside the subprocess
    assert definitions.node("Review").name == "Review"
    assert definitions.node("Nowhere") is None
    assert definitions.node_ids == tuple(sorted(definitions.node_ids))
    assert {"Start", "Score", "ReviewEnd", "High"} <= set(definitions.node_ids)
    assert "Flow_1" not in definitions.node_ids  # flows are not nodes


def test_an_instance_names_its_version_its_scopes_waits_and_due_timers(tmp_path: Path) -> None:
    with Engine(tmp_path / "a.db", clock=VirtualClock(START)) as engine:
        instance = engine.start(FORK, variables={"amount": 3})
        assert instance.definition_version == bpmn_engine.load(FORK).version
        while "Score" not in [t["element"] for t in instance.tokens()]:
            instance.step_once()
        scopes = {t["element"]: instance.scope_element(t["scope"]) for t in instance.tokens()}
        assert scopes["Score"] == "Review"
        assert scopes["Review"] == "ForkAndSubprocess"
        assert engine.definition_of(instance.id[:6]).version == instance.definition_version

        path = bpmn_file(
            tmp_path / "wait.bpmn", TIMER_AND_MESSAGE, extra='<message id="M" name="paid"/>'
        )
        waiting = engine.start(path)
        while not waiting.subscriptions():  # not `run`: the virtual clock would fire the timer
            waiting.step_once()
        [subscription] = waiting.subscriptions()
        assert (subscription.kind, subscription.name, subscription.element) == (
            "message",
            "paid",
            "paid",
        )
        [timer] = [a for a in waiting.enabled() if a.kind is ActionKind.TIMER]
        assert waiting.due(timer) == START + timedelta(hours=1)
        assert all(waiting.due(a) is None for a in waiting.enabled() if a != timer)
        engine.publish_message("paid", current=waiting)  # delivered through this object
        assert waiting.subscriptions() == []


def test_read_only_engines_look_and_never_write(tmp_path: Path) -> None:
    db = tmp_path / "look.db"
    with pytest.raises(LoadError, match="no such database"):
        Engine(db, read_only=True)
    assert not db.exists()
    with Engine(db) as engine:
        instance_id = engine.start(FORK, variables={"amount": 3}).id
        assert engine.database == str(db)
        assert engine.worker_id
    with Engine(db, read_only=True) as looking:
        assert looking.instance(instance_id).process_id == "ForkAndSubprocess"
        assert [row["id"] for row in looking.instances()] == [instance_id]
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            looking.start(FORK, variables={"amount": 1})


def test_every_error_the_api_exports_is_a_bpmn_engine_error() -> None:
    """One `except BpmnEngineError` catches them all; a bad timer value stays a ValueError
    (and an ExpressionError: BPMN timer values are expressions) for those who catch one."""
    exported = [getattr(bpmn_engine, name) for name in bpmn_engine.__all__]
    errors = [e for e in exported if isinstance(e, type) and issubclass(e, BaseException)]
    assert bpmn_engine.TimerValueError in errors
    assert [e for e in errors if not issubclass(e, bpmn_engine.BpmnEngineError)] == []
    with pytest.raises(bpmn_engine.BpmnEngineError) as caught:
        bpmn_engine.parse_duration("three days")
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, bpmn_engine.ExpressionError)
