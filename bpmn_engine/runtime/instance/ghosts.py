"""Ghost results: what a job's handler returns when the job no longer counts (seed 004).

A job's result commits as a compare-and-set on its token's version, so a result that comes
back after someone else moved the token is never applied. Saying *why* is what an operator
needs: the claim was taken over (the holder's lease ran out and another worker runs the job
again: an orphan), another worker finished the job first (a race), or the token moved on
(cancelled, given up past the absolute cap, modified). The handler's effect outside the
engine may have happened twice: that is at-least-once, and why handlers are idempotent by
`idempotency_key`.
"""

from __future__ import annotations

from bpmn_engine.errors import ConcurrentModification
from bpmn_engine.records.data import InstanceData
from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.records.rows import Event, Track

TAKEN_OVER = "taken over"
COMPLETED = "already completed"
MOVED = "token moved"


class GhostResult(ConcurrentModification):
    """A job's result refused because the job no longer counts (`why`: one of the three)."""

    def __init__(self, instance: str, element: str, track: int, attempt: int, why: str) -> None:
        self.instance, self.element, self.track, self.attempt, self.why = (
            instance,
            element,
            track,
            attempt,
            why,
        )
        super().__init__(
            f"instance {instance}: the result of job {element!r} (token #{track}, try "
            f"{attempt}) was refused, never applied: {_EXPLAINED[why]}"
        )


_EXPLAINED = {
    TAKEN_OVER: "its claim was taken over (its lease ran out) and another worker runs it",
    COMPLETED: "another worker completed the job first",
    MOVED: "its token moved on meanwhile (cancelled, given up, or modified)",
}


def why_refused(claimed: Track, now: InstanceData, history: list[Event]) -> str:
    """Why the result of the job `claimed` (the token as this holder claimed it) no longer
    counts, given the instance as it is `now` and its history."""
    track = now.tracks.get(claimed.id)
    here = track is not None and track.element == claimed.element
    if here and track is not None and track.status is TrackState.EXECUTING:
        return TAKEN_OVER if track.attempt != claimed.attempt else MOVED
    rerun = any(
        e.event == "job.started"
        and e.track == claimed.id
        and e.element == claimed.element
        and (e.data.get("attempt") or 0) > claimed.attempt
        for e in history
    )
    return COMPLETED if rerun and not here else MOVED
