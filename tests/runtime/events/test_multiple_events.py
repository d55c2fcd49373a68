"""Multiple and parallel multiple events: several event definitions on one event.

A multiple catch event (or boundary event, or event subprocess start) waits for all its
definitions at once and fires on the first; a parallel multiple one fires when every one has
arrived. A deployed multiple start event is started by any of its triggers. A throw event
with several definitions throws them all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError, UsageError
from bpmn_engine.runtime.clock import VirtualClock
from bpmn_engine.validate import validate
from bpmn_engine.validate.findings import Severity
from tests.postgresql_server import scratch_db

HEAD = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <message id="M" name="paid"/>
  <signal id="S" name="go"/>
"""


def write(tmp_path: Path, body: str, parallel: bool = False) -> Path:
    path = tmp_path / "multiple.bpmn"
    path.write_text(
        HEAD + body.replace("PARALLEL", "true" if parallel else "false") + "</definitions>"
    )
    return path


def fired(instance) -> list[str]:
    return [
        e.event
        for e in instance.history()
        if e.event in ("message.received", "signal.received", "timer.fired")
    ]


CATCH = """
  <process id="p" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
    <intermediateCatchEvent id="wait" parallelMultiple="PARALLEL">
      <messageEventDefinition messageRef="M"/>
      <signalEventDefinition signalRef="S"/>
      <timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>
    </intermediateCatchEvent>
    <sequenceFlow id="f2" sourceRef="wait" targetRef="e"/>
    <endEvent id="e"/>
  </process>
"""


def test_a_multiple_catch_event_goes_on_at_its_first_trigger(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "m.db")
    instance = engine.start(write(tmp_path, CATCH))
    outcome = instance.run()
    assert outcome.state == "waiting"
    assert {w["reason"] for w in outcome.waiting_for} == {"message", "signal", "timer"}
    engine.broadcast_signal("go")
    reopened = engine.instance(instance.id)
    assert reopened.run().state == "completed"
    assert fired(reopened) == ["signal.received"]
    assert reopened.outcome().waiting_for == []  # the message and the timer wait no more
    assert engine.publish_message("paid") == []


def test_a_multiple_catch_event_fires_on_its_timer_too(tmp_path: Path) -> None:
    engine = Engine(scratch_db(), clock=VirtualClock())
    outcome = engine.start(write(tmp_path, CATCH)).run()
    assert outcome.state == "completed"  # the virtual clock jumps to the timer
    assert fired(engine.instance(outcome.instance)) == ["timer.fired"]


def test_a_parallel_multiple_catch_event_waits_for_every_trigger(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "m.db")
    instance = engine.start(write(tmp_path, CATCH, parallel=True))
    assert instance.run().state == "waiting"
    engine.publish_message("paid", variables={"amount": 3})
    engine.broadcast_signal("go")
    reopened = engine.instance(instance.id)
    assert reopened.run().state == "waiting"  # the timer has not fired yet
    assert [w["reason"] for w in reopened.outcome().waiting_for] == ["timer"]
    later = Engine(tmp_path / "m.db", clock=VirtualClock())
    outcome = later.instance(instance.id).run()
    assert outcome.state == "completed"
    assert outcome.variables == {"amount": 3}
    assert sorted(fired(later.instance(instance.id))) == [
        "message.received",
        "signal.received",
        "timer.fired",
    ]


BOUNDARY = """
  <process id="p" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
    <userTask id="work"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="done"/>
    <endEvent id="done"/>
    <boundaryEvent id="stop" attachedToRef="work" parallelMultiple="PARALLEL">
      <messageEventDefinition messageRef="M"/>
      <signalEventDefinition signalRef="S"/>
    </boundaryEvent>
    <sequenceFlow id="f3" sourceRef="stop" targetRef="stopped"/>
    <endEvent id="stopped"/>
  </process>
"""


