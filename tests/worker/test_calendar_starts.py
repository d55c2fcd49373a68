"""Start timers whose cycle counts calendar months: the worker reads each next time from the
cycle's text (a month has no fixed number of seconds)."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine.runtime.worker.worker import Worker
from tests.worker.conftest import bpmn_file, events, flow, timer_start

END_AT_ONCE = f'{flow("s", "e")}<endEvent id="e"/>'


def test_a_monthly_start_cycle_fires_on_calendar_months(tmp_path: Path, engines, clock) -> None:
    cycle = "R3/2026-01-31T00:00:00Z/P1M"
    path = bpmn_file(tmp_path / "p.bpmn", timer_start("s", "timeCycle", cycle) + END_AT_ONCE)
    engine = engines(tmp_path / "db", clock=clock)
    [deployment] = engine.deploy_processes(path)
    [timer] = engine.store.start_timers(deployment.id)
    assert (timer["repeat"], timer["interval"]) == (2, None)  # no fixed interval

    report = Worker(engine, once=True).run()

    assert report.started == 3
    ids = [row["id"] for row in engine.instances()]
    dues = sorted(e.data["due"] for e in events(engine, ids, "timer.fired") if e.element == "s")
    assert dues == [
        "2026-01-31T00:00:00+00:00",
        "2026-02-28T00:00:00+00:00",
        "2026-03-31T00:00:00+00:00",
    ]
    assert [t["status"] for t in engine.store.start_timers(deployment.id)] == ["done"]
