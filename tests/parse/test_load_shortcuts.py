"""What loading does faster still gives what the plain ways give (issue 15, the Load target).

Each element's attributes, children and extension elements are indexed once (`ElementIndex`),
a scope's graph is filled directly, the specs are plain slotted classes the reader makes by
position, a plain task or event is made
without the whole reader, and the garbage collector is held while a document compiles: each
answer here is checked against the plain way of getting it.
"""

from __future__ import annotations

import dataclasses
import gc
from pathlib import Path

import networkx as nx
import pytest
from lxml import etree

from bpmn_engine.errors import LoadError
from bpmn_engine.model import Definitions, SequenceFlow, SubProcess, Task
from bpmn_engine.parse import compile_definitions, load_file
from bpmn_engine.parse.extensions import (
    CAMUNDA,
    ZEEBE,
    ElementIndex,
    extension_children,
    vendor_attr,
)

ROOT = Path(__file__).resolve().parents[2]

TASK = f"""<task xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="{CAMUNDA}"
      xmlns:zeebe="{ZEEBE}" id="t" camunda:topic="mail" camunda:type="external">
  <incoming>f1</incoming>
  <extensionElements>
    <camunda:executionListener event="start" class="a.B"/>
    <!-- a comment is no element -->
    <zeebe:taskHeaders><zeebe:header key="k" value="v"/></zeebe:taskHeaders>
    <camunda:inputOutput>
      <camunda:inputParameter name="x">1</camunda:inputParameter>
      <camunda:executionListener event="end" class="nested.C"/>
    </camunda:inputOutput>
  </extensionElements>
  <extensionElements>
    <camunda:executionListener event="end" class="a.D"/>
  </extensionElements>
  <standardLoopCharacteristics/>
  <outgoing>f2</outgoing>
</task>"""


def test_the_index_answers_as_scanning_the_element_does() -> None:
    element = etree.fromstring(TASK)
    index = ElementIndex(element)
    for ns, name in [
        (CAMUNDA, "executionListener"),
        (CAMUNDA, "inputParameter"),
        (ZEEBE, "header"),
        (ZEEBE, "taskHeaders"),
        (ZEEBE, "ioMapping"),
    ]:
        assert list(index.extension_children(ns, name)) == extension_children(element, ns, name)
    for name in ("topic", "type", "class", "resource"):
        assert index.vendor_attr(name) == vendor_attr(element, name)
    bpmn = "{http://www.omg.org/spec/BPMN/20100524/MODEL}"
    for name in ("incoming", "outgoing", "standardLoopCharacteristics", "script"):
        assert list(index.bpmn_children(name)) == list(element.iterchildren(bpmn + name))
    assert list(index.children) == [c for c in element if isinstance(c.tag, str)]
    assert index.has_extensions


def test_an_element_without_children_or_vendor_attributes_has_nothing_indexed() -> None:
    element = etree.fromstring('<task xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"/>')
    index = ElementIndex(element)
    assert not index.has_extensions and not index.children
    assert not index.has_vendor_attrs and index.vendor_attr("topic") is None
    assert list(index.extension_children(CAMUNDA, "executionListener")) == []


def plain_graph(scope: str, nodes: dict, flows: dict) -> nx.MultiDiGraph:
    """The graph as networkx's own calls build it."""
    graph = nx.MultiDiGraph(scope=scope)
    for node in nodes.values():
        graph.add_node(node.id, spec=node)
    for flow in flows.values():
        graph.add_edge(flow.source, flow.target, key=flow.id, flow=flow)
    return graph


def shape(graph: nx.MultiDiGraph) -> tuple:
    return (
        graph.graph,
        list(graph.nodes(data=True)),
        list(graph.edges(keys=True, data=True)),
        list(graph.in_edges(keys=True, data=True)),
        [(n, list(graph.succ[n]), list(graph.pred[n])) for n in graph],
    )


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "models").glob("*.bpmn")))
def test_each_scope_graph_is_the_one_networkx_calls_build(name: str) -> None:
    definitions: Definitions = load_file(ROOT / "models" / name)
    for scope in definitions.scopes.values():
        assert nx.is_frozen(scope.graph)
        expected = plain_graph(scope.id, dict(scope.nodes), dict(scope.flows))
        assert shape(scope.graph) == shape(expected)


