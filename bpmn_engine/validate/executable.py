"""Rule `executable`: what bpmn-engine cannot run, found before a run rather than during one.

Every process `bpmn run` could start is checked: one marked `isExecutable="false"` too (run
starts it all the same when asked, with a warning), which gets a warning saying so. Unsupported
elements are warnings (the engine raises an incident only if a token
reaches one); conditions and scripts that do not compile, malformed timer values, calls to
processes that do not exist and what `bpmn run` refuses before its first step (`Process.refused`:
typed data stores, listener events with no moment here, quantities other than 1... see
docs/coverage.md; listener scripts that do not compile) are errors, because no
run could ever succeed through them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

from bpmn_engine.errors import ExpressionError, LoadError
from bpmn_engine.expressions import compile_expression, compile_script, script_is_expression
from bpmn_engine.model import (
    Activity,
    BoundaryEvent,
    CallActivity,
    Event,
    EventDefinition,
    Expression,
    FlowNode,
    FlowScope,
    Process,
    StartEvent,
    SubProcess,
    Task,
)
from bpmn_engine.parse.folders import FoundFile
from bpmn_engine.runtime.engine.precheck import (
    control_expressions,
    correlation_problems,
    data_expressions,
    loop_expressions,
    unrunnable_loop,
)
from bpmn_engine.runtime.events import compensation
from bpmn_engine.runtime.events.timers import (
    TimerRangeError,
    TimerValueError,
    is_timer_expression,
    schedule,
)
from bpmn_engine.runtime.step.listeners import compile_listener, listeners_of
from bpmn_engine.runtime.step.triggers import waits_for_trigger
from bpmn_engine.validate import references
from bpmn_engine.validate.document import BPMN, Document
from bpmn_engine.validate.findings import Issue, Severity

NOT_SUPPORTED = "not supported yet by bpmn-engine"
UNSUPPORTED_KINDS: dict[str, str] = {}  # element kinds refused by kind: none since issue 13
SUPPORTED_DEFINITIONS = frozenset(
    {"terminate", "error", "escalation", "signal", "message", "compensate", "cancel"}
)  # end events
SUPPORTED_BOUNDARIES = frozenset(
    {"error", "escalation", "timer", "message", "signal", "conditional", "compensate", "cancel"}
)
SUPPORTED_CATCHES = frozenset({"timer", "message", "signal", "link", "conditional"})
SUPPORTED_THROWS = frozenset({"link", "signal", "escalation", "message", "compensate"})
# starts: timer and message (deploy + worker), and those of event subprocesses
SUPPORTED_STARTS = frozenset(
    {"timer", "message", "signal", "error", "escalation", "conditional", "compensate"}
)
_NUMBER = r"\d+(?:[.,]\d+)?"
DURATION = re.compile(
    rf"P(?!$)(?:{_NUMBER}Y)?(?:{_NUMBER}M)?(?:{_NUMBER}W)?(?:{_NUMBER}D)?"
    rf"(?:T(?=\d)(?:{_NUMBER}H)?(?:{_NUMBER}M)?(?:{_NUMBER}S)?)?"
)
REPEAT = re.compile(r"R\d*")
CRON_FIELD = re.compile(r"[0-9A-Za-z*?/,#-]+")


class ExecutableRule:
    id = "executable"
    levels = {"recommended": "error", "correctness": "error", "all": "error"}
    summary = "bpmn-engine can run every element, expression, script, timer, call and decision"
    checks_dmn = True  # also run on DMN files: they load and their FEEL compiles

    def check(self, document: Document) -> Iterator[Issue]:
        if document.is_dmn:
            yield from _dmn(document)
            return
        yield from _load_error(document)
        if document.definitions is None:  # else the model without its broken references
            return
        for prop, line, why in correlation_problems(document.definitions):
            yield Issue(why, prop, line, own_line=True)
        for process in document.definitions.processes.values():
            if not process.nodes:
                continue  # nothing `bpmn run` could start
            if process.is_executable:
                yield from _deployed_starts(process)  # `bpmn deploy` skips the others
            else:
                yield _not_executable(process)
            for refusal in process.refused:
                yield Issue(refusal.message, refusal.element, refusal.line, own_line=True)
            for warned in process.warned:
                yield Issue(
                    warned.message,
                    warned.element,
                    warned.line,
                    severity=Severity.WARNING,
                    own_line=True,
                )
            yield from _scope(document, process)
            yield from _called_compensation(document, process)
            yield from _listeners(process)


def _not_executable(process: Process) -> Issue:
    """`bpmn run` runs a process marked not executable all the same (with a warning): when
    `--process` names it, a call activity calls it, or the file has no executable process.
    So it is checked as any other, and this says why."""
    name = " ".join((process.name or "").split())
    message = (
        f'process{f" {name!r}" if name else ""} is marked isExecutable="false", but `bpmn run` '
        "still runs it (named with --process, called, or the file's only process), so it is "
        "checked like any other; for a mere description, turn the `executable` rule off"
    )
    return Issue(message, process.id, process.line, severity=Severity.WARNING)


def _called_compensation(document: Document, process: Process) -> Iterator[Issue]:
    """A compensation that would have to undo a called process's activities: refused by
    `bpmn run` too (`events/compensation.py`); reported at this file's call activities."""
    documents = document.workspace.all_documents if document.workspace else [document]

    def find(node: CallActivity) -> FlowScope | None:
        called = node.called_element
        if not called or references.is_expression(called):
            return None
        for other in documents:
            if other.definitions is not None and called in other.definitions.processes:
                return other.definitions.processes[called]
        if document.workspace is None:
            return None
        found = document.workspace.called_elsewhere(document, called)
        return found.definitions.processes[called] if isinstance(found, FoundFile) else None

    for holder, node, reason in compensation.uncompensated_calls(process, find):
        if holder is process:  # a called process's own calls: reported when it is checked
            yield Issue(reason, node.id, node.line)


