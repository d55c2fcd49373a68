"""The engine's definitions and services: deployed and compiled definitions (kept in the
store, cached per version), DMN decisions, handlers, behaviours and listeners (what a step
may use of its engine: `Services` in `runtime/step/context.py`), and the checks a process
passes before it runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpmn_engine.errors import LoadError, NotFound
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
from bpmn_engine.parse import compile_definitions, load_file
from bpmn_engine.runtime.behaviours import behaviour_for
from bpmn_engine.runtime.behaviours.base import FlowNodeBehaviour
from bpmn_engine.runtime.behaviours.subprocesses import unarmed_event_subprocesses
from bpmn_engine.runtime.engine import compiled
from bpmn_engine.runtime.engine.parts import EngineParts
from bpmn_engine.runtime.engine.precheck import check_process
from bpmn_engine.runtime.handlers import Handler, find_handler
from bpmn_engine.runtime.step import listeners
from bpmn_engine.runtime.step.context import StepContext

if TYPE_CHECKING:
    from bpmn_engine.dmn import DecisionResult, Decisions


class DefinitionsPart(EngineParts):
    """Definitions by version, decisions, handlers and the checks before a run."""

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

    # --- DMN decisions (business rule tasks, runtime/data/decisions.py) --------------------------
    def add_decisions(self, decisions: Decisions) -> Decisions:
        """Business rule tasks look for their decision in these first (`bpmn run p.bpmn
        rules.dmn`); the files are kept in the store for later runs and resumes."""
        self.decisions.add(decisions)
        return decisions

    def deploy_decisions(self, decisions: Decisions) -> bool:
        """Deploy DMN files: business rule tasks of later runs find their decisions without
        the files (the newest deployment first). False if they were deployed already."""
        return self.decisions.add(decisions, deployed=True)

    def decide(self, name_or_id: str, inputs: dict[str, Any] | None = None) -> DecisionResult:
        """Evaluate a decision this engine knows (the DMN files it was given, then those
        deployed to its database, newest first), as a business rule task would find it.
        NotFound when no set of DMN files has it."""
        found = self.decisions.find(name_or_id)
        if found is None:
            raise NotFound(f"no decision {name_or_id!r} is given or deployed")
        return found.evaluate(name_or_id, inputs)

    def check_decisions(self, definitions: Definitions, process: Process) -> None:
        """Refuse to start a process whose business rule tasks name a decision nowhere to be
        found."""
        for node in self._reaching_out(definitions, process)[1]:
            call = node.decision
            if call is None:
                continue
            found = self.decisions.find(call.decision)
            if found is None:
                raise LoadError(
                    f"decides with decision {call.decision!r}, which is in none of the DMN "
                    f"files given and not in the store {self.store.path}",
                    file=definitions.path,
                    line=call.line or node.line,
                    element_id=node.id,
                )
            problem = found.does_not_compile(call.decision)
            if problem is not None:  # where to fix it: the DMN file's element
                needed = (
                    f" (so decision {call.decision!r} cannot be evaluated, which business rule "
                    f"task {node.id!r} at {definitions.path}:{call.line or node.line} needs)"
                )
                raise LoadError(
                    problem.message + needed,
                    file=problem.file,
                    line=problem.line,
                    element_id=problem.element_id,
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

    def check_process(self, definitions: Definitions, process: Process) -> None:
        """What a start checks before creating anything (expressions, calls, decisions)."""
        self._checked_process(definitions, process)
        self._check_calls(definitions, process)
        self.check_decisions(definitions, process)

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
