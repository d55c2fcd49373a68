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
# the spec's name start and part characters (DMN 1.5 grammar rules 28-29), as `feel.lark`'s
# NAME reads them: `Größe`, `名前` and `🐎` are names as written
_START = (
    r"A-Za-z_\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D"
    r"\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD\U00010000-\U000EFFFF"
)
_PART = _START + r"0-9\u00B7\u0300-\u036F\u203F-\u2040"
_WORD = re.compile(rf"[{_START}][{_PART}]*")
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


MAX_ALIASES = 1_000
"""Most names a set of DMN files may declare that FEEL cannot read as written (real models
have a few dozen); more is refused at load, so that rewriting stays cheap."""
_TOKEN = re.compile(rf"[{_START}][{_PART}]*|[^\s{_PART}]")


class Rewriter:
    """Replaces every aliased name in FEEL text, longest first, outside string literals.

    Names are found by their first word (a dict look-up per word of the text), so the cost
    grows with the text, not with the number of names."""

    def __init__(self, table: dict[str, str]) -> None:
        self.table = table
        self.by_first: dict[str, list[str]] = {}
        for name in sorted(table, key=len, reverse=True):
            first = _TOKEN.match(name)
            self.by_first.setdefault(first.group(0) if first else name[:1], []).append(name)

    def __call__(self, text: str) -> str:
        if not self.table:
            return text
        parts: list[str] = []
        last = 0
        for literal in _STRING.finditer(text):
            parts.append(self._names(text[last : literal.start()]))
            parts.append(literal.group(0))
            last = literal.end()
        parts.append(self._names(text[last:]))
        return "".join(parts)

    def _names(self, chunk: str) -> str:
        parts: list[str] = []
        done = 0
        for token in _TOKEN.finditer(chunk):
            start = token.start()
            if start < done or (start and _word(chunk[start - 1])):
                continue
            for name in self.by_first.get(token.group(0), ()):
                end = start + len(name)
                if chunk.startswith(name, start) and not (end < len(chunk) and _word(chunk[end])):
                    parts += [chunk[done:start], self.table[name]]
                    done = end
                    break
        parts.append(chunk[done:])
        return "".join(parts)


def _word(char: str) -> bool:
    return _WORD.match(char) is not None or char.isdigit()
