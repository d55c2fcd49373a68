"""How the command line shows runs to people (rich) and to machines (JSON lines)."""

from __future__ import annotations

import json
import re
import shlex
from typing import TYPE_CHECKING, Any

from rich.console import Console

if TYPE_CHECKING:
    from rich.table import Table
    from rich.tree import Tree

from bpmn_engine import Definitions, Engine, Event, Instance, Outcome
from bpmn_engine.dsn import redact
from bpmn_engine.terminal import json_safe, safe

STATE_STYLE = {
    "completed": "bold green",
    "terminated": "bold yellow",
    "waiting": "bold cyan",
    "failed": "bold red",
    "active": "cyan",
}


def json_line(payload: dict[str, Any]) -> str:
    return json_safe(json.dumps(payload, default=str, ensure_ascii=False))


class Trace:
    """A readable live trace: one line per thing a person cares about."""

    def __init__(
        self, console: Console, instance: Instance | None = None, engine: Engine | None = None
    ) -> None:
        self.console = console
        self.instance = instance
        self.engine = engine  # names elements of any instance a message or signal wakes
        self.definitions: dict[str, Definitions] = {}  # by instance, once looked up

    def definitions_of(self, instance_id: str) -> Definitions | None:
        if self.instance is not None and self.instance.id == instance_id:
            return self.instance.definitions
        if self.engine is None:
            return None
        if instance_id not in self.definitions:
            self.definitions[instance_id] = self.engine.definition_of(instance_id)
        return self.definitions[instance_id]

    def name(self, event: Event) -> str:
        """The element's name (else its id) on one line, ready for markup."""
        definitions = self.definitions_of(event.instance)
        if definitions is None or event.element is None:
            return safe(event.element or "")
        node = definitions.node(event.element)
        label = node.name if node is not None and node.name else event.element
        return safe(" ".join(label.split()))

    def __call__(self, event: Event) -> None:
        kind, data = event.event, event.data
        track = f"[dim]#{event.track}[/]" if event.track is not None else ""
        line = None
        if kind == "instance.started":
            line = f"[bold]▶ started[/] {safe(str(data.get('process')))}"
        elif kind == "element.completed":
            line = f"  [green]✓[/] {self.name(event)} [dim]{safe(data.get('type'))}[/] {track}"
        elif kind == "element.waiting" and data.get("reason") == "user task":
            line = f"  [cyan]⏸[/] {self.name(event)} [cyan]waits for a person[/] {track}"
        elif kind == "element.waiting" and data.get("reason") == "job":
            line = f"  [cyan]⏸[/] {self.name(event)} [cyan]waits for a handler[/] {track}"
        elif kind == "element.waiting" and data.get("reason") == "call activity":
            called = f"{safe(str(data.get('process')))} as instance {safe(str(data.get('child')))}"
            line = f"  [magenta]↘[/] {self.name(event)} [magenta]calls[/] {called} {track}"
        elif kind == "process.found":  # a called process from a file of a folder, not given
            line = f"  [magenta]↘[/] [dim]{safe(str(data.get('message')))}[/]"
        elif kind == "element.waiting" and data.get("reason") == "ad-hoc":
            activatable = safe(", ".join(data.get("activatable", [])))
            line = f"  [cyan]⏸[/] {self.name(event)} [cyan]waits for activations[/]: {activatable}"
        elif kind == "element.waiting" and data.get("reason") == "trigger":
            choice = safe(", ".join(data.get("events", [])))  # at an event-based gateway
            line = f"  [cyan]⏸[/] {self.name(event)} [cyan]waits for a trigger[/]" + (
                f" to choose: {choice} {track}" if choice else f" {track}"
            )
        elif kind == "element.waiting" and data.get("reason") == "join":
            line = f"  [dim]… {self.name(event)} waits for the other branches {track}[/]"
        elif kind == "ad-hoc.activated":
            line = f"  [cyan]▶[/] {safe(str(data.get('activity')))} activated in {self.name(event)}"
        elif kind == "track.created":
            line = f"  [magenta]⑂[/] new track {track} → {self.name(event)}"
        elif kind == "track.merged":
            line = f"  [magenta]⑃[/] track {track} joined #{data.get('into')} at {self.name(event)}"
        elif kind == "compensation.started":
            line = f"  [yellow]↶[/] {self.name(event)} [yellow]compensating[/] {track}"
        elif kind in ("transaction.cancelled", "transaction.interrupted"):
            outcome = kind.split(".", 1)[1]
            line = f"  [yellow]✗[/] {self.name(event)} [yellow]transaction {outcome}[/] {track}"
        elif kind == "element.terminated":
            line = f"  [yellow]✗[/] {self.name(event)} terminated {track}"
        elif kind == "variables.updated":
            cut = self.console.is_terminal
            shown = ", ".join(
                f"{k}={short(v, cut=cut)}" for k, v in data.get("variables", {}).items()
            )
            line = f"    [dim]{safe(shown)}[/]"
        elif kind == "data_store.written":
            shown = f"data store {data.get('store')} = {short(data.get('value'))}"
            line = f"    [dim]{safe(shown)}[/]"
        elif kind == "script.printed":
            text = str(data.get("text", "")).rstrip("\n")
            line = "\n".join(f"    [dim]│ {safe(row)}[/]" for row in text.split("\n"))
        elif kind == "warning":
            line = f"  [yellow]⚠ {safe(str(data.get('message')))}[/] [dim]{safe(event.element)}[/]"
        elif kind == "job.failed":
            tried = f"try {data.get('attempt')} of {data.get('tries')}"
            again = f"tried again at {data.get('retry_at')}"
            line = (
                f"  [yellow]↻ {self.name(event)}: {safe(str(data.get('error')))}[/] "
                f"[dim]({tried}; {safe(again)})[/] {track}"
            )
        elif kind == "incident.created":
            line = f"  [red]✗ {safe(event.element)}: {safe(str(data.get('message')))}[/]"
        elif kind == "token.cancelled":
            line = f"  [yellow]✗[/] {self.name(event)} token cancelled by hand {track}"
        elif kind == "token.started":
            line = f"  [green]+[/] {self.name(event)} token started by hand {track}"
        elif kind == "incident.resolved":
            child = safe(str(data.get("child")))
            line = f"  [green]↻[/] {self.name(event)} waits again: instance {child} was resumed"
        if line:
            self.console.print(line, highlight=False)


