"""`bpmn step`: the stepping API, piped commands, back, choose, breakpoints, a real terminal."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import subprocess
import sys
import termios
import time
from datetime import UTC, datetime
from pathlib import Path

from bpmn_engine import Engine
from bpmn_engine.cli.step import Stepper
from bpmn_engine.runtime.clock import VirtualClock
from tests.cli.conftest import FIXTURES, Bpmn

FORK = str(FIXTURES / "fork-and-subprocess.bpmn")


def stepper(tmp_path: Path, amount: int = 3) -> Stepper:
    engine = Engine(tmp_path / "step.db")
    return Stepper(engine, engine.start(FORK, variables={"amount": amount}))


def state(s: Stepper) -> dict:
    """Everything observable about the instance, reopened from its rows alone."""
    return s.engine.instance(s.instance.id).to_json()


def test_back_restores_exactly_the_state_before_the_undone_steps(tmp_path: Path) -> None:
    s = stepper(tmp_path)
    snapshots = [state(s)]
    while s.actions():
        assert s.execute("next").ok
        snapshots.append(state(s))
    assert snapshots[-1]["state"] == "completed"
    # the run crossed the parallel join and the subprocess; walk all the way back
    events = {e["event"] for e in snapshots[-1]["history"]}
    assert {"track.merged", "track.created"} <= events
    for expected in reversed(snapshots[:-1]):
        assert s.execute("back").ok
        assert state(s) == expected
    assert not s.execute("back").ok


def test_next_after_back_re_executes_deterministically(tmp_path: Path) -> None:
    s = stepper(tmp_path)
    s.execute("continue")
    finished = state(s)
    s.execute("back 5")
    s.execute("continue")
    again = state(s)
    strip = lambda doc: [(e["event"], e.get("element")) for e in doc["history"]]  # noqa: E731
    assert strip(again) == strip(finished)
    assert again["variables"] == finished["variables"]


def test_choose_overrides_a_condition(tmp_path: Path) -> None:
    s = stepper(tmp_path, amount=100)  # score 200: the condition says High
    report = s.execute("choose Decide Flow_Low")
    assert report.ok, report.message
    s.execute("continue")
    assert s.instance.outcome().end_event == "Low"
    bad = s.execute("choose Decide Flow_Nowhere")
    assert not bad.ok and "Flow_High" in bad.message


def test_breakpoint_inside_a_subprocess_stops_before_it(tmp_path: Path) -> None:
    s = stepper(tmp_path)
    assert s.execute("break Score").ok
    report = s.execute("continue")
    assert "breakpoint before Score" in report.message
    assert [t["element"] for t in s.instance.tokens() if t["state"] == "alive"] == ["Score"]
    assert "score" not in s.instance.variables
    s.execute("continue")
    assert s.instance.outcome().state == "completed"


def test_set_and_unset_change_variables_and_can_be_undone(tmp_path: Path) -> None:
    s = stepper(tmp_path)
    report = s.execute("set amount=7 note=hello")
    assert report.variable_changes() == {"amount": (3, 7), "note": (None, "hello")}
    s.execute("unset note")
    assert "note" not in s.instance.variables
    s.execute("back 2")
    assert s.instance.variables == {"amount": 3}


def test_unknown_commands_are_reported_not_raised(tmp_path: Path) -> None:
    s = stepper(tmp_path)
    for line in ("fly", "next Nowhere", "complete Nothing", "back 9", "set x", 'set "a'):
        assert not s.execute(line).ok


def test_piped_commands_print_one_json_object_per_command(bpmn: Bpmn) -> None:
    done = bpmn(
        "step",
        FORK,
        "--var",
        "amount=3",
        "--json",
        "--db",
        ":memory:",
        input="next\nnext\ntokens\ncontinue\n",
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["command"] for line in lines] == ["start", "next", "next", "tokens", "continue"]
    assert lines[2]["tokens"][0]["element"] in ("Prepare", "Review")
    assert {t["element"] for t in lines[2]["tokens"]} == {"Prepare", "Review"}
    assert lines[-1]["state"] == "completed"
    assert lines[-1]["variables"]["score"] == 6


def test_an_empty_line_changes_no_variable(bpmn: Bpmn) -> None:
    done = bpmn(
        "step", FORK, "--var", "amount=3", "--json", "--db", ":memory:", input="next\n\nquit\n"
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["command"] for line in lines] == ["start", "next", "", "quit"]
    assert lines[2]["ok"] and lines[2]["changes"] == {} and lines[2]["variables"]["amount"] == 3


def test_piped_plain_output_has_no_control_codes(bpmn: Bpmn) -> None:
    done = bpmn("step", FORK, "--var", "amount=3", "--db", ":memory:", input="next\nquit\n")
    assert done.returncode == 3  # quit part way: not finished
    assert "\x1b" not in done.stdout
    assert "Start" in done.stdout and "Split" in done.stdout


def test_a_real_terminal_session(tmp_path: Path) -> None:
    main, child = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "step", FORK, "--var", "amount=3", "--db", ":memory:"],
        stdin=child,
        stdout=child,
        stderr=child,
        cwd=tmp_path,
        close_fds=True,
        env={**os.environ, "TERM": "dumb", "COLUMNS": "120"},
    )
    os.close(child)
    output = b""

    def read_until(needle: bytes, timeout: float = 30) -> None:
        nonlocal output
        deadline = time.monotonic() + timeout
        while needle not in output and time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.2)
            if ready:
                try:
                    output += os.read(main, 4096)
                except OSError:
                    return

    read_until(b"step> ")
    os.write(main, b"continue\n")
    read_until(b"completed")
    os.write(main, b"quit\n")
    assert process.wait(timeout=30) == 0
    os.close(main)
    assert b"completed" in output


def controlling_terminal() -> None:
    """In the child: a new session whose controlling terminal is the pty on stdin."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def test_a_terminal_session_repeats_on_enter_and_survives_ctrl_c(tmp_path: Path) -> None:
    main, child = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "step", FORK, "--var", "amount=3", "--db", ":memory:"],
        stdin=child,
        stdout=child,
        stderr=child,
        cwd=tmp_path,
        close_fds=True,
        preexec_fn=controlling_terminal,  # so that ^C on the pty sends it SIGINT
        env={**os.environ, "TERM": "dumb", "COLUMNS": "120"},
    )
    os.close(child)
    output = b""

    def read_until(needle: bytes, count: int = 1, timeout: float = 120) -> None:
        """Read until `needle` was printed `count` times (the deadline only stops a hang)."""
        nonlocal output
        deadline = time.monotonic() + timeout
        while output.count(needle) < count and time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.2)
            if ready:
                try:
                    output += os.read(main, 4096)
                except OSError:  # the session ended
                    break
        assert output.count(needle) >= count, (needle, output.decode(errors="replace"))

    read_until(b"step> ")
    os.write(main, b"next\n")
    read_until(b"step> ", 2)
    os.write(main, b"\n")  # Enter: `next` again
    read_until(b"step> ", 3)
    assert output.count(b"enter ") >= 2 and b"(track #1)" in output
    steps_before = output.count(b"(track #")
    os.write(main, b"garbage that is never run")
    read_until(b"never run")
    # a ^C that arrives before readline waits for a key is only seen at the next key (CPython's
    # readline checks signals when its select() is interrupted): wait until readline holds
    # the terminal (it turns canonical mode off) before pressing it, as a person would
    deadline = time.monotonic() + 120
    while termios.tcgetattr(main)[3] & termios.ICANON and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not termios.tcgetattr(main)[3] & termios.ICANON, output.decode(errors="replace")
    time.sleep(0.2)  # readline goes from preparing the terminal to select() in microseconds
    os.write(main, b"\x03")  # Ctrl-C: the line is dropped
    read_until(b"step> ", 4)
    os.write(main, b"continue\n")
    read_until(b"completed")
    os.write(main, b"quit\n")
    code = process.wait(timeout=30)
    os.close(main)
    assert code == 0, output.decode(errors="replace")
    # the dropped line never ran (whether the terminal echoed ^C depends on whether readline
    # or the pty's line discipline saw it first: a loaded machine decides that)
    assert b"unknown command" not in output and b"garbage" not in output.split(b"completed")[-1]
    assert steps_before == 2