def test_two_flows_between_the_same_nodes_are_two_edges() -> None:
    definitions = compile_definitions(
        b"""<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">
          <process id="p"><startEvent id="s"/><endEvent id="e"/>
            <sequenceFlow id="f1" sourceRef="s" targetRef="e"/>
            <sequenceFlow id="f2" sourceRef="s" targetRef="e"/>
          </process></definitions>"""
    )
    process = definitions.process("p")
    assert shape(process.graph) == shape(plain_graph("p", dict(process.nodes), process.flows))
    assert list(process.graph["s"]["e"]) == ["f1", "f2"]


def test_specs_are_built_with_their_defaults_and_hashed_by_their_fields() -> None:
    task = Task("t", "task", 3, name="T")
    assert task == Task(id="t", kind="task", line=3, name="T")
    assert hash(task) == hash(Task(id="t", kind="task", line=3, name="T"))
    assert len({task, Task("t", "task", 3, name="T"), Task("u", "task", 3)}) == 2
    assert task.incoming == () and task.handler_names == () and task.loop is None
    assert dataclasses.replace(task, name="U").name == "U"
    assert SequenceFlow("f", "a", "b", 1).is_default is False
    assert SubProcess("s", "subProcess", 1).scope is None
    with pytest.raises(TypeError):
        Task("t", "task")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Task("t", "task", 1, nowhere=1)  # type: ignore[call-arg]


def test_a_spec_has_slots_and_type_checkers_see_it_frozen() -> None:
    """Not frozen at run time (`elements.spec` says why): a type checker refuses a write."""
    from bpmn_engine.model import elements

    task = Task("t", "task", 3)
    assert not hasattr(task, "__dict__")
    with pytest.raises(AttributeError):
        object.__setattr__(task, "nowhere", 1)
    assert vars(elements.spec)["__dataclass_transform__"]["kwargs"] == {"frozen_default": True}


BROKEN = b"""<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">
  <process id="p"><task id="a"/><task id="a"/></process></definitions>"""
VALID = b"""<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">
  <process id="p"><task id="a"/></process></definitions>"""


def test_the_garbage_collector_is_left_as_it_was_found() -> None:
    assert gc.isenabled()
    compile_definitions(VALID)
    assert gc.isenabled()
    with pytest.raises(LoadError, match="duplicate id"):
        compile_definitions(BROKEN)
    assert gc.isenabled()
    gc.disable()
    try:
        compile_definitions(VALID)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_scope_builds_its_graph_when_first_read() -> None:
    definitions = compile_definitions(
        b'<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">'
        b'<process id="p"><startEvent id="s"/><endEvent id="e"/>'
        b'<sequenceFlow id="f1" sourceRef="s" targetRef="e"/></process></definitions>'
    )
    process = definitions.processes["p"]
    assert "graph" not in vars(process)  # compiling did not build it
    graph = process.graph
    assert process.graph is graph and nx.is_frozen(graph)
    assert list(graph.edges(keys=True)) == [("s", "e", "f1")]


