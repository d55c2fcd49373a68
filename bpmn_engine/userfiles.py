"""Reading a file a user names: only regular files, and never more than a cap.

`st_size` cannot be trusted for a cap: a symlink to `/dev/zero` says 0 bytes and never ends,
and opening a FIFO for reading blocks until a writer comes. So the path is stat'ed (symlinks
resolved) and refused unless it is a regular file, it is opened without blocking and checked
again on the open descriptor (it may have been swapped in between), and at most `limit + 1`
bytes are read, whatever the file claims.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from bpmn_engine.errors import LoadError

MAX_FILE_BYTES = 64 * 1024 * 1024
_CHUNK = 1024 * 1024


def _limit_text(limit: int) -> str:
    mib, rest = divmod(limit, 1024 * 1024)
    return f"{mib} MiB" if not rest else f"{limit} bytes"


def _refuse_special(mode: int, name: str) -> None:
    if stat.S_ISDIR(mode):
        raise LoadError("not a regular file (a directory)", file=name)
    if not stat.S_ISREG(mode):
        raise LoadError("not a regular file", file=name)


def read_user_file(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file at `path`, or a LoadError naming it."""
    name = str(path)
    try:
        _refuse_special(os.stat(path).st_mode, name)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        descriptor = os.open(path, flags)
        with os.fdopen(descriptor, "rb", buffering=0) as handle:
            _refuse_special(os.fstat(handle.fileno()).st_mode, name)
            chunks: list[bytes] = []
            total = 0
            while total <= limit:
                chunk = handle.read(min(_CHUNK, limit + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
    except FileNotFoundError:
        raise LoadError("no such file", file=name) from None
    except PermissionError:
        raise LoadError("permission denied", file=name) from None
    except OSError as error:
        raise LoadError(error.strerror or str(error), file=name) from None
    if total > limit:
        raise LoadError(f"larger than {_limit_text(limit)}", file=name)
    return b"".join(chunks)


def write_user_file(path: str | Path, text: str) -> None:
    """Write `text` to the file a user named, whole or not at all: into a temporary file
    beside it, then renamed over it, so a reader (a browser reloading a page, a later
    command adding to a recording) never sees half of it. A LoadError names the file when
    it cannot be written."""
    target = Path(path)
    temporary = target.with_name(target.name + ".tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(target)
    except OSError as error:
        raise LoadError(f"cannot write: {error.strerror or error}", file=str(path)) from None
