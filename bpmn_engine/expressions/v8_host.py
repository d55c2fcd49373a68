"""The JavaScript host: a child process that owns one V8 isolate (mini-racer) and answers
requests, one JSON line in, one JSON line out.

Why a child process: V8 ends its process on some allocations no heap limit can refuse
(`new Array(2**31 - 1).fill(0)` aborts with "invalid table size"), and a long built-in call
cannot be interrupted by a timeout. In a child, such a script kills or stalls only the
child, which the engine (`v8.py`) kills and replaces: an incident, never a crash or a hang.

This file is run by path and imports nothing of bpmn_engine, so it starts the same way
whatever sys.path the engine itself was imported from.

The isolate is reused between requests (a new one costs about 6 ms), so nothing one
evaluation does may reach the next: the prelude (`v8_prelude.js`) freezes the built-ins and
the global bindings, forgets the last regular expression match (`RegExp.$1`, `input`...,
which V8 keeps per isolate), new globals are deleted after each evaluation, and promise jobs
a script leaves behind are drained, within the same time budget, before the answer is sent
(a task queued after them must run: V8 runs tasks only once no promise job is left). An
isolate that hit a limit (a promise job's too: V8 ends the job and goes on, so the limit is
asked for after them), or could not be cleaned, is closed and the next request gets a new one.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

_SYNTAX = re.compile(r"^undefined:(\d+): (.*)$")


class Host:
    """One isolate and the limits each request runs under."""

    def __init__(self, seconds: float, memory: int, max_json: int) -> None:
        import py_mini_racer  # only the child process loads V8

        self.v8 = py_mini_racer
        # V8's own ceiling, well above the hard limit: past it V8 aborts this process (a
        # built-in that allocates before the hard limit's check can run), never the engine
        ceiling = max(4 * memory // (1024 * 1024), 64)
        flags = (*py_mini_racer.DEFAULT_V8_FLAGS, f"--max-old-space-size={ceiling}")
        py_mini_racer.init_mini_racer(flags=flags, ignore_duplicate_init=True)
        self.seconds = seconds
        self.memory = memory
        prelude = (Path(__file__).with_name("v8_prelude.js")).read_text(encoding="utf-8")
        self.prelude = prelude.replace("__MAX_JSON__", str(int(max_json)))
        self.racer: Any = None

    def _isolate(self) -> Any:
        if self.racer is None:
            racer = self.v8.MiniRacer()
            racer.set_hard_memory_limit(self.memory)
            racer.eval(self.prelude, timeout_sec=self.seconds)
            self.racer = racer
        return self.racer

    def _discard(self) -> None:
        racer, self.racer = self.racer, None
        if racer is not None:
            with contextlib.suppress(Exception):  # a broken isolate: nothing more to save
                racer.close()

    def _limit(self, error: BaseException) -> dict[str, str] | None:
        if isinstance(error, self.v8.JSTimeoutException):
            return {"limit": "time"}
        if isinstance(error, self.v8.JSOOMException):
            return {"limit": "memory"}
        return None

    def check(self, source: str, kind: str) -> dict[str, Any]:
        """Parse without running: `new Function` compiles the body and stops there."""
        try:
            self._isolate().eval(f"new Function({json.dumps(source)}), 0", timeout_sec=self.seconds)
        except Exception as error:  # mini-racer's errors share no public base class
            limit = self._limit(error)
            if limit is not None:
                self._discard()
                return limit
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            match = _SYNTAX.match(first)
            if match:  # `new Function` puts the body on the third line
                lines = source.count("\n") + 1
                line = min(max(int(match.group(1)) - 2, 1), lines)
                return {"error": f"{match.group(2)} (line {line} of the {kind})"}
            return {"error": f"the {kind} does not compile: {first}"}
        return {"answer": None}

    def run(self, source: str, payload: str, mode: str, facts: str) -> dict[str, Any]:
        """Run the source over the variables; once its promise jobs have run (one may call
        bpmn-engine's `next()`), the prelude's answer, JSON text."""
        code = (
            f"__bpmn.run({json.dumps(source)}, {json.dumps(payload)}, {json.dumps(mode)}, "
            f"{json.dumps(facts)})"
        )
        started = time.monotonic()
        try:
            racer = self._isolate()
            racer.eval(code, timeout_sec=self.seconds)
            first = self._settle(racer, started)
            # the answer may run the script's getters: settle again after it
            racer.eval("__bpmn.finish()", timeout_sec=self._left(started))
            state = max(first, self._settle(racer, started))
            answer = racer.eval("__bpmn.take()", timeout_sec=self._left(started))
            if racer.was_hard_memory_limit_reached():  # by a promise job: the culprit fails
                self._discard()
                return {"limit": "memory"}
            if state != 1:  # a global the script made could not be deleted
                self._discard()
        except Exception as error:  # mini-racer's errors share no public base class
            self._discard()
            limit = self._limit(error)
            if limit is not None:
                return limit
            return {"error": str(error).splitlines()[0] if str(error) else type(error).__name__}
        return {"answer": answer}

    def _settle(self, racer: Any, started: float) -> int:
        """Wait until the promise jobs left behind have run and new globals are gone:
        1 clean, 2 a global could not be deleted."""
        state = 0
        while state == 0:  # each poll waits behind the jobs still queued
            state = racer.eval("__bpmn.settled()", timeout_sec=self._left(started))
            if state == 0 and self._left(started) <= 0.001:
                raise self.v8.JSTimeoutException()
        return int(state)

    def _left(self, started: float) -> float:
        return max(self.seconds - (time.monotonic() - started), 0.001)

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "check":
            return self.check(request["source"], request["kind"])
        return self.run(
            request["source"], request["payload"], str(request["mode"]), request.get("facts", "{}")
        )


def main(argv: list[str]) -> int:
    seconds, memory, max_json = float(argv[1]), int(argv[2]), int(argv[3])
    try:
        host = Host(seconds, memory, max_json)
    except Exception as error:
        sys.stdout.write(json.dumps({"fatal": f"{type(error).__name__}: {error}"}) + "\n")
        sys.stdout.flush()
        return 1
    sys.stdout.write(json.dumps({"ready": True}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        try:
            reply = host.answer(json.loads(line))
        except Exception as error:  # a request the host did not foresee: say so, stay up
            reply = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    host._discard()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
