"""Call activities, the engine's side: finding the called process (the files given, the
store's deployments, the folders searched), checking it before the caller runs, starting
the child, and a call tree as one object (`runtime/calls/tree.py`)."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine.errors import ConcurrentModification, LoadError, UsageError
from bpmn_engine.model import (
    CallActivity,
    Definitions,
    Process,
)
from bpmn_engine.parse import folders
from bpmn_engine.records.rows import Receipt
from bpmn_engine.records.variables import ENGINE_SCOPE
from bpmn_engine.runtime.calls.protocol import PASSED, CallRow, is_expression
from bpmn_engine.runtime.calls.tree import CallTree
from bpmn_engine.runtime.engine.parts import EngineParts
from bpmn_engine.runtime.engine.starting import check_startable
from bpmn_engine.runtime.engine.starts import opening_step
from bpmn_engine.runtime.events import compensation
from bpmn_engine.runtime.instance.instance import Instance
from bpmn_engine.runtime.instance.parts import Listener


class CallsPart(EngineParts):
    """What a call activity needs of the engine."""

    # --- call activities (runtime/calls/protocol.py) ----------------------------------------------
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
        check_startable(found, process)
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

    def tree(self, instance: Instance | str) -> CallTree[Instance]:
        """The call tree under `instance` (an instance or its id): it and every instance its
        call activities started, directly or not (`runtime/calls/tree.py`)."""
        if isinstance(instance, str):
            instance = self.held_instance(instance) or self.instance(instance)
        return CallTree(self, instance)

    def root_of(self, instance: Instance | str) -> Instance:
        """The root of the call tree `instance` is in (itself, unless a call started it)."""
        if isinstance(instance, str):
            instance = self.instance(instance)
        root = instance.data.head.root
        return instance if root == instance.id else self.held_instance(root) or self.instance(root)
