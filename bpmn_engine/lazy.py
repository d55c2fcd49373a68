"""Modules imported when first used (PEP 562), so a command pays only for what it runs:
`bpmn run` of a diagram without FEEL or DMN never imports lark, FEEL or the DMN package.

A module lists what it defers in a `_LAZY` table {attribute: module} and sets
`__getattr__ = lazy.loader(_LAZY, globals())`; `owner.NAME` imports the module the first time
it is read and keeps it as a plain attribute. Callers write `deferred.NAME.function()`: a bare
global name would not reach `__getattr__`. This is how the runtime, which imports nothing
inside a function, defers an import; tests/test_architecture.py reads every `_LAZY` table as
the imports of its module, so a cycle through one still fails.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any


def loader(table: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], ModuleType]:
    """A module `__getattr__` that imports `table[name]` on first use."""
    owner = namespace["__name__"]

    def __getattr__(name: str) -> ModuleType:
        if name not in table:
            raise AttributeError(f"module {owner!r} has no attribute {name!r}")
        module = importlib.import_module(table[name])
        namespace[name] = module  # once imported, a plain attribute
        return module

    return __getattr__
