"""bpmn-engine: run BPMN 2.0 diagrams locally, checkpointing every step in SQLite."""

from bpmn_engine.engine import Engine
from bpmn_engine.errors import (
    BpmnEngineError,
    BpmnError,
    ConcurrentModification,
    ExpressionError,
    LoadError,
    UsageError,
)
from bpmn_engine.model import Definitions
from bpmn_engine.parse import load_file as load
from bpmn_engine.records.rows import Event
from bpmn_engine.runtime.handlers import ServiceTaskContext, load_handlers
from bpmn_engine.runtime.instance import Instance, Outcome

__version__ = "0.1.0"

__all__ = [
    "BpmnEngineError",
    "BpmnError",
    "ConcurrentModification",
    "Definitions",
    "Engine",
    "Event",
    "ExpressionError",
    "Instance",
    "LoadError",
    "Outcome",
    "ServiceTaskContext",
    "UsageError",
    "load",
    "load_handlers",
]