@pytest.mark.parametrize("parallel", [False, True])
def test_a_multiple_boundary_event_interrupts_on_one_or_all_triggers(
    tmp_path: Path, parallel: bool
) -> None:
    engine = Engine(tmp_path / "m.db")
    instance = engine.start(write(tmp_path, BOUNDARY, parallel))
    instance.run()
    engine.publish_message("paid")
    after_message = engine.instance(instance.id)
    after_message.run()
    assert after_message.outcome().state == ("waiting" if parallel else "completed")
    if parallel:
        assert [t.element for t in after_message.user_tasks()] == ["work"]
        engine.broadcast_signal("go")
    outcome = engine.instance(instance.id).run()
    assert outcome.state == "completed"
    assert outcome.end_event == "stopped"


EVENT_SUBPROCESS = """
  <process id="p" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
    <userTask id="work"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="done"/>
    <endEvent id="done"/>
    <subProcess id="notify" triggeredByEvent="true">
      <startEvent id="heard" isInterrupting="false">
        <messageEventDefinition messageRef="M"/>
        <signalEventDefinition signalRef="S"/>
      </startEvent>
      <sequenceFlow id="n1" sourceRef="heard" targetRef="count"/>
      <scriptTask id="count" scriptFormat="python"><script>heard = heard + 1</script></scriptTask>
      <sequenceFlow id="n2" sourceRef="count" targetRef="quiet"/>
      <endEvent id="quiet"/>
    </subProcess>
  </process>
"""


def test_a_multiple_event_subprocess_start_listens_to_each_trigger_again(
    tmp_path: Path,
) -> None:
    engine = Engine(tmp_path / "m.db")
    instance = engine.start(write(tmp_path, EVENT_SUBPROCESS), variables={"heard": 0})
    instance.run()
    for publish in (
        lambda: engine.publish_message("paid"),
        lambda: engine.broadcast_signal("go"),
        lambda: engine.publish_message("paid"),
    ):
        publish()
        engine.instance(instance.id).run()
    reopened = engine.instance(instance.id)
    assert reopened.variables["heard"] == 3
    waiting = sorted(w["reason"] for w in reopened.outcome().waiting_for if "reason" in w)
    assert waiting == ["message", "signal"]  # one subscription each, not one per firing


DEPLOYED = """
  <process id="p" isExecutable="true">
    <startEvent id="s" parallelMultiple="PARALLEL">
      <messageEventDefinition messageRef="M"/>
      <signalEventDefinition signalRef="S"/>
    </startEvent>
    <sequenceFlow id="f1" sourceRef="s" targetRef="e"/>
    <endEvent id="e"/>
  </process>
"""


def test_a_deployed_multiple_start_event_starts_on_each_of_its_triggers(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "m.db")
    [deployment] = engine.deploy_processes(write(tmp_path, DEPLOYED))
    payload = deployment.to_json()
    assert [m["element"] for m in payload["message_starts"]] == ["s"]
    assert [m["element"] for m in payload["signal_starts"]] == ["s"]
    [by_message] = engine.publish_message("paid")
    [by_signal] = engine.broadcast_signal("go")
    assert by_message.id != by_signal.id
    assert {r["process"] for r in engine.instances()} == {"p"}


def test_a_deployed_parallel_multiple_start_event_is_refused(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "m.db")
    with pytest.raises(LoadError, match="parallel multiple start event"):
        engine.deploy_processes(write(tmp_path, DEPLOYED, parallel=True))


THROW = """
  <process id="p" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="both"/>
    <intermediateThrowEvent id="both">
      <messageEventDefinition messageRef="M"/>
      <signalEventDefinition signalRef="S"/>
    </intermediateThrowEvent>
    <sequenceFlow id="f2" sourceRef="both" targetRef="e"/>
    <endEvent id="e"/>
  </process>
  <process id="listener" isExecutable="true">
    <startEvent id="ls"/>
    <sequenceFlow id="l1" sourceRef="ls" targetRef="wait"/>
    <intermediateCatchEvent id="wait" parallelMultiple="true">
      <messageEventDefinition messageRef="M"/>
      <signalEventDefinition signalRef="S"/>
    </intermediateCatchEvent>
    <sequenceFlow id="l2" sourceRef="wait" targetRef="le"/>
    <endEvent id="le"/>
  </process>
"""


