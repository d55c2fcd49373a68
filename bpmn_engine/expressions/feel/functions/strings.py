"""String functions. Patterns are XML Schema-like regexes run by `regex` with a timeout, since a
diagram's pattern could otherwise backtrack for hours inside one C call."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import regex

from bpmn_engine.expressions import guards
from bpmn_engine.expressions.feel.functions.registry import builtin, need, whole
from bpmn_engine.expressions.feel.operators import checked_text
from bpmn_engine.expressions.feel.values import FeelError

REGEX_SECONDS = 0.5
"""Longest one regex call may run."""
MAX_PATTERN_WEIGHT = 100_000
"""Most pattern items a compiled pattern may hold once its counted repeats are unrolled:
`regex` unrolls `a{300}` into 300 items when it compiles, before any timeout can start, so
`(((a{300}){300}){100})` took gigabytes (100,000 items take some 30 MB)."""
_COUNT = regex.compile(r"\{(\d*)(?:,(\d*))?\}")
_FLAGS = {"i": regex.IGNORECASE, "s": regex.DOTALL, "m": regex.MULTILINE, "x": 0, "q": 0}
_SPACES = " \t\n\r"
_BLOCK = regex.compile(r"\\([pP])\{Is([A-Za-z0-9-]+)\}")


def _weight(pattern: str) -> int:
    """How many items `pattern` unrolls to, at most: each atom counts 1, a group the sum of
    its contents, and a counted repeat multiplies what it repeats by its largest count."""
    stack: list[int] = [0]  # the weight of each open group's contents so far
    last = 0  # the weight of the atom just read, which a quantifier would repeat
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "{" and (found := _COUNT.match(pattern, i)) and (found[1] or found[2]):
            count = int(found[2] or found[1] or 1)  # {m}, {m,}: m; {m,n}, {,n}: n
            stack[-1] += last * (max(count, 1) - 1)  # the atom itself is counted once
            last, i = 0, found.end()
            continue
        if char == "\\":
            end = i + 2
            if pattern[i + 1 : i + 2] in ("p", "P", "N", "x") and pattern[end : end + 1] == "{":
                end = pattern.find("}", end) + 1 or len(pattern)
            last, i = 1, end
        elif char == "[":
            end = i + 1 + (pattern[i + 1 : i + 2] == "^")
            end += pattern[end : end + 1] == "]"
            while end < len(pattern) and pattern[end] != "]":
                end += 2 if pattern[end] == "\\" else 1
            last, i = 1, end + 1
        elif char == "(":
            stack.append(0)
            last, i = 0, i + 1
            continue
        elif char == ")" and len(stack) > 1:
            last, i = stack.pop(), i + 1
        else:
            last, i = 1, i + 1
        stack[-1] += last
    return sum(stack)


def _pattern(pattern: Any, flags: Any) -> regex.Pattern[str]:
    need(pattern, str, "the pattern")
    if _weight(pattern) > MAX_PATTERN_WEIGHT:
        raise guards.too_big(
            f"a regular expression whose counted repeats unroll to more than "
            f"{MAX_PATTERN_WEIGHT:,} items"
        )
    bits = 0
    given = need(flags, str, "the flags") if flags is not None else ""
    for flag in given:
        if flag not in _FLAGS:
            raise FeelError(f"unknown regex flag {flag!r}")
        bits |= _FLAGS[flag]
    if "q" in given:  # XPath: the pattern is a plain string
        return regex.compile(regex.escape(pattern), bits | regex.V0)
    translated, subtracts = _from_xsd(pattern, spaced="x" in given, dotall="s" in given)
    try:
        return regex.compile(translated, bits | (regex.V1 if subtracts else regex.V0))
    except (regex.error, ValueError, OverflowError) as error:
        raise FeelError(f"invalid pattern {pattern!r}: {error}") from None


def _from_xsd(pattern: str, *, spaced: bool, dotall: bool) -> tuple[str, bool]:
    """An XML Schema / XPath regular expression as `regex` reads it: `.` matches neither
    `\\n` nor `\\r` (but with the `s` flag), a class subtraction `[A-Z-[OI]]` is V1's
    `--`, `\\p{IsBasicLatin}` names a block, a back-reference inside a class is an error,
    and the `x` flag drops whitespace outside classes (and nothing else: `#` is no comment).
    Returns the pattern and whether it needs V1 (it subtracts)."""
    out: list[str] = []
    depth = 0  # inside how many (nested, by subtraction) character classes
    subtracts = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            if spaced and not depth:  # the spaces go first: `\\ s` is `\\s`
                after = index + 1
                while after < len(pattern) and pattern[after] in _SPACES:
                    after += 1
                pattern = pattern[: index + 1] + pattern[after:]
            escape = pattern[index : index + 2]
            if escape[1:2] in ("p", "P") and pattern[index + 2 : index + 3] == "{":
                end = pattern.find("}", index)
                end = len(pattern) - 1 if end < 0 else end
                name = pattern[index : end + 1]
                if spaced:
                    name = "".join(c for c in name if c not in _SPACES)
                out.append(_BLOCK.sub(r"\\\1{Block=\2}", name))
                index = end + 1
                continue
            if depth and escape[1:2].isdigit():
                raise FeelError(f"invalid pattern {pattern!r}: a back-reference in a class")
            out.append(escape)
            index += 2
            continue
        if depth:
            if char == "-" and pattern[index + 1 : index + 2] == "[":
                out.append("--[")
                subtracts, depth, index = True, depth + 1, index + 2
                continue
            if char == "[":
                depth += 1
            elif char == "]":
                depth -= 1
            out.append(char)
        elif char == "[":
            depth = 1
            out.append(char)
            if pattern[index + 1 : index + 2] == "^":
                out.append("^")
                index += 1
        elif spaced and char in _SPACES:
            pass
        elif char == "." and not dotall:
            out.append("[^\\n\\r]")
        else:
            out.append(char)
        index += 1
    return "".join(out), subtracts


def _timed(call: Any) -> Any:
    try:
        return call()
    except TimeoutError:
        raise guards.too_big(f"a regular expression ran longer than {REGEX_SECONDS}s") from None


@builtin("substring", "string", "start position", "length")
def substring(string: Any, start: Any, length: Any = None) -> str:
    text = need(string, str, "string")
    begin = whole(start, "start position", truncated=True)
    points = list(text) if not text.isascii() else text
    index = begin - 1 if begin > 0 else len(points) + begin
    index = max(index, 0)
    if length is None:
        return "".join(points[index:])
    return "".join(points[index : index + whole(length, "length", truncated=True)])


@builtin("string length", "string")
def string_length(string: Any) -> Decimal:
    return Decimal(len(need(string, str, "string")))


@builtin("upper case", "string")
def upper_case(string: Any) -> str:
    return checked_text(need(string, str, "string").upper())


@builtin("lower case", "string")
def lower_case(string: Any) -> str:
    return checked_text(need(string, str, "string").lower())


@builtin("substring before", "string", "match")
def substring_before(string: Any, match: Any) -> str:
    text, part = need(string, str, "string"), need(match, str, "match")
    if not part:  # XPath: the empty string is found at the start
        return ""
    head, found, _ = text.partition(part)
    return head if found else ""


@builtin("substring after", "string", "match")
def substring_after(string: Any, match: Any) -> str:
    text, part = need(string, str, "string"), need(match, str, "match")
    if not part:  # XPath: the empty string is found at the start
        return text
    _, found, tail = text.partition(part)
    return tail if found else ""


def _template(replacement: str, groups: int) -> str:
    """XPath's replacement string as a Python template: `$0` the whole match, `$N` a group
    (a second digit only while it names a group; beyond the groups, nothing), `\\$` and
    `\\\\` a dollar and a backslash; any other backslash or a lone `$` is an error."""
    out: list[str] = []
    index = 0
    while index < len(replacement):
        char = replacement[index]
        if char == "\\":
            following = replacement[index + 1 : index + 2]
            if following not in ("\\", "$"):
                raise FeelError("invalid replacement: '\\' must escape '\\' or '$'")
            out.append("\\\\" if following == "\\" else "$")
            index += 2
            continue
        if char == "$":
            end = index + 1
            while end < len(replacement) and replacement[end].isdigit():
                if end > index + 1 and int(replacement[index + 1 : end + 1]) > groups:
                    break
                end += 1
            if end == index + 1:
                raise FeelError("invalid replacement: '$' must be followed by a group number")
            number = int(replacement[index + 1 : end])
            out.append(f"\\g<{number}>" if number <= groups else "")
            index = end
            continue
        out.append(char)
        index += 1
    return "".join(out)


@builtin("replace", "input", "pattern", "replacement", "flags")
def replace(input: Any, pattern: Any, replacement: Any, flags: Any = None) -> str:
    text = need(input, str, "input")
    compiled = _pattern(pattern, flags)
    template = _template(need(replacement, str, "replacement"), compiled.groups)
    built = [len(text)]  # an upper bound of the result's length, as the matches come

    def expand(match: regex.Match[str]) -> str:
        """Each replacement counted as it is made: `$0` repeated a thousand times over a
        long input built gigabytes inside `sub` before the result could be measured."""
        piece = match.expand(template)
        built[0] += len(piece)
        if built[0] > guards.MAX_SIZE:
            raise guards.too_big(f"a string of more than {guards.MAX_SIZE:,} characters")
        return piece

    try:
        result = _timed(lambda: compiled.sub(expand, text, timeout=REGEX_SECONDS))
    except (regex.error, IndexError) as error:
        raise FeelError(f"invalid replacement: {error}") from None
    return checked_text(result)


@builtin("contains", "string", "match")
def contains(string: Any, match: Any) -> bool:
    return need(match, str, "match") in need(string, str, "string")


@builtin("starts with", "string", "match")
def starts_with(string: Any, match: Any) -> bool:
    return need(string, str, "string").startswith(need(match, str, "match"))


@builtin("ends with", "string", "match")
def ends_with(string: Any, match: Any) -> bool:
    return need(string, str, "string").endswith(need(match, str, "match"))


@builtin("matches", "input", "pattern", "flags")
def matches(input: Any, pattern: Any, flags: Any = None) -> bool:
    text = need(input, str, "input")
    compiled = _pattern(pattern, flags)
    return _timed(lambda: compiled.search(text, timeout=REGEX_SECONDS)) is not None


@builtin("split", "string", "delimiter")
def split(string: Any, delimiter: Any) -> list[str]:
    text = need(string, str, "string")
    compiled = _pattern(delimiter, None)
    guards.charge(1 + len(text) // guards.ITEMS_PER_STEP)
    parts = _timed(lambda: compiled.split(text, timeout=REGEX_SECONDS))
    if len(parts) > guards.MAX_ITEMS:
        raise guards.too_many_items()
    return parts


@builtin("string join", "list", "delimiter", "prefix", "suffix")
def string_join(list: Any, delimiter: Any = None, prefix: Any = None, suffix: Any = None) -> str:
    parts = need(list, type([]), "list")
    for part in parts:
        if part is not None and not isinstance(part, str):
            raise FeelError("string join needs a list of strings")
    glue = "" if delimiter is None else need(delimiter, str, "delimiter")
    guards.charge(1 + len(parts) // guards.ITEMS_PER_STEP)
    body = glue.join(p for p in parts if p is not None)
    return checked_text(f"{prefix or ''}{body}{suffix or ''}")
