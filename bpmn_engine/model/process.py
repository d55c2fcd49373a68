"""Compiled definitions: one networkx graph per process and per subprocess scope.

The graph is a `networkx.MultiDiGraph` (a subclass of `DiGraph`): BPMN allows two sequence
flows between the same pair of nodes, which a plain `DiGraph` would silently merge. Nodes are
flow-node ids with the frozen spec under the `spec` attribute; edges are keyed by sequence-flow
id with the `SequenceFlow` under `flow`. Graphs are frozen: instances share them and keep their
own state elsewhere (see `runtime/instance/instance.py`). A scope's graph is built the first time
it is read: running a diagram walks the scope's own mappings and needs no networkx.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Self

from bpmn_engine.errors import UsageError
from bpmn_engine.model import deferred
from bpmn_engine.model.elements import (
    Activity,
    BoundaryEvent,
    CallActivity,
    Expression,
    FlowNode,
    Listener,
    Refusal,
    SequenceFlow,
    StartEvent,
    SubProcess,
)

if TYPE_CHECKING:
    import networkx as nx


@dataclass(frozen=True, eq=False)
class FlowScope:
    """A process or subprocess body: the nodes and flows that share one token scope."""

    id: str
    line: int
    nodes: Mapping[str, FlowNode]
    flows: Mapping[str, SequenceFlow]
    variables: tuple[str, ...] = ()  # data objects (and a process's properties) it declares
    # nodes marked asynchronous before / after (Camunda 7's asyncBefore / asyncAfter,
    # Activiti's async): a checkpoint is taken there (runtime/instance/chain.py)
    async_before: tuple[str, ...] = ()
    async_after: tuple[str, ...] = ()

    @classmethod
    def build(
        cls,
        id: str,
        line: int,
        nodes: dict[str, FlowNode],
        flows: dict[str, SequenceFlow],
        **details: object,
    ) -> Self:
        return cls(id, line, MappingProxyType(nodes), MappingProxyType(flows), **details)

    @cached_property
    def graph(self) -> nx.MultiDiGraph:
        """The scope as a frozen networkx graph, built the first time it is read (a run
        that never reads it, the usual case, never imports networkx: `deferred.py`)."""
        return deferred.nx.freeze(_graph(self.id, self.nodes, self.flows))

    @cached_property
    def start_nodes(self) -> tuple[str, ...]:
        """Where a token starts: the none start events, else every node with no incoming flow.

        Event subprocesses, boundary events and compensation handlers never start with the
        scope (spec 10.5.2 and 13.2.1: implicit start of nodes without incoming flows).
        """
        none_starts = [
            n.id
            for n in self.nodes.values()
            if isinstance(n, StartEvent) and not n.definitions and not self.is_event_subprocess(n)
        ]
        if none_starts:
            return tuple(none_starts)
        if any(isinstance(n, StartEvent) for n in self.nodes.values()):
            return ()  # only triggered starts: nothing starts on its own
        return tuple(
            n.id
            for n in self.nodes.values()
            if not n.incoming
            and not isinstance(n, BoundaryEvent)
            and not self.is_event_subprocess(n)
            and not (isinstance(n, Activity) and n.is_for_compensation)
        )

    @staticmethod
    def is_event_subprocess(node: FlowNode) -> bool:
        return isinstance(node, SubProcess) and node.triggered_by_event

    def outgoing(self, node: FlowNode) -> list[SequenceFlow]:
        return [self.flows[f] for f in node.outgoing]

    @cached_property
    def control_graph(self) -> nx.DiGraph:
        """Flow graph plus host -> boundary-event edges: where a token at a node may go next."""
        graph = deferred.nx.DiGraph()
        graph.add_nodes_from(self.nodes)
        graph.add_edges_from((f.source, f.target) for f in self.flows.values())
        for node in self.nodes.values():
            if isinstance(node, BoundaryEvent) and node.attached_to in self.nodes:
                graph.add_edge(node.attached_to, node.id)
        return deferred.nx.freeze(graph)

    def reachable_avoiding(self, start: str, avoid: str) -> frozenset[str]:
        """Nodes reachable from `start` on paths that do not pass through `avoid`.

        A token at `avoid` itself (on its way into an OR-join) reaches nothing that way.
        """
        key = (start, avoid)
        cache = self._reach_cache
        if start == avoid:
            return frozenset()
        if key not in cache:
            view = deferred.nx.restricted_view(self.control_graph, [avoid], [])
            cache[key] = frozenset(deferred.nx.descendants(view, start)) | {start}
        return cache[key]

    @cached_property
    def _reach_cache(self) -> dict[tuple[str, str], frozenset[str]]:
        return {}

    def walk(self) -> list[tuple[FlowScope, FlowNode]]:
        """Every node of this scope and of its nested subprocesses, with its scope."""
        found: list[tuple[FlowScope, FlowNode]] = []
        for node in self.nodes.values():
            found.append((self, node))
            if isinstance(node, SubProcess) and node.scope is not None:
                found.extend(node.scope.walk())
        return found


@dataclass(frozen=True, slots=True)
class ProcessInterface:
    """A process's `ioSpecification`, as a caller sees it: what a call passes in and what
    comes back (each item its id, the variable, and its name, also matched in the caller)."""

    inputs: tuple[tuple[str, str | None], ...] = ()
    outputs: tuple[tuple[str, str | None], ...] = ()


@dataclass(frozen=True, eq=False)
class Process(FlowScope):
    name: str | None = None
    is_executable: bool = True
    inputs: tuple[tuple[str, int], ...] = ()  # ioSpecification data inputs (name, line)
    interface: ProcessInterface | None = None  # its ioSpecification, for call activities
    refused: tuple[Refusal, ...] = ()  # what it holds that the engine cannot run
    warned: tuple[Refusal, ...] = ()  # what it runs differently from a server, said at start
    listeners: tuple[Listener, ...] = ()  # run when an instance starts and completes


@dataclass(frozen=True, eq=False)
class Definitions:
    """One BPMN file, compiled. `version` is the content hash every instance is pinned to."""

    path: str
    version: str
    source: bytes = field(repr=False)
    processes: Mapping[str, Process]
    # the engine the file was drawn for where that changes a meaning: "camunda7", "camunda8"
    # or "" (`parse/extensions.platform`)
    platform: str = ""
    messages: Mapping[str, str] = field(default_factory=dict)  # id -> name
    signals: Mapping[str, str] = field(default_factory=dict)
    errors: Mapping[str, str] = field(default_factory=dict)  # id -> errorCode
    escalations: Mapping[str, str] = field(default_factory=dict)  # id -> escalationCode
    correlation_keys: Mapping[str, str] = field(default_factory=dict)  # Zeebe: message id -> key
    # BPMN: message id -> (correlation property id, its retrieval expression for that message)
    correlation_properties: Mapping[str, tuple[tuple[str, Expression], ...]] = field(
        default_factory=dict
    )
    correlation_groups: tuple[tuple[str, ...], ...] = ()  # each correlationKey's property ids
    # signal, error or escalation id -> what its throw carries, into which variable of the
    # catcher (SpiffWorkflow's `payloadExpression` and `variableName`)
    payloads: Mapping[str, tuple[Expression | None, str]] = field(default_factory=dict)
    # collaboration id -> the processes of its pools (participants with a processRef)
    collaborations: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def process(self, process_id: str | None = None) -> Process:
        """The process to run: the one asked for, else the only (or first executable) one."""
        if process_id is not None:
            if process_id not in self.processes:
                known = ", ".join(self.processes) or "none"
                if process_id in self.collaborations:
                    raise UsageError(
                        f"{self.path}: {process_id!r} is a collaboration, not a process (its "
                        f"pools: {', '.join(self.collaborations[process_id]) or 'none'}): "
                        "Engine.start_collaboration starts its pools together"
                    )
                collaborations = "".join(f", collaboration {c}" for c in self.collaborations)
                raise UsageError(
                    f"{self.path}: no process {process_id!r} (processes: {known}{collaborations})"
                )
            return self.processes[process_id]
        executable = [p for p in self.processes.values() if p.is_executable and p.nodes]
        candidates = executable or [p for p in self.processes.values() if p.nodes]
        if not candidates:
            raise UsageError(f"{self.path}: the file has no process with flow nodes")
        return candidates[0]

    def startable(
        self, collaboration: str | None = None
    ) -> tuple[list[Process], list[tuple[str, str]], list[tuple[str, str]]]:
        """What `bpmn run` starts of a file (or of one collaboration's pools): every
        executable process a token can start in by itself; (id, why not) for each one whose
        start events all wait for a trigger (it runs when the trigger comes); and (id, why
        not) for each other. A process some call activity of the file calls runs as that
        call's child.
        """
        called = {
            node.called_element: node.id
            for process in self.processes.values()
            for _, node in process.walk()
            if isinstance(node, CallActivity) and node.called_element
        }
        started: list[Process] = []
        waiting: list[tuple[str, str]] = []
        skipped: list[tuple[str, str]] = []
        pools = list(self.processes.values())
        if collaboration is not None:
            named = self.collaborations[collaboration]
            pools = [self.processes[p] for p in named if p in self.processes]
        for process in pools:
            triggered = {
                d.kind
                for n in process.nodes.values()
                if isinstance(n, StartEvent) and not process.is_event_subprocess(n)
                for d in n.definitions
            }
            if not process.nodes:
                skipped.append((process.id, "it has no flow nodes"))
            elif not process.is_executable:
                skipped.append((process.id, 'it is marked isExecutable="false"'))
            elif process.id in called:
                skipped.append((process.id, f"call activity {called[process.id]!r} calls it"))
            elif not process.start_nodes:
                kinds = ", ".join(sorted(triggered))
                waiting.append((process.id, f"its start events wait for a trigger ({kinds})"))
            else:
                started.append(process)
        return started, waiting, skipped

    def start_triggers(self, process: Process) -> list[tuple[str, str, str]]:
        """(start event, "message" or "signal", name) for each trigger of the process's
        start events that starts an instance by itself (any one of a multiple start event's;
        none of a parallel multiple one's, which needs them all)."""
        found = []
        for node in process.nodes.values():
            if not isinstance(node, StartEvent):
                continue
            if node.parallel_multiple and len(node.definitions) > 1:
                continue
            for definition in node.definitions:
                names = self.messages if definition.kind == "message" else self.signals
                name = names.get(definition.ref or "", definition.ref)
                if definition.kind in ("message", "signal") and name:
                    found.append((node.id, definition.kind, name))
        return found

    @cached_property
    def scopes(self) -> Mapping[str, FlowScope]:
        """Every scope by id: the processes and all their (nested) subprocess scopes."""
        found: dict[str, FlowScope] = {}
        for process in self.processes.values():
            found[process.id] = process
            for _, node in process.walk():
                if isinstance(node, SubProcess) and node.scope is not None:
                    found[node.id] = node.scope
        return MappingProxyType(found)

    @cached_property
    def node_scopes(self) -> Mapping[str, FlowScope]:
        """For every flow node id, the scope it lives in."""
        found: dict[str, FlowScope] = {}
        for process in self.processes.values():
            for scope, node in process.walk():
                found[node.id] = scope
        return MappingProxyType(found)

    def node(self, node_id: str) -> FlowNode | None:
        """The flow node with this id, in whichever (sub)process scope it lives; None if the
        file has none (callers name elements from events and user input)."""
        scope = self.node_scopes.get(node_id)
        return scope.nodes[node_id] if scope is not None else None

    @property
    def node_ids(self) -> tuple[str, ...]:
        """Every flow node id of every scope, sorted (for completion and for checking a name)."""
        return tuple(sorted(self.node_scopes))


def _graph(
    scope: str, nodes: Mapping[str, FlowNode], flows: Mapping[str, SequenceFlow]
) -> nx.MultiDiGraph:
    """The scope's graph, as `add_node(id, spec=node)` for each node then `add_edge(source,
    target, key=flow.id, flow=flow)` for each flow would make it, with the same dicts in the
    same order; filled directly, because those calls were a sixth of loading a file.

    Every flow joins two nodes of the scope (the reader refuses any other), so no edge adds
    a node; node and flow ids are unique, so nothing is updated twice.
    """
    graph = deferred.nx.MultiDiGraph(scope=scope)
    attributes, successors, predecessors = graph._node, graph._succ, graph._pred
    for node_id, node in nodes.items():
        attributes[node_id] = {"spec": node}
        successors[node_id] = {}
        predecessors[node_id] = {}
    for flow_id, flow in flows.items():
        source, target = flow.source, flow.target
        keys = successors[source].get(target)
        if keys is None:
            keys = successors[source][target] = predecessors[target][source] = {}
        keys[flow_id] = {"flow": flow}
    return graph
