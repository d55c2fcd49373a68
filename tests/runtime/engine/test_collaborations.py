"""A collaboration started as one (`Engine.start_collaboration`): the pools that start by
themselves start, the others' message and signal start events are registered for the
engine's session, and each message or signal thrown for one starts an instance of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError, UsageError
from tests.postgresql_server import scratch_db

SHOP_FLOOR = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <message id="M_Order" name="order"/>
  <signal id="S_Close" name="close"/>
  <collaboration id="shop_floor">
    <participant id="P_Shop" processRef="shop"/>
    <participant id="P_Warehouse" processRef="warehouse"/>
    <participant id="P_Audit" processRef="audit"/>
    <participant id="P_Customer" name="a black-box pool"/>
    <messageFlow id="mf1" sourceRef="first" targetRef="ordered"/>
    <messageFlow id="mf2" sourceRef="second" targetRef="ordered"/>
  </collaboration>
  <process id="shop" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="first"/>
    <intermediateThrowEvent id="first"><messageEventDefinition messageRef="M_Order"/>
    </intermediateThrowEvent>
    <sequenceFlow id="f2" sourceRef="first" targetRef="second"/>
    <intermediateThrowEvent id="second"><messageEventDefinition messageRef="M_Order"/>
    </intermediateThrowEvent>
    <sequenceFlow id="f3" sourceRef="second" targetRef="closed"/>
    <endEvent id="closed"><signalEventDefinition signalRef="S_Close"/></endEvent>
  </process>
  <process id="warehouse" isExecutable="true">
    <startEvent id="ordered"><messageEventDefinition messageRef="M_Order"/></startEvent>
    <sequenceFlow id="w1" sourceRef="ordered" targetRef="shipped"/>
    <endEvent id="shipped"/>
  </process>
  <process id="audit" isExecutable="true">
    <startEvent id="closing"><signalEventDefinition signalRef="S_Close"/></startEvent>
    <sequenceFlow id="a1" sourceRef="closing" targetRef="audited"/>
    <endEvent id="audited"/>
  </process>
  <process id="stray" isExecutable="true">
    <startEvent id="x"/>
    <sequenceFlow id="x1" sourceRef="x" targetRef="xe"/>
    <endEvent id="xe"/>
  </process>
</definitions>
"""


@pytest.fixture
def path(tmp_path: Path) -> Path:
    written = tmp_path / "shop-floor.bpmn"
    written.write_text(SHOP_FLOOR)
    return written


def ended(engine: Engine, ids: list[str]) -> list[tuple[str, str | None]]:
    return [(engine.instance(i).process_id, engine.instance(i).outcome().end_event) for i in ids]


def test_each_message_a_pool_throws_starts_one_instance_of_the_pool_it_starts(
    path: Path,
) -> None:
    engine = Engine(scratch_db())
    collaboration = engine.start_collaboration(path, "shop_floor")
    assert [engine.instance(i).process_id for i in collaboration.pools] == ["shop"]
    assert [(s.process, s.kind, s.name) for s in collaboration.registered] == [
        ("warehouse", "message", "order"),
        ("audit", "signal", "close"),
    ]
    outcomes = collaboration.run()
    assert [o.state for o in outcomes] == ["completed"] * 4  # the run covers every instance
    assert ended(engine, collaboration.instance_ids) == [
        ("shop", "closed"),
        ("audit", "audited"),  # a signal starts at once; the orders once everything waits
        ("warehouse", "shipped"),
        ("warehouse", "shipped"),
    ]
    warehouse = engine.instance(collaboration.instance_ids[2])
    assert ("message.received", "ordered") in [(e.event, e.element) for e in warehouse.history()]
    assert collaboration.not_started() == []  # the stray process is no pool of it


def test_a_message_published_in_the_session_starts_a_pool_with_its_variables(
    path: Path,
) -> None:
    engine = Engine(scratch_db())
    collaboration = engine.start_collaboration(path, "shop_floor")
    [started] = engine.publish_message("order", variables={"sku": "A-1"})
    assert (started.process_id, started.variables) == ("warehouse", {"sku": "A-1"})
    [audit] = engine.broadcast_signal("close", {"by": "ops"})
    assert (audit.process_id, audit.variables) == ("audit", {"by": "ops"})
    assert collaboration.instance_ids[1:] == [started.id, audit.id]


