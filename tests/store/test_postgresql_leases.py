"""Leases on PostgreSQL run on the server's clock: the workers' clocks do not matter.

Workers on many hosts share the claims, so a host whose clock runs ahead must not take over
a live job, nor one whose clock lags keep a dead one. Here the worker side's clock (what
the SQLite code writes leases and history times from) is moved hours ahead or behind, far
more than any lease, while the server's stays true.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import Engine
from bpmn_engine.runtime.instance import checkpoints
from bpmn_engine.runtime.worker.worker import Worker
from bpmn_engine.store.postgresql.dialect import POSTGRESQL
from bpmn_engine.store.postgresql.leases import SERVER_NOW
from bpmn_engine.store.sqlite import leases
from tests.postgresql_server import fresh_url
from tests.worker.conftest import JOB, bpmn_file, completions

ELSEWHERE = "elsewhere.example:4242"  # a holder on another host: only its lease can tell
SKEW = timedelta(hours=2)  # far more than the lease (300 s) and the cap (3 600 s) below
AGO = POSTGRESQL.stamp("clock_timestamp() - ?::interval")  # the server's clock, some time ago
Skew = Callable[[timedelta], None]


@pytest.fixture
def skew(monkeypatch: pytest.MonkeyPatch) -> Skew:
    """`skew(delta)`: this process's clock, as the store code reads it, runs `delta` off."""
    real_now, real_time = datetime.now, checkpoints.time.time

    def move(delta: timedelta) -> None:
        class Skewed(datetime):
            @classmethod
            def now(cls, tz: Any = None) -> Any:
                return real_now(tz) + delta

        monkeypatch.setattr(leases, "datetime", Skewed)  # leases: claims, the SQLite clock
        monkeypatch.setattr(  # step times: the history (where a job's call began)
            checkpoints,
            "time",
            types.SimpleNamespace(time=lambda: real_time() + delta.total_seconds()),
        )

    return move


@pytest.fixture
def url() -> Iterator[str]:
    yield fresh_url()


def crash(url: str, path: Path) -> str:
    """An instance whose job a crash left claimed (`executing`, a lease) by this process."""

    def dies(ctx: Any) -> None:
        raise KeyboardInterrupt  # not an Exception: the claim stays committed

    engine = Engine(url, handlers={"work": dies})
    try:
        instance = engine.start(path)
        with pytest.raises(KeyboardInterrupt):
            instance.run()
        return instance.id
    finally:
        engine.close()


def row(engine: Engine, sql: str, params: tuple = ()) -> tuple:
    return tuple(engine.store.conn.execute(sql, params).fetchone())


def lease_of(engine: Engine, instance_id: str) -> tuple[datetime, datetime, datetime]:
    """(server's now, lease deadline, when the job's call began) as times."""
    now, until, began = row(
        engine,
        f"SELECT {SERVER_NOW}, t.lease_until, h.at FROM tracks t JOIN history h "
        "ON h.instance = t.instance AND h.track = t.id AND h.event = 'job.started' "
        "WHERE t.instance = ? AND t.id = 1",
        (instance_id,),
    )
    return datetime.fromisoformat(now), datetime.fromisoformat(until), datetime.fromisoformat(began)


@pytest.mark.parametrize("delta", [SKEW, -SKEW], ids=["ahead", "behind"])
def test_a_lease_and_its_calls_start_are_the_servers_time_whatever_the_hosts(
    tmp_path: Path, url: str, skew: Skew, delta: timedelta
) -> None:
    # given: a host whose clock is two hours off
    skew(delta)
    # when: it claims a job (and later renews its lease)
    instance_id = crash(url, bpmn_file(tmp_path / "job.bpmn", JOB))
    engine = Engine(url)
    try:
        now, until, began = lease_of(engine, instance_id)
        # then: the deadline is the server's now plus the lease, and the call began at the
        # server's now (the absolute cap counts from there), not two hours off
        assert abs(until - timedelta(seconds=300) - began) < timedelta(seconds=1)
        assert timedelta(0) <= now - began < SKEW / 2
        engine.store.conn.execute(  # the claim handed to this engine's store, which renews it
            "UPDATE tracks SET claimed_by = ? WHERE instance = ? AND id = 1",
            (engine.store.worker, instance_id),
        )
        assert engine.store.heartbeat(instance_id, 1, 3600)
        now, renewed, _ = lease_of(engine, instance_id)
        assert timedelta(seconds=3600) - SKEW / 2 < renewed - now <= timedelta(seconds=3600)
    finally:
        engine.close()