def _load_error(document: Document) -> Iterator[Issue]:
    """A file the engine cannot compile, unless `references` already says why."""
    error = document.model_error
    if error is None or not document.is_bpmn or references.problems(document):
        return
    assert document.root is not None
    if next(document.root.iterchildren(f"{{{BPMN}}}process"), None) is not None:
        # executable or not: `bpmn run` cannot run any process of it
        message = f"bpmn-engine cannot load this file: {error.message}"
        yield Issue(message, element=error.element_id, line=error.line)


def _scope(document: Document, scope: FlowScope) -> Iterator[Issue]:
    for flow in scope.flows.values():
        if flow.condition is not None:
            yield from _expression(flow.id, flow.condition, flow.line, "condition")
    for node in scope.nodes.values():
        yield from _unsupported(node)
        if waits_for_trigger(node) or getattr(node, "awaits_trigger", False):
            yield _trigger_wait(node)
        yield from _node_expressions(node)
        if isinstance(node, Event) and not node.awaits_trigger:
            for definition in node.definitions:
                if definition.kind == "timer":
                    yield from _timer(node, definition)
        if isinstance(node, CallActivity):
            yield from _call(document, node)
        if isinstance(node, Task) and node.decision is not None:
            yield from _decision(document, node)
        if isinstance(node, SubProcess) and node.scope is not None:
            yield from _scope(document, node.scope)


def _dmn(document: Document) -> Iterator[Issue]:
    """A DMN file loads: its XML, references and imports hold and every FEEL text compiles."""
    if document.workspace is None:
        return
    loaded = document.workspace.decisions().get(document.path)
    if isinstance(loaded, LoadError):
        if loaded.file in (None, document.path):
            message = f"bpmn-engine cannot load this DMN file: {loaded.message}"
            yield Issue(message, loaded.element_id, loaded.line)
        else:  # in a file it imports: say where
            yield Issue(f"bpmn-engine cannot load this DMN file: {loaded}", None, None)
        return
    for unparsed in loaded.unparsed() if loaded is not None else ():
        if unparsed.where.file != document.path:
            continue  # reported on its own file
        yield Issue(
            f"does not compile, so evaluating it (or what requires it) fails: {unparsed.problem}",
            unparsed.where.id or None,
            unparsed.where.line or None,
            own_line=True,
        )