def test_the_start_events_are_registered_for_the_session_only(path: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    Engine(db).start_collaboration(path, "shop_floor")
    later = Engine(db)  # another command, another process: nothing registered there
    assert later.publish_message("order") == []
    assert later.broadcast_signal("close") == []
    assert sorted(r["process"] for r in later.instances()) == ["shop"]


def test_without_an_id_every_process_of_the_file_is_one_session(path: Path) -> None:
    engine = Engine(scratch_db())
    collaboration = engine.start_collaboration(path)
    pools = sorted(engine.instance(i).process_id for i in collaboration.pools)
    assert pools == ["shop", "stray"]
    assert all(o.state == "completed" for o in collaboration.run())
    assert len(collaboration.instance_ids) == 5


def test_a_pool_waiting_for_the_message_takes_it_before_a_pool_that_starts_on_it(
    tmp_path: Path,
) -> None:
    """ping-pong: player_b waits for ping at a catch event, on_demand starts on ping. Every
    pool reaches its first wait before a message is delivered, so player_b gets it."""
    fixture = Path(__file__).parents[2] / "fixtures" / "calls" / "ping-pong.bpmn"
    engine = Engine(scratch_db())
    collaboration = engine.start_collaboration(fixture, "c")
    assert [o.end_event for o in collaboration.run()] == ["a_end", "b_end"]
    assert collaboration.not_started() == [
        ("on_demand", "its start events wait for a trigger (message)")
    ]


def test_a_collaboration_id_is_no_process_id(path: Path) -> None:
    engine = Engine(scratch_db())
    with pytest.raises(UsageError, match=r"'shop_floor' is a collaboration.*start_collaboration"):
        engine.start(path, "shop_floor")
    with pytest.raises(UsageError, match=r"no collaboration 'shop' \(collaborations: shop_floor"):
        engine.start_collaboration(path, "shop")
    assert engine.instances() == []


def test_a_collaboration_where_no_pool_starts_by_itself_is_refused(tmp_path: Path) -> None:
    only_triggered = SHOP_FLOOR.replace('<participant id="P_Shop" processRef="shop"/>', "")
    written = tmp_path / "triggered.bpmn"
    written.write_text(only_triggered)
    engine = Engine(scratch_db())
    with pytest.raises(UsageError, match="no pool of collaboration 'shop_floor' starts by itself"):
        engine.start_collaboration(written, "shop_floor")
    assert engine.instances() == []


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
    WORK
    <sequenceFlow id="w2" sourceRef="work" targetRef="worked"/>
    <endEvent id="worked"/>
  </process>
</definitions>
"""


@pytest.mark.parametrize(
    ("work", "state"),
    [
        (
            '<scriptTask id="work" scriptFormat="python"><script>x = 1</script></scriptTask>',
            "completed",
        ),
        ('<userTask id="work"/>', "waiting"),
        (
            '<scriptTask id="work" scriptFormat="python"><script>x = 1 / 0</script></scriptTask>',
            "failed",
        ),
    ],
)
def test_the_collaboration_s_state_covers_the_instances_messages_started(
    tmp_path: Path, work: str, state: str
) -> None:
    """The boss completes whatever the worker it started does: the collaboration's state is
    completed only when both are, waiting when the worker waits, failed when it fails."""
    written = tmp_path / "relay.bpmn"
    written.write_text(RELAY.replace("WORK", work))
    engine = Engine(scratch_db())
    collaboration = engine.start_collaboration(written, "relay")
    outcomes = collaboration.run()
    assert [o.state for o in outcomes] == ["completed", state]
    assert collaboration.state() == state


def test_a_pool_started_on_demand_is_checked_before_any_pool_starts(tmp_path: Path) -> None:
    """The worker's script does not compile: refused before the boss (which would throw the
    message that starts the worker) is created, not as an incident halfway through."""
    broken = '<scriptTask id="work" scriptFormat="python"><script>x = (</script></scriptTask>'
    written = tmp_path / "relay.bpmn"
    written.write_text(RELAY.replace("WORK", broken))
    engine = Engine(scratch_db())
    with pytest.raises(LoadError, match="work"):
        engine.start_collaboration(written, "relay")
    assert engine.instances() == []


def test_a_kept_message_starts_its_pool_with_its_variables_once_asked(path: Path) -> None:
    """A message nobody waits for that is kept (a time to live, as a thrown message has) is
    not started on at once: `start_kept_messages` starts its pool, with its variables, once."""
    engine = Engine(scratch_db())
    engine.start_collaboration(path, "shop_floor")
    assert engine.publish_message("order", variables={"sku": "B-2"}, ttl=60) == []
    [started] = engine.start_kept_messages()
    assert (started.process_id, started.variables) == ("warehouse", {"sku": "B-2"})
    assert ("message.received", "ordered") in [(e.event, e.element) for e in started.history()]
    assert engine.start_kept_messages() == []  # the message was taken
