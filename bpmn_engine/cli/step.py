"""`bpmn step`: a REPL over the public stepping API (`Instance.enabled`, `Instance.step`).

The stepper moves the whole call tree: the root and every instance its call activities start
(`Engine.hold`: a delivery makes its one step, through the stepper's own objects, and runs
nothing on), so a child's tokens are listed and stepped like the root's, each saying which
instance it is in. Each command returns a `Report` (what changed, the tokens, the variables,
the actions now possible); the command line renders it for people (rich) or as one JSON object
per command. `back` rewinds from the store's undo log (`Engine.rewind_together`): the
before-images of the last committed steps of every instance the command moved, receivers
before senders, in one transaction. A command of this session is undone whole; the steps of
an earlier session (`bpmn step --instance ID`) one at a time, in the root only. Going back
past the step that called a child is refused: a called instance cannot be un-started (its
opening step is not in the undo log), and rewinding the parent alone would leave the child
running for a call that was never made.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import click

from bpmn_engine import (
    Action,
    ActionKind,
    BpmnEngineError,
    CallTree,
    Collaboration,
    Engine,
    Event,
    Instance,
    InstanceState,
    TimerValueError,
    UsageError,
    VirtualClock,
    parse_duration,
)
from bpmn_engine.cli.common import (
    chosen_processes,
    console,
    db_option,
    json_option,
    load_files,
    new_engine,
    parse_value,
    parse_variables,
    path_option,
    simulate_option,
    start_option,
    var_options,
)
from bpmn_engine.cli.render import json_line, step_json, step_report
from bpmn_engine.diagram import instance_page
from bpmn_engine.exit_codes import ExitCode
from bpmn_engine.userfiles import write_user_file

CONTINUE_LIMIT = 100_000
# actions that wait for someone (a person, the API): offered, never taken by next/continue
MANUAL = (ActionKind.COMPLETE_TASK, ActionKind.TRIGGER)

HELP = """\
next [N|#TRACK|ELEMENT] (n)  advance one token one element (default: the engine's next)
continue (c)                 run until a breakpoint, a wait or the end
break ELEMENT / unbreak ELEMENT / breaks
tokens / vars / history / graph
set NAME=VALUE / unset NAME  change a variable of the stopped token (else of the process)
choose GATEWAY FLOW...       take these flows at the gateway's next decision
complete TASK [NAME=VALUE...]
activate ELEMENT             start an inner activity of a waiting ad-hoc subprocess
trigger ELEMENT [#TRACK] [NAME=VALUE...]  move on a token that waits for a trigger
message NAME [KEY] [N=V...]  deliver a message this instance waits for
signal NAME [N=V...]         broadcast a signal (to every waiting instance)
advance DURATION             move the virtual clock (timers that fall due can then fire)
back [N]                     undo the last N steps
save / help / quit (q)"""


@dataclass(frozen=True)
class Move:
    """An action of one instance of the tree (`Instance.enabled`), and that instance."""

    instance: Instance
    action: Action

    @property
    def kind(self) -> ActionKind:
        return self.action.kind

    @property
    def track(self) -> int:
        return self.action.track

    @property
    def element(self) -> str:
        return self.action.element

    @property
    def task(self) -> int | None:
        return self.action.task


@dataclass
class Report:
    """The result of one command."""

    command: str
    ok: bool = True
    message: str = ""
    events: list[Event] = field(default_factory=list)
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    show: str | None = None  # "tokens", "vars", "history", "graph", "help", "breaks"

    def variable_changes(self) -> dict[str, tuple[Any, Any]]:
        names = set(self.before) | set(self.after)
        missing = object()
        changes = {}
        for name in sorted(names):
            old, new = self.before.get(name, missing), self.after.get(name, missing)
            if old != new:
                changes[name] = (None if old is missing else old, None if new is missing else new)
        return changes


def parse_assignments(words: list[str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for word in words:
        name, sep, text = word.partition("=")
        if not sep or not name:
            raise UsageError(f"{word!r} is not NAME=VALUE")
        values[name] = parse_value(text)
    return values


def iso_duration(seconds: float) -> str:
    """`1800` -> `PT30M`, `93600` -> `P1DT2H`: what `advance` takes."""
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, rest = divmod(rest, 60)
    text = f"P{int(days)}D" if days else "P"
    clock = "".join(
        f"{value:g}{unit}" for value, unit in ((hours, "H"), (minutes, "M"), (rest, "S")) if value
    )
    return text + ("T" + clock if clock else "")


class Stepper:
    """Drives one instance and the instances it calls, a command at a time; or the pools of
    a collaboration (`others`, and every instance a message or signal starts meanwhile)."""

    def __init__(self, engine: Engine, instance: Instance, others: Sequence[Instance] = ()) -> None:
        engine.undo = True  # every step keeps its before-images: `back` rewinds from them
        self.engine = engine
        self.instance = instance  # the first pool: `state`, `vars` and `set` are its
        self.others = [other.id for other in others]
        engine.hold(instance)  # deliveries within the tree run nothing on: we step it
        for other in others:
            engine.hold(other)
        engine.session.held = True  # what a message or signal starts is stepped too
        self.breakpoints: set[str] = set()
        # the token `continue` stopped at a breakpoint (instance, track, element): the one
        # breakpoint the next `continue` steps over
        self.stopped: tuple[str, int, str] | None = None
        # per command of this session, (instance, steps) in the order they first stepped,
        # or the reason it cannot be undone (it started a called instance)
        self.undo_counts: list[list[tuple[str, int]] | str] = []
        self._versions: dict[str, int] | None = None  # the tree's versions before the command
        self.done = False
        self.help = HELP
        self._commands: dict[str, Callable[[list[str], Report], None]] = {
            "next": self._next,
            "n": self._next,
            "continue": self._continue,
            "c": self._continue,
            "break": self._break,
            "unbreak": self._unbreak,
            "breaks": lambda args, r: setattr(r, "show", "breaks"),
            "tokens": lambda args, r: setattr(r, "show", "tokens"),
            "vars": lambda args, r: setattr(r, "show", "vars"),
            "history": lambda args, r: setattr(r, "show", "history"),
            "graph": lambda args, r: setattr(r, "show", "graph"),
            "set": self._set,
            "unset": self._unset,
            "choose": self._choose,
            "complete": self._complete,
            "activate": self._activate,
            "trigger": self._trigger,
            "back": self._back,
            "save": self._save,
            "help": lambda args, r: setattr(r, "show", "help"),
            "quit": self._quit,
            "q": self._quit,
            "message": self._message,
            "signal": self._signal,
            "advance": self._advance,
        }

    @property
    def command_names(self) -> list[str]:
        return sorted(self._commands)

    def element_ids(self) -> list[str]:
        ids = dict.fromkeys(self.instance.definitions.node_ids)
        for member in self.tree()[1:]:
            ids.update(dict.fromkeys(member.definitions.node_ids))
        return list(ids)

    def roots(self) -> list[str]:
        """The root, the other pools, then the instances a message or signal started."""
        return list(dict.fromkeys([self.instance.id, *self.others, *self.engine.session.started]))

    def tree(self) -> list[Instance]:
        """Each root, then every instance it called, directly or not (breadth first)."""
        members = [self.instance]
        for root in self.roots():
            if root == self.instance.id:
                members += CallTree(self.engine, self.instance, self._held).called()
            else:
                members += CallTree(self.engine, self._held(root), self._held).members()
        return members

    def _held(self, instance_id: str) -> Instance:
        """The object the instance is moved through; one started before this session is
        held from now on."""
        held = self.engine.held_instance(instance_id)
        if held is None:
            held = self.engine.instance(instance_id)
            self.engine.hold(held)
        return held

    def actions(self) -> list[Move]:
        """What can happen next in every live instance of the tree, the root's first."""
        return [
            Move(member, action)
            for member in self.tree()
            if member.state is InstanceState.ACTIVE
            for action in member.enabled()
        ]

    def execute(self, line: str) -> Report:
        """Run one command line; never raises for a user's mistake."""
        report = Report(line.strip(), before=self.instance.variables)
        try:
            words = shlex.split(line)
        except ValueError as error:
            return self._failed(report, f"cannot read the command: {error}")
        if not words:  # nothing asked, nothing changed
            report.after = report.before
            return report
        handler = self._commands.get(words[0])
        if handler is None:
            return self._failed(report, f"unknown command {words[0]!r}; try help")
        try:
            handler(words[1:], report)
        except BpmnEngineError as error:
            return self._failed(report, str(error))
        except Exception as error:  # a bug: say so, and keep the session (reloaded from rows)
            self.reload()
            return self._failed(report, f"internal error: {type(error).__name__}: {error}")
        finally:
            self._count_steps(report)
        report.after = self.instance.variables
        return report

    def _failed(self, report: Report, message: str) -> Report:
        report.ok, report.message = False, message
        report.after = self.instance.variables
        return report

    # --- moving tokens ------------------------------------------------------------------------
    def _checkpoint(self) -> None:
        """A command is about to commit steps: count them when it ends (for `back`)."""
        if self._versions is None:
            self._versions = {member.id: member.version for member in self.tree()}

    def _count_steps(self, report: Report) -> None:
        if self._versions is None:
            return
        before, self._versions = self._versions, None
        after = {member.id: member.version for member in self.tree()}
        started = [i for i in after if i not in before]
        if started:
            self.undo_counts.append(
                f"this command started instance {', '.join(started)} (called, or started by "
                "a message or signal): an instance cannot be un-started, so going back past "
                "it is refused"
            )
            return
        made = {i: after[i] - before[i] for i in after if after[i] > before[i]}
        if not made:
            return
        named = list(dict.fromkeys(e.instance for e in report.events if e.instance in made))
        order = named + [i for i in made if i not in named]
        self.undo_counts.append([(i, made[i]) for i in order])

    def _do(self, report: Report, move: Move, variables: dict | None = None) -> None:
        self._checkpoint()
        if self.stopped is not None and self.stopped[:2] == (move.instance.id, move.track):
            self.stopped = None  # the stopped token moves on: its stop is over
        move.instance.step(move.action, variables, on_event=report.events.append)

    def _pick(self, args: list[str]) -> Move:
        actions = self.actions()
        automatic = [a for a in actions if a.kind not in MANUAL]
        if not args:
            if not automatic:
                raise UsageError(
                    "nothing can move on its own: complete a task, trigger a wait, or set/choose"
                )
            return automatic[0]
        target = args[0]
        if target.isdigit():
            number = int(target)
            if not 1 <= number <= len(actions):
                raise UsageError(f"no action {number}: there are {len(actions)}")
            return actions[number - 1]
        if target.startswith("#") and target[1:].isdigit():
            found = [a for a in automatic if a.track == int(target[1:])]
        else:
            found = [a for a in automatic if a.element == target]
        if not found:
            raise UsageError(f"no token can move at {target!r} now")
        return found[0]

    def _next(self, args: list[str], report: Report) -> None:
        automatic = [a for a in self.actions() if a.kind not in MANUAL]
        if not args and not automatic and self._start_kept_messages(report):
            return
        action = self._pick(args)
        if action is not None and action.kind is ActionKind.COMPLETE_TASK:
            raise UsageError(f"{action.element} waits for a person: complete {action.element} ...")
        if action.kind is ActionKind.TRIGGER:
            raise UsageError(f"{action.element} waits for a trigger: trigger {action.element} ...")
        wait = self.time_to(action)
        if wait is not None:
            raise UsageError(f"waiting for timer {action.element}, due in {wait}: advance {wait}")
        self._do(report, action)
        where = "" if action.instance is self.instance else f" in {action.instance.id}"
        report.message = f"{action.kind} {action.element} (track #{action.track}){where}"

    def _continue(self, args: list[str], report: Report) -> None:
        steps = 0
        while steps < CONTINUE_LIMIT:  # every instance stepped: the root may have ended
            automatic = [a for a in self.actions() if a.kind not in MANUAL]
            if not automatic and self._start_kept_messages(report):
                continue
            if not automatic:
                break
            action = automatic[0]
            if self._stops_at(action):
                self.stopped = (action.instance.id, action.track, action.element)
                where = "" if action.instance is self.instance else f" in {action.instance.id}"
                report.message = (
                    f"breakpoint before {action.element} (track #{action.track}){where}"
                )
                return
            wait = self.time_to(action)
            if wait is not None:  # a debugger's clock moves only with `advance`
                report.message = (
                    f"{steps} steps; waiting for timer {action.element}, due in {wait}: "
                    f"advance {wait}"
                )
                return
            self._do(report, action)
            steps += 1
        report.message = f"{steps} steps"

    def _stops_at(self, action: Move) -> bool:
        """A token about to enter a breakpoint's element stops there, unless it is the token
        stopped there now (`continue` goes on from it) or it only opens a multi-instance or
        loop body: the stops are before each inner instance, all of a parallel body's
        already started."""
        if action.kind is not ActionKind.ENTER or action.element not in self.breakpoints:
            return False
        if action.instance.opens_body(action.action):
            return False
        return self.stopped != (action.instance.id, action.track, action.element)

    def stopped_token(self) -> tuple[Instance, int] | None:
        """The instance and track of the token stopped at a breakpoint, while it is still
        there (a `next` or `back` may have moved it)."""
        if self.stopped is None:
            return None
        instance_id, track, element = self.stopped
        for member in self.tree():
            if member.id == instance_id and member.state is InstanceState.ACTIVE:
                enters = [a for a in member.enabled() if a.kind is ActionKind.ENTER]
                if any(a.track == track and a.element == element for a in enters):
                    return member, track
        return None

    def _start_kept_messages(self, report: Report) -> bool:
        """Nothing moves on its own: start a pool of the collaboration for each message kept
        for it (as `bpmn run` does once every instance waits); whether any started."""
        self._checkpoint()
        started = self.engine.start_kept_messages(report.events.append)
        if started:
            named = ", ".join(f"{i.id} of {i.process_id}" for i in started)
            report.message = f"started instance {named} on a message nobody waited for"
        return bool(started)

    def reload(self) -> None:
        """Read the trees again from their rows (after a command was cut short, or a rewind)."""

        def reloaded(instance_id: str) -> Instance:
            loaded = self.engine.instance(instance_id)
            self.engine.hold(loaded)
            return loaded

        for root in self.roots():
            loaded = reloaded(root)
            if root == self.instance.id:
                self.instance = loaded
            CallTree(self.engine, loaded, reloaded).members()

    def outcome_state(self) -> str:
        """The most serious state of the roots: what the session's exit code says."""
        states = [self.engine.instance(root).outcome().state for root in self.roots()]
        return Collaboration.overall(states)

    def time_to(self, action: Move | None) -> str | None:
        """For a timer action that is not due yet: how long until it is (ISO 8601)."""
        due = action.instance.due(action.action) if action is not None else None
        if due is None:
            return None
        left = (due - self.engine.clock.now()).total_seconds()
        return iso_duration(left) if left > 0 else None

    def _back(self, args: list[str], report: Report) -> None:
        """back [N]: undo the last N commands of this session (each whole), then the steps of
        earlier sessions one by one."""
        count = int(args[0]) if args and args[0].isdigit() else 1
        if count < 1:
            raise UsageError("back N: N is at least 1")
        mine = self.undo_counts[-count:]
        refused = [reason for reason in mine if isinstance(reason, str)]
        if refused:
            raise UsageError(refused[-1])
        rewinds = [pair for command in reversed(mine) for pair in reversed(command)]
        earlier = max(count - len(mine), 0)  # steps of an earlier session: the root's
        if earlier:
            rewinds.append((self.instance.id, earlier))
        self.engine.rewind_together(rewinds)
        self.reload()
        del self.undo_counts[len(self.undo_counts) - len(mine) :]
        report.message = f"back {count} step{'s' if count > 1 else ''}"

    # --- the rest -----------------------------------------------------------------------------
    def _break(self, args: list[str], report: Report) -> None:
        for element in args:
            if self.instance.definitions.node(element) is None:
                raise UsageError(f"no element {element!r} in the process")
            self.breakpoints.add(element)
        report.show = "breaks"

    def _unbreak(self, args: list[str], report: Report) -> None:
        for element in args:
            self.breakpoints.discard(element)
        report.show = "breaks"

    def _set(self, args: list[str], report: Report) -> None:
        self._set_variables(parse_assignments(args), (), report)

    def _unset(self, args: list[str], report: Report) -> None:
        if not args:
            raise UsageError("unset NAME")
        self._set_variables({}, tuple(args), report)

    def _set_variables(
        self, values: dict[str, Any], unset: tuple[str, ...], report: Report
    ) -> None:
        """At a breakpoint stop, as the stopped token would write them (its scope first: an
        inner instance's output item stays that instance's and is collected); else into the
        process scope."""
        stopped = self.stopped_token()
        self._checkpoint()
        if stopped is None:
            self.instance.set_variables(values, unset, on_event=report.events.append)
            return
        holder, track = stopped
        holder.set_variables(values, unset, on_event=report.events.append, track=track)
        names = ", ".join([*values, *unset])
        where = "" if holder is self.instance else f" in {holder.id}"
        report.message = f"{names} for the token at {self.stopped[2]} (track #{track}){where}"

    def _choose(self, args: list[str], report: Report) -> None:
        if len(args) < 2:
            raise UsageError("choose GATEWAY FLOW...")
        self.instance.choose(args[0], args[1:])
        report.message = f"{args[0]} will take {', '.join(args[1:])}"

    def _complete(self, args: list[str], report: Report) -> None:
        """complete TASK: the task waits in the root or any instance it called."""
        if not args:
            raise UsageError("complete TASK [NAME=VALUE...]")
        holder = self._task_holder(args[0])
        task = holder.find_task(args[0])
        self._checkpoint()
        holder.complete_task(task.id, parse_assignments(args[1:]), report.events.append)
        where = "" if holder is self.instance else f" in {holder.id}"
        report.message = f"completed {task.element}{where}"

    def _task_holder(self, task: str) -> Instance:
        for member in self.tree():
            if member.waiting_task(task) is not None:
                return member
        return self.instance  # its refusal names what the root waits for

    def _activate(self, args: list[str], report: Report) -> None:
        if len(args) != 1:
            raise UsageError("activate ELEMENT")
        self._checkpoint()
        self.instance.activate(args[0], report.events.append)
        report.message = f"activated {args[0]}"

    def _trigger(self, args: list[str], report: Report) -> None:
        """trigger ELEMENT [#TRACK] [NAME=VALUE...]: in the root or any instance of the tree."""
        if not args:
            raise UsageError("trigger ELEMENT [#TRACK] [NAME=VALUE...]")
        element, rest = args[0], args[1:]
        track = None
        if rest and rest[0].startswith("#") and rest[0][1:].isdigit():
            track = int(rest.pop(0)[1:])
        variables = parse_assignments(rest)
        live = [m for m in self.tree() if m.state is InstanceState.ACTIVE]
        found = [m for m in live if m.triggers_at(element)]
        if len(found) > 1:
            named = ", ".join(f"{m.id} ({m.process_id})" for m in found)
            raise UsageError(f"{element!r} waits for a trigger in {len(found)} instances: {named}")
        holder = found[0] if found else self.instance.trigger_holder(element)  # says why not
        self._checkpoint()
        holder.trigger(element, variables, report.events.append, track=track)
        where = "" if holder is self.instance else f" in {holder.id}"
        report.message = f"triggered {element}{where}"

    def _save(self, args: list[str], report: Report) -> None:
        report.message = (
            f"every step is committed; instance {self.instance.id} is in "
            f"{self.engine.database}: bpmn step --instance {self.instance.id} "
            f"--db {self.engine.database}"
        )

    def _advance(self, args: list[str], report: Report) -> None:
        clock = self.engine.clock
        if not isinstance(clock, VirtualClock):
            raise UsageError("advance needs the virtual clock (bpmn step --clock virtual)")
        if len(args) != 1:
            raise UsageError("advance DURATION (ISO 8601, e.g. PT30M or P2D)")
        try:
            clock.advance_to(clock.now() + parse_duration(args[0], clock.now()))
        except TimerValueError as error:
            raise UsageError(str(error)) from None
        except OverflowError:
            raise UsageError(f"{args[0]!r} would move the clock past the year 9999") from None
        report.message = f"the clock reads {clock.now().isoformat(timespec='seconds')}"

    def _message(self, args: list[str], report: Report) -> None:
        """message NAME [KEY] [NAME=VALUE...]: to this instance's subscription for it."""
        if not args:
            raise UsageError("message NAME [KEY] [NAME=VALUE...]")
        name, rest = args[0], args[1:]
        key = rest.pop(0) if rest and "=" not in rest[0] else None
        variables = parse_assignments(rest)
        waiting = [
            (member, s)
            for member in self.tree()
            for s in member.subscriptions()
            if s.kind == "message" and s.name == name and (s.key is None or s.key == key)
        ]
        if not waiting:
            raise UsageError(
                f"this instance waits for no message {name!r}"
                + (f" with key {key!r}" if key else "")
            )
        holder, subscription = waiting[0]
        self._checkpoint()
        holder.deliver(subscription.id, variables, report.events.append)
        report.message = f"message {name!r} received at {subscription.element}"

    def _signal(self, args: list[str], report: Report) -> None:
        """signal NAME [NAME=VALUE...]: broadcast, as a throw event would (other instances too)."""
        if not args:
            raise UsageError("signal NAME [NAME=VALUE...]")
        self._checkpoint()
        self.instance.throw_signal(args[0], parse_assignments(args[1:]), report.events.append)
        report.message = f"signal {args[0]!r} broadcast"

    def _quit(self, args: list[str], report: Report) -> None:
        self.done = True


# --- the command -------------------------------------------------------------------------------


@click.command()
@click.argument("files", nargs=-1, metavar="[FILE...]")
@click.option(
    "--process",
    "process_id",
    help="Id of the process, or of the collaboration, to step, in any FILE (default: as for "
    "`bpmn run`).",
)
@click.option("--instance", "instance_id", help="Step an existing instance instead.")
@start_option
@var_options
@db_option
@click.option("--handlers", type=click.Path(dir_okay=False), help="Service task handlers (.py).")
@click.option("--trust-scripts", is_flag=True, help="Run script tasks as full Python.")
@simulate_option
@path_option
@click.option(
    "--clock",
    type=click.Choice(["real", "virtual"]),
    default="virtual",
    show_default=True,
    help="virtual: `advance DURATION` moves time; timers fire when nothing else can happen.",
)
@click.option(
    "--view",
    type=click.Path(dir_okay=False),
    metavar="OUT.html",
    help="Keep this page current after every command (it reloads itself): open it beside.",
)
@json_option
def step(
    files: tuple[str, ...],
    process_id: str | None,
    instance_id: str | None,
    start_event: str | None,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    db: str,
    handlers: str | None,
    trust_scripts: bool,
    simulate: bool,
    search_path: tuple[str, ...],
    clock: str,
    view: str | None,
    as_json: bool,
) -> None:
    """Walk through the token flow one step at a time (type help at the prompt).

    The steps are those of the first FILE's instance and of every instance its call
    activities start: each token and action names the instance it is in.

    Commands are read from the terminal, or line by line from a pipe:
    echo -e "next\\ncontinue" | bpmn step models/loan-approval.bpmn --var amount=5000
    """
    if bool(files) == (instance_id is not None):
        raise click.UsageError("give a FILE to start, or --instance ID to go on with")
    engine = new_engine(
        db,
        clock=clock,
        handlers=handlers,
        trust_scripts=trust_scripts,
        simulate=simulate,
        search_path=search_path,
    )
    others: list[Instance] = []
    if instance_id is not None:
        instance = engine.instance(instance_id)
    else:
        loaded = load_files(engine, files)
        for definitions in loaded:  # the other files: where called processes are found
            engine.deploy(definitions)
        main, target, together = chosen_processes(loaded, process_id)
        variables = parse_variables(var_pairs, vars_file)
        if start_event is not None:  # the process (pool) of the file whose start event it is
            target, together = (None if together else process_id), False
        if together:  # a collaboration: its pools are stepped together
            pools = engine.start_collaboration(main, target, variables).instances()
        else:
            pools = [engine.start(main, target, variables, start_event=start_event)]
        instance, others = pools[0], pools[1:]
    stepper = Stepper(engine, instance, others)
    interactive = sys.stdin.isatty() and not as_json

    def render(report: Report) -> None:
        if as_json:
            click.echo(json_line(step_json(stepper, report)))
        else:
            step_report(console, stepper, report)
        if view is not None:
            write_view(view, stepper.instance)

    started = [instance, *others]
    named = ", ".join(f"instance {i.id} of {i.process_id}" for i in started)
    render(Report("start", message=named))
    if interactive:
        enable_completion(stepper)
    last = ""
    while not stepper.done:
        try:
            line = input("step> ") if interactive else sys.stdin.readline()
        except EOFError:
            break
        except KeyboardInterrupt:  # like a shell: Ctrl-C drops the line, not the session
            console.print("^C")
            continue
        if not interactive and not line:
            break
        if interactive and not line.strip():  # like pdb: Enter repeats the last command
            line = last
        last = line if line.strip() else last
        try:
            render(stepper.execute(line))
        except KeyboardInterrupt:  # a long `continue`: what is committed stays
            stepper.reload()
            console.print("[red]✗ interrupted[/]: every committed step is kept")
    raise SystemExit(int(ExitCode.for_state(stepper.outcome_state())))


def write_view(path: str, instance: Instance) -> None:
    """The page `--view` keeps current, replaced whole (a reader never sees half of it)."""
    write_user_file(path, instance_page(instance, reload_seconds=1))


def enable_completion(stepper: Stepper) -> None:
    """Tab completes commands and element ids at the `step>` prompt."""
    try:
        import readline
    except ImportError:  # not every Python has it; stepping works without
        return

    def complete(text: str, state: int) -> str | None:
        words = [*stepper.command_names, *stepper.element_ids()]
        matches = [w for w in words if w.startswith(text)]
        return matches[state] if state < len(matches) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" ")
    readline.parse_and_bind("tab: complete")
