"""Random and mutated XML against the parser, the compiler, `bpmn validate` and a short run.

Whatever the bytes, the engine answers with its own errors (`BpmnEngineError`: LoadError
and friends, which say file:line: element) or a result: never another exception. Each
example starts from a small valid diagram (or a model of models/) and mutates its tree or
its bytes: elements dropped or duplicated, attributes dropped or given random values, ids
with odd characters, deep nesting, truncation, random bytes.
"""

from __future__ import annotations

import contextlib
import copy
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from bpmn_engine import BpmnEngineError, Engine
from bpmn_engine.parse import compile_definitions
from bpmn_engine.runtime.clock import VirtualClock
from bpmn_engine.validate import runner

ROOT = Path(__file__).resolve().parents[2]
MAX_STEPS = 300  # a run is cut off here: a diagram may loop forever on purpose
START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
ENDED = {"completed", "failed", "terminated"}

SMALL = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="d" targetNamespace="t">
  <process id="p" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="fork"/>
    <parallelGateway id="fork"/>
    <sequenceFlow id="f2" sourceRef="fork" targetRef="a"/>
    <sequenceFlow id="f3" sourceRef="fork" targetRef="t"/>
    <scriptTask id="a" scriptFormat="python"><script>x = 1</script></scriptTask>
    <sequenceFlow id="f4" sourceRef="a" targetRef="x"/>
    <exclusiveGateway id="x" default="f6"/>
    <sequenceFlow id="f5" sourceRef="x" targetRef="a">
      <conditionExpression xsi:type="tFormalExpression">x &gt; 5</conditionExpression>
    </sequenceFlow>
    <sequenceFlow id="f6" sourceRef="x" targetRef="join"/>
    <intermediateCatchEvent id="t">
      <timerEventDefinition><timeDuration>PT5M</timeDuration></timerEventDefinition>
    </intermediateCatchEvent>
    <sequenceFlow id="f7" sourceRef="t" targetRef="join"/>
    <parallelGateway id="join"/>
    <sequenceFlow id="f8" sourceRef="join" targetRef="sub"/>
    <subProcess id="sub">
      <startEvent id="s2"/>
      <sequenceFlow id="g1" sourceRef="s2" targetRef="u"/>
      <userTask id="u"/>
      <boundaryEvent id="b" attachedToRef="u">
        <timerEventDefinition><timeCycle>R2/PT1H</timeCycle></timerEventDefinition>
      </boundaryEvent>
      <sequenceFlow id="g2" sourceRef="u" targetRef="e2"/>
      <sequenceFlow id="g3" sourceRef="b" targetRef="e3"/>
      <endEvent id="e2"/>
      <endEvent id="e3"><terminateEventDefinition/></endEvent>
    </subProcess>
    <sequenceFlow id="f9" sourceRef="sub" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>
