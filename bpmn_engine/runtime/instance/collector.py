"""Full garbage collections wait while a run steps.

A run allocates a few short-lived containers per step (the step record, its events, the track
snapshot); now and then the collector, counting them, walks every object the process holds,
among them the whole compiled diagram: on `seq_10000` one such pass takes about 50 ms, as
much as 1 500 steps, and it finds nothing, since a step leaves no cycles behind. While a
run steps, the oldest generation is therefore collected only when the run ends: young
objects are collected as always, so a cycle made during the run is still freed by them, and
nothing else about the collector changes. Runs in several threads share one setting: the
first to start saves the thresholds and the last to end puts them back.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_NEVER = 1 << 30  # collections of generation 1 before one of generation 2: not in a run
_lock = threading.Lock()
_depth = 0
_saved: tuple[int, ...] = ()


@contextmanager
def young_only() -> Iterator[None]:
    """Hold off full collections until the outermost run in the process ends."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = gc.get_threshold()
            if len(_saved) == 3 and _saved[0] > 0:  # a collector that is set up as usual
                gc.set_threshold(_saved[0], _saved[1], _NEVER)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and len(_saved) == 3 and _saved[0] > 0:
                gc.set_threshold(*_saved)
