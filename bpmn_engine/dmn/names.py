"""DMN names FEEL cannot read as written (`Pre-bureau risk category`), and their stand-ins.

FEEL's grammar here reads a name as words separated by single spaces, none a keyword; the DMN
spec also lets names hold `-`, `/`, `'`, `+`, `*` and `.`, which only a parser that knows the
names in scope could tell from arithmetic. So each such name gets a FEEL-safe stand-in, its
occurrences in expression text (outside string literals) are replaced before compiling, and
the evaluator binds the stand-in alongside the real name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

KEYWORDS = frozenset(
    {
        "and", "or", "not", "in", "if", "then", "else", "for", "return", "some", "every",
        "satisfies", "between", "instance", "of", "function", "true", "false", "null",
    }
)  # fmt: skip
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def readable(name: str) -> bool:
    """Whether FEEL reads `name` as one name, as written."""
    words = name.split(" ")
    return all(_WORD.fullmatch(w) and w not in KEYWORDS for w in words) and not name.startswith("_")


def aliases(names: Iterable[str]) -> dict[str, str]:
    """A stand-in for each name FEEL cannot read as written."""
    found: dict[str, str] = {}
    for name in sorted(set(names)):
        if name and not readable(name):
            base = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") or "name"
            found[name] = f"dmn{len(found)}_{base}"
    return found


class Rewriter:
    """Replaces every aliased name in FEEL text, longest first, outside string literals."""

    def __init__(self, table: dict[str, str]) -> None:
        self.table = table
        ordered = sorted(table, key=len, reverse=True)
        self.pattern = (
            re.compile(
                "|".join(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])" for n in ordered)
            )
            if ordered
            else None
        )

    def __call__(self, text: str) -> str:
        if self.pattern is None:
            return text
        pattern = self.pattern
        parts: list[str] = []
        last = 0
        for literal in _STRING.finditer(text):
            parts.append(
                pattern.sub(lambda m: self.table[m.group(0)], text[last : literal.start()])
            )
            parts.append(literal.group(0))
            last = literal.end()
        parts.append(pattern.sub(lambda m: self.table[m.group(0)], text[last:]))
        return "".join(parts)