def short(value: Any, width: int = 40, *, cut: bool = True) -> str:
    """A value as JSON, cut at `width` for a terminal; whole when `cut` is False (piped
    output, a CI log: never cut, docs/cli.md)."""
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if not cut or len(text) <= width else text[: width - 1] + "…"


def new_table(*headers: str, **options: Any) -> Table:
    """A rich Table, imported when a command first prints one (`bpmn run` often does not)."""
    from rich.table import Table

    return Table(*headers, **options)


def variables_table(variables: dict[str, Any], cut: bool = True) -> Table:
    table = new_table("variable", "value", box=None, header_style="bold", pad_edge=False)
    for name in sorted(variables):
        table.add_row(safe(name), safe(short(variables[name], 80, cut=cut)))
    return table


DEFAULT_DB = "bpmn-engine.db"
"""The database a command uses when given no --db."""


def db_flag(db: str) -> str:
    """` --db DB` for a command the CLI prints, quoted and its password hidden; nothing for
    the default database."""
    return "" if db == DEFAULT_DB else f" --db {shlex.quote(redact(db))}"


def family_summary(console: Console, engine: Engine, root: str, db: str, options: str = "") -> None:
    """The instances `root` called (call activities) that have not ended, and what each
    waits for; the commands name the root, which finds a task anywhere in its tree."""
    db_opt = safe(db_flag(db) + options)
    ended = 0
    members = engine.tree(root).called()
    outcomes = [called.outcome() for called in members]
    # a trigger wait is named by its root, unless it waits in two instances of the tree
    triggers = [
        w["element"] for o in outcomes for w in o.waiting_for if w.get("reason") == "trigger"
    ]
    for called, outcome in zip(members, outcomes, strict=True):
        if outcome.state in ("completed", "terminated"):
            ended += 1
            continue
        style = STATE_STYLE.get(outcome.state, "bold")
        console.print(
            f"{'  ' * (called.call_depth - 1)}↳ called instance [bold]{safe(called.id)}[/] "
            f"({safe(called.process_id)}) [{style}]{outcome.state}[/]",
            highlight=False,
        )
        if outcome.state == "failed":
            console.print(f"  [red]incident:[/] {safe(str(outcome.incident))}", highlight=False)
            origin = safe(called.incident_origin)
            console.print(f"  fix the cause, then: [bold]bpmn resume {origin}{db_opt}[/]")
        for wait in outcome.waiting_for:
            if "task" in wait:
                element = safe(shlex.quote(wait["element"]))
                console.print(
                    f"  waiting for user task [bold]{safe(wait['element'])}[/]: "
                    f"[bold]bpmn complete {safe(root)} {element} --var NAME=VALUE{db_opt}[/]",
                    highlight=False,
                    soft_wrap=True,
                )
            elif wait.get("reason") == "trigger":
                holder = root if triggers.count(wait["element"]) == 1 else called.id
                console.print(
                    f"  waiting at [bold]{safe(wait['element'])}[/] for a trigger: "
                    f"[bold]bpmn trigger {safe(holder)} {trigger_args(wait, outcome)}{db_opt}[/]",
                    highlight=False,
                    soft_wrap=True,
                )
    if ended:
        console.print(f"[dim]{ended} called instance(s) ended[/]", highlight=False)


