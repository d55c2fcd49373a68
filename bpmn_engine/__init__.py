"""bpmn-engine: run BPMN 2.0 diagrams locally, checkpointing every step in SQLite."""

from bpmn_engine.dmn import DecisionResult, Decisions
from bpmn_engine.dmn import load as load_decisions
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
from bpmn_engine.records.lifecycle import InstanceState
from bpmn_engine.records.rows import Event, Subscription, UserTask
from bpmn_engine.runtime.clock import Clock, RealClock, VirtualClock
from bpmn_engine.runtime.events.timers import TimerValueError, parse_duration
from bpmn_engine.runtime.handlers import ServiceTaskContext, load_handlers
from bpmn_engine.runtime.instance import Instance, Outcome
from bpmn_engine.runtime.scheduler import Action, ActionKind
from bpmn_engine.runtime.worker import Worker, WorkerReport, stop_on_signals

__version__ = "0.1.0"

__all__ = [
    "Action",
    "ActionKind",
    "BpmnEngineError",
    "BpmnError",
    "Clock",
    "ConcurrentModification",
    "DecisionResult",
    "Decisions",
    "Definitions",
    "Engine",
    "Event",
    "ExpressionError",
    "Instance",
    "InstanceState",
    "LoadError",
    "Outcome",
    "RealClock",
    "ServiceTaskContext",
    "Subscription",
    "TimerValueError",
    "UsageError",
    "UserTask",
    "VirtualClock",
    "Worker",
    "WorkerReport",
    "load",
    "load_decisions",
    "load_handlers",
    "parse_duration",
    "stop_on_signals",
]