def _decision(document: Document, node: Task) -> Iterator[Issue]:
    """A business rule task's decision is in a DMN file validated with the diagram."""
    call = node.decision
    assert call is not None
    if document.workspace is not None and document.workspace.has_decision(call.decision):
        return
    yield Issue(
        f"{subject(node)} decides with decision {call.decision!r}, which is in none of the "
        "DMN files validated with it (give them too: bpmn validate FILE.bpmn RULES.dmn)",
        node.id,
        call.line or node.line,
    )


def _deployed_starts(process: FlowScope) -> Iterator[Issue]:
    """A parallel multiple start event of a process needs every trigger before it fires:
    `bpmn run` creates an instance waiting at it, but `bpmn deploy` refuses it (a deployment
    has no instance to collect the triggers in): a warning."""
    for node in process.nodes.values():
        if isinstance(node, StartEvent) and node.parallel_multiple and len(node.definitions) > 1:
            message = (
                f"{subject(node)}: a parallel multiple start event of a process runs with "
                "`bpmn run` (an instance waits at it for every trigger), but `bpmn deploy` "
                "refuses it (use a multiple start, or a parallel multiple catch after it)"
            )
            yield _warning(node, message)


def _trigger_wait(node: FlowNode) -> Issue:
    """Drawn so on purpose in token-simulation diagrams, and a plain wait state in Camunda 7,
    Activiti and Flowable: a warning that says what a run does there."""
    if isinstance(node, Task):
        what = "has neither a message nor a name"
    elif isinstance(node, Event) and node.definitions:
        what = f"has a {node.definitions[0].kind} definition that names nothing to wait for"
    else:
        what = "has no event definition"
    if isinstance(node, BoundaryEvent | StartEvent):
        does = (
            f"it fires only on `bpmn trigger INSTANCE {node.id}` (a click in the token simulator)"
        )
    else:
        does = (
            "nothing but the API can move a token on from it, so a run waits there for "
            f"`bpmn trigger INSTANCE {node.id}` (Camunda's runtimeService.trigger)"
        )
    message = f"{subject(node)} {what}: {does}"
    return _warning(node, message)


def _unsupported(node: FlowNode) -> Iterator[Issue]:
    what: str | None = UNSUPPORTED_KINDS.get(node.kind)
    if isinstance(node, BoundaryEvent):
        if not set(node.definition_kinds) <= SUPPORTED_BOUNDARIES or not node.definitions:
            what = f"{'/'.join(node.definition_kinds) or 'none'} boundary events"
    elif isinstance(node, Event) and node.kind != "endEvent":
        allowed = {
            "intermediateCatchEvent": SUPPORTED_CATCHES,
            "intermediateThrowEvent": SUPPORTED_THROWS,
            "startEvent": SUPPORTED_STARTS,
        }.get(node.kind, frozenset())
        refused = [k for k in node.definition_kinds if k not in allowed]
        if refused:
            what = f"{'/'.join(refused)} events"
    elif isinstance(node, Event):
        refused = [k for k in node.definition_kinds if k not in SUPPORTED_DEFINITIONS]
        if refused:
            what = f"{'/'.join(refused)} events"
    if what:
        yield _warning(node, f"{subject(node)}: {what} are {NOT_SUPPORTED}")
    problem = unrunnable_loop(node) if isinstance(node, Activity) else None
    if problem:  # `bpmn run` refuses it before the first step: an error here too
        line = getattr(node.loop_characteristics, "line", None) or node.line
        yield Issue(f"{subject(node)}: {problem}", element=node.id, line=line, own_line=True)


