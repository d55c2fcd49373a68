"""Writing the scenario files `--record` makes: TOML with inline tables and arrays only.

The standard library reads TOML but does not write it. A recorded scenario holds strings,
numbers, booleans, lists and tables (variables as JSON has them), which inline TOML writes
in a few lines; `tomllib` reads every file back in the tests. TOML has no null: a None is
left out, and the writer lists where, for a comment in the file: each place is written with
its keys as TOML writes them (quoted and escaped unless bare), so a name with a line break,
from a handler or a script, cannot end the comment and write a line of its own.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any

BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def key(name: str) -> str:
    return name if BARE_KEY.fullmatch(name) else string(name)


def string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's; TOML also wants DEL escaped."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def value(item: Any, where: str, dropped: list[str]) -> str:
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, Decimal):  # a FEEL number: as the number it is
        item = int(item) if item == item.to_integral_value() else float(item)
    if isinstance(item, int):
        return str(item)
    if isinstance(item, float):
        if math.isnan(item):
            return "nan"
        if math.isinf(item):
            return "inf" if item > 0 else "-inf"
        return repr(item)
    if isinstance(item, str):
        return string(item)
    if isinstance(item, list | tuple):
        parts = []
        for index, element in enumerate(item):
            if element is None:  # an array cannot skip a slot: say so
                dropped.append(f"{where}[{index}]")
                continue
            parts.append(value(element, f"{where}[{index}]", dropped))
        return "[" + ", ".join(parts) + "]"
    if isinstance(item, dict):
        return table(item, where, dropped)
    return string(str(item))  # a Decimal, a date: as the text the engine shows


def table(mapping: dict[str, Any], where: str, dropped: list[str]) -> str:
    """An inline table, `{ a = 1, b = "x" }`, leaving out None values (listed in `dropped`)."""
    parts = []
    for name, item in mapping.items():
        written = key(name)
        inner = f"{where}.{written}" if where else written
        if item is None:
            dropped.append(inner)
            continue
        parts.append(f"{written} = {value(item, inner, dropped)}")
    return "{ " + ", ".join(parts) + " }" if parts else "{}"
