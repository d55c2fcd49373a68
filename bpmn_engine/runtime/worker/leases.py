"""The heartbeat: the lease of the job whose handler this process runs stays alive.

A job's claim is committed with a lease (`Store.lease_seconds`); a reaper in any
process may release a lease that ran out and let the job run again. So while a handler
runs, a thread renews its lease every third of the lease, on its own connection, for every
caller alike: `bpmn run`, `complete`, `resume` and `bpmn worker`. The thread starts with the
first job and lives as long as the engine. A store in memory has no other process that
could take the job over, so it gets no thread.

`timeout` caps how long one handler call keeps its lease alive (Zeebe's job timeout): past
it the heartbeat stops renewing, the lease runs out, and another worker may run the job
again; a result the hung handler returns after that commits only if nobody did (the
commit is a compare-and-set on the track's version).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from bpmn_engine.runtime.storage import Store


class Heartbeat:
    """Renews the leases of the jobs whose handlers this process runs, while they run."""

    def __init__(self, store: Store, timeout: float | None = None) -> None:
        self.store = store
        self.timeout = timeout
        # the jobs whose handlers run now (one, unless a handler runs another instance's job
        # inside), with time.monotonic() when each was called
        self._jobs: dict[tuple[str, int], float] = {}
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def needed(self) -> bool:
        path = self.store.path
        return not (path == ":memory:" or path.startswith("file::memory:"))

    @contextmanager
    def holding(self, instance_id: str, track_id: int) -> Iterator[None]:
        """The job's handler runs inside: its lease is renewed until it returns."""
        if not self.needed:
            yield
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._beat, name="bpmn-heartbeat", daemon=True)
            self._thread.start()
        job = (instance_id, track_id)
        self._jobs[job] = time.monotonic()
        try:
            yield
        finally:
            self._jobs.pop(job, None)

    def close(self) -> None:
        if self._thread is not None:
            self._done.set()
            self._thread.join(timeout=5)
            self._thread = None

    def _beat(self) -> None:
        store = self.store.another()
        try:
            while not self._done.wait(self.store.lease_seconds / 3):
                now = time.monotonic()
                for job, started in list(self._jobs.items()):
                    if self.timeout is not None and now - started > self.timeout:
                        continue  # hung past its timeout: let the lease run out
                    store.heartbeat(*job, self.store.lease_seconds)
        finally:
            store.close()