UNKNOWN_VARIABLE = re.compile(r"unknown variable '([^'\n]{1,100})'")
"""An incident that a variable given with `--var` fixes: the hint names it."""


def outcome_summary(
    console: Console,
    outcome: Outcome,
    db: str,
    options: str = "",
    origin: str | None = None,
    stuck: bool = False,
) -> None:
    """The end of a run for people; `options` are repeated in every command it suggests;
    `origin`: the instance whose incident failed this one (a called one), to resume."""
    style = STATE_STYLE.get(outcome.state, "bold")
    head = f"[{style}]{outcome.state}[/] instance [bold]{outcome.instance}[/]"
    if outcome.end_event:
        head += f" at {safe(outcome.end_event)}"
    console.print(head, highlight=False)
    if outcome.variables:
        console.print(variables_table(outcome.variables, console.is_terminal))
    db_opt = safe(db_flag(db) + options)
    if stuck:
        way_on = (
            ""
            if db == ":memory:"
            else f"; see [bold]bpmn show {outcome.instance}{db_opt}[/], end it with [bold]bpmn "
            f"cancel {outcome.instance}{db_opt}[/]"
        )
        console.print(
            "[red]stuck:[/] no token can move and nothing it waits for exists (a join waiting "
            f"for a token that ended elsewhere?): it will never go on by itself{way_on}",
            highlight=False,
        )
    if db == ":memory:" and outcome.state in ("waiting", "failed"):
        _ended_with_memory(console, outcome)
        return
    if outcome.state == "failed":
        console.print(f"[red]incident:[/] {safe(str(outcome.incident))}", highlight=False)
        if outcome.others_wait:
            console.print(
                "its other tokens went on and wait: the instance stays active", highlight=False
            )
        resume = safe(origin or outcome.instance)
        missing = UNKNOWN_VARIABLE.search(str(outcome.incident))
        if missing and missing.group(1).isidentifier():
            given = shlex.quote(f"{missing.group(1)}=VALUE")
            console.print(
                f"give it and go on: [bold]bpmn resume {resume} --var {given}{db_opt}[/]",
                highlight=False,
            )
        else:
            console.print(f"fix the cause, then: [bold]bpmn resume {resume}{db_opt}[/]")
    _starts_hint(console, outcome)
    for wait in outcome.waiting_for:
        console.print(_wait_hint(outcome, wait, db_opt), highlight=False, soft_wrap=True)
    console.print(f"[dim]database: {safe(redact(db))}[/]", highlight=False)


