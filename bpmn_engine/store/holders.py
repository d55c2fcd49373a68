"""Who holds a claim on a job (seed 004): a host, a process, and which open store in it.

A claim names its holder `host:pid.n`, n counting the stores this process opened. Whether
the holder may still be running the job: on another host, the lease decides; on this host,
while its process exists (so `bpmn resume` after a crash need not wait out the lease); in
this very process, while the store that claimed is open. Two engines in one process (the
HTTP server's and its worker's) so never take each other's claims for orphans of their
own, while a claim of a store closed here, or of an older release (`host:pid`), is one.
"""

from __future__ import annotations

import itertools
import os
import socket
import sys
import weakref

_HOST = socket.gethostname()
_OPEN: set[str] = set()
_COUNTER = itertools.count(1)


def open_holder(store: object) -> str:
    """A new holder for `store`, open until `close_holder` or until the store is collected."""
    holder = f"{_HOST}:{os.getpid()}.{next(_COUNTER)}"
    _OPEN.add(holder)
    weakref.finalize(store, _OPEN.discard, holder)
    return holder


def close_holder(holder: str) -> None:
    _OPEN.discard(holder)


def holder_alive(claimed_by: str) -> bool:
    """Whether the holder of a claim may still be running its job (when in doubt, yes:
    then the lease decides)."""
    host, _, rest = claimed_by.rpartition(":")
    if host != _HOST:
        return True
    pid = rest.partition(".")[0]
    if pid == str(os.getpid()):
        return claimed_by in _OPEN
    return _pid_alive(pid)


def _pid_alive(pid: str) -> bool:
    """Whether a process of this host exists; when in doubt, alive."""
    if sys.platform == "win32" or not pid.isdigit() or int(pid) <= 0:
        return True  # on Windows os.kill(pid, 0) would not probe but kill
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists, owned by someone else
        return True
    return True
