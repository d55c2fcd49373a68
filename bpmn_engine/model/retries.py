"""How often a failing job is tried: a task's own retry policy, read from the diagram.

Camunda 7 (and Activiti, Flowable) write it as `failedJobRetryTimeCycle`: `R5/PT1M` is five
tries in all, a minute apart; a list of durations (`PT1M,PT5M,PT10M`) is one more try than
waits, each wait in turn. Zeebe writes `zeebe:taskDefinition retries="5"`: five tries, the
engine's backoff between them. Without either, the engine's default applies
(`runtime/instance/retries.py`). Durations here are days, hours, minutes and seconds: a retry
measured in months is no retry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bpmn_engine.errors import UsageError

MAX_TRIES = 1_000
MAX_DELAY = 366 * 24 * 3600.0  # a wait longer than a year is a mistake, not a policy

_CYCLE = re.compile(r"R(\d+)/(.+)")
_DURATION = re.compile(
    r"P(?:(?P<weeks>\d+)W)?(?:(?P<days>\d+)D)?"
    r"(?:T(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?(?:(?P<seconds>\d+(?:[.,]\d+)?)S)?)?"
)
_SECONDS = {"weeks": 604_800, "days": 86_400, "hours": 3_600, "minutes": 60, "seconds": 1}


DEFAULT_TRIES = 3
DEFAULT_BACKOFF = 1.0  # seconds before the first retry
MAX_BACKOFF = 3600.0


@dataclass(frozen=True, slots=True)
class Backoff:
    """The engine's default: `tries` in all, waits doubling from `base` seconds."""

    tries: int = DEFAULT_TRIES
    base: float = DEFAULT_BACKOFF

    def __post_init__(self) -> None:
        if type(self.tries) is not int or not 1 <= self.tries <= MAX_TRIES:
            raise UsageError(f"retries must be a whole number of tries, 1 to {MAX_TRIES}")
        if not 0 <= self.base <= MAX_BACKOFF:
            raise UsageError(f"the backoff must be 0 to {MAX_BACKOFF:g} seconds")


class RetryPolicyError(ValueError):
    """A retry policy the engine cannot read: the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """`tries`: attempts in all, the first included (1: never retried). `delays`: seconds to
    wait before each retry, the last repeated; empty: the engine's exponential backoff."""

    tries: int
    delays: tuple[float, ...] = ()
    source: str = ""  # as written, for messages

    def delay(self, retry: int) -> float | None:
        """The fixed wait before retry number `retry` (1 = the second try), or None: back off."""
        if not self.delays:
            return None
        return self.delays[min(retry, len(self.delays)) - 1]


def duration_seconds(text: str) -> float:
    """An ISO 8601 duration of weeks, days, hours, minutes and seconds, in seconds."""
    match = _DURATION.fullmatch(text.strip())
    if match is None or not any(match.groupdict().values()) or text.strip().endswith("T"):
        raise RetryPolicyError(
            f"{text!r} is not an ISO 8601 duration of days, hours, minutes or seconds (PT5M)"
        )
    total = sum(
        float(value.replace(",", ".")) * _SECONDS[unit]
        for unit, value in match.groupdict().items()
        if value
    )
    if total > MAX_DELAY:
        raise RetryPolicyError(f"{text!r} is longer than a year")
    return total


def camunda_cycle(text: str) -> RetryPolicy:
    """`R5/PT1M` (five tries a minute apart) or `PT1M,PT5M` (three tries: 1 and 5 minutes)."""
    written = text.strip()
    if written.startswith(("${", "#{")):
        raise RetryPolicyError(
            f"{written!r}: a computed retry cycle is not supported; write it out (R3/PT1M)"
        )
    cycle = _CYCLE.fullmatch(written)
    if cycle is not None:
        tries = _tries(cycle.group(1), written)
        return RetryPolicy(tries, (duration_seconds(cycle.group(2)),), written)
    waits = [part for part in (p.strip() for p in written.split(",")) if part]
    if not waits:
        raise RetryPolicyError("an empty retry cycle: write R3/PT1M, or a list of durations")
    return RetryPolicy(len(waits) + 1, tuple(duration_seconds(w) for w in waits), written)


def zeebe_retries(text: str) -> RetryPolicy:
    """`retries="5"` (also `=5`): five tries, the engine's backoff between them."""
    written = text.strip()
    return RetryPolicy(_tries(written.removeprefix("=").strip(), written), (), written)


def _tries(text: str, written: str) -> int:
    if not text.isdigit():
        raise RetryPolicyError(f"{written!r}: the number of tries must be a whole number")
    tries = int(text)
    if tries > MAX_TRIES:
        raise RetryPolicyError(f"{written!r}: the number of tries must be at most {MAX_TRIES}")
    return max(tries, 1)  # none: the one try there always is
