"""Reading TOML a user wrote (scenario files, recordings, `.bpmnlint`-style configs), bounded.

`tomllib` is recursive and, for dotted keys, quadratic: `a.a.a...` with 50,000 parts in
100 KB took gigabytes, and arrays nested 500 deep raised RecursionError. Neither is anything
a person writes, so both are refused before `tomllib` sees the text: at most MAX_NESTING
arrays and inline tables inside one another, and at most MAX_KEY_PARTS parts in one key.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from bpmn_engine.errors import LoadError

MAX_NESTING = 64
MAX_KEY_PARTS = 64
_STRING = re.compile(
    "|".join(
        (
            r'"""(?:[^"\\]|\\.|"(?!""))*"""',  # a multi-line basic string
            r"\'\'\'.*?\'\'\'",  # a multi-line literal string
            r'"(?:[^"\\\n]|\\.)*"',  # a basic string
            r"'[^'\n]*'",  # a literal string
        )
    ),
    re.DOTALL,
)
_COMMENT = re.compile(r"#[^\n]*")


def _shape(text: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """(the deepest nesting, its line) and (the most parts of one key, its line), over the
    text with its strings and comments taken out."""
    deepest = parts = 0
    deep_line = parts_line = line = 1
    depth = dots = 0
    position = 0
    while position < len(text):
        char = text[position]
        if char in "\"'":
            found = _STRING.match(text, position)
            end = found.end() if found else len(text)
            line += text.count("\n", position, end)
            position = end
            continue
        if char == "#":
            found = _COMMENT.match(text, position)
            position = found.end() if found else len(text)
            continue
        if char == "\n":
            line += 1
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest, deep_line = depth, line
        elif char in "]}":
            depth = max(depth - 1, 0)
        if char == ".":
            dots += 1
            if dots + 1 > parts:
                parts, parts_line = dots + 1, line
        elif char in "=\n,{}[]":
            dots = 0
        position += 1
    return (deepest, deep_line), (parts, parts_line)


def load_toml(text: str, file: str) -> dict[str, Any]:
    """The TOML document in `text`, or a LoadError naming `file` (and the line)."""
    (deepest, deep_line), (parts, parts_line) = _shape(text)
    if deepest > MAX_NESTING:
        raise LoadError(
            f"arrays and tables nested {deepest} deep: at most {MAX_NESTING}",
            file=file,
            line=deep_line,
        )
    if parts > MAX_KEY_PARTS:
        raise LoadError(
            f"a key of {parts} dotted parts: at most {MAX_KEY_PARTS}", file=file, line=parts_line
        )
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"\(at line (\d+), column \d+\)", str(error))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(error))
        where = int(found.group(1)) if found else None
        raise LoadError(f"not valid TOML: {message}", file=file, line=where) from None
    except RecursionError:
        raise LoadError("nested too deeply to read", file=file) from None