"""
SEEDS = [SMALL.encode(), *(p.read_bytes() for p in sorted((ROOT / "models").glob("*.bpmn")))]
ODD_TEXT = st.text(
    alphabet=st.sampled_from(
        [*"aZ0_-. :/${}#&<>\"'\\\u00e9\u4e2d\U0001f600\t\n", "\x00", "\ud800"]
    ),
    max_size=12,
)
VALUES = st.one_of(
    ODD_TEXT,
    st.sampled_from(["", "true", "false", "-1", "0", "P99999999D", "R/PT0S", "* * *", "s", "e"]),
)

TIMER_VALUES = st.one_of(
    ODD_TEXT,
    st.sampled_from(
        [
            "P99999999D",
            "PT",
            "-P1D",
            "P1.5M",
            "R/PT0S",
            "R3/P1M/2026-03-31T00:00:00Z",
            "R/9999-12-31T23:00:00Z/PT1H",
            "0 0/1 * * * ?",
            "0 0 12 ? * 6#3",
            "0 0 12 LW * ?",
            "0 0 0 31 2 ?",
            "0 0 12 * * ? 2020",
            "9999-12-31T23:59:59Z",
            "${x}",
        ]
    ),
)


def mutate_tree(data: st.DataObject, root: etree._Element) -> None:
    """A few random edits of the tree, in place."""
    for _ in range(data.draw(st.integers(0, 6), label="edits")):
        elements = list(root.iter())
        target = data.draw(st.sampled_from(elements), label="element")
        action = data.draw(
            st.sampled_from(
                ["drop", "duplicate", "attribute", "drop-attribute", "nest", "text", "timer"]
            ),
            label="action",
        )
        if action == "timer":  # a timer value: found a timer, or make the element one
            timers = [e for e in elements if isinstance(e.tag, str) and "}time" in e.tag]
            target = data.draw(st.sampled_from(timers), label="timer") if timers else target
            action = "text"
        parent = target.getparent()
        if action == "drop" and parent is not None:
            parent.remove(target)
        elif action == "duplicate" and parent is not None:
            parent.insert(parent.index(target), copy.deepcopy(target))
        elif action == "attribute":
            name = data.draw(
                st.sampled_from(
                    [
                        "id",
                        "sourceRef",
                        "targetRef",
                        "default",
                        "attachedToRef",
                        "isExecutable",
                        "cancelActivity",
                        "name",
                        "calledElement",
                    ]
                ),
                label="name",
            )
            _set(target, name, data.draw(VALUES, label="value"))
        elif action == "drop-attribute" and target.attrib:
            del target.attrib[data.draw(st.sampled_from(sorted(target.attrib)), label="drop")]
        elif action == "nest" and parent is not None:
            depth = data.draw(st.integers(1, 200), label="depth")
            outer = holder = etree.Element(target.tag)
            for _ in range(depth - 1):
                holder = etree.SubElement(holder, target.tag)
            parent.replace(target, outer)
            holder.append(target)
        elif action == "text" and not isinstance(target, etree._Comment):
            text = data.draw(TIMER_VALUES if "time" in str(target.tag) else VALUES, label="text")
            with contextlib.suppress(ValueError):  # lxml refuses text XML cannot hold
                target.text = text


def _set(element: etree._Element, name: str, value: str) -> None:
    with contextlib.suppress(ValueError, TypeError):  # characters XML cannot hold
        element.set(name, value)


def mutate_bytes(data: st.DataObject, source: bytes) -> bytes:
    action = data.draw(st.sampled_from(["none", "truncate", "insert", "overwrite"]))
    if action == "none" or not source:
        return source
    at = data.draw(st.integers(0, len(source)), label="at")
    if action == "truncate":
        return source[:at]
    noise = data.draw(st.binary(min_size=1, max_size=16), label="bytes")
    if action == "insert":
        return source[:at] + noise + source[at:]
    return source[:at] + noise + source[at + len(noise) :]


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    data = draw(st.data())
    seed = draw(st.sampled_from(SEEDS))
    if draw(st.booleans()):
        root = etree.fromstring(seed)
        mutate_tree(data, root)
        seed = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    if draw(st.integers(0, 3)) == 0:
        seed = mutate_bytes(data, seed)
    return seed


def run_bounded(engine: Engine, definitions, process_id: str) -> str:
    """Start and run at most MAX_STEPS steps on the virtual clock; the state it ends in."""
    instance = engine.start(definitions, process_id)
    for _ in range(MAX_STEPS):
        if instance.outcome().state in ENDED or not instance.step_once():
            break
    return instance.outcome().state


@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "60")),
    deadline=None,
    derandomize="FUZZ_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(documents())
def test_any_xml_gets_an_engine_error_or_a_result(source: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.bpmn"
        path.write_bytes(source)
        report = runner.run([str(path)], preset="all")
        crashes = [f for f in report.findings if f.rule == runner.RULE_ERROR]
        assert crashes == [], crashes
        try:
            definitions = compile_definitions(source, str(path))
        except BpmnEngineError as error:
            assert str(error).startswith(str(path)), error
            return
        for process_id in definitions.processes:
            engine = Engine(":memory:", clock=VirtualClock(START))
            try:
                state = run_bounded(engine, definitions, process_id)
            except BpmnEngineError:
                continue
            assert state in {"completed", "failed", "terminated", "waiting", "active"}