WAIT_ONE_HOUR = (
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" '
    'targetNamespace="t"><process id="p" isExecutable="true"><startEvent id="s"/>'
    '<sequenceFlow id="f1" sourceRef="s" targetRef="w"/><intermediateCatchEvent id="w">'
    "<timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>"
    '</intermediateCatchEvent><sequenceFlow id="f2" sourceRef="w" targetRef="e"/>'
    '<endEvent id="e"/></process></definitions>'
)


def test_advance_moves_the_virtual_clock_and_a_due_timer_can_fire(tmp_path: Path) -> None:
    path = tmp_path / "wait.bpmn"
    path.write_text(WAIT_ONE_HOUR)
    engine = Engine(tmp_path / "t.db", clock=VirtualClock(datetime(2026, 1, 1, tzinfo=UTC)))
    s = Stepper(engine, engine.start(path))
    s.execute("next")
    s.execute("next")  # the token now waits at the timer
    assert [a.kind for a in s.actions()] == ["timer"]  # nothing else: the clock may jump
    assert s.execute("advance PT30M").message.endswith("2026-01-01T00:30:00+00:00")
    assert not s.execute("advance soon").ok
    # a debugger's clock moves only with `advance`: continue and next stop at the timer
    report = s.execute("continue")
    assert report.message == "0 steps; waiting for timer w, due in PT30M: advance PT30M"
    refused = s.execute("next")
    assert not refused.ok and refused.message == "waiting for timer w, due in PT30M: advance PT30M"
    assert engine.clock.now() == datetime(2026, 1, 1, 0, 30, tzinfo=UTC)
    s.execute("advance PT30M")
    s.execute("continue")
    assert s.instance.outcome().state == "completed"
    assert engine.clock.now() == datetime(2026, 1, 1, 1, tzinfo=UTC)


