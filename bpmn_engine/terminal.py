"""Text from a diagram, a variable or the command line, made safe to show in a terminal.

Element ids, names, message and variable names are written by whoever wrote the diagram or
typed the command: printed as they are, `[/]` breaks rich's markup, `[link=...]` becomes a
hyperlink and `ESC ] 0 ; ... BEL` retitles the terminal. Everything the `bpmn` command prints
that came from outside passes through `visible` (control characters shown as `\\x1b`) and,
where rich reads markup, through `safe` (`visible`, then markup escaped).
"""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.markup import escape

# C0 but tab and newline, DEL, C1 (0x9b is a one-byte CSI on some terminals), and the Unicode
# line separators and bidirectional overrides that reorder or split what a reader sees.
_HIDDEN = [
    *(c for c in range(0x20) if c not in (0x09, 0x0A)),
    0x7F,
    *range(0x80, 0xA0),
    0x2028,
    0x2029,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
]
_VISIBLE = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _HIDDEN}
_JSON = {c: f"\\u{c:04x}" for c in _HIDDEN}

# Wide enough that nothing a run prints is wrapped or cut when no terminal reads it.
UNWRAPPED_WIDTH = 1_000_000


def visible(text: Any) -> str:
    """`text` with every control character replaced by its `\\xNN` escape."""
    return str(text).translate(_VISIBLE)


def safe(text: Any) -> str:
    """`text` ready to put inside rich markup: control characters shown, markup escaped."""
    return escape(visible(text))


def json_safe(text: str) -> str:
    """A JSON document with DEL, C1 and bidi controls as `\\uNNNN` (still the same JSON).

    `json.dumps` escapes C0 itself; with `ensure_ascii=False` the others would reach the
    terminal raw. They can only occur inside strings, where `\\uNNNN` means the same.
    """
    return text.translate(_JSON)


def new_console(stderr: bool = False) -> Console:
    """A console for stdout (or stderr) that never wraps or cuts lines when it is not a
    terminal: a CI log or `| cat` must keep a printed command on one line."""
    stream = sys.stderr if stderr else sys.stdout
    tty = stream.isatty()
    return Console(
        stderr=stderr,
        highlight=False,
        soft_wrap=not tty or stderr,
        width=None if tty else UNWRAPPED_WIDTH,
    )


def print_line(console: Console, markup: str, text: str) -> None:
    """Print `markup` (rich markup built with `safe`), or `text`, the same line without markup
    (built with `visible`), written as it is when rich would print it unchanged: no terminal
    reads it (no style, no wrapping) and it holds no `:emoji:` code nor a tab. A worker prints
    a line per instance, and rich takes about 0.2 ms to render one."""
    if console.is_terminal or ":" in text or "\t" in text:
        console.print(markup)
        return
    out = console.file
    out.write(text + "\n")
    out.flush()  # as rich does: a log that follows the worker sees each line at once
