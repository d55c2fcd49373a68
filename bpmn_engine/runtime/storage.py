"""What the runtime needs from a store: the protocol every store implements.

The runtime imports this, never a concrete store; `bpmn_engine.store` holds the SQLite one
and `tests/store/test_contract.py` is the suite any store must pass. Split by concern, as
the SQLite store is: checkpoints (an instance's rows, one step = one transaction with
compare-and-set), the outbox (what a step sends, delivered after it), messages, data
stores, deployments, finding work, leases on jobs, and the undo log. Every method that
writes is one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from bpmn_engine.records.data import InstanceData, Step
from bpmn_engine.records.rows import DataStoreValue, Event


class CheckpointStore(Protocol):
    """Definitions and instances: load one from its rows, commit a step with compare-and-set."""

    path: str

    def close(self) -> None: ...
    def save_definition(self, version: str, path: str, source: bytes) -> None: ...
    def definition_source(self, version: str) -> tuple[str, bytes]: ...
    def compiled_definition(self, version: str) -> tuple[str, bytes] | None:
        """(format, form) of the compiled-definitions cache (runtime/engine/compiled.py)."""
        ...

    def compiled_format(self, version: str) -> str | None: ...
    def save_compiled_definition(self, version: str, format: str, form: bytes) -> None: ...
    def definition_versions(self) -> list[str]: ...
    def definition_of(self, instance_id: str) -> str: ...
    def child_instances(self, instance_id: str) -> list[str]: ...
    def call_tree_size(self, root: str) -> int:
        """The instances of the call tree whose root is `root` (it, and every instance its
        call activities started, at any depth), plus the children its call rows still
        pending will start: one count on an index, however big the tree."""
        ...

    def instance_exists(self, instance_id: str) -> bool: ...
    def resolve(self, prefix: str) -> str: ...
    def list_instances(self) -> list[dict[str, Any]]: ...
    def open_tasks(
        self, process: str | None = None, assignee: str | None = None, group: str | None = None
    ) -> list[dict[str, Any]]:
        """The waiting user tasks of every active instance (instance, task, element, name,
        assignee, candidate_users, candidate_groups, created_at, process, business_key,
        definition), oldest first: one query on an index, however many instances."""
        ...

    def load(self, instance_id: str) -> InstanceData: ...

    def commit(self, step: Step, *, new_instance: bool = False) -> None:
        """Write what the step touched, its outbox rows and its deliveries, or nothing:
        `ConcurrentModification` when a row changed since it was loaded."""
        ...

    def history(self, instance_id: str) -> list[Event]: ...
    def history_times(self, instance_id: str) -> dict[int, str]: ...
    def snapshot(
        self, instance_id: str, *, with_history: bool = True
    ) -> dict[str, list[tuple]]: ...


class OutboxStore(Protocol):
    """What committed steps sent and nobody has delivered yet (seed 000's outbox)."""

    def pending_outbox(self, source: str | None = None) -> list[dict[str, Any]]: ...
    def delivered_to(self, outbox_id: int) -> set[str]: ...
    def finish_outbox(self, outbox_id: int) -> None: ...
    def fail_outbox(self, outbox_id: int, error: str) -> None: ...
    def failed_outbox(self) -> list[dict[str, Any]]: ...


class MessageStore(Protocol):
    """Published messages (buffered, correlated, expired) and who waits for them."""

    def waiting_subscriptions(
        self, kind: str, name: str, key: str | None = None
    ) -> list[tuple[str, int]]: ...
    def message_seen(self, message_id: str) -> bool: ...
    def message_status(self, message_id: str) -> tuple[str, str | None] | None: ...
    def record_message(
        self,
        message_id: str,
        name: str,
        key: str | None,
        variables: dict[str, Any],
        expires_at: str,
        status: str,
        instance: str | None = None,
    ) -> None: ...
    def buffer_unless_awaited(
        self,
        message_id: str,
        name: str,
        key: str | None,
        variables: dict[str, Any],
        expires_at: str,
    ) -> list[tuple[str, int]]: ...
    def buffered_message(
        self, name: str, key: str | None, now: str
    ) -> tuple[str, dict[str, Any]] | None: ...


class DataStores(Protocol):
    """Data stores (docs/data-stores.md): named JSON values shared by every instance. A step
    writes them with its commit (`Step.stores`), last writer wins; these only read."""

    def data_store(self, name: str) -> DataStoreValue | None:
        """The store's value and last write; None when it was never written."""
        ...

    def data_stores(self) -> list[DataStoreValue]:
        """Every store written, by name."""
        ...


class DeploymentStore(Protocol):
    """Deployed processes and their timer, message and signal start events."""

    def record_deployment(
        self,
        process: str,
        definition: str,
        deployed_at: datetime,
        timers: list[tuple[str, datetime, int, float | None]],
        messages: list[tuple[str, str]],
        signals: list[tuple[str, str]] = ...,
    ) -> tuple[int, int | None, bool]: ...
    def deployments(self, *, active_only: bool = True) -> list[dict[str, Any]]: ...
    def start_timers(self, deployment: int) -> list[dict[str, Any]]: ...
    def due_start_timers(self, now: datetime) -> list[tuple[Any, ...]]: ...
    def advance_start_timer(
        self, timer_id: int, due_before: str, due_after: datetime | None, repeat: int
    ) -> bool: ...
    def message_start(self, name: str) -> tuple[str, str, str] | None: ...
    def signal_starts(self, name: str) -> list[tuple[str, str, str]]: ...
    def save_decision_set(
        self, version: str, paths: list[str], source: bytes, *, deployed: bool
    ) -> bool: ...
    def decision_sets(self) -> list[tuple[str, bytes]]: ...


class WorkStore(Protocol):
    """Finding what can run, by querying rows (nothing of an instance stays in memory)."""

    def runnable_instances(
        self, now: datetime, *, joins: bool = False, also: Iterable[str] = ()
    ) -> list[str]: ...
    def waiting_jobs(self) -> list[tuple[str, str, str]]:
        """(instance, definition, element) of each service task waiting for a handler."""
        ...

    def waiting_timers_by_due(self) -> Iterator[tuple[str, int, str, str]]: ...
    def start_timers_by_due(self) -> Iterator[tuple[str, int]]: ...

    def wait_for_work(self, seconds: float, stopping: Callable[[], bool]) -> bool:
        """Wait until a commit elsewhere may have left work (True: a notification), at most
        `seconds`, or until `stopping()` (False). A store that cannot be told sleeps (polls)."""
        ...

    def driving(self, instance_id: str) -> AbstractContextManager[None]:
        """While this process runs the instance's steps itself (a worker's drive): the ready
        work they leave is not announced to waiting workers unless the block ends with some
        left (nobody else could take it meanwhile)."""
        ...

    def stuck_instances(self, instance_id: str | None = None) -> list[str]:
        """Active instances that nothing can move on: no track can run, and nothing they
        wait for (timer, message, signal, condition, user task, called instance) is there."""
        ...

    def overdue_work(self, now: datetime) -> list[tuple[str, int, str, str, str]]:
        """(instance, track, element, why, since): tokens late to move on, the oldest first:
        `retry` (a retry timer due before `now`), `lease` (a job whose claim ran out)."""
        ...


class LeaseStore(Protocol):
    """Claims on jobs with a lease, renewed by a heartbeat, released by a reaper (seed 004)."""

    worker: str
    lease_seconds: float

    def another(self) -> Store:
        """A second connection to the same store (for a heartbeat thread)."""
        ...

    def live_claim(self, instance_id: str, track_id: int) -> bool: ...
    def heartbeat(self, instance_id: str, track_id: int, lease_seconds: float) -> bool: ...
    def release_expired_leases(self) -> int: ...

    def overdue_jobs(self, cap_seconds: float) -> list[tuple[str, int, str]]:
        """(instance, track, holder) of the claimed jobs whose handler call began more than
        `cap_seconds` ago, even if their holder keeps renewing the lease."""
        ...


class UndoStore(Protocol):
    """The before-images of steps (for a store asked to keep them), applied in reverse."""

    def undoable_steps(self, instance_id: str) -> int: ...

    def rewind(self, instance_id: str, steps: int) -> None:
        """The rows as before the last `steps` steps, in one transaction, or `UsageError`
        (fewer steps recorded, or a step sent what others already received)."""
        ...

    def rewind_together(self, rewinds: list[tuple[str, int]]) -> None:
        """`rewind` of each (instance, steps) in this order, all in one transaction, or
        `UsageError` and nothing changed; also refused when a parent/child row's receipt goes
        back while the step that sent it stays (it would never be delivered again)."""
        ...


@runtime_checkable
class Store(
    CheckpointStore,
    OutboxStore,
    MessageStore,
    DataStores,
    DeploymentStore,
    WorkStore,
    LeaseStore,
    UndoStore,
    Protocol,
):
    """Everything the runtime asks of a store."""
