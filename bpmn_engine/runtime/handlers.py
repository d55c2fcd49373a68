"""Service task handlers: plain Python functions, found by task type or element id."""

from __future__ import annotations

import inspect
import re
import runpy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bpmn_engine.errors import LoadError

Handler = Callable[["ServiceTaskContext"], "dict[str, Any] | None"]


@dataclass(frozen=True)
class ServiceTaskContext:
    """What a handler gets. `variables` is a copy: return a dict to change variables.

    `idempotency_key` is stable across retries of the same activation, so a handler that
    calls a payment provider can pass it on and a retry after a crash charges only once.
    """

    variables: dict[str, Any]
    element_id: str
    element_name: str | None
    instance_id: str
    attempt: int
    idempotency_key: str
    headers: dict[str, str] = field(default_factory=dict)  # zeebe:taskHeaders of the task
    # a listener's call: the event (start, end, take, create, complete) and its camunda:fields
    event: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)


def load_handlers(path: str | Path) -> dict[str, Handler]:
    """The top-level functions of a Python file, by name."""
    file = str(path)
    if not Path(path).exists():
        raise LoadError("handlers file not found", file=file)
    if not Path(path).is_file():  # a FIFO or /dev/zero: Python would block or read forever
        raise LoadError("not a regular file", file=file)
    try:
        namespace = runpy.run_path(file, run_name="bpmn_handlers")
    except SyntaxError as error:
        raise LoadError(f"syntax error: {error.msg}", file=file, line=error.lineno) from None
    except (Exception, SystemExit) as error:  # the user's module failed while loading
        raise LoadError(f"loading failed: {failure(error)}", file=file) from None
    return {
        name: value
        for name, value in namespace.items()
        if inspect.isfunction(value) and not name.startswith("_")
    }


def failure(error: BaseException) -> str:
    """What a handler's failure says. `sys.exit()` in a handler is a failure of the handler,
    never the end of the engine: it made `bpmn run` exit 0, "completed", with the instance
    still active."""
    if isinstance(error, SystemExit):
        return f"called sys.exit({error.code!r}): a handler returns or raises, it does not exit"
    return f"raised {type(error).__name__}: {error}"


def find_handler(
    handlers: Mapping[str, Handler], names: tuple[str, ...]
) -> tuple[Handler | None, str | None]:
    """The first handler whose name is one of `names`, as is or made an identifier."""
    for name in names:
        for candidate in (name, re.sub(r"\W", "_", name)):
            if candidate in handlers:
                return handlers[candidate], candidate
    return None, None
