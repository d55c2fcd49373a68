"""The engine's side of the JavaScript host: start it, ask it, and bound every answer.

Why V8 through `mini-racer`: it is maintained (V8 14 in 2026), ships manylinux wheels, and
enforces both limits from outside the script: a hard heap limit per isolate, and a timeout
that terminates running code even inside a tight loop. QuickJS's binding has both limits too,
but its last release is from 2023. A bare V8 context has no `require`, no file system and no
network: only ECMAScript's built-ins.

V8 runs in a child process (`v8_host.py`), started once and reused. A request that the host
does not answer within the time limit plus a grace period (a built-in call V8 cannot
interrupt), or that ends the host (V8 aborts its process on a few allocations), is an
`ExpressionError` here; the host is killed and the next request starts a new one.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions.guards import MAX_DEPTH, MAX_SECONDS, MAX_SIZE

PACKAGE = "mini-racer"
EXTRA = "pip install 'bpmn-engine[js]'"
MISSING = (
    f"JavaScript needs the optional JavaScript engine ({PACKAGE}, an embedded V8), which is "
    f"not installed: run `{EXTRA}`"
)
TIME_LIMIT = MAX_SECONDS
"""Seconds one evaluation may run, promise jobs included (the sandbox's time limit)."""
MEMORY_LIMIT = 64 * 1024 * 1024
"""Bytes of JavaScript heap an evaluation may fill (a hard limit of the isolate)."""
MAX_JSON = MAX_SIZE
"""Longest JSON text a value may have to cross back into Python."""
GRACE = 3.0
"""Seconds past the time limit before a host that does not answer is killed."""
START_LIMIT = 60.0
"""Seconds a new host may take to load V8 and answer that it is ready."""
_HOST = Path(__file__).with_name("v8_host.py")


def available() -> bool:
    """True when the optional JavaScript engine is installed (without loading it)."""
    try:
        return importlib.util.find_spec("py_mini_racer") is not None
    except (ImportError, ValueError):  # ValueError: the module was set to None
        return False


def require() -> None:
    """Refuse JavaScript, naming the extra, when the engine is not installed."""
    if not available():
        raise ExpressionError(MISSING)


class _Host:
    """A running host process and its pipes."""

    def __init__(self) -> None:
        self.log: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - lives as the host does
        self.settings = _settings()
        self.owner = os.getpid()  # a forked engine starts its own host, never shares pipes
        self.process = subprocess.Popen(
            [sys.executable, "-P", *self.settings],  # -P: its folder's modules stay unseen
            env=_child_environment(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        self.buffer = b""
        ready = self.receive(START_LIMIT)
        if "fatal" in ready:
            self.close()
            raise ExpressionError(f"the JavaScript engine did not start: {ready['fatal']}")

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
        except OSError:
            raise self.died() from None
        return self.receive(TIME_LIMIT + GRACE)

    def receive(self, seconds: float) -> dict[str, Any]:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + seconds
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.close()
                raise ExpressionError(
                    f"evaluation exceeded the time limit of {TIME_LIMIT:g} seconds"
                )
            readable, _, _ = select.select([fd], [], [], left)
            if readable:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise self.died()
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            answer = json.loads(line)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            self.close()
            raise ExpressionError(
                f"the JavaScript engine gave an answer it should not: {line[:200]!r}"
            )
        return answer

    def died(self) -> ExpressionError:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.log.seek(0)
        lines = [x.strip() for x in self.log.read().decode(errors="replace").splitlines()]
        why = next((x.lstrip("# ") for x in lines if x.startswith("# Fatal")), None)
        why = why or next((x for x in reversed(lines) if x), "no reason given")
        self.close()
        return ExpressionError(f"the JavaScript engine stopped during the evaluation: {why}")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()
        self.log.close()


def _child_environment() -> dict[str, str]:
    """This environment, with the folder mini-racer was found in first on the child's path,
    so the host finds the engine wherever this process found it."""
    env = dict(os.environ)
    spec = importlib.util.find_spec("py_mini_racer")
    if spec is not None and spec.origin:
        folder = str(Path(spec.origin).parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (folder, env.get("PYTHONPATH")) if p)
    return env


def _settings() -> list[str]:
    """The host's script and limits: a host started with others is replaced."""
    return [str(_HOST), str(TIME_LIMIT), str(MEMORY_LIMIT), str(MAX_JSON)]


_lock = threading.Lock()
_host: _Host | None = None


def _ask(request: dict[str, Any]) -> dict[str, Any]:
    global _host
    require()
    with _lock:
        if _host is not None and _host.owner != os.getpid():
            _host = None  # the parent's, inherited by a fork: leave it to the parent
        if _host is not None and (
            _host.process.poll() is not None or _host.settings != _settings()
        ):
            _host.close()
            _host = None
        if _host is None:
            _host = _Host()
        host = _host
        try:
            reply = host.ask(request)
        except BaseException:  # dead, stalled, or Ctrl-C: never reuse a host mid-request
            host.close()
            _host = None
            raise
    if "limit" in reply:
        if reply["limit"] == "time":
            raise ExpressionError(f"evaluation exceeded the time limit of {TIME_LIMIT:g} seconds")
        limit = MEMORY_LIMIT // (1024 * 1024)
        raise ExpressionError(f"evaluation exceeded the memory limit of {limit} MiB")
    if "error" in reply:
        raise ExpressionError(str(reply["error"]))
    return reply


def _stop() -> None:
    global _host
    if _host is not None and _host.owner == os.getpid():
        _host.close()
        _host = None


atexit.register(_stop)


def check_syntax(source: str, kind: str) -> None:
    """A SyntaxError in the source, as an ExpressionError naming its line; nothing runs."""
    _ask({"op": "check", "source": source, "kind": kind})


MODES = ("condition", "script", "result")


@dataclass(frozen=True)
class Outcome:
    """What an evaluation gave back: its completion value (`result`; None in "script" mode),
    the value it gave bpmn-engine's `next(null, value)` (`output`, when `called_next`), the
    variables it set and removed, those it set with `setVariableLocal`, and whether it used
    bpmn-engine's names (`environment`, `next`, `content`, `this.*`: `dialect`)."""

    result: Any = None
    output: Any = None
    called_next: bool = False
    changes: dict[str, Any] = field(default_factory=dict)
    removed: tuple[str, ...] = ()
    locals: dict[str, Any] = field(default_factory=dict)
    dialect: bool = False


def run(
    source: str,
    variables: Mapping[str, Any],
    mode: str,
    facts: Mapping[str, Any] | None = None,
) -> Outcome:
    """Run `source` with the variables in scope.

    `mode`: "condition" (the value; setting a variable is an error), "script" (only what it
    set: its last value, which may be anything, is dropped), "result" (both). `facts`: what
    `execution`'s getters and bpmn-engine's `content` tell (instance, element, locals...)."""
    assert mode in MODES
    try:
        payload = json.dumps(dict(variables), allow_nan=False)
        about = json.dumps(dict(facts or {}), allow_nan=False)
    except (TypeError, ValueError, RecursionError) as error:
        raise ExpressionError(f"the variables cannot be passed to JavaScript: {error}") from None
    request = {"op": "run", "source": source, "payload": payload, "mode": mode, "facts": about}
    return _decode(_ask(request)["answer"])


def _decode(answer: Any) -> Outcome:
    if not isinstance(answer, str):
        raise ExpressionError("the JavaScript engine gave back no answer")
    try:
        decoded = json.loads(answer)
    except RecursionError:
        raise ExpressionError(
            f"the result is nested more than {MAX_DEPTH} levels deep to leave JavaScript"
        ) from None
    if "error" in decoded:
        raise ExpressionError(str(decoded["error"]))
    _check_depth(decoded["result"], "the result")
    called_next = "output" in decoded
    if called_next:
        _check_depth(decoded["output"], "the value given to next()")
    for kind in ("changes", "locals"):
        for name, value in decoded[kind].items():
            _check_depth(value, f"variable {name!r}")
    return Outcome(
        decoded["result"],
        decoded.get("output"),
        called_next,
        decoded["changes"],
        tuple(decoded["removed"]),
        decoded["locals"],
        bool(decoded["dialect"]),
    )


def _check_depth(value: Any, what: str) -> None:
    """The store holds what the sandbox builds: at most MAX_DEPTH levels of nesting."""
    level = [value]
    for _ in range(MAX_DEPTH + 1):
        level = [
            item
            for container in level
            if isinstance(container, (list, dict))
            for item in (container.values() if isinstance(container, dict) else container)
        ]
        if not level:
            return
    raise ExpressionError(f"{what} is nested more than {MAX_DEPTH} levels deep")
