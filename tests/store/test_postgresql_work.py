"""Workers on PostgreSQL: claims skip locked rows, and a waiting worker is woken by NOTIFY.

Only a server brings these (SQLite serialises writers and has no notifications); the
behaviour both stores share is in the worker suite, run on each store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import ConcurrentModification, Engine
from tests.postgresql_server import fresh_url
from tests.worker.conftest import JOB, bpmn_file, completions


def connect(url: str) -> Any:
    import psycopg

    return psycopg.connect(url, autocommit=True)


def test_a_claim_skips_an_instance_another_transaction_is_moving(tmp_path: Path) -> None:
    # given: an instance whose next step claims its job, and its row locked by another writer
    url = fresh_url()
    calls: list[str] = []
    engine = Engine(url, handlers={"work": lambda ctx: calls.append(ctx.idempotency_key)})
    try:
        instance = engine.start(bpmn_file(tmp_path / "job.bpmn", JOB))
        instance.step_once()  # the start event: the track is ready at the service task
        assert [(t.element, str(t.status)) for t in instance.data.tracks.values()] == [("work", "ready")]
        engine.store.conn.pg.execute("SET lock_timeout = '5s'")  # waiting would fail otherwise
        other = connect(url)
        try:
            with other.transaction():
                other.execute("SELECT 1 FROM instances WHERE id = %s FOR UPDATE", (instance.id,))
                # when: the claim is committed while the row is locked
                with pytest.raises(ConcurrentModification, match="skipped"):
                    instance.step_once()
        finally:
            other.close()
        # then: nothing was claimed; once the row is free the job runs, once
        assert calls == []
        outcome = engine.instance(instance.id).run()
        assert outcome.state == "completed" and len(calls) == 1
        assert completions(engine, instance.id) == {"s": 1, "work": 1, "e": 1}
    finally:
        engine.close()