def _starts_hint(console: Console, outcome: Outcome) -> None:
    """An instance created waiting at its triggered start events: which fires it."""
    starts = sorted({w["element"] for w in outcome.waiting_for if w.get("start")})
    if not starts:
        return
    if len(starts) == 1:
        said = f"at its start event {safe(starts[0])}, until it fires"
    else:
        said = (
            f"at its start events {safe(', '.join(starts))}; the first to fire starts it, "
            "and the others stop waiting"
        )
    console.print(f"waiting to start: {said}", highlight=False, soft_wrap=True)


def _wait_hint(outcome: Outcome, wait: dict[str, Any], db_opt: str) -> str:
    """What one wait is, and the command that moves it on."""
    instance = outcome.instance
    reason = wait.get("reason")
    if "task" in wait:
        name = f" ({wait['name']})" if wait.get("name") else ""
        fields = wait.get("fields") or ["NAME"]
        options = " ".join(f"--var {shlex.quote(f)}=VALUE" for f in fields)
        return (
            f"waiting for user task [bold]{safe(wait['element'])}[/]{safe(name)}; "
            f"to complete it:\n  [bold]bpmn complete {instance} "
            f"{safe(shlex.quote(wait['element']))} {safe(options)}{db_opt}[/]"
        )
    if reason == "timer":
        return (
            f"waiting for timer [bold]{safe(wait['element'])}[/], due {wait['due']}: "
            f"[bold]bpmn resume {instance}{db_opt}[/] once it is due"
        )
    if reason == "retry":
        return (
            f"waiting to try the handler of [bold]{safe(wait['element'])}[/] again (try "
            f"{wait['attempt']}), due {wait['due']}: [bold]bpmn resume {instance}{db_opt}[/] "
            "once it is due, or leave it to [bold]bpmn worker[/]"
        )
    if reason in ("message", "signal"):
        key = f" --key {shlex.quote(wait['key'])}" if wait.get("key") else ""
        return (
            f"waiting for {reason} [bold]{safe(wait['name'])}[/] at "
            f"{safe(wait['element'])}: [bold]bpmn {reason} "
            f"{safe(shlex.quote(wait['name']))}{safe(key)}{db_opt}[/]"
        )
    if reason == "conditional":
        condition = f" {safe(shlex.quote(wait['condition']))}" if wait.get("condition") else ""
        return (
            f"waiting for condition{condition} at [bold]{safe(wait['element'])}[/] to hold; "
            f"give the variables it reads: [bold]bpmn resume {instance} "
            f"--var NAME=VALUE{db_opt}[/]"
        )
    if reason == "job":
        return _job_hint(instance, wait, db_opt)
    if reason == "trigger":
        return (
            f"waiting at {trigger_wait(wait)} for a trigger; to move it on: "
            f"[bold]bpmn trigger {instance} {trigger_args(wait, outcome)}{db_opt}[/]"
        )
    if reason == "ad-hoc":
        return (
            f"waiting at {ad_hoc_wait(wait)}; to activate one: "
            f"[bold]bpmn activate {instance} ELEMENT{db_opt}[/]"
        )
    return f"waiting at {safe(wait['element'])} ({safe(str(reason))})"


