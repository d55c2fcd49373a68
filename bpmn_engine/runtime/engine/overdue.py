"""Tokens late to move on: what `bpmn instances --stuck` lists beside the stuck instances.

A retry waits on a durable timer and a claimed job on its holder's lease: both move on only
while a worker runs. A retry timer past its due time says no worker is running; a lease run
out says the job's holder died (or hangs without its heartbeat). Either is work a person
should see, with the command that moves it on (`bpmn resume`, which retries a due job and
takes over a claim whose lease ran out, or `bpmn worker`, which does so for every instance).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bpmn_engine.runtime.storage import Store

WHY = {
    "retry": "a retry was due",
    "lease": "a job's claim ran out",
}


@dataclass(frozen=True, slots=True)
class Overdue:
    """One late token: `why` is `retry` or `lease`, `since` when it should have moved."""

    instance: str
    track: int
    element: str
    why: str
    since: str

    @property
    def reason(self) -> str:
        return f"{WHY[self.why]} at {self.since}"


def overdue(store: Store, now: datetime) -> list[Overdue]:
    return [Overdue(*row) for row in store.overdue_work(now)]