def subject(node: FlowNode) -> str:
    """`userTask "Approve order"`: the id is in the finding already; names may hold newlines."""
    name = " ".join((node.name or "").split())
    return f'{node.kind} "{name}"' if name else node.kind


def _warning(node: FlowNode, message: str) -> Issue:
    return Issue(message, element=node.id, line=node.line, severity=Severity.WARNING)


def _node_expressions(node: FlowNode) -> Iterator[Issue]:
    if isinstance(node, Task) and node.script:
        if script_is_expression(node.script_format, node.result_variable):
            script = Expression(node.script, node.script_format, node.line)
            yield from _expression(node.id, script, node.line, "script")
        else:
            yield from _script(node)
    if isinstance(node, Activity):
        for what, expression in loop_expressions(node):
            yield from _expression(node.id, expression, node.line, what)
    if isinstance(node, Activity) and node.io is not None:
        for parameter in (*node.io.inputs, *node.io.outputs):
            if parameter.expression is not None:
                what = f"mapping of {parameter.name!r}"
                yield from _expression(node.id, parameter.expression, node.line, what)
    if isinstance(node, Activity):
        for expression in data_expressions(node):
            yield from _expression(node.id, expression, node.line, "data association")
    for what, expression in control_expressions(node):
        yield from _expression(node.id, expression, node.line, what)


def _listeners(process: FlowScope) -> Iterator[Issue]:
    """Listener scripts and expressions that do not compile (or need `--trust-scripts`)."""
    for element, listener in listeners_of(process):
        sandboxed = _compiles(lambda li=listener: compile_listener(li, False))
        if not sandboxed:
            continue
        if _compiles(lambda li=listener: compile_listener(li, True)):
            yield Issue(f"does not compile: {sandboxed}", element, listener.line, own_line=True)
        else:
            message = f"runs only with `bpmn run --trust-scripts`: {sandboxed}"
            yield Issue(message, element, listener.line, severity=Severity.WARNING, own_line=True)


def _expression(element: str, expression: Expression, line: int, what: str) -> Iterator[Issue]:
    text, language = expression.text, expression.language
    problem = _compiles(lambda: compile_expression(text, language))
    if not problem:
        return
    line = expression.line or line  # the line `bpmn run` names (runtime/engine/precheck.py)
    if _compiles(lambda: compile_expression(text, language, trusted=True)):
        yield Issue(f"{what} does not compile: {problem}", element, line, own_line=True)
    else:  # full Python, as `bpmn run --trust-scripts` evaluates it
        message = f"{what} runs only with `bpmn run --trust-scripts`: {problem}"
        yield Issue(message, element, line, severity=Severity.WARNING, own_line=True)


def _script(node: Task) -> Iterator[Issue]:
    text, script_format = node.script or "", node.script_format
    sandboxed = _compiles(lambda: compile_script(text, script_format))
    if not sandboxed:
        return
    if _compiles(lambda: compile_script(text, script_format, trusted=True)):
        yield Issue(f"script does not compile: {sandboxed}", node.id, node.line, own_line=True)
    else:
        message = f"script runs only with `bpmn run --trust-scripts`: {sandboxed}"
        yield Issue(message, node.id, node.line, severity=Severity.WARNING, own_line=True)


def _compiles(compile_: Callable[[], object]) -> str | None:
    """None if it compiles, else the compiler's message."""
    try:
        compile_()
    except ExpressionError as error:
        return str(error)
    return None