# the readers build the specs by position (keywords cost as much as the rest of the call):
# each class's fields, in order, as `parse/reader.py` passes them
NODE = ("id", "kind", "line", "name", "incoming", "outgoing", "listeners")
ACTIVITY = (
    *NODE,
    "default",
    "io",
    "loop",
    "loop_characteristics",
    "boundary_events",
    "is_for_compensation",
    "data",
    "compensation_handler",
)
EVENT = (*NODE, "definitions", "parallel_multiple", "io", "reads", "writes", "awaits_trigger")
READ_BY_POSITION = {
    "SequenceFlow": (
        "id",
        "source",
        "target",
        "line",
        "name",
        "condition",
        "is_default",
        "listeners",
    ),
    "Task": (
        *ACTIVITY,
        "handler_names",
        "script",
        "script_format",
        "result_variable",
        "form_fields",
        "message_ref",
        "headers",
        "decision",
        "waits_for_person",
        "work_item",
        "assignment",
        "retry",
    ),
    "SubProcess": (*ACTIVITY, "scope", "triggered_by_event"),
    "CallActivity": (
        *ACTIVITY,
        "called_element",
        "ins",
        "outs",
        "propagate_parent",
        "propagate_child",
        "binding",
        "version",
        "business_key",
    ),
    "Gateway": (*NODE, "default", "direction", "instantiate"),
    "ComplexGateway": (*NODE, "default", "direction", "instantiate", "activation"),
    "StartEvent": (*EVENT, "interrupting"),
    "EndEvent": EVENT,
    "IntermediateEvent": EVENT,
    "BoundaryEvent": (*EVENT, "attached_to", "cancel_activity"),
}


@pytest.mark.parametrize("name", sorted(READ_BY_POSITION))
def test_the_fields_are_in_the_order_the_reader_passes_them(name: str) -> None:
    from bpmn_engine import model

    cls = getattr(model, name)
    assert tuple(f.name for f in dataclasses.fields(cls)) == READ_BY_POSITION[name]


@pytest.mark.parametrize("name", sorted(READ_BY_POSITION))
def test_a_spec_made_by_position_is_the_one_made_by_name(name: str) -> None:
    from bpmn_engine import model

    cls = getattr(model, name)
    names = READ_BY_POSITION[name]
    values = [f"v{i}" for i in range(len(names))]
    built = cls(*values)
    assert type(built) is cls and built == cls(**dict(zip(names, values, strict=True)))
    assert dataclasses.astuple(built) == tuple(values)
    required = [f for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING]
    defaults = cls(*values[: len(required)])
    assert dataclasses.astuple(defaults)[len(required) :] == tuple(
        f.default for f in dataclasses.fields(cls)[len(required) :]
    )


PLAIN = b"""<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">
  <process id="p">
    <startEvent id="s" name="Start"><outgoing>f1</outgoing></startEvent>
    <task id="t"><documentation>what it does</documentation><incoming>f1</incoming></task>
    <userTask id=" u " name="U"/><manualTask id="m"/><serviceTask id="sv"/>
    <scriptTask id="sc"/><sendTask id="se"/><receiveTask id="r"/>
    <businessRuleTask id="b"/>
    <endEvent id="e"><incoming>f2</incoming></endEvent>
    <sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
    <sequenceFlow id="f2" sourceRef="t" targetRef="e"/>
  </process></definitions>"""


@pytest.mark.parametrize(
    "source",
    [PLAIN, *(p.read_bytes() for p in sorted((ROOT / "models").glob("*.bpmn")))],
    ids=["plain", *(p.name for p in sorted((ROOT / "models").glob("*.bpmn")))],
)
def test_a_plain_element_is_read_as_the_whole_reader_reads_it(
    source: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Elements with nothing but an id, a name and incoming/outgoing/documentation children
    are made directly (`ElementIndex.plain`); reading every one of them the long way gives
    the same specs, refusals and warnings."""

    def compiled() -> list[tuple]:
        try:
            definitions = compile_definitions(source)
        except LoadError as error:
            return [("error", str(error))]
        return [
            (scope.id, dict(scope.nodes), dict(scope.flows), getattr(scope, "refused", None))
            for scope in definitions.scopes.values()
        ] + [(p.id, p.warned) for p in definitions.processes.values()]

    quick = compiled()
    index_init = ElementIndex.__init__

    def never_plain(self: ElementIndex, element: etree._Element) -> None:
        index_init(self, element)
        self.plain = False

    monkeypatch.setattr(ElementIndex, "__init__", never_plain)
    assert compiled() == quick
    if source is PLAIN:
        nodes = compile_definitions(source).process("p").nodes
        assert nodes[" u "].handler_names == ("u",) and nodes[" u "].name == "U"
