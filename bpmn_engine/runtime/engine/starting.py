"""Starting instances: at a process's none start events (or waiting at its triggered ones), at
a chosen start event, at a triggered start of a deployment (timer, message, signal), and the
pools of a collaboration together."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bpmn_engine.collection import collector_paused
from bpmn_engine.errors import LoadError, NotFound, UsageError
from bpmn_engine.model import (
    Definitions,
    Process,
    StartEvent,
)
from bpmn_engine.parse import load_file
from bpmn_engine.records.data import InstanceData, Step
from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.records.rows import Receipt, Scope
from bpmn_engine.runtime.engine import chosen_start, collaborations, starts
from bpmn_engine.runtime.engine.parts import EngineParts
from bpmn_engine.runtime.engine.session import SessionStart
from bpmn_engine.runtime.engine.starts import opening_step
from bpmn_engine.runtime.events import waiting_starts
from bpmn_engine.runtime.events.subprocesses import listen
from bpmn_engine.runtime.instance.instance import Instance
from bpmn_engine.runtime.instance.parts import Listener
from bpmn_engine.runtime.step.context import Incident, StepContext


def check_startable(definitions: Definitions, process: Process, *, waiting: bool = False) -> None:
    """Refuse a process nothing starts (`waiting`: unless an instance can wait at its
    triggered start events, `events/waiting_starts.py`)."""
    if process.start_nodes or (waiting and waiting_starts.waiting_starts(process)):
        return
    kinds = sorted(  # of its start events only: a boundary timer starts nothing
        {d.kind for n in process.nodes.values() if isinstance(n, StartEvent) for d in n.definitions}
    )
    raise UsageError(
        f"{definitions.path}:{process.line}: {process.id}: the process has no none "
        "start event to start from"
        + (f" (its start events are triggered: {', '.join(kinds)})" if kinds else "")
    )


class StartsPart(EngineParts):
    """Every way an instance starts; each start is the instance's opening step."""

    # --- instances ----------------------------------------------------------------------------
    def start(
        self,
        definitions: Definitions | str | Path,
        process_id: str | None = None,
        variables: Mapping[str, Any] | None = None,
        on_event: Listener | None = None,
        *,
        start_event: str | None = None,
        business_key: str | None = None,
    ) -> Instance:
        """Create an instance with a token on each start node; `run()` moves it. A process
        whose start events all wait for a trigger (message, signal, timer, condition) is
        created waiting at them: the first to fire starts it (`events/waiting_starts.py`).

        `start_event` (an id or a name; without `process_id`, of any process of the file)
        is the one start event that fires now, whatever its kind, with `variables` as its
        payload (`engine/chosen_start.py`). `business_key` is the key the instance is known
        by (Camunda's business key: `bpmn instances --business-key`), kept as given."""
        if business_key is not None and not isinstance(business_key, str):
            raise UsageError("a business key is text")
        if not isinstance(definitions, Definitions):
            definitions = load_file(definitions)
        if start_event is not None:
            return self._start_fired(
                definitions, process_id, start_event, variables, on_event, business_key
            )
        process = definitions.process(process_id)
        # the first start of a version walks every element a few times (checks, indexes),
        # making many objects and no cycles: the collector would walk them all for nothing
        with collector_paused():
            warnings = self._checked_process(definitions, process)
            self.deploy(definitions)
            check_startable(definitions, process, waiting=True)
            self._check_calls(definitions, process)
            self.check_decisions(definitions, process)
            data, step, scope = opening_step(
                definitions, process, self._new_id(), variables, warnings, business_key
            )
            return self._open(definitions, process, data, step, scope, on_event)

    def _start_fired(
        self,
        definitions: Definitions,
        process_id: str | None,
        event: str,
        variables: Mapping[str, Any] | None,
        on_event: Listener | None,
        business_key: str | None,
    ) -> Instance:
        """An instance whose start event `event` fired now (`start(start_event=...)`)."""
        process, node = chosen_start.find(definitions, process_id, event)
        warnings = self._checked_process(definitions, process)
        self.deploy(definitions)
        self._check_calls(definitions, process)
        self.check_decisions(definitions, process)
        if not node.definitions:  # a none start event: the one token starts there
            data, step, scope = opening_step(
                definitions,
                process,
                self._new_id(),
                variables,
                warnings,
                business_key,
                start_event=node.id,
            )
            return self._open(definitions, process, data, step, scope, on_event, (node.id,))
        return starts.start_at(
            self,
            definitions,
            process.id,
            node.id,
            variables,
            on_event,
            instance_id=self._new_id(),
            trigger=chosen_start.fired_by(definitions, node, self.clock.now()),
            warnings=warnings,
            business_key=business_key,
        )

    def start_collaboration(
        self,
        definitions: Definitions | str | Path,
        collaboration_id: str | None = None,
        variables: Mapping[str, Any] | None = None,
        on_event: Listener | None = None,
    ) -> collaborations.Collaboration:
        """Start a collaboration's pools together (None: every process of the file): each
        pool with a none start event starts; the message and signal start events of the
        others are registered for this engine's session, so that each message or signal
        for one starts an instance of its pool (a message an instance sent, once every
        instance waits: `start_kept_messages`). `run()` runs them all."""
        if not isinstance(definitions, Definitions):
            definitions = load_file(definitions)
        self.deploy(definitions)
        return collaborations.start(self, definitions, collaboration_id, variables, on_event)

    def _open(
        self,
        definitions: Definitions,
        process: Process,
        data: InstanceData,
        step: Step,
        scope: Scope,
        on_event: Listener | None,
        start_nodes: tuple[str, ...] | None = None,
    ) -> Instance:
        """Place a token on each none start event, or on `start_nodes` (else one waiting at
        each triggered start event), arm the event subprocesses, commit."""
        tracks = [
            step.new_track(element=start, scope=scope.id, status=TrackState.READY)
            for start in (process.start_nodes if start_nodes is None else start_nodes)
        ]
        try:
            if not tracks:
                tracks = waiting_starts.wait_at_starts(self, definitions, data, step, scope.id)
            # timer, message and signal event subprocesses of the process start listening
            listen(StepContext(self, definitions, data, step, tracks[0]), scope.id, process)
        except Incident as incident:  # e.g. a start event that names no message
            node = definitions.node(incident.element or "")
            raise LoadError(
                incident.message,
                file=definitions.path,
                line=node.line if node is not None else None,
                element_id=incident.element,
            ) from None
        instance = Instance(self, data, definitions)
        instance._commit(step, on_event, new=True)
        return instance

    def _new_id(self) -> str:
        while True:
            candidate = secrets.token_hex(5)
            if not self.store.instance_exists(candidate):
                return candidate

    # --- deployments and triggered starts (bpmn deploy, bpmn worker) -------------------------
    def deployments(self, *, active_only: bool = True) -> list[dict[str, Any]]:
        """The processes deployed to this database (`bpmn deploy`): id, process, definition
        version, when; the active one of each process only, unless `active_only` is False."""
        return self.store.deployments(active_only=active_only)

    def deployed_definitions(self, process_id: str) -> Definitions:
        """The definitions of the active deployment of `process_id`; NotFound if none."""
        deployed = self.deployments()
        active = [d for d in deployed if d["process"] == process_id]
        if not active:
            known = ", ".join(sorted({d["process"] for d in deployed})) or "none"
            raise NotFound(f"no process {process_id!r} is deployed (deployed: {known})")
        return self.definitions(active[-1]["definition"])

    def start_deployed(
        self,
        process_id: str,
        variables: Mapping[str, Any] | None = None,
        on_event: Listener | None = None,
        *,
        start_event: str | None = None,
        business_key: str | None = None,
    ) -> Instance:
        """`start` on the active deployment of `process_id`, without its file: what a
        service that only names the process (the HTTP API) starts. NotFound if none."""
        return self.start(
            self.deployed_definitions(process_id),
            process_id,
            variables,
            on_event,
            start_event=start_event,
            business_key=business_key,
        )

    def deploy_processes(self, definitions: Definitions | str | Path) -> list[starts.Deployment]:
        """Deploy each executable process: its timer and message start events start instances.

        A new version replaces the process's active deployment; the same version again
        changes nothing. The worker fires due start timers; `publish_message` starts an
        instance at a message start event when no waiting subscription takes the message.
        """
        if not isinstance(definitions, Definitions):
            definitions = load_file(definitions)
        return starts.deploy(self, definitions)

    def start_at(
        self,
        definitions: Definitions | str | Path,
        process_id: str | None,
        start_event_id: str,
        variables: Mapping[str, Any] | None = None,
        on_event: Listener | None = None,
        *,
        instance_id: str | None = None,
        trigger: starts.Trigger | None = None,
        receipt: Receipt | None = None,
        claimed: str | None = None,
    ) -> Instance:
        """Create an instance whose start event `start_event_id` (timer, message...) fired.

        The start event completes in the first step and the token waits on its outgoing
        flows; `run()` moves it. `trigger` is an event for the history (`timer.fired`...);
        `claimed` a buffered message the start consumes.
        """
        if not isinstance(definitions, Definitions):
            definitions = load_file(definitions)
        return starts.start_at(
            self,
            definitions,
            process_id,
            start_event_id,
            variables,
            on_event,
            instance_id=instance_id or self._new_id(),
            trigger=trigger,
            receipt=receipt,
            claimed=claimed,
        )

    def start_by_message(
        self,
        name: str,
        variables: Mapping[str, Any] | None = None,
        on_event: Listener | None = None,
        *,
        receipt: Receipt | None = None,
        session: bool = False,
    ) -> Instance | None:
        """Start the process whose message start event waits for `name`, if any: one this
        session registered (`session`, `start_collaboration`), else a deployed one
        (`receipt`: the message it was, so the start commits once)."""
        trigger = ("message.received", {"name": name, "key": None})
        for start in self.session.find("message", name)[:1] if session else []:
            return self.session_start(start, variables, on_event, trigger, receipt)
        found = self.store.message_start(name)
        if found is None:
            return None
        process_id, version, element = found
        return self.start_at(
            self.definitions(version),
            process_id,
            element,
            variables,
            on_event,
            trigger=trigger,
            receipt=receipt,
        )

    def session_start(
        self,
        start: SessionStart,
        variables: Mapping[str, Any] | None,
        on_event: Listener | None,
        trigger: starts.Trigger,
        receipt: Receipt | None = None,
        claimed: str | None = None,
    ) -> Instance:
        """An instance of a pool this session registered, started at `start` (held when the
        session is stepped, so that `bpmn step` moves it)."""
        instance = self.start_at(
            start.definitions,
            start.process,
            start.element,
            variables,
            on_event,
            trigger=trigger,
            receipt=receipt,
            claimed=claimed,
        )
        self.session.started.append(instance.id)
        if self.session.held:
            self.hold(instance)
        return instance

    def start_kept_messages(self, on_event: Listener | None = None) -> list[Instance]:
        """Start one instance of a pool this session registered for each message an instance
        sent it that nobody took (kept in the buffer): what a collaboration does once every
        instance waits, so that a pool about to wait for a message takes it first. The
        instances are not run."""
        return collaborations.start_kept_messages(self, on_event)