def test_continue_stops_at_a_timer_that_is_not_due_piped(bpmn: Bpmn, tmp_path: Path) -> None:
    path = tmp_path / "wait.bpmn"
    path.write_text(WAIT_ONE_HOUR)
    done = bpmn("step", str(path), input="continue\nadvance PT1H\ncontinue\n")
    assert done.returncode == 0, done.stdout + done.stderr
    first, rest = done.stdout.split("the clock reads", 1)
    assert "waiting for timer w, due in PT1H: advance PT1H" in first
    assert "(due in PT1H: advance PT1H)" in first  # the action list says so too
    assert "completed" in rest


def test_an_internal_error_in_a_command_keeps_the_session(tmp_path: Path, monkeypatch) -> None:
    s = stepper(tmp_path)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(type(s.instance), "step", broken)
    report = s.execute("next")
    assert not report.ok and report.message == "internal error: RuntimeError: a bug"
    monkeypatch.undo()
    assert s.execute("continue").ok
    assert s.instance.outcome().state == "completed"


def test_message_and_signal_commands_move_waiting_tokens(tmp_path: Path) -> None:
    path = tmp_path / "wait.bpmn"
    path.write_text(
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" '
        'targetNamespace="t"><message id="M" name="paid"/><signal id="S" name="go"/>'
        '<process id="p" isExecutable="true"><startEvent id="s"/>'
        '<sequenceFlow id="f1" sourceRef="s" targetRef="m"/><intermediateCatchEvent id="m">'
        '<messageEventDefinition messageRef="M"/></intermediateCatchEvent>'
        '<sequenceFlow id="f2" sourceRef="m" targetRef="g"/><intermediateCatchEvent id="g">'
        '<signalEventDefinition signalRef="S"/></intermediateCatchEvent>'
        '<sequenceFlow id="f3" sourceRef="g" targetRef="e"/><endEvent id="e"/>'
        "</process></definitions>"
    )
    engine = Engine(tmp_path / "t.db")
    s = Stepper(engine, engine.start(path))
    s.execute("continue")
    assert not s.execute("message unknown").ok
    assert s.execute("message paid amount=3").ok
    s.execute("continue")
    assert s.instance.outcome().waiting_for[0]["reason"] == "signal"
    assert s.execute("signal go").ok
    s.execute("continue")
    assert s.instance.outcome().state == "completed"
    assert s.instance.variables == {"amount": 3}


