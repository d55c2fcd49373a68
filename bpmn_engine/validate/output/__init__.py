"""One emitter per output format: each writes a whole `Report` to a text stream."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from bpmn_engine.validate.output import github, json, sarif, text
from bpmn_engine.validate.runner import Report

Emitter = Callable[[Report, TextIO], None]
EMITTERS: dict[str, Emitter] = {
    "text": text.emit,
    "json": json.emit,
    "github": github.emit,
    "sarif": sarif.emit,
}
FORMATS = tuple(EMITTERS)

__all__ = ["EMITTERS", "FORMATS", "Emitter"]
