"""What the engine's helpers use of the engine, each by a protocol of its own.

`Engine` (`engine.py`) is made of parts that import these helpers: a helper that named
`Engine`, even for its types only, would close a circle. It names its protocol instead, and
the engine is one (as `InstanceServices` is what an instance knows of it). Annotations only:
a call goes to the engine itself, through nothing more."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from bpmn_engine.model import Definitions, Process
from bpmn_engine.records.rows import Receipt
from bpmn_engine.runtime.calls.protocol import CallRow
from bpmn_engine.runtime.clock import Clock
from bpmn_engine.runtime.engine.session import Session, SessionStart
from bpmn_engine.runtime.instance.instance import Instance
from bpmn_engine.runtime.instance.parts import InstanceServices, Listener
from bpmn_engine.runtime.storage import Store

# (event name, data) written to the history when a trigger starts an instance
Trigger = tuple[str, dict[str, Any]]


class StartServices(InstanceServices[Instance], Protocol):
    """What deploying and opening an instance at a start event use (`starts.py`): what the
    instance will use, the checks before a run, the definitions saved in the store."""

    def deploy(self, definitions: Definitions) -> Definitions: ...
    def check_decisions(self, definitions: Definitions, process: Process) -> None: ...
    def check_called_compensation(self, definitions: Definitions, process: Process) -> None: ...


class SessionStarts(Protocol):
    """The store, the clock, instances by id, and the pools this session registered."""

    store: Store
    clock: Clock
    session: Session

    def instance(self, instance_id: str) -> Instance: ...
    def session_start(
        self,
        start: SessionStart,
        variables: Mapping[str, Any] | None,
        on_event: Listener | None,
        trigger: Trigger,
        receipt: Receipt | None = None,
        claimed: str | None = None,
    ) -> Instance: ...


class CollaborationServices(SessionStarts, Protocol):
    """What pools run together use (`collaborations.py`): checking and starting a pool, and
    starting the registered ones on the messages kept for them."""

    def check_process(self, definitions: Definitions, process: Process) -> None: ...
    def start(
        self,
        definitions: Definitions,
        process_id: str | None = None,
        variables: Mapping[str, Any] | None = None,
        on_event: Listener | None = None,
    ) -> Instance: ...
    def start_kept_messages(self, on_event: Listener | None = None) -> list[Instance]: ...


class DeliveryServices(SessionStarts, Protocol):
    """What the postman uses (`outbox.py`, `receivers.py`): the instances `bpmn step` holds,
    and every start a delivery may cause (a message, a signal, a called child)."""

    def definitions(self, version: str) -> Definitions: ...
    def held(self, instance: Instance) -> bool: ...
    def held_instance(self, instance_id: str) -> Instance | None: ...
    def start_at(
        self,
        definitions: Definitions,
        process_id: str | None,
        start_event_id: str,
        variables: Mapping[str, Any] | None = None,
        on_event: Listener | None = None,
        *,
        trigger: Trigger | None = None,
        receipt: Receipt | None = None,
    ) -> Instance: ...
    def start_by_message(
        self,
        name: str,
        variables: Mapping[str, Any] | None = None,
        on_event: Listener | None = None,
        *,
        receipt: Receipt | None = None,
        session: bool = False,
    ) -> Instance | None: ...
    def start_child(self, call: CallRow, on_event: Listener | None = None) -> Instance | None: ...
