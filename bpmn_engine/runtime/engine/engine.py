"""The engine: a store, the user's handlers and options; it starts and reopens instances.

`Engine` is one object made of parts, one module per responsibility: `definitions.py`
(definitions, decisions, handlers, the checks before a run), `starting.py` (every way an
instance starts), `calling.py` (call activities: the called process, the child, the call
tree), `instances.py` (reopening, listing, rewinding, messages and signals).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from bpmn_engine.errors import UsageError
from bpmn_engine.model import CallActivity, Definitions, Task
from bpmn_engine.model.retries import DEFAULT_BACKOFF, DEFAULT_TRIES, Backoff
from bpmn_engine.parse import folders
from bpmn_engine.runtime.calls.protocol import MAX_TREE_SIZE
from bpmn_engine.runtime.clock import Clock, RealClock
from bpmn_engine.runtime.data.decisions import DecisionRegistry
from bpmn_engine.runtime.engine.calling import CallsPart
from bpmn_engine.runtime.engine.migrations import MigrationsPart
from bpmn_engine.runtime.engine.outbox import Postman
from bpmn_engine.runtime.engine.parts import UserTaskAnswer
from bpmn_engine.runtime.engine.session import Session
from bpmn_engine.runtime.engine.starting import StartsPart
from bpmn_engine.runtime.handlers import Handler, load_handlers
from bpmn_engine.runtime.instance.checkpoints import check_policy
from bpmn_engine.runtime.instance.instance import Instance
from bpmn_engine.runtime.storage import Store
from bpmn_engine.runtime.worker.leases import Heartbeat


class Engine(StartsPart, CallsPart, MigrationsPart):
    """Runs instances of BPMN processes, checkpointing their steps in a store.

    The runtime's engine takes any `Store`; `bpmn_engine.Engine` opens one from a path.

    `handlers` maps service-task types (or element ids) to functions, or is a path to a
    Python file of such functions. `on_user_task` may answer a user task as soon as it
    waits (return its variables) or leave it waiting (return None). `checkpoint` is when a
    run's steps are committed: `"step"` each one, `"wait"` together when the run waits
    (faster; a crash loses the steps since the last wait, which a resume runs again).
    `job_timeout` (seconds) caps how long a handler call keeps its job's lease alive, and
    is the absolute cap past which a worker gives up anyone's job (`Worker`, seed 004).
    `undo` keeps each step's before-images in the store (slower; `bpmn step` uses it), so
    that `rewind` can take an instance back. A service task whose handler the engine does
    not have waits as a job until an engine that has it serves it (`Instance.run` on an
    engine with the handler, a `Worker`); `simulate` completes it as a no-op instead.
    `max_tree_size` is the most instances one call tree may hold (the root and every
    instance its call activities started): the call that would start one more gets an
    incident. `search_path` are folders where a call activity's process is looked for,
    with the calling file's own folder, when no file given defines it
    (docs/call-activities.md).
    """

    def __init__(
        self,
        store: Store,
        *,
        handlers: Mapping[str, Handler] | str | Path | None = None,
        trust_scripts: bool = False,
        on_user_task: UserTaskAnswer | None = None,
        clock: Clock | None = None,
        checkpoint: str = "step",
        job_timeout: float | None = None,
        undo: bool = False,
        simulate: bool = False,
        max_tree_size: int = MAX_TREE_SIZE,
        search_path: Iterable[str | Path] = (),
        retries: int = DEFAULT_TRIES,
        backoff: float = DEFAULT_BACKOFF,
    ) -> None:
        self.checkpoint = check_policy(checkpoint)
        # a failing handler's tries in all, and the wait before the first retry (seconds,
        # doubling), where its task says nothing of its own (runtime/instance/retries.py)
        self.backoff = Backoff(retries, backoff)
        self.undo = undo  # keep each step's before-images, so that `rewind` can go back
        self.store = store
        if job_timeout is not None and job_timeout <= 0:
            raise UsageError("the job timeout must be more than 0 seconds")
        self.job_timeout = job_timeout
        if type(max_tree_size) is not int or max_tree_size < 1:
            raise UsageError(
                f"max_tree_size must be a whole number of instances, at least 1, "
                f"not {max_tree_size!r}"
            )
        self.max_tree_size = max_tree_size  # instances of one call tree (runtime/calls/protocol.py)
        self.heartbeat = Heartbeat(self.store, job_timeout)
        if isinstance(handlers, str | Path):
            handlers = load_handlers(handlers)
        # the mapping given, even empty: its owner may fill it later (the test kit's mocks)
        self.handlers: Mapping[str, Handler] = handlers if handlers is not None else {}
        self.trust_scripts = trust_scripts
        # a service task with no handler completes as a no-op (a walk through the flow), where
        # it otherwise waits as a job for an engine that has one: a no-op changes the path
        self.simulate = simulate
        self.on_user_task = on_user_task
        self.clock: Clock = clock or RealClock()
        self._definitions: dict[str, Definitions] = {}
        # versions saved in this store by this engine, in order: the files it was given,
        # where a call activity looks for a process before the store's deployments
        self._deployed: dict[str, None] = {}
        self.postman = Postman(self)
        self._held: dict[str, Instance] = {}  # instances `bpmn step` moves itself (`hold`)
        # start events registered for this engine's session (`start_collaboration`)
        self.session = Session()
        self._checked: dict[tuple[str, str, bool], list[tuple[str, str]]] = {}
        self._outward: dict[tuple[str, str], tuple[list[CallActivity], list[Task]]] = {}
        self.decisions = DecisionRegistry(self.store)
        self._search_path = folders.search_path(search_path)
        # called processes found in folders: the folder of each version's file (None: not
        # there, or changed), what each search found (None: nothing), the notes given
        self._folders: dict[str, folders.Folder | None] = {}
        self._in_folders: dict[tuple[tuple[folders.Folder, ...], str], folders.FoundFile | None]
        self._in_folders = {}
        self._taken: dict[tuple[str, str], folders.FoundFile] = {}
        self._announced: set[tuple[str, str]] = set()

    def close(self) -> None:
        self.heartbeat.close()
        self.store.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
