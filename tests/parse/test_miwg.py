"""Every MIWG reference diagram compiles: real models from the standard's own test suite."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from bpmn_engine.model import MultiInstance, StandardLoop
from bpmn_engine.parse import load_file
from tests.conftest import MIWG

NAMES = sorted(p.name for p in MIWG.glob("*.bpmn"))


def test_all_21_reference_diagrams_are_present(miwg_dir: Path) -> None:
    assert len(list(miwg_dir.glob("*.bpmn"))) == 21


@pytest.mark.parametrize("name", NAMES)
def test_reference_diagram_compiles_to_frozen_graphs(name: str) -> None:
    definitions = load_file(MIWG / name)
    assert definitions.processes
    assert len(definitions.version) == 64
    for scope in definitions.scopes.values():
        assert isinstance(scope.graph, nx.DiGraph)
        assert nx.is_frozen(scope.graph)
        assert set(scope.graph.nodes) == set(scope.nodes)
        assert scope.graph.number_of_edges() == len(scope.flows)
        for _, _, key, data in scope.graph.edges(keys=True, data=True):
            assert data["flow"].id == key


def test_the_loop_markers_of_b_2_0_and_c_9_2_are_read_with_their_dialect(miwg_dir: Path) -> None:
    b20 = load_file(miwg_dir / "B.2.0.bpmn")
    loops = {
        node.id: node.loop_characteristics
        for scope in b20.scopes.values()
        for node in scope.nodes.values()
        if getattr(node, "loop_characteristics", None) is not None
    }
    sequential = loops["_c57a5344-213f-4834-a6c3-94ce878b413c"]
    assert isinstance(sequential, MultiInstance) and sequential.sequential
    assert sequential.refused  # descriptive: no cardinality, no collection
    assert sum(isinstance(s, StandardLoop) and not s.test_before for s in loops.values()) == 1
    c92 = load_file(miwg_dir / "C.9.2.bpmn")
    call = c92.node("CallActivity_RequestDocument").loop_characteristics
    assert isinstance(call, MultiInstance) and call.dialect == "zeebe"
    assert call.collection is not None and call.collection.text == "=documents"
    assert call.element_variable == "document"
