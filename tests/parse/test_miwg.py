"""Every MIWG reference diagram compiles: real models from the standard's own test suite."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from bpmn_engine.parse import load_file
from tests.conftest import MIWG

NAMES = sorted(p.name for p in MIWG.glob("*.bpmn")) if MIWG.is_dir() else []


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
