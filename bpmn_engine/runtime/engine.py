"""The engine: a store, the user's handlers and options; it starts and reopens instances."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpmn_engine.errors import ConcurrentModification, LoadError, UsageError
from bpmn_engine.model import (
    CallActivity,
    Definitions,
    FlowNode,
    Process,
    SequenceFlow,
    StartEvent,
    Task,
)
from bpmn_engine.model import Listener as ElementListener
from bpmn_engine.model.retries import DEFAULT_BACKOFF, DEFAULT_TRIES, Backoff
from bpmn_engine.parse import compile_definitions, folders, load_file
from bpmn_engine.records.data import InstanceData, Step
from bpmn_engine.records.lifecycle import INSTANCE_WAITING, InstanceState, TrackState
from bpmn_engine.records.rows import Receipt, Scope, UserTask
from bpmn_engine.records.variables import ENGINE_SCOPE
from bpmn_engine.runtime import collaborations, compiled, listeners
from bpmn_engine.runtime.behaviours import behaviour_for
from bpmn_engine.runtime.behaviours.base import FlowNodeBehaviour
from bpmn_engine.runtime.behaviours.subprocesses import unarmed_event_subprocesses
from bpmn_engine.runtime.calls import MAX_TREE_SIZE, PASSED, CallRow, is_expression
from bpmn_engine.runtime.checkpoints import check_policy
from bpmn_engine.runtime.clock import Clock, RealClock
from bpmn_engine.runtime.context import Incident, StepContext
from bpmn_engine.runtime.decisions import DecisionRegistry
from bpmn_engine.runtime.events import chosen_start, compensation, starts, waiting_starts
from bpmn_engine.runtime.events.starts import opening_step
from bpmn_engine.runtime.events.subprocesses import listen
from bpmn_engine.runtime.handlers import Handler, find_handler, load_handlers
from bpmn_engine.runtime.instance import Instance, Listener, checked_variables
from bpmn_engine.runtime.leases import Heartbeat
from bpmn_engine.runtime.outbox import Postman
from bpmn_engine.runtime.precheck import check_process
from bpmn_engine.runtime.storage import Store
from bpmn_engine.runtime.tree import CallTree

if TYPE_CHECKING:
    from bpmn_engine.dmn import Decisions

UserTaskAnswer = Callable[[Instance, UserTask], "dict[str, Any] | None"]


def _check_startable(definitions: Definitions, process: Process, *, waiting: bool = False) -> None:
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


# the instances `state="active"` lists besides the moving ones
_NOT_ENDED = (InstanceState.ACTIVE, INSTANCE_WAITING)


class Engine:
    """Runs instances of BPMN processes, checkpointing their steps in a store.

    The runtime's engine takes any `Store`; `bpmn_engine.Engine` opens one from a path.

    `handlers` maps service-task types (or element ids) to functions, or is a path to a
    Python file of such functions. `on_user_task` may answer a user task as soon as it
    waits (return its variables) or leave it waiting (return None). `checkpoint` is when a
    run's steps are committed: `"step"` each one, `"wait"` together when the run waits
    (faster; a crash loses the steps since the last wait, which a resume runs again).
    `job_timeout` (seconds) caps how long a handler call keeps its job's lease alive, and
    is the absolute cap past which a worker gives up anyone's job (`Worker`, seed 004).
    `undo` keeps each step's before-images in the store (slower; `bpmn step` uses it), so
    that `rewind` can take an instance back. A service task whose handler the engine does
    not have waits as a job until an engine that has it serves it (`Instance.run` on an
    engine with the handler, a `Worker`); `simulate` completes it as a no-op instead.
    `max_tree_size` is the most instances one call tree may hold (the root and every
    instance its call activities started): the call that would start one more gets an
    incident. `search_path` are folders where a call activity's process is looked for,
    with the calling file's own folder, when no file given defines it
    (docs/call-activities.md).
    """

    def __init__(
        self,
        store: Store,
        *,
        handlers: Mapping[str, Handler] | str | Path | None = None,
        trust_scripts: bool = False,
        on_user_task: UserTaskAnswer | None = None,
        clock: Clock | None = None,
        checkpoint: str = "step",
        job_timeout: float | None = None,
        undo: bool = False,
        simulate: bool = False,
        max_tree_size: int = MAX_TREE_SIZE,
        search_path: Iterable[str | Path] = (),
        retries: int = DEFAULT_TRIES,
        backoff: float = DEFAULT_BACKOFF,
    ) -> None:
        self.checkpoint = check_policy(checkpoint)
        # a failing handler's tries in all, and the wait before the first retry (seconds,
        # doubling), where its task says nothing of its own (runtime/retries.py)
        self.backoff = Backoff(retries, backoff)
        self.undo = undo  # keep each step's before-images, so that `rewind` can go back
        self.store = store
        if job_timeout is not None and job_timeout <= 0:
            raise UsageError("the job timeout must be more than 0 seconds")
        self.job_timeout = job_timeout
        if type(max_tree_size) is not int or max_tree_size < 1:
            raise UsageError(
                f"max_tree_size must be a whole number of instances, at least 1, "
                f"not {max_tree_size!r}"
            )
        self.max_tree_size = max_tree_size  # instances of one call tree (runtime/calls.py)
        self.heartbeat = Heartbeat(self.store, job_timeout)
        if isinstance(handlers, str | Path):
            handlers = load_handlers(handlers)
        # the mapping given, even empty: its owner may fill it later (the test kit's mocks)
        self.handlers: Mapping[str, Handler] = handlers if handlers is not None else {}
        self.trust_scripts = trust_scripts
        # a service task with no handler completes as a no-op (a walk through the flow), where
        # it otherwise waits as a job for an engine that has one: a no-op changes the path
        self.simulate = simulate
        self.on_user_task = on_user_task
        self.clock: Clock = clock or RealClock()
        self._definitions: dict[str, Definitions] = {}
        # versions saved in this store by this engine, in order: the files it was given,
        # where a call activity looks for a process before the store's deployments
        self._deployed: dict[str, None] = {}
        self.postman = Postman(self)
        self._held: dict[str, Instance] = {}  # instances `bpmn step` moves itself (`hold`)
        # start events registered for this engine's session (`start_collaboration`)
        self.session = collaborations.Session()
        self._checked: dict[tuple[str, str, bool], list[tuple[str, str]]] = {}
        self._outward: dict[tuple[str, str], tuple[list[CallActivity], list[Task]]] = {}
        self.decisions = DecisionRegistry(self.store)
        self._search_path = folders.search_path(search_path)
        # called processes found in folders: the folder of each version's file (None: not
        # there, or changed), what each search found (None: nothing), the notes given
        self._folders: dict[str, folders.Folder | None] = {}
        self._in_folders: dict[tuple[tuple[folders.Folder, ...], str], folders.FoundFile | None]
        self._in_folders = {}
        self._taken: dict[tuple[str, str], folders.FoundFile] = {}
        self._announced: set[tuple[str, str]] = set()

    def close(self) -> None:
        self.heartbeat.close()
        self.store.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- definitions --------------------------------------------------------------------------
    def deploy(self, definitions: Definitions | str | Path) -> Definitions:
        """Store the definitions (by content hash) so instances can be resumed from the store."""
        if not isinstance(definitions, Definitions):
            definitions = load_file(definitions)
        if definitions.version not in self._deployed:
            self._save(definitions)
            self._deployed[definitions.version] = None
        return definitions

    def _save(self, definitions: Definitions) -> None:
        """Keep definitions in the store: their source, and their compiled form."""
        self.store.save_definition(definitions.version, definitions.path, definitions.source)
        self._keep_compiled(definitions, unless_kept=True)
        self._definitions.setdefault(definitions.version, definitions)

    def definitions(self, version: str) -> Definitions:
        """A stored definitions version, compiled once per engine: from the store's compiled
        form when it has one this engine can read, else parsed (and that form kept)."""
        found = self._definitions.get(version)
        if found is None:
            path, source = self.store.definition_source(version)
            found = self._kept_compiled(version, path, source)
            if found is None:
                found = compile_definitions(source, path)
                self._keep_compiled(found)
            self._definitions[version] = found
        return found

    def _kept_compiled(self, version: str, path: str, source: bytes) -> Definitions | None:
        """The store's compiled form of a version, if it is this engine's format and reads
        back; None means parse (a missing, stale, corrupt or unreadable form alike)."""
        wanted = compiled.engine_format()
        if wanted is None:
            return None
        try:
            kept = self.store.compiled_definition(version)
            if kept is None or kept[0] != wanted:
                return None
            return compiled.load(kept[1], version, path, source)
        except Exception:  # a cache: whatever went wrong, the source is there
            return None

    def _keep_compiled(self, definitions: Definitions, *, unless_kept: bool = False) -> None:
        """Store the compiled form for the next engine. A cache write never fails what
        asked for the definitions (a read-only store, a busy one): the next engine parses."""
        wanted = compiled.engine_format()
        if wanted is None:
            return
        try:
            if unless_kept and self.store.compiled_format(definitions.version) == wanted:
                return
            form = compiled.dump(definitions)
            self.store.save_compiled_definition(definitions.version, wanted, form)
        except Exception:  # the next engine parses instead
            return

    # --- DMN decisions (business rule tasks, runtime/decisions.py) --------------------------
    def add_decisions(self, decisions: Decisions) -> Decisions:
        """Business rule tasks look for their decision in these first (`bpmn run p.bpmn
        rules.dmn`); the files are kept in the store for later runs and resumes."""
        self.decisions.add(decisions)
        return decisions

    def deploy_decisions(self, decisions: Decisions) -> bool:
        """Deploy DMN files: business rule tasks of later runs find their decisions without
        the files (the newest deployment first). False if they were deployed already."""
        return self.decisions.add(decisions, deployed=True)

    def check_decisions(self, definitions: Definitions, process: Process) -> None:
        """Refuse to start a process whose business rule tasks name a decision nowhere to be
        found."""
        for node in self._reaching_out(definitions, process)[1]:
            call = node.decision
            if call is not None and self.decisions.find(call.decision) is None:
                raise LoadError(
                    f"decides with decision {call.decision!r}, which is in none of the DMN "
                    f"files given and not in the store {self.store.path}",
                    file=definitions.path,
                    line=call.line or node.line,
                    element_id=node.id,
                )

    def handler_for(self, node: Task | ElementListener) -> tuple[Handler | None, str | None]:
        return find_handler(self.handlers, node.handler_names)

    def has_handler(self, node: FlowNode) -> bool:
        """Whether this engine can serve the task's job (a service task waiting for one)."""
        return isinstance(node, Task) and self.handler_for(node)[0] is not None

    def behaviour_for(self, node: FlowNode) -> FlowNodeBehaviour:
        return behaviour_for(node)

    def listen(
        self, ctx: StepContext, event: str, subject: FlowNode | SequenceFlow | Process
    ) -> None:
        # three times in every step, and almost always nothing listens: only a start event
        # without listeners of its own may still run its process's start listeners
        if subject.listeners or (event == "start" and isinstance(subject, StartEvent)):
            listeners.notify(ctx, event, subject)

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
        payload (`events/chosen_start.py`). `business_key` is the key the instance is known
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
        warnings = self._checked_process(definitions, process)
        self.deploy(definitions)
        _check_startable(definitions, process, waiting=True)
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

    def check_process(self, definitions: Definitions, process: Process) -> None:
        """What a start checks before creating anything (expressions, calls, decisions)."""
        self._checked_process(definitions, process)
        self._check_calls(definitions, process)
        self.check_decisions(definitions, process)

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

    # --- call activities (runtime/calls.py) --------------------------------------------------
    def callable_definitions(
        self,
        process_id: str,
        caller: Definitions,
        binding: str = "latest",
        version: int | None = None,
    ) -> Definitions:
        """The definitions a call activity finds `process_id` in, by its binding
        (docs/call-activities.md): `latest` looks in the caller's own file, the files this
        engine was given (`bpmn run a.bpmn b.bpmn`), the active deployments (`bpmn deploy`),
        then any definitions saved in the store, newest first; `deployment` only in the
        caller's file and the files given with it; `version` takes that deployment of the
        process (1 = the first `bpmn deploy`). The process is checked to be startable (a none
        start event, expressions that compile)."""
        try:
            found = self._find_callable(process_id, caller, binding, version)
        except LoadError as error:  # two files of a folder define it, or it does not load
            raise UsageError(error.message) from None
        if found is None and binding == "latest":
            raise UsageError(
                f"no process {process_id!r} to call: not in {caller.path}, in the files "
                f"given{self._folders_searched(caller)}, or in the store {self.store.path}"
            )
        if found is None:
            raise UsageError(
                "cannot call " + self._not_callable(process_id, caller, binding, version)
            )
        process = found.processes[process_id]
        self._checked_process(found, process)
        _check_startable(found, process)
        return found

    def _check_calls(self, definitions: Definitions, process: Process) -> None:
        """Refuse to start a process whose call activities name a process nowhere to be
        found (a computed `calledElement` is looked for when the call comes)."""
        for node in self._reaching_out(definitions, process)[0]:
            called = node.called_element
            if not called or is_expression(called):
                continue
            if self._found_for(node, definitions) is None:
                raise LoadError(
                    "calls " + self._not_callable(called, definitions, node.binding, node.version),
                    file=definitions.path,
                    line=node.line,
                    element_id=node.id,
                )

    def _found_for(self, node: CallActivity, definitions: Definitions) -> Definitions | None:
        """What a static `calledElement` finds; a folder holding two files that define it
        (or one that does not load) is refused at the call activity."""
        try:
            return self._find_callable(
                node.called_element or "", definitions, node.binding, node.version
            )
        except LoadError as error:
            raise LoadError(
                error.message, file=definitions.path, line=node.line, element_id=node.id
            ) from None

    def check_called_compensation(self, definitions: Definitions, process: Process) -> None:
        """Refuse before the first step a compensation that would have to undo a called
        process's activities (not supported yet: `events/compensation.py`)."""
        files: dict[int, Definitions] = {id(process): definitions}

        def find(node: CallActivity) -> Process | None:
            called = node.called_element
            if not called or is_expression(called):
                return None
            holder = files.get(id(node), definitions)
            found = self._found_for(node, holder)
            if found is None:
                return None
            files.setdefault(id(found.processes[called]), found)
            for _, inner in found.processes[called].walk():
                files.setdefault(id(inner), found)
            return found.processes[called]

        for holder, node, reason in compensation.uncompensated_calls(process, find):
            raise LoadError(reason, file=files[id(holder)].path, line=node.line, element_id=node.id)

    def _not_callable(
        self, process_id: str, caller: Definitions, binding: str, version: int | None
    ) -> str:
        """Why no definitions of `process_id` can be called with this binding."""
        if binding == "version":
            versions = self._deployed_versions(process_id)
            return (
                f"version {version} of process {process_id!r} (calledElementBinding "
                f"'version'), but the store {self.store.path} has {len(versions)} deployed "
                "version(s) of it (`bpmn deploy` makes one each time the file changes)"
            )
        searched = self._folders_searched(caller)
        if binding == "deployment":
            return (
                f"process {process_id!r} of its own deployment (binding 'deployment'), but it "
                f"is not in {caller.path} or the files given with it{searched}"
            )
        return (
            f"process {process_id!r}, which is in none of the files given{searched} and "
            f"not in the store {self.store.path}"
        )

    def _folders_searched(self, caller: Definitions) -> str:
        """The folders a call from `caller` searched, as words for a message ("" if none)."""
        where = [f"the BPMN files {folder.why}" for folder in self._searched_folders(caller)]
        return f", nor in {' or '.join(where)}" if where else ""

    def _find_callable(
        self,
        process_id: str,
        caller: Definitions,
        binding: str = "latest",
        version: int | None = None,
    ) -> Definitions | None:
        """The definitions a call finds, in the order docs/call-activities.md gives; a
        LoadError when the folders searched hold two files defining the process (or only
        one that does not load)."""
        if binding == "version":
            versions = self._deployed_versions(process_id)
            if version is None or not 0 < version <= len(versions):
                return None
            return self.definitions(versions[version - 1])
        if process_id in caller.processes:
            return caller
        for given in list(self._deployed):
            if process_id in self.definitions(given).processes:
                return self.definitions(given)
        if binding != "deployment":
            for deployment in self.store.deployments():
                if deployment["process"] == process_id:
                    return self.definitions(deployment["definition"])
        found = self._found_in_folders(process_id, caller)
        if found is not None:
            if (caller.version, process_id) not in self._announced:
                self._taken[(caller.version, process_id)] = found
            return self.definitions(found.definitions.version)
        if binding == "deployment":
            return None
        for stored in self.store.definition_versions():
            if process_id in self.definitions(stored).processes:
                return self.definitions(stored)
        return None

    def _found_in_folders(self, process_id: str, caller: Definitions) -> folders.FoundFile | None:
        """The file beside the caller's, or in the search path, that defines the process
        (`parse/folders.py`), kept in the store like a file given (a resume finds it there).
        Searched once per engine: a folder is read only for a call found nowhere before."""
        searched = self._searched_folders(caller)
        key = (searched, process_id)
        if not searched:
            return None
        if key not in self._in_folders:
            skip = [Path(caller.path).resolve()]
            found = folders.find_process(process_id, searched, skip)
            if found is not None:
                self._save(found.definitions)
            self._in_folders[key] = found
        return self._in_folders[key]

    def _searched_folders(self, caller: Definitions) -> tuple[folders.Folder, ...]:
        """The caller's own folder (while its file is there, unchanged), then the search path."""
        if caller.version not in self._folders:
            self._folders[caller.version] = folders.beside(caller)
        own = self._folders[caller.version]
        return ((own,) if own is not None else ()) + self._search_path

    def announce(self, process_id: str, caller: Definitions) -> folders.FoundFile | None:
        """The file of a folder the last call of `process_id` from `caller` took, the first
        time this engine is asked (the run says it once, not at every call)."""
        key = (caller.version, process_id)
        found = self._taken.pop(key, None)
        if found is not None:
            self._announced.add(key)
        return found

    def _deployed_versions(self, process_id: str) -> list[str]:
        """The definitions versions of each deployment of a process, oldest first: version
        1 is the first `bpmn deploy` of it, as Camunda numbers process definition versions."""
        rows = self.store.deployments(active_only=False)
        return [row["definition"] for row in rows if row["process"] == process_id]

    def start_child(self, call: CallRow, on_event: Listener | None = None) -> Instance | None:
        """The child a `call` row asks for, started by one step that records the row as
        received; None when it exists already (a delivery repeated after a crash)."""
        if self.store.instance_exists(call.child):
            return None
        definitions = self.definitions(call.definition or "")
        process = definitions.processes[call.name]
        warnings = self._checked_process(definitions, process)
        data, step, scope = opening_step(
            definitions,
            process,
            call.child,
            call.variables,
            warnings,
            call.business_key,
            parent=call.source,
        )
        head = data.head
        head.parent_instance, head.parent_track = call.source, call.track
        head.call_depth = call.depth
        # a row sent before the tree's root was kept names none: its caller's is the same
        head.root = call.root or self.store.load(call.source).head.root
        step.set_value(ENGINE_SCOPE, PASSED, sorted(call.variables))
        step.receive(Receipt(delivery=(call.id, call.child)))
        try:
            return self._open(definitions, process, data, step, scope, on_event)
        except ConcurrentModification:  # another process started it first
            return None

    def family(self, instance_id: str) -> list[str]:
        """The instance and every instance it called, directly or not (parents first)."""
        tree = [self.store.resolve(instance_id)]
        for parent in tree:  # grows as it goes: breadth first
            tree.extend(self.store.child_instances(parent))
        return tree

    def tree(self, instance: Instance | str) -> CallTree:
        """The call tree under `instance` (an instance or its id): it and every instance its
        call activities started, directly or not (`runtime/tree.py`)."""
        if isinstance(instance, str):
            instance = self.held_instance(instance) or self.instance(instance)
        return CallTree(self, instance)

    def root_of(self, instance: Instance | str) -> Instance:
        """The root of the call tree `instance` is in (itself, unless a call started it)."""
        if isinstance(instance, str):
            instance = self.instance(instance)
        root = instance.data.head.root
        return instance if root == instance.id else self.held_instance(root) or self.instance(root)

    def _reaching_out(
        self, definitions: Definitions, process: Process
    ) -> tuple[list[CallActivity], list[Task]]:
        """The process's call activities and decision-making tasks, found once per version:
        what they name is looked up on every start (files and deployments change), but a
        start must not walk every element of a big process to find them."""
        key = (definitions.version, process.id)
        if key not in self._outward:
            nodes = [node for _, node in process.walk()]
            self._outward[key] = (
                [n for n in nodes if isinstance(n, CallActivity)],
                [n for n in nodes if isinstance(n, Task) and n.decision is not None],
            )
        return self._outward[key]

    def _checked_process(self, definitions: Definitions, process: Process) -> list[tuple[str, str]]:
        """Compile-check a process once per version (starting must stay cheap on big models);
        returns the warnings every start repeats."""
        key = (definitions.version, process.id, self.trust_scripts)
        if key not in self._checked:
            check_process(definitions, process, self.trust_scripts)
            self.check_called_compensation(definitions, process)
            warned = [(w.element, w.message) for w in process.warned]
            self._checked[key] = unarmed_event_subprocesses(process) + warned
        return self._checked[key]

    def instance(self, instance_id: str) -> Instance:
        """Reopen an instance from its rows alone (a unique id prefix is enough)."""
        data = self.store.load(self.store.resolve(instance_id))
        return Instance(self, data, self.definitions(data.head.definition))

    def rewind(self, instance_id: str, steps: int = 1) -> Instance:
        """Take an instance back by its last `steps` committed steps (recorded by an engine
        with `undo=True`, in this session or an earlier one), in one transaction; the
        instance as it is now. Refused, changing nothing, past a step that sent a message or
        signal someone already received."""
        instance_id = self.store.resolve(instance_id)
        self.store.rewind(instance_id, steps)
        return self.instance(instance_id)

    def rewind_together(self, rewinds: list[tuple[str, int]]) -> None:
        """Take several instances of a call tree back at once, in this order (the receiver of
        a row before its sender), in one transaction: a child's completion and the parent's
        step that received it go back together, or nothing changes. Refused past the step
        that called a child (a called instance is not un-started)."""
        self.store.rewind_together([(self.store.resolve(i), n) for i, n in rewinds])

    def hold(self, instance: Instance) -> None:
        """Deliveries to this instance and to the instances it calls are made (each one
        step, through this very object) but do not run them on: `bpmn step` moves every
        token of the tree itself."""
        self._held[instance.id] = instance

    def held(self, instance: Instance) -> bool:
        """Whether a delivery leaves `instance` where it is (`hold`): it, or its caller, is
        held; a child of a held instance is held from then on."""
        if instance.id in self._held:
            return True
        if instance.parent is not None and instance.parent in self._held:
            self._held[instance.id] = instance
            return True
        return False

    def held_instance(self, instance_id: str) -> Instance | None:
        """The object a held instance is moved through (`hold`), if it is held."""
        return self._held.get(instance_id)

    def publish_message(
        self,
        name: str,
        key: str | None = None,
        variables: Mapping[str, Any] | None = None,
        *,
        message_id: str | None = None,
        ttl: float = 0.0,
        on_event: Listener | None = None,
        current: Instance | None = None,
    ) -> list[Instance]:
        """Correlate a message to the oldest subscription waiting for it (name and key).

        With nobody waiting, a deployed process with a message start event takes it, else the
        message is buffered for `ttl` seconds and taken by the first subscription that opens
        in time. A `message_id` already seen is correlated once: publishing is idempotent.
        `current` is an instance held in memory here, delivered to through that object.
        Returns the instance that took it (to run on), if any.
        """
        values = checked_variables(dict(variables or {}))
        message_id = message_id or f"msg-{secrets.token_hex(8)}"
        known = {current.id: current} if current is not None else {}
        got = self.postman.message(
            name, key, values, message_id=message_id, ttl=ttl, known=known, on_event=on_event
        )
        return [got] if got is not None else []

    def message_status(self, message_id: str) -> tuple[str, str | None] | None:
        """(buffered / correlated / expired, the instance that took it) of a published message."""
        return self.store.message_status(message_id)

    def broadcast_signal(
        self,
        name: str,
        variables: Mapping[str, Any] | None = None,
        on_event: Listener | None = None,
        current: Instance | None = None,
    ) -> list[Instance]:
        """Deliver a signal to every subscription waiting for it, in every instance.

        `current` is an instance held in memory here (the one being stepped): it is
        delivered to through that object, so it stays the one that moves on, and it is not
        in the list returned (the others woken, to run on).
        """
        values = checked_variables(dict(variables or {}))
        known = {current.id: current} if current is not None else {}
        woken = self.postman.signal(name, values, known=known, on_event=on_event)
        return [i for i in woken if i is not current]

    def deliver_outbox(self, on_event: Listener | None = None) -> int:
        """Deliver what committed steps sent and nobody delivered yet (after a crash); the
        number of outbox rows delivered."""
        return self.postman.flush(None, on_event)

    def instances(
        self,
        *,
        stuck: bool = False,
        state: str | None = None,
        process: str | None = None,
        business_key: str | None = None,
    ) -> list[dict[str, Any]]:
        """Every instance, or (`stuck`) only the active ones nothing can move on any more:
        no track can run and nothing they wait for exists (see `Store.stuck_instances`);
        `state`, `process` and `business_key` keep those in that state, of that process or
        with that business key. The state is the
        word `Instance.outcome` uses: `waiting` for an active instance none of whose tracks
        can move now (`state="active"` keeps those too: every instance not ended)."""
        rows = self.store.list_instances()
        for row in rows:
            moving = row.pop("moving_tracks", 0)
            if row["state"] == InstanceState.ACTIVE and not moving:
                row["state"] = INSTANCE_WAITING
        if state is not None:
            rows = [r for r in rows if r["state"] == state or (state, r["state"]) == _NOT_ENDED]
        if process is not None:
            rows = [r for r in rows if r["process"] == process]
        if business_key is not None:
            rows = [r for r in rows if r["business_key"] == business_key]
        if not stuck:
            return rows
        wanted = set(self.store.stuck_instances())
        return [r for r in rows if r["id"] in wanted]

    def _new_id(self) -> str:
        while True:
            candidate = secrets.token_hex(5)
            if not self.store.instance_exists(candidate):
                return candidate

    # --- deployments and triggered starts (bpmn deploy, bpmn worker) -------------------------
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
        start: collaborations.SessionStart,
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
