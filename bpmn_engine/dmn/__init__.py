"""DMN 1.1-1.5 decisions: `load(*paths).evaluate(name_or_id, inputs)`.

`reader.py` reads the XML (safely, as BPMN files are read) into `model.py`'s frozen
definitions with every FEEL text compiled; `decisions.py` checks the references between
files and finds decisions; `evaluate.py` evaluates them (`tables.py`: decision tables and hit
policies; `types.py`: type checks). See docs/dmn.md.
"""

from __future__ import annotations

from bpmn_engine.dmn.decisions import DecisionResult, Decisions, load, load_bundle
from bpmn_engine.expressions.feel.values import YearsMonths

__all__ = ["DecisionResult", "Decisions", "YearsMonths", "load", "load_bundle"]