def _timer(node: Event, definition: EventDefinition) -> Iterator[Issue]:
    if definition.timer is None:
        message = "timer has no timeDate, timeDuration or timeCycle"
        yield Issue(message, node.id, definition.line or node.line, own_line=True)
        return
    kind, value = definition.timer
    if not value:
        yield Issue(f"{kind} is empty", node.id, definition.line or node.line, own_line=True)
    elif value.startswith(("${", "#{", "=")):
        yield from _expression(node.id, Expression(value), definition.line, f"{kind} expression")
    elif is_timer_expression(value):  # Spiff writes timers as Python: `"PT5M"`, `delay`
        language = definition.timer_language
        problem = _compiles(lambda: compile_expression(value.strip(), language))
        if problem:
            message = f"{kind} {value!r} is not {TIMER_FORMATS[kind]}, nor an expression: {problem}"
            yield Issue(message, node.id, definition.line or node.line, own_line=True)
    elif not TIMER_CHECKS[kind](value):
        message = f"{kind} {value!r} is not {TIMER_FORMATS[kind]}"
        yield Issue(message, node.id, definition.line or node.line, own_line=True)
    else:
        try:  # valid BPMN; but can the engine's own timer code schedule it?
            schedule(kind, value, datetime.now(UTC))
        except TimerRangeError as error:  # e.g. past the year 9999, a cron matching no date
            yield Issue(f"{kind}: {error}", node.id, definition.line or node.line, own_line=True)
        except TimerValueError as error:
            yield _warning(node, f"{kind} {value!r}: {error}; this form is {NOT_SUPPORTED}")


def is_date_time(value: str) -> bool:
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def is_duration(value: str) -> bool:
    return DURATION.fullmatch(value) is not None


def is_cycle(value: str) -> bool:
    """`R[n]/duration`, `R[n]/start/duration`, `R[n]/duration/end`, or a 5/6/7-field cron."""
    parts = value.split("/")
    if REPEAT.fullmatch(parts[0]) and len(parts) in (2, 3):
        if len(parts) == 2:
            return is_duration(parts[1])
        return (is_date_time(parts[1]) and is_duration(parts[2])) or (
            is_duration(parts[1]) and is_date_time(parts[2])
        )
    fields = value.split()
    return len(fields) in (5, 6, 7) and all(CRON_FIELD.fullmatch(f) for f in fields)


TIMER_CHECKS: dict[str, Callable[[str], bool]] = {
    "timeDate": is_date_time,
    "timeDuration": is_duration,
    "timeCycle": is_cycle,
}
TIMER_FORMATS = {
    "timeDate": "an ISO 8601 date-time (2024-05-01T09:00:00Z)",
    "timeDuration": "an ISO 8601 duration (PT5M, P1DT2H)",
    "timeCycle": "an ISO 8601 repeating interval (R3/PT10M) or a cron expression",
}


def _call(document: Document, node: CallActivity) -> Iterator[Issue]:
    called = node.called_element
    if not called:
        yield Issue("call activity names no process to call (calledElement)", node.id, node.line)
        return
    if node.binding == "version":  # a deployment of the database, not a file validated
        if node.version is None:
            return  # the binding itself is refused (`Process.refused`)
        message = (
            f"calls version {node.version} of process {called!r} (calledElementBinding "
            "'version'): `bpmn run` looks it up among the deployments of its database and "
            "refuses to start if there is no such version"
        )
        yield Issue(message, node.id, node.line, severity=Severity.WARNING)
        return
    if references.is_expression(called) or document.workspace is None:
        return
    if called in document.workspace.process_ids:
        if called in document.workspace.non_executable_process_ids:
            message = f"calls process {called!r}, which is not executable (isExecutable=false)"
            yield Issue(message, node.id, node.line, severity=Severity.WARNING)
        return
    if any(i.element == node.id for i in references.problems(document)):
        return  # `references` already reports the dangling calledElement
    found = document.workspace.called_elsewhere(document, called)
    if isinstance(found, LoadError):  # two files beside it define the process, or...
        yield Issue(found.message, node.id, node.line)
        return
    if found is not None:  # a file beside the caller's (or in the search path) defines it
        if not found.definitions.processes[called].is_executable:
            message = (
                f"calls process {called!r} (in {found.path}), which is not executable "
                "(isExecutable=false)"
            )
            yield Issue(message, node.id, node.line, severity=Severity.WARNING)
        return
    message = (
        f"calls process {called!r}, which is in none of the files validated or imported, "
        "nor in the BPMN files beside it or in the search path"
    )
    yield Issue(message, node.id, node.line)


RULE = ExecutableRule()