def test_completing_a_task_whose_token_goes_into_an_or_join_then_continue(bpmn: Bpmn) -> None:
    """The loan model's inclusive join with two tokens waiting and a third on its way."""
    done = bpmn(
        "step",
        str(FIXTURES.parent.parent / "models" / "loan-approval.bpmn"),
        *("--var", "income=4200", "--var", "amount=15000", "--var", "hasCollateral=true"),
        input="continue\ncomplete Task_ManualReview reviewOk=true\ncontinue\n",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "internal error" not in done.stderr and "Loan approved" in done.stdout


WAIT_FOR_GO = (
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" '
    'targetNamespace="t"><signal id="S" name="go"/>'
    '<process id="p" isExecutable="true"><startEvent id="s"/>'
    '<sequenceFlow id="f1" sourceRef="s" targetRef="g"/><intermediateCatchEvent id="g">'
    '<signalEventDefinition signalRef="S"/></intermediateCatchEvent>'
    '<sequenceFlow id="f2" sourceRef="g" targetRef="e"/><endEvent id="e"/>'
    "</process></definitions>"
)


def test_back_after_a_signal_that_woke_another_instance_is_refused(tmp_path: Path) -> None:
    """The signal reached another instance: going back past it would leave that instance
    woken by a signal that was never sent. Refused, and nothing changes; going back over
    the stepped instance's own receipt of it is fine."""
    path = tmp_path / "go.bpmn"
    path.write_text(WAIT_FOR_GO)
    engine = Engine(tmp_path / "t.db")
    other = engine.start(path)
    other.run()
    s = Stepper(engine, engine.start(path))
    s.execute("continue")
    assert s.execute("signal go").ok
    assert engine.instance(other.id).outcome().state == "completed"
    before = (state(s), engine.instance(other.id).to_json())
    refused = s.execute("back")
    assert not refused.ok
    assert f"instance {other.id} already received" in refused.message
    assert (state(s), engine.instance(other.id).to_json()) == before
    assert engine.instance(other.id).outcome().state == "completed"


def test_back_works_after_reopening_the_session(bpmn: Bpmn, tmp_path: Path) -> None:
    """`bpmn step --instance ID` can go back over the steps of an earlier session."""
    db = str(tmp_path / "s.db")
    first = bpmn("step", FORK, "--var", "amount=3", "--json", "--db", db, input="next\nnext\n")
    assert first.returncode == 3, first.stderr  # the instance is still active: as for run
    lines = [json.loads(line) for line in first.stdout.splitlines()]
    instance = lines[0]["result"].split()[1]
    after_one = [t["element"] for t in lines[1]["tokens"]]
    second = bpmn(
        "step", "--instance", instance, "--json", "--db", db, input="back\ntokens\nback 5\n"
    )
    assert second.returncode == 3, second.stderr
    replies = [json.loads(line) for line in second.stdout.splitlines()]
    assert replies[1]["ok"] and replies[1]["result"] == "back 1 step"
    assert [t["element"] for t in replies[2]["tokens"]] == after_one
    assert not replies[3]["ok"] and "at most 1 steps" in replies[3]["result"]


def test_step_starts_an_instance_waiting_at_its_message_and_signal_starts(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    path = tmp_path / "starts.bpmn"
    path.write_text(
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" '
        'targetNamespace="t"><message id="M" name="paid"/><signal id="S" name="go"/>'
        '<process id="p" isExecutable="true">'
        '<startEvent id="byMessage"><messageEventDefinition messageRef="M"/></startEvent>'
        '<startEvent id="bySignal"><signalEventDefinition signalRef="S"/></startEvent>'
        '<sequenceFlow id="f1" sourceRef="byMessage" targetRef="paidEnd"/>'
        '<sequenceFlow id="f2" sourceRef="bySignal" targetRef="goEnd"/>'
        '<endEvent id="paidEnd"/><endEvent id="goEnd"/></process></definitions>'
    )
    done = bpmn("step", str(path), "--json", input="message paid amount=5\ncontinue\n")
    assert done.returncode == 0, done.stderr  # refused (2) before: no none start event
    start, message, go_on = (json.loads(line) for line in done.stdout.splitlines())
    assert [(t["element"], t["state"]) for t in start["tokens"]] == [
        ("byMessage", "waiting"),
        ("bySignal", "waiting"),
    ]
    assert message["ok"] and [t["element"] for t in message["tokens"]] == ["paidEnd"]
    assert (go_on["state"], go_on["variables"]) == ("completed", {"amount": 5})


# --- breakpoints on multi-instance activities, set at a stop, continue ------------------------


def inline(tmp_path: Path, body: str) -> str:
    path = tmp_path / "inline.bpmn"
    path.write_text(
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" '
        f'targetNamespace="t"><process id="p" isExecutable="true">{body}</process></definitions>'
    )
    return str(path)


def each_item(sequential: bool) -> str:
    """S -> T (a task per item of `items`; its `r` collected into `results`) -> E."""
    return (
        '<startEvent id="S"/><sequenceFlow id="f1" sourceRef="S" targetRef="T"/>'
        f'<task id="T"><multiInstanceLoopCharacteristics isSequential="{str(sequential).lower()}">'
        "<loopDataInputRef>items</loopDataInputRef><loopDataOutputRef>results</loopDataOutputRef>"
        '<inputDataItem id="item"/><outputDataItem id="r"/></multiInstanceLoopCharacteristics>'
        '</task><sequenceFlow id="f2" sourceRef="T" targetRef="E"/><endEvent id="E"/>'
    )


def at(s: Stepper, element: str) -> list[int]:
    """The tracks of the tokens ready to enter `element`."""
    return [a.track for a in s.actions() if a.kind == "enter" and a.element == element]


def test_a_breakpoint_on_a_parallel_multi_instance_stops_before_each_inner_instance(
    tmp_path: Path,
) -> None:
    engine = Engine(tmp_path / "t.db")
    s = Stepper(
        engine, engine.start(inline(tmp_path, each_item(False)), variables={"items": [1, 2, 3]})
    )
    s.execute("break T")
    stops = []
    while (report := s.execute("continue")).message.startswith("breakpoint"):
        stops.append((report.message, at(s, "T")))
    first, second, third = stops  # one stop per inner instance, none before the body
    assert first == ("breakpoint before T (track #2)", [2, 3, 4])  # all three exist already
    assert second == ("breakpoint before T (track #3)", [3, 4])
    assert third == ("breakpoint before T (track #4)", [4])
    assert s.instance.outcome().state == "completed"


def test_a_breakpoint_on_a_sequential_multi_instance_stops_before_each_inner_instance(
    tmp_path: Path,
) -> None:
    engine = Engine(tmp_path / "t.db")
    s = Stepper(
        engine, engine.start(inline(tmp_path, each_item(True)), variables={"items": [1, 2]})
    )
    s.execute("break T")
    stops = []
    while (report := s.execute("continue")).message.startswith("breakpoint"):
        stops.append((report.message, at(s, "T")))
    assert stops == [
        ("breakpoint before T (track #2)", [2]),
        ("breakpoint before T (track #3)", [3]),
    ]


def test_set_at_a_stop_writes_into_the_inner_instance_and_is_collected(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "t.db")
    s = Stepper(
        engine, engine.start(inline(tmp_path, each_item(False)), variables={"items": [1, 2, 3]})
    )
    s.execute("break T")
    s.execute("continue")
    assert s.execute('set r="first"').ok
    s.execute("continue")
    report = s.execute('set r="second"')
    assert report.ok and report.message == "r for the token at T (track #3)"
    assert "r" not in s.instance.variables  # not a process variable
    s.execute("continue")
    s.execute("continue")
    assert s.instance.outcome().state == "completed"
    assert s.instance.variables == {"items": [1, 2, 3], "results": ["first", "second", None]}


def test_set_with_no_stopped_token_writes_into_the_process_scope(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "t.db")
    s = Stepper(engine, engine.start(inline(tmp_path, each_item(True)), variables={"items": [1]}))
    s.execute("break T")
    s.execute("continue")
    assert s.execute("next").ok  # the stopped token moves on: no stop any more
    assert s.execute("set r=5").ok
    s.execute("continue")
    assert s.instance.variables == {"items": [1], "r": 5, "results": [None]}


def test_unset_at_a_stop_removes_the_stopped_tokens_variable(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "t.db")
    s = Stepper(engine, engine.start(inline(tmp_path, each_item(False)), variables={"items": [1]}))
    s.execute("break T")
    s.execute("continue")
    assert not s.execute("unset nowhere").ok
    assert s.execute("unset item").ok  # the inner instance's element variable
    assert s.execute("set r=item").ok  # a string: `item` is no JSON
    s.execute("continue")
    assert s.instance.variables == {"items": [1], "results": ["item"]}


BRANCHES_WITH_BREAKPOINTS = (
    '<startEvent id="S"/><parallelGateway id="Fork"/><parallelGateway id="Join"/>'
    '<task id="A"/><task id="B"/><endEvent id="E"/>'
    '<sequenceFlow id="f1" sourceRef="S" targetRef="Fork"/>'
    '<sequenceFlow id="f2" sourceRef="Fork" targetRef="A"/>'
    '<sequenceFlow id="f3" sourceRef="Fork" targetRef="B"/>'
    '<sequenceFlow id="f4" sourceRef="A" targetRef="Join"/>'
    '<sequenceFlow id="f5" sourceRef="B" targetRef="Join"/>'
    '<sequenceFlow id="f6" sourceRef="Join" targetRef="E"/>'
)


def test_continue_steps_over_only_the_breakpoint_it_is_stopped_at(tmp_path: Path) -> None:
    """Two tokens stand before breakpoints without a stop at either (moved there by `next`):
    `continue` stops at the first, then steps over that one only and stops at the other."""
    engine = Engine(tmp_path / "t.db")
    s = Stepper(engine, engine.start(inline(tmp_path, BRANCHES_WITH_BREAKPOINTS)))
    s.execute("break A B")
    s.execute("next")
    s.execute("next")
    assert sorted(a.element for a in s.actions()) == ["A", "B"]
    assert s.execute("continue").message == "breakpoint before A (track #1)"
    assert s.execute("continue").message == "breakpoint before B (track #2)"
    assert s.execute("continue").message.endswith("steps")
    assert s.instance.outcome().state == "completed"


def test_a_stop_inside_a_multi_instance_never_steps_over_another_instances_stop(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    """The same, piped through `bpmn step --json`: each inner instance stops once."""
    done = bpmn(
        "step",
        inline(tmp_path, each_item(False)),
        "--var",
        "items=[1, 2]",
        "--json",
        "--db",
        ":memory:",
        input='break T\ncontinue\nset r="one"\ncontinue\nset r="two"\ncontinue\n',
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["result"] for line in lines if line["command"] == "continue"][:2] == [
        "breakpoint before T (track #2)",
        "breakpoint before T (track #3)",
    ]
    assert lines[-1]["state"] == "completed"
    assert lines[-1]["variables"]["results"] == ["one", "two"]


def test_a_breakpoint_on_a_standard_loop_stops_before_each_iteration(tmp_path: Path) -> None:
    body = (
        '<startEvent id="S"/><sequenceFlow id="f1" sourceRef="S" targetRef="T"/>'
        '<task id="T"><standardLoopCharacteristics loopMaximum="2"/></task>'
        '<sequenceFlow id="f2" sourceRef="T" targetRef="E"/><endEvent id="E"/>'
    )
    engine = Engine(tmp_path / "t.db")
    s = Stepper(engine, engine.start(inline(tmp_path, body)))
    s.execute("break T")
    stops = []
    while (report := s.execute("continue")).message.startswith("breakpoint"):
        stops.append(report.message)
    assert stops == ["breakpoint before T (track #2)", "breakpoint before T (track #3)"]
    assert s.instance.outcome().state == "completed"


HANDOVER = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <message id="M_Job" name="job"/>
  <collaboration id="handover">
    <participant id="P_Boss" processRef="boss"/>
    <participant id="P_Worker" processRef="worker"/>
  </collaboration>
  <process id="boss" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="hand_out"/>
    <intermediateThrowEvent id="hand_out"><messageEventDefinition messageRef="M_Job"/>
    </intermediateThrowEvent>
    <sequenceFlow id="f2" sourceRef="hand_out" targetRef="sign"/>
    <userTask id="sign"/>
    <sequenceFlow id="f3" sourceRef="sign" targetRef="done"/>
    <endEvent id="done"/>
  </process>
  <process id="worker" isExecutable="true">
    <startEvent id="got"><messageEventDefinition messageRef="M_Job"/></startEvent>
    <sequenceFlow id="w1" sourceRef="got" targetRef="work"/>
    <userTask id="work"/>
    <sequenceFlow id="w2" sourceRef="work" targetRef="worked"/>
    <endEvent id="worked"/>
  </process>
</definitions>
"""


def test_step_of_a_collaboration_shows_the_tokens_of_every_instance(bpmn: Bpmn) -> None:
    """The boss's message starts the worker within the session: `continue` moves both, the
    tokens of both show, and the session ends completed only once both are."""
    (bpmn.cwd / "handover.bpmn").write_text(HANDOVER)
    commands = "continue\ncomplete work\ncontinue\ncomplete sign\ncontinue\n"
    done = bpmn("step", "handover.bpmn", "--process", "handover", "--json", input=commands)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["result"].endswith(" of boss")
    tokens = {(t["process"], t["element"], t["state"]) for t in lines[1]["tokens"]}
    assert tokens == {("boss", "sign", "waiting"), ("worker", "work", "waiting")}
    assert lines[1]["state"] == "waiting"
    assert {a["element"] for a in lines[1]["actions"]} == {"sign", "work"}
    assert lines[3]["state"] == "waiting"  # the worker is done, the boss still waits to sign
    assert [(t["process"], t["element"]) for t in lines[3]["tokens"]] == [("boss", "sign")]
    assert (lines[5]["state"], lines[5]["tokens"]) == ("completed", [])


def test_step_gives_a_message_to_the_pool_about_to_wait_for_it_as_run_does(bpmn: Bpmn) -> None:
    """player_a pings before player_b has moved; on_demand starts on ping too. Stepping
    player_a first, the ping is kept until nothing moves, and player_b takes it on the way:
    the session completes as `bpmn run` does (it used to start on_demand and deadlock)."""
    ping_pong = str(FIXTURES / "calls" / "ping-pong.bpmn")
    done = bpmn("step", ping_pong, "--json", "--db", ":memory:", input="continue\n")
    assert done.returncode == 0, done.stdout
    last = json.loads(done.stdout.splitlines()[-1])
    assert (last["state"], last["tokens"]) == ("completed", [])
    started = [e["process"] for e in last["events"] if e["event"] == "instance.started"]
    assert "on_demand" not in started
