"""Holding Python's cyclic garbage collector while many acyclic objects are made or walked.

Compiling a document, or reading its compiled form back, makes a handful of container
objects per element that all survive (the specs, the graphs' dicts). Each time the survivors
grow by a quarter, the collector walks every object of the process, so the collections grow
faster than the file (a sixth of loading 10,000 parallel branches, against a twentieth for
1,000), and they find nothing: this work leaves no garbage cycles. The collector runs as
before once it is done, and stays disabled if it was disabled (another thread doing the same
may re-enable it first: that only lets it run). `runtime/instance/collector.py` is the other
tool: it only holds off full collections while a run steps.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
