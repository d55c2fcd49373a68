"""When an instance's steps reach the store: after every step, or when the run waits.

`step` (the default) commits each step as its own transaction: a crash loses nothing that
ran. `wait` keeps the steps of a run in memory, merged into one record (the first
before-image of each row, every event in order), and commits them as one transaction when
the run stops: at a wait state (a user task, even one answered at once; a timer the run
sleeps for), at the end, on an incident. A crash then loses the steps
since the last checkpoint, and a resume runs them again from there, so they are done once
in the store all the same. A checkpoint is also taken at once whenever a step's effect must
be seen outside this process: before a service-task handler runs (its lease) and after it
returned (never call it twice for one result), and for a step that throws or awaits a
message or a signal (other instances and processes look for it in the rows). A handler's
result is committed together with the step that follows it (one transaction instead of two:
the next job's claim, or the end), and at the latest when the run stops; so it is in the
rows before any other handler is called. A run commits
at least every `limit` history events (3 000: about 1 000 steps, or one step that forks a
thousand branches), so that a long run holds neither unbounded memory nor the write lock
for long.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from bpmn_engine.errors import UsageError
from bpmn_engine.records.data import Step
from bpmn_engine.runtime.storage import Store

POLICIES = ("step", "wait")


class UnstorableStep(Exception):
    """The store could not encode what a step produced: the step is undone, and its element
    gets an incident (values are checked on the way in; this is the last line)."""


def check_policy(policy: str) -> str:
    if policy not in POLICIES:
        raise UsageError(f"unknown checkpoint policy {policy!r}: use one of {', '.join(POLICIES)}")
    return policy


class Checkpoints:
    """One instance's pending steps and the rule for when they are committed."""

    def __init__(self, store: Store, policy: str = "step", limit: int = 3000) -> None:
        self.store = store
        self.policy = check_policy(policy)
        self.limit = limit
        self._batching = 0  # nesting depth of `batch()`
        self._pending: Step | None = None
        self._new = False  # the pending record creates the instance row
        self._count = 0
        self._due = False  # the next step commits what is pending (a handler's result)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Under the `wait` policy, keep the steps taken inside and commit them on the way out
        (also when an exception leaves: the step that raised was rolled back first)."""
        if self.policy != "wait":
            yield
            return
        self._batching += 1
        try:
            yield
        finally:
            self._batching -= 1
            if not self._batching:
                self.flush()

    def commit(self, step: Step, *, new: bool = False, urgent: bool = False) -> None:
        """Commit the step now, or keep it until the batch ends (`urgent`: others must see it)."""
        step.at = round(time.time(), 3)  # the history's precision: steps of one ms share it
        if not self._batching:
            self._write(step, new)
            return
        if self._pending is None:
            self._pending, self._new, self._count = step, new, 0
        else:
            self._pending.absorb(step)
        self._count += len(step.events)
        if urgent or self._due or self._count >= self.limit:
            self.flush()

    def due_at_last_node(self, step: Step, *, urgent: bool = False) -> bool:
        """Whether committing a chain of nodes taken as one step (`chain.py`) takes the
        checkpoint that, one step per node, the commit of its last node would have taken:
        while batching, the limit reached or the last node seen by others (`urgent`), and
        no handler's result waiting (its checkpoint would have come with the first node).
        `Steps._commit` then tells the events of the nodes before it first, as their own
        steps would have been told before that checkpoint."""
        if not self._batching or self._due:
            return False
        count = (self._count if self._pending is not None else 0) + len(step.events)
        return urgent or count >= self.limit

    @property
    def batching(self) -> bool:
        """Whether steps are kept until the batch ends (the `wait` policy, inside a run)."""
        return self._batching > 0

    def room(self) -> int:
        """How many history events the next step may hold before a checkpoint is due (a
        chain of nodes taken as one step stops there, `chain.py`)."""
        if self._pending is None or not self._batching:
            return self.limit
        return max(self.limit - self._count, 1)

    def flush_with_next(self) -> None:
        """Commit what is pending together with the next step, or when the batch ends if no
        step follows: a handler's result and the next job's claim in one transaction."""
        self._due = self._pending is not None

    def flush(self) -> None:
        """Commit what is pending as one transaction (the checkpoint)."""
        pending, self._pending, self._due = self._pending, None, False
        if pending is not None:
            self._write(pending, self._new)

    def _write(self, step: Step, new: bool) -> None:
        try:
            self.store.commit(step, new_instance=new)
        except (ValueError, TypeError, RecursionError, OverflowError) as error:
            step.rollback()  # a value the store cannot encode: nothing was written
            raise UnstorableStep(str(error) or type(error).__name__) from None
        except BaseException:  # a lost race, a locked database, Ctrl-C: nothing was written,
            step.rollback()  # so memory goes back to the last checkpoint, with the rows
            raise