def test_a_multiple_throw_event_throws_every_definition(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "m.db")
    path = write(tmp_path, THROW)
    listener = engine.start(path, "listener")
    assert listener.run().state == "waiting"
    assert engine.start(path, "p").run().state == "completed"
    reopened = engine.instance(listener.id)
    assert reopened.outcome().state == "completed"
    assert sorted(fired(reopened)) == ["message.received", "signal.received"]


def test_validate_warns_that_deploy_refuses_a_parallel_multiple_start_event(
    tmp_path: Path,
) -> None:
    """`bpmn run` waits at it (tests/runtime/engine/test_start_events.py): no error, a warning."""
    report = validate([str(write(tmp_path, DEPLOYED, parallel=True))])
    found = [(f.rule, f.element, f.severity) for f in report.findings if f.rule == "executable"]
    assert found == [("executable", "s", Severity.WARNING)]
    assert "bpmn deploy" in next(f.message for f in report.findings if f.rule == "executable")


def test_no_none_start_names_the_triggers_of_start_events_only(tmp_path: Path) -> None:
    """The refusal lists what the start events wait for, not a boundary event's kind."""
    path = write(
        tmp_path,
        """
      <process id="p" isExecutable="true">
        <startEvent id="s"><errorEventDefinition/></startEvent>
        <sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
        <userTask id="work"/>
        <sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
        <endEvent id="e"/>
        <boundaryEvent id="late" attachedToRef="work">
          <messageEventDefinition messageRef="M"/>
        </boundaryEvent>
        <sequenceFlow id="f3" sourceRef="late" targetRef="e"/>
      </process>
    """,
    )
    with pytest.raises(UsageError, match=r"its start events are triggered: error\)$"):
        Engine(scratch_db()).start(path)


INSTANTIATING_GATEWAY = """
  <process id="p" isExecutable="true">
    <eventBasedGateway id="gw" instantiate="true"/>
    <sequenceFlow id="f1" sourceRef="gw" targetRef="byMessage"/>
    <sequenceFlow id="f2" sourceRef="gw" targetRef="bySignal"/>
    <intermediateCatchEvent id="byMessage"><messageEventDefinition messageRef="M"/>
    </intermediateCatchEvent>
    <intermediateCatchEvent id="bySignal"><signalEventDefinition signalRef="S"/>
    </intermediateCatchEvent>
    <sequenceFlow id="f3" sourceRef="byMessage" targetRef="paidEnd"/>
    <sequenceFlow id="f4" sourceRef="bySignal" targetRef="goEnd"/>
    <endEvent id="paidEnd"/>
    <endEvent id="goEnd"/>
  </process>
"""


def test_a_deployed_instantiating_event_based_gateway_starts_at_the_event_that_fires(
    tmp_path: Path,
) -> None:
    """Spec 13.4.4: an event-based gateway with instantiate="true" and no incoming flow
    starts the process; each event after it is a start trigger of the deployment."""
    engine = Engine(tmp_path / "m.db")
    [deployment] = engine.deploy_processes(write(tmp_path, INSTANTIATING_GATEWAY))
    payload = deployment.to_json()
    assert [m["element"] for m in payload["message_starts"]] == ["byMessage"]
    assert [m["element"] for m in payload["signal_starts"]] == ["bySignal"]
    [paid] = engine.publish_message("paid", variables={"amount": 5})
    assert paid.run().end_event == "paidEnd"
    assert paid.variables == {"amount": 5}
    [went] = engine.broadcast_signal("go")
    assert went.run().end_event == "goEnd"
