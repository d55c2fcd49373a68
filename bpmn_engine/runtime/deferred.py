"""What only some diagrams need, imported when first used (`bpmn_engine/lazy.py`): a diagram
without a business rule task never loads the DMN package (nor FEEL and lark behind it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bpmn_engine import lazy

if TYPE_CHECKING:
    from bpmn_engine.dmn import decisions as dmn_decisions

__all__ = ["dmn_decisions"]

# attribute -> module
_LAZY: dict[str, str] = {
    "dmn_decisions": "bpmn_engine.dmn.decisions",
}

__getattr__ = lazy.loader(_LAZY, globals())
