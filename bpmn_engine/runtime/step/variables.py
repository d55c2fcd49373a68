"""Checks on variable values: what the store can hold, as it will give it back (JSON).

Variables themselves are records (`bpmn_engine.records.variables`); this is the runtime's
gate in front of them, for values from scripts, handlers and callers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from copy import deepcopy
from typing import Any

# the one integer bound: sandboxed code may not build more, and the store cannot write more
from bpmn_engine.expressions.guards import MAX_INT_BITS, MAX_SIZE
from bpmn_engine.expressions.temporal import stored_text

# values JSON gives back as themselves (a float only when finite): no round trip needed
_SCALARS = frozenset({str, bool, type(None)})


def storable(name: str, value: Any) -> Any:
    """The value as the store will give it back (JSON), or ValueError saying why it can't be.

    Keeping exactly the JSON-decoded value in memory means memory never differs from the
    rows (a tuple is a list at once, not only after a restart), and no caller keeps a
    reference into the instance's state.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"variable name {name!r} must be a non-empty string")
    kind = type(value)
    if kind is str:
        if len(value) > MAX_SIZE:
            raise ValueError(_too_long(name, "a string", len(value)))
        if not value.isascii():
            _check_unicode(name, value)
        return value
    if kind in _SCALARS or (kind is float and math.isfinite(value)):
        return value  # most writes: a counter, a flag, a name
    if kind is int:
        if value.bit_length() > MAX_INT_BITS:
            raise ValueError(
                f"variable {name!r} is an integer of {value.bit_length()} bits: the store "
                f"holds integers of at most {MAX_INT_BITS} bits (about 4 200 digits)"
            )
        return value
    try:
        # a date or duration (a script's `datetime`) as its ISO 8601 text, as FEEL's
        text = json.dumps(value, allow_nan=False, default=stored_text, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError) as error:
        kind = type(value).__name__
        why = "it is nested too deep" if isinstance(error, RecursionError) else str(error)
        raise ValueError(f"variable {name!r} ({kind}) cannot be stored as JSON: {why}") from None
    if len(text) > MAX_SIZE:
        raise ValueError(_too_long(name, f"a {kind.__name__} whose JSON is", len(text)))
    if not text.isascii():
        _check_unicode(name, text)
    return json.loads(text)


def _check_unicode(name: str, text: str) -> None:
    """Text with a lone surrogate in it (`'\\ud83d'` from a script) is not Unicode: UTF-8,
    PostgreSQL and every terminal refuse it, so no variable holds it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        bad = text[error.start : error.end].encode("unicode_escape").decode("ascii")
        raise ValueError(
            f"variable {name!r} holds text that is not Unicode (a lone surrogate, {bad})"
        ) from None


def _too_long(name: str, what: str, length: int) -> str:
    """Values from handlers and callers meet the bound sandboxed code meets when it builds
    a string (a handler's 300 MB answer was stored as it came)."""
    return (
        f"variable {name!r} is {what} {length:,} characters long: a variable holds at most "
        f"{MAX_SIZE:,} characters"
    )


def storable_all(values: Mapping[str, Any]) -> dict[str, Any]:
    return {name: storable(name, value) for name, value in values.items()}


def copied(values: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of storable values (for an event a listener may keep): scalars as they
    are, containers by `copy.deepcopy`."""
    return {
        name: value if type(value) in _SCALARS or type(value) in (int, float) else deepcopy(value)
        for name, value in values.items()
    }
