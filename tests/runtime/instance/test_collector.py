"""Full garbage collections wait while a run steps, and the collector is as before afterwards."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from bpmn_engine import Engine
from bpmn_engine.records.rows import Event
from bpmn_engine.runtime.instance import collector
from tests.runtime.conftest import Bpmn, flow, script

CHAIN = (
    '<startEvent id="S"/>'
    + script("A", "n = n + 1")
    + script("B", "n = n + 1")
    + '<endEvent id="E"/>'
    + flow("S", "A")
    + flow("A", "B")
    + flow("B", "E")
)


@pytest.fixture
def thresholds() -> Iterator[tuple[int, ...]]:
    """Known thresholds for the test, and the process's own put back after it."""
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield gc.get_threshold()
    gc.set_threshold(*before)


def test_a_run_holds_off_full_collections_and_puts_the_collector_back(
    engine: Engine, bpmn: Bpmn, thresholds: tuple[int, ...]
):
    # given
    instance = engine.start(bpmn(CHAIN), variables={"n": 0})
    during: list[tuple[int, ...]] = []

    def seen(event: Event) -> None:
        during.append(gc.get_threshold())

    # when
    outcome = instance.run(on_event=seen)
    # then: young generations as always, the oldest only once the run is over
    assert outcome.state == "completed" and outcome.variables == {"n": 2}
    assert during and all(t[:2] == thresholds[:2] and t[2] > thresholds[2] for t in during)
    assert gc.get_threshold() == thresholds


def test_a_run_that_raises_puts_the_collector_back(
    engine: Engine, bpmn: Bpmn, thresholds: tuple[int, ...]
):
    # given: a listener of the caller's that fails mid-run
    instance = engine.start(bpmn(CHAIN), variables={"n": 0})

    def broken(event: Event) -> None:
        raise RuntimeError("the caller's listener failed")

    # when
    with pytest.raises(RuntimeError, match="listener failed"):
        instance.run(on_event=broken)
    # then
    assert gc.get_threshold() == thresholds


def test_overlapping_runs_restore_the_collector_when_the_last_one_ends(
    thresholds: tuple[int, ...],
):
    # given: one run in another thread, started first and ended last
    started, release = threading.Event(), threading.Event()

    def other_run() -> None:
        with collector.young_only():
            started.set()
            release.wait(10)

    thread = threading.Thread(target=other_run)
    thread.start()
    started.wait(10)
    # when: a run in this thread starts and ends inside it
    with collector.young_only():
        inside = gc.get_threshold()
    after_mine = gc.get_threshold()
    release.set()
    thread.join(10)
    # then: held off until the last run ended, then exactly as before
    assert inside[2] > thresholds[2] and after_mine == inside
    assert gc.get_threshold() == thresholds


def test_a_collector_switched_off_by_its_threshold_is_left_alone():
    # given: automatic collection off (threshold 0), as some applications set it
    before = gc.get_threshold()
    gc.set_threshold(0)
    try:
        # when
        with collector.young_only():
            inside = gc.get_threshold()
        # then
        assert inside == gc.get_threshold() == (0, before[1], before[2])
    finally:
        gc.set_threshold(*before)
