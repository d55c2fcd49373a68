"""bpmn-engine: run BPMN 2.0 diagrams locally, checkpointing every step in SQLite.

The public names are imported when first used (PEP 562): `bpmn --help` or a script that only
needs `bpmn_engine.errors` does not pay for the runtime, the store and their libraries.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from bpmn_engine.errors import (
    BpmnEngineError,
    BpmnError,
    ConcurrentModification,
    ExpressionError,
    LoadError,
    NotFound,
    PermanentError,
    UsageError,
)

if TYPE_CHECKING:
    from bpmn_engine.dmn import DecisionResult, Decisions
    from bpmn_engine.dmn import load as load_decisions
    from bpmn_engine.engine import Engine
    from bpmn_engine.model import Definitions
    from bpmn_engine.parse import load_file as load
    from bpmn_engine.parse import load_source as loads
    from bpmn_engine.records.lifecycle import InstanceState
    from bpmn_engine.records.rows import DataStoreValue, Event, Subscription, UserTask
    from bpmn_engine.runtime.calls.tree import CallTree
    from bpmn_engine.runtime.clock import Clock, RealClock, VirtualClock
    from bpmn_engine.runtime.engine.collaborations import Collaboration
    from bpmn_engine.runtime.engine.tasklist import OpenTask
    from bpmn_engine.runtime.events.timers import TimerValueError, parse_duration
    from bpmn_engine.runtime.handlers import ServiceTaskContext, load_handlers
    from bpmn_engine.runtime.instance.instance import Instance
    from bpmn_engine.runtime.instance.reading import Outcome
    from bpmn_engine.runtime.instance.scheduler import Action, ActionKind
    from bpmn_engine.runtime.worker.worker import Worker, WorkerReport, stop_on_signals

__version__ = "0.1.0"

# public name -> (module, name in it)
_LAZY: dict[str, tuple[str, str]] = {
    "DecisionResult": ("bpmn_engine.dmn", "DecisionResult"),
    "Decisions": ("bpmn_engine.dmn", "Decisions"),
    "load_decisions": ("bpmn_engine.dmn", "load"),
    "Engine": ("bpmn_engine.engine", "Engine"),
    "Definitions": ("bpmn_engine.model", "Definitions"),
    "load": ("bpmn_engine.parse", "load_file"),
    "loads": ("bpmn_engine.parse", "load_source"),
    "InstanceState": ("bpmn_engine.records.lifecycle", "InstanceState"),
    "DataStoreValue": ("bpmn_engine.records.rows", "DataStoreValue"),
    "Event": ("bpmn_engine.records.rows", "Event"),
    "Subscription": ("bpmn_engine.records.rows", "Subscription"),
    "UserTask": ("bpmn_engine.records.rows", "UserTask"),
    "Clock": ("bpmn_engine.runtime.clock", "Clock"),
    "RealClock": ("bpmn_engine.runtime.clock", "RealClock"),
    "VirtualClock": ("bpmn_engine.runtime.clock", "VirtualClock"),
    "Collaboration": ("bpmn_engine.runtime.engine.collaborations", "Collaboration"),
    "TimerValueError": ("bpmn_engine.runtime.events.timers", "TimerValueError"),
    "parse_duration": ("bpmn_engine.runtime.events.timers", "parse_duration"),
    "ServiceTaskContext": ("bpmn_engine.runtime.handlers", "ServiceTaskContext"),
    "load_handlers": ("bpmn_engine.runtime.handlers", "load_handlers"),
    "Instance": ("bpmn_engine.runtime.instance.instance", "Instance"),
    "Outcome": ("bpmn_engine.runtime.instance.reading", "Outcome"),
    "Action": ("bpmn_engine.runtime.instance.scheduler", "Action"),
    "ActionKind": ("bpmn_engine.runtime.instance.scheduler", "ActionKind"),
    "GhostResult": ("bpmn_engine.runtime.instance.ghosts", "GhostResult"),
    "IncidentRecord": ("bpmn_engine.runtime.engine.incidents", "IncidentRecord"),
    "MigrationPlan": ("bpmn_engine.runtime.instance.migrate", "MigrationPlan"),
    "OpenTask": ("bpmn_engine.runtime.engine.tasklist", "OpenTask"),
    "Overdue": ("bpmn_engine.runtime.engine.overdue", "Overdue"),
    "CallTree": ("bpmn_engine.runtime.calls.tree", "CallTree"),
    "Worker": ("bpmn_engine.runtime.worker.worker", "Worker"),
    "WorkerReport": ("bpmn_engine.runtime.worker.worker", "WorkerReport"),
    "stop_on_signals": ("bpmn_engine.runtime.worker.worker", "stop_on_signals"),
}


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'bpmn_engine' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # once imported, a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "Action",
    "ActionKind",
    "BpmnEngineError",
    "BpmnError",
    "CallTree",
    "Clock",
    "Collaboration",
    "ConcurrentModification",
    "DataStoreValue",
    "DecisionResult",
    "Decisions",
    "Definitions",
    "Engine",
    "Event",
    "ExpressionError",
    "GhostResult",
    "IncidentRecord",
    "Instance",
    "InstanceState",
    "LoadError",
    "MigrationPlan",
    "NotFound",
    "OpenTask",
    "Outcome",
    "Overdue",
    "PermanentError",
    "RealClock",
    "ServiceTaskContext",
    "Subscription",
    "TimerValueError",
    "UsageError",
    "UserTask",
    "VirtualClock",
    "Worker",
    "WorkerReport",
    "__version__",
    "load",
    "load_decisions",
    "load_handlers",
    "loads",
    "parse_duration",
    "stop_on_signals",
]
