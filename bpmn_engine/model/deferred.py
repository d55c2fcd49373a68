"""networkx, imported the first time a scope's graph is read (`bpmn_engine/lazy.py`).

Running a diagram walks the compiled model's own mappings (nodes, flows, their ids); only the
public `Instance.graph`, the OR-join's reachability and validation look at a scope as a
networkx graph. Importing networkx runs its whole `__init__` (every algorithm: about 80 ms),
so a plain `bpmn run` that never reads a graph should not pay it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bpmn_engine import lazy

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["nx"]

# attribute -> module
_LAZY: dict[str, str] = {"nx": "networkx"}

__getattr__ = lazy.loader(_LAZY, globals())