def test_a_host_whose_clock_runs_ahead_takes_over_no_live_job(
    tmp_path: Path, url: str, skew: Skew
) -> None:
    # given: a job claimed a moment ago (lease: 300 s), held by a worker on another host
    instance_id = crash(url, bpmn_file(tmp_path / "job.bpmn", JOB))
    calls: list[str] = []
    engine = Engine(url, handlers={"work": calls.append}, job_timeout=3600)
    try:
        engine.store.conn.execute("UPDATE tracks SET claimed_by = ?", (ELSEWHERE,))
        # when: a worker whose clock is two hours ahead looks at it
        skew(SKEW)
        # then: its lease is alive and the call is not past the one-hour cap
        assert engine.store.live_claim(instance_id, 1)
        assert engine.store.release_expired_leases() == 0
        assert engine.store.overdue_jobs(3600) == []
        assert engine.store.runnable_instances(datetime.now(UTC)) == []
        report = Worker(engine, once=True).run()
        assert (report.steps, report.leases_released, report.jobs_given_up) == (0, 0, 0)
        assert calls == []
        assert row(engine, "SELECT status, claimed_by FROM tracks") == ("executing", ELSEWHERE)
    finally:
        engine.close()


def test_a_host_whose_clock_lags_takes_over_a_job_whose_lease_ran_out(
    tmp_path: Path, url: str, skew: Skew
) -> None:
    # given: a job held on another host whose lease ran out a second ago, by the server
    instance_id = crash(url, bpmn_file(tmp_path / "job.bpmn", JOB))
    calls: list[str] = []
    engine = Engine(url, handlers={"work": lambda ctx: calls.append(ctx.idempotency_key)})
    try:
        engine.store.conn.execute(
            f"UPDATE tracks SET claimed_by = ?, lease_until = {AGO}",
            (ELSEWHERE, "1 second"),
        )
        # when: a worker whose clock is two hours behind looks at it
        skew(-SKEW)
        # then: the lease has run out, and the job is taken over and run, once more
        assert not engine.store.live_claim(instance_id, 1)
        report = Worker(engine, once=True).run()
        assert report.leases_released == 1
        assert engine.instance(instance_id).state == "completed"
        assert len(calls) == 1
        assert completions(engine, instance_id) == {"s": 1, "work": 1, "e": 1}
    finally:
        engine.close()


def test_a_host_whose_clock_lags_gives_up_a_job_past_the_cap_by_the_servers_clock(
    tmp_path: Path, url: str, skew: Skew
) -> None:
    # given: a job held alive elsewhere whose call began 61 minutes ago, by the server
    instance_id = crash(url, bpmn_file(tmp_path / "job.bpmn", JOB))
    engine = Engine(url, job_timeout=3600)
    try:
        engine.store.heartbeat(instance_id, 1, 3600)
        engine.store.conn.execute("UPDATE tracks SET claimed_by = ?", (ELSEWHERE,))
        engine.store.conn.execute(
            f"UPDATE history SET at = {AGO} WHERE event = 'job.started'",
            ("61 minutes",),
        )
        # when: a worker with a one-hour cap and a clock two hours behind looks at it
        skew(-SKEW)
        # then: it is past the cap (an incident), its lease alive or not
        assert engine.store.live_claim(instance_id, 1)
        assert engine.store.overdue_jobs(3600) == [(instance_id, 1, ELSEWHERE)]
        assert Worker(engine, once=True).run().jobs_given_up == 1
        assert engine.instance(instance_id).state == "failed"
    finally:
        engine.close()


def test_a_lease_the_reaper_releases_wakes_the_waiting_workers(tmp_path: Path, url: str) -> None:
    # given: a job held on another host whose lease ran out, and a worker waiting for work
    crash(url, bpmn_file(tmp_path / "job.bpmn", JOB))
    waiting, reaper = Engine(url), Engine(url)
    try:
        assert waiting.store.wait_for_work(0, lambda: False) is False  # starts listening
        reaper.store.conn.execute(
            f"UPDATE tracks SET claimed_by = ?, lease_until = {AGO}",
            (ELSEWHERE, "1 second"),
        )
        # when: a reaper releases it
        assert reaper.store.release_expired_leases() == 1
        # then: the waiting worker hears that the job is anyone's again
        assert waiting.store.wait_for_work(60, lambda: False) is True
    finally:
        waiting.close()
        reaper.close()
