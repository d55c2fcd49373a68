"""The terminal obeys the diagram no more: hostile ids, names, message and variable names are
shown as text by every command, never run as rich markup or terminal control sequences."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from bpmn_engine.terminal import UNWRAPPED_WIDTH, json_safe, print_line, safe, visible
from tests.cli.conftest import FIXTURES, Bpmn

HOSTILE = str(FIXTURES / "hostile-names.bpmn")
MESSAGE = "pay[/]ment[link=https://evil.example]"
TITLE = "\x1b]0;pwned\x07\x1b[2J"  # retitle the terminal, then clear it
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(done: subprocess.CompletedProcess, *codes: int) -> str:
    """The output of a command that exited with one of `codes` and printed nothing raw."""
    out = done.stdout + done.stderr
    assert done.returncode in codes, out
    assert "Traceback" not in out and "internal error" not in out, out
    assert not RAW.search(out), repr(out)
    assert "\x1b" not in out and "\x07" not in out
    return out


def test_visible_and_safe_show_what_the_text_holds() -> None:
    assert visible("a\x1b[2J\x07\r\x9b\u202eb\tc\n") == "a\\x1b[2J\\x07\\x0d\\x9b\\u202eb\tc\n"
    assert safe("UT[/] [link=x]") == "UT\\[/] \\[link=x]"
    assert json.loads(json_safe(json.dumps("\x7f\x85", ensure_ascii=False))) == "\x7f\x85"
    assert "\x85" not in json_safe(json.dumps("\x85", ensure_ascii=False))


def test_every_command_prints_hostile_names_as_text(bpmn: Bpmn) -> None:
    out = clean(bpmn("run", HOSTILE, "--var", f"x{TITLE}=1", "--var", "v=\x1b[31m[bold]red\r"), 3)
    # the markup is shown, not interpreted (interpreted, it would vanish or crash the run)
    assert "UT[/]" in out and "[link=https://evil.example]" in out
    assert "P[bold]hostile[/]" in out and "Review [bold]" in out
    assert "x\\x1b]0;pwned\\x07\\x1b[2J" in out
    [row] = json.loads("[" + bpmn("instances", "--json").stdout.strip() + "]")
    instance = row["id"]

    assert "P[bold]hostile[/]" in clean(bpmn("instances"), 0)
    shown = clean(bpmn("show", instance), 0)
    assert "UT[/]" in shown and "\\x1b[2J" in shown
    out = clean(bpmn("complete", instance, "UT[/]", "--var", f"y\r[/]{TITLE}=2"), 3)
    assert "y\\x0d[/]" in out and MESSAGE in out and "M[link=https://evil.example]" in out
    out = clean(bpmn("message", MESSAGE, "--var", f"z{TITLE}=3"), 0)
    assert "E[/]" in out and "end [bold]" in out
    assert "\\x1b]0;pwned" in clean(bpmn("message", f"nobody{TITLE}[/]"), 4)
    assert "[/]" in clean(bpmn("signal", f"sig{TITLE}[/]"), 4)

    # bad input naming hostile text: a clear error, exit 2
    assert "\\x1b[2J" in clean(bpmn("show", f"nope{TITLE}[/]"), 2)
    assert "[/]" in clean(bpmn("complete", instance, f"T{TITLE}[/]"), 2)
    clean(bpmn("run", HOSTILE, "--var", f"novalue{TITLE}"), 2)
    clean(bpmn("run", f"missing{TITLE}[/].bpmn"), 2)

    clean(bpmn("run", HOSTILE, "--var", f"again{TITLE}=1"), 3)
    rows = [json.loads(line) for line in bpmn("instances", "--json").stdout.splitlines()]
    [waiting] = [r["id"] for r in rows if r["state"] not in ("completed", "terminated")]
    assert "Review [bold] now terminated" in clean(bpmn("cancel", waiting), 0)


def test_step_shows_hostile_names_as_text(bpmn: Bpmn) -> None:
    commands = "continue\nvars\ngraph\nhistory\ntokens\nbreak UT[/]\nbreaks\n"
    commands += f"set w{TITLE}=1\ncomplete UT[/] q[/]=1\nnext [link=x]\ncontinue\n"
    commands += f"message {MESSAGE}\ncontinue\n"
    done = bpmn("step", HOSTILE, "--var", f"x{TITLE}=1", input=commands)
    out = clean(done, 0)
    assert "UT[/]" in out and "w\\x1b]0;pwned" in out and "E[/]" in out


def test_deploy_and_validate_show_hostile_names_as_text(bpmn: Bpmn, tmp_path: Path) -> None:
    start = tmp_path / "start.bpmn"
    start.write_text(
        Path(HOSTILE)
        .read_text()
        .replace(
            '<bpmn:startEvent id="S[bold]" name="start&#13;[link=https://evil.example]here">',
            '<bpmn:startEvent id="S[bold]" name="start [/]">'
            '<bpmn:messageEventDefinition messageRef="Msg_Pay" />',
        )
    )
    out = clean(bpmn("deploy", str(start)), 0)
    assert "S[bold]" in out and MESSAGE in out
    out = clean(bpmn("validate", HOSTILE), 0, 1)
    assert "hostile-names.bpmn" in out


def test_forced_colour_emits_styles_but_no_links_or_other_sequences(bpmn: Bpmn) -> None:
    """With colour forced on, the only escape sequences are rich's own colours (SGR)."""
    done = subprocess.run(
        [sys.executable, "-m", "cli", "run", HOSTILE, "--var", f"x{TITLE}=1"],
        cwd=bpmn.cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "FORCE_COLOR": "1", "TERM": "xterm-256color"},
        timeout=120,
    )
    assert done.returncode == 3, done.stderr
    out = done.stdout + done.stderr
    assert "\x1b[" in out  # colour is on
    without_sgr = re.sub("\x1b\\[[0-9;]*m", "", out)
    assert not RAW.search(without_sgr), repr(without_sgr)
    assert "[link=https://evil.example]" in without_sgr