def _job_hint(instance: str, wait: dict[str, Any], db_opt: str) -> str:
    """A service task with no handler: the function names that would serve it, and the
    commands that run it with one (or walk past it)."""
    names = " or ".join(safe(shlex.quote(n)) for n in wait.get("handlers") or ())
    function = f"a function named {names}" if names else "a handler"
    if " --handlers " in db_opt:  # the file given has none of those names
        serve = f"add {function} to the handlers file: [bold]bpmn resume {instance}{db_opt}[/]"
    else:
        serve = (
            f"give {function} in a Python file: [bold]bpmn resume {instance} --handlers "
            f"FILE{db_opt}[/] (or [bold]bpmn worker --handlers FILE{db_opt}[/])"
        )
    return (
        f"waiting for a handler for service task [bold]{safe(wait['element'])}[/]; {serve}; "
        "--simulate walks past such tasks"
    )


def _ended_with_memory(console: Console, outcome: Outcome) -> None:
    """A run in `--db :memory:` that did not finish: no command can go on with it, since the
    database goes with the process (they were printed all the same, and could never work)."""
    if outcome.state == "failed":
        console.print(f"[red]incident:[/] {safe(str(outcome.incident))}", highlight=False)
    for wait in outcome.waiting_for:
        what = wait.get("name") or wait.get("reason") or ""
        console.print(f"waiting at {safe(wait['element'])} ({safe(str(what))})", highlight=False)
    console.print(
        "--db :memory: keeps nothing after this command: to go on from here, run it again "
        "with --db FILE (or without --db)",
        highlight=False,
    )


def show(console: Console, instance: Instance, last: int = 0) -> None:
    """An instance for people; `last`: only its last N history events (0: all)."""
    outcome = instance.outcome()
    style = STATE_STYLE.get(outcome.state, "bold")
    console.print(
        f"instance [bold]{instance.id}[/] of {safe(instance.process_id)}: "
        f"[{style}]{outcome.state}[/]  [dim]{safe(instance.definitions.path)}[/]",
        highlight=False,
    )
    if instance.business_key is not None:
        console.print(f"business key: {safe(instance.business_key)}", highlight=False)
    if outcome.incident:
        open_ones = instance.engine.incidents(instance.id)
        for incident in open_ones:  # each by the id `bpmn retry` takes
            console.print(
                f"[red]incident {safe(incident.id)}:[/] {safe(incident.element)} "
                f"({incident.kind}): {safe(incident.message)}",
                highlight=False,
            )
        if not open_ones:
            console.print(f"[red]incident:[/] {safe(outcome.incident)}")
    tokens = new_table("track", "element", "state", title="tokens", box=None, title_justify="left")
    for token in instance.tokens():
        tokens.add_row(str(token["track"]), safe(token["element"]), token["state"])
    console.print(tokens)
    for transaction in instance.transactions():  # cancelled is not completed: say which
        console.print(
            f"transaction {safe(transaction['element'])}: {transaction['outcome']}",
            highlight=False,
        )
    for line in ad_hoc_waits(outcome):
        console.print(f"waiting: {line}", highlight=False)
    for wait in outcome.waiting_for:
        if wait.get("reason") == "trigger":
            console.print(
                f"waiting: {trigger_wait(wait)} for a trigger: [bold]bpmn trigger "
                f"{safe(instance.id)} {trigger_args(wait, outcome)}[/]",
                highlight=False,
                soft_wrap=True,
            )
    console.print(variables_table(outcome.variables, console.is_terminal))
    events = instance.history()
    shown = events[-last:] if last else events
    title = "history" + (
        f" (the last {len(shown)} of {len(events)})" if len(shown) < len(events) else ""
    )
    history = new_table("#", "time", "event", "element", "track", "details", title=title, box=None)
    history.title_justify = "left"
    times = instance.history_times()
    for e in shown:
        details = {k: v for k, v in e.data.items() if k not in ("variables", "type", "name")}
        at = times.get(e.seq, "")
        history.add_row(
            str(e.seq),
            at[11:19] if len(at) >= 19 else at,  # the time of day; --json has the whole
            e.event,
            safe(e.element or ""),
            "" if e.track is None else str(e.track),
            safe(short(details, 60, cut=console.is_terminal)) if details else "",
        )
    console.print(history)


