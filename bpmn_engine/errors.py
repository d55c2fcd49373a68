"""One error hierarchy: every failure the engine reports to a user is one of these.

The CLI maps them to exit codes in one place; none of them should ever reach a user as a
traceback.
"""

from __future__ import annotations


class BpmnEngineError(Exception):
    """Base of every error the engine raises on purpose."""


class LoadError(BpmnEngineError):
    """A diagram could not be read or compiled; says `file:line: element-id: message`."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        element_id: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.element_id = element_id
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.file or "<input>"
        if self.line:
            where = f"{where}:{self.line}"
        if self.element_id:
            return f"{where}: {self.element_id}: {self.message}"
        return f"{where}: {self.message}"


class ExpressionError(BpmnEngineError):
    """An expression or script is malformed, forbidden by the sandbox, or failed to evaluate.

    Raised without location by `bpmn_engine.expressions`; the runtime and the parser add the
    element id and line of the expression that failed.
    """


class UsageError(BpmnEngineError):
    """The caller asked for something that does not exist (instance, process, task...)."""


class NotFound(UsageError):
    """What the caller named is not there: an instance, a waiting task, a decision (the HTTP
    API answers 404 for it, where other usage errors are 400)."""


class ConcurrentModification(BpmnEngineError):
    """A compare-and-set on a track's version failed: someone else moved it first."""


class BpmnError(BpmnEngineError):
    """A business error a service handler throws: caught by an error boundary event.

    `raise BpmnError("OUT_OF_STOCK", "no lamps left")` in a handler is like an error end
    event: the nearest error boundary event whose error code matches (or that catches all)
    interrupts its activity; with none, the instance fails with an incident. It is never
    retried: the handler has answered.
    """

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message


class PermanentError(BpmnEngineError):
    """A handler's failure that trying again cannot fix (bad data, a refused request).

    Any other exception a handler raises is taken as transient (a service down, a timeout)
    and the job is tried again after a backoff, up to its retries (docs/operations.md);
    `raise PermanentError("no such customer")` skips the retries: an incident at once.
    """
