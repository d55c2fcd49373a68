"""What only some diagrams need, imported when first used (`bpmn_engine/lazy.py`): a diagram
without a business rule task never loads the DMN package (nor FEEL and lark behind it), one
without timers neither the ISO 8601 nor the cron reader."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bpmn_engine import lazy

if TYPE_CHECKING:
    import croniter
    import isodate

    from bpmn_engine.dmn import decisions as dmn_decisions

__all__ = ["croniter", "dmn_decisions", "isodate"]

# attribute -> module
_LAZY: dict[str, str] = {
    "dmn_decisions": "bpmn_engine.dmn.decisions",
    "isodate": "isodate",
    "croniter": "croniter",
}

__getattr__ = lazy.loader(_LAZY, globals())