# --- bpmn step ---------------------------------------------------------------------------------


def node_name(instance: Instance, element: str) -> str:
    node = instance.definitions.node(element)
    return " ".join((node.name or "").split()) if node is not None else ""


def step_tokens(instance: Instance) -> list[dict[str, Any]]:
    return [
        {
            **token,
            "name": node_name(instance, token["element"]),
            "scope": instance.scope_element(token["scope"]),
        }
        for token in instance.tokens()
    ]


def step_actions(stepper: Any, actions: list[Any] | None = None) -> list[dict[str, Any]]:
    return [
        {
            "number": i,
            "kind": a.kind,
            "element": a.element,
            "track": a.track,
            "instance": a.instance.id,
        }
        | ({"task": a.task} if a.task is not None else {})
        for i, a in enumerate(stepper.actions() if actions is None else actions, start=1)
    ]


def tree_tokens(stepper: Any) -> list[dict[str, Any]]:
    """The tokens of every instance of the stepped tree, each naming its instance (and,
    for a called one, its process)."""
    return [
        {**token, "instance": member.id, "process": member.process_id}
        for member in stepper.tree()
        for token in step_tokens(member)
    ]


def step_json(stepper: Any, report: Any) -> dict[str, Any]:
    instance = stepper.instance
    return {
        "command": report.command,
        "ok": report.ok,
        "result": report.message,
        "events": [e.to_json() for e in report.events],
        "changes": {
            k: {"before": b, "after": a} for k, (b, a) in report.variable_changes().items()
        },
        "state": stepper.outcome_state(),  # of every pool, in a collaboration
        "tokens": tree_tokens(stepper),
        "variables": instance.variables,
        "actions": step_actions(stepper),
        "breakpoints": sorted(stepper.breakpoints),
    }


def graph_tree(instance: Instance) -> Tree:
    """The process as a tree from its start nodes, tokens marked; loops shown as references."""
    from rich.tree import Tree  # only `bpmn step` draws the tree

    process = instance.definitions.processes[instance.process_id]
    marks: dict[str, list[str]] = {}
    for token in instance.tokens():
        marks.setdefault(token["element"], []).append(f"#{token['track']} {token['state']}")
    root = Tree(f"[bold]{safe(process.name or process.id)}[/]")
    seen: set[str] = set()

    def label(element: str) -> str:
        name = node_name(instance, element)
        text = safe(element) + (f" [dim]{safe(name)}[/]" if name else "")
        if element in marks:
            text += " [bold magenta]● " + ", ".join(marks[element]) + "[/]"
        return text

    def walk(scope: Any, element: str, branch: Tree) -> None:
        stack = [(element, branch)]
        while stack:
            current, parent = stack.pop()
            if current in seen:
                parent.add(f"[dim]↺ {safe(current)}[/]")
                continue
            seen.add(current)
            node_branch = parent.add(label(current))
            node = scope.nodes[current]
            inner = getattr(node, "scope", None)
            if inner is not None:
                for start in inner.start_nodes:
                    walk(inner, start, node_branch)
            targets = [scope.flows[f].target for f in node.outgoing]
            holder = node_branch if len(targets) > 1 else parent
            for target in reversed(targets):
                stack.append((target, holder))

    for start in process.start_nodes:
        walk(process, start, root)
    return root