def test_a_line_written_without_rich_is_the_line_rich_would_print() -> None:
    """`print_line` skips rich when no terminal reads it; what it prints stays the same."""
    for outside in ("abc0123", "S[bold]", "x[/]y", "bell\x07", "a:smile:b", "tab\there", "é ✓"):
        printed = []
        for take_rich in (True, False):
            out = io.StringIO()
            console = Console(file=out, highlight=False, soft_wrap=True, width=UNWRAPPED_WIDTH)
            if take_rich:
                console.print(f"done [bold]{safe(outside)}[/] at {safe(outside)}")
            else:
                print_line(
                    console,
                    f"done [bold]{safe(outside)}[/] at {safe(outside)}",
                    f"done {visible(outside)} at {visible(outside)}",
                )
            printed.append(out.getvalue())
        assert printed[0] == printed[1], outside


LONE_SURROGATE = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="p" isExecutable="true">
    <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="c"/>
    <scriptTask id="c" scriptFormat="python"><script>print('half \\ud83d of a pair')
SCRIPT</script></scriptTask>
    <sequenceFlow id="f2" sourceRef="c" targetRef="e"/><endEvent id="e"/>
  </process>
</definitions>
"""


def test_a_lone_surrogate_from_a_script_is_shown_escaped_and_never_stored(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    # given: a script prints half of a surrogate pair (it was an internal error: no terminal
    # and no UTF-8 writer takes it), and one stores it in a variable
    printing = tmp_path / "printing.bpmn"
    printing.write_text(LONE_SURROGATE.replace("SCRIPT", "done = True"), encoding="utf-8")
    storing = tmp_path / "storing.bpmn"
    storing.write_text(LONE_SURROGATE.replace("SCRIPT", "x = '\\ud83d'"), encoding="utf-8")
    # when / then: what it printed is shown as its escape, in words and in --json
    shown = clean(bpmn("run", str(printing), "--db", ":memory:"), 0)
    assert "half \\ud83d of a pair" in shown
    done = bpmn("run", str(printing), "--db", ":memory:", "--json")
    clean(done, 0)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    [printed] = [line["text"] for line in lines if line["event"] == "script.printed"]
    assert printed == "half \\ud83d of a pair\n"
    # a variable holding it: an incident naming it, in the database and on the terminal
    failed = clean(bpmn("run", str(storing), "--db", str(tmp_path / "runs.db")), 1)
    assert "variable 'x' holds text that is not Unicode (a lone surrogate, \\ud83d)" in failed