def step_report(console: Console, stepper: Any, report: Any) -> None:
    """Show what a command did, the tokens, and what can happen next."""
    instance = stepper.instance
    if not report.ok:
        console.print(f"[red]✗ {safe(report.message)}[/]")
        return
    if report.message:
        console.print(f"[bold]{safe(report.message)}[/]")
    trace = Trace(console, instance)
    for event in report.events:
        if event.event in (
            "track.created",
            "track.merged",
            "element.terminated",
            "warning",
            "process.found",
            "incident.created",
            "element.completed",
        ):
            trace(event)
    for name, (before, after) in report.variable_changes().items():
        cut = console.is_terminal
        console.print(
            f"  {safe(name)}: {safe(short(before, cut=cut))} → {safe(short(after, cut=cut))}"
        )
    if report.show == "help":
        console.print(stepper.help, markup=False)
        return
    if report.show == "vars":
        console.print(variables_table(instance.variables, console.is_terminal))
        return
    if report.show == "history":
        for e in instance.history():
            console.print(f"{e.seq:>4} {e.event:<20} {safe(e.element or '')}", highlight=False)
        return
    if report.show == "graph":
        console.print(graph_tree(instance))
        return
    if report.show == "breaks":
        console.print("breakpoints: " + (safe(", ".join(sorted(stepper.breakpoints))) or "none"))
        return
    every = tree_tokens(stepper)
    called = any(t["instance"] != instance.id for t in every)  # a tree: say whose token
    columns = ("track", "element", "name", "state", "scope") + (("instance",) if called else ())
    tokens = new_table(*columns, box=None, header_style="bold")
    for token in every:
        cells = [
            f"#{token['track']}",
            safe(token["element"]),
            safe(token["name"]),
            token["state"],
            safe(token["scope"]),
        ]
        if called:
            cells.append(safe(f"{token['instance']} ({token['process']})"))
        tokens.add_row(*cells)
    state = stepper.outcome_state()  # of every pool, in a collaboration
    console.print(f"[{STATE_STYLE.get(state, 'bold')}]{state}[/]")
    if every:
        console.print(tokens)
    actions = stepper.actions()
    for action in step_actions(stepper, actions):
        move = actions[action["number"] - 1]
        name = node_name(move.instance, action["element"])
        what = {
            "enter": "enter",
            "join": "join at",
            "resume-job": "retry the job of",
            "timer": "fire the timer",
            "condition": "fire the condition of",
            "complete-task": "complete",
            "trigger": "trigger",
        }[action["kind"]]
        wait = stepper.time_to(actions[action["number"] - 1])
        console.print(
            f"  [bold]{action['number']}[/] {what} {safe(action['element'])}"
            + (f" [dim]{safe(name)}[/]" if name else "")
            + f" [dim]#{action['track']}[/]"
            + (f" [dim]in {safe(move.instance.id)}[/]" if move.instance is not instance else "")
            + (f" [dim](due in {wait}: advance {wait})[/]" if wait else "")
        )
    for line in ad_hoc_waits(instance.outcome()):
        console.print(f"  {line}: [bold]activate ELEMENT[/]", highlight=False)


def ad_hoc_wait(wait: dict[str, Any]) -> str:
    """'ad-hoc subprocess X: activatable A, B' (escaped for rich)."""
    activatable = ", ".join(wait.get("activatable", []))
    return f"ad-hoc subprocess {safe(wait['element'])}: activatable {safe(activatable)}"


def ad_hoc_waits(outcome: Outcome) -> list[str]:
    """One line per ad-hoc subprocess that waits for activations."""
    return [ad_hoc_wait(w) for w in outcome.waiting_for if w.get("reason") == "ad-hoc"]


def trigger_wait(wait: dict[str, Any]) -> str:
    """'[bold]Element[/] (its name)' of a trigger wait (escaped for rich)."""
    name = " ".join((wait.get("name") or "").split())
    return f"[bold]{safe(wait['element'])}[/]" + (f" ({safe(name)})" if name else "")


def trigger_args(wait: dict[str, Any], outcome: Outcome) -> str:
    """`ELEMENT`, with `--track N` when more tokens of the instance wait there (escaped)."""
    element = wait["element"]
    there = [
        w for w in outcome.waiting_for if w.get("reason") == "trigger" and w["element"] == element
    ]
    track = f" --track {wait['track']}" if len(there) > 1 else ""
    return safe(shlex.quote(element)) + track
