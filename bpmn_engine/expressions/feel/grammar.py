"""The FEEL grammar (`feel.lark`, shipped as package data) and its LALR parser, built once.

Building the LALR tables takes a tenth of a second, so they are cached on disk; lark reads its
cache with `pickle`, so the file must be one nobody else can have written. lark's own default
(`cache=True`) is a predictable name in the shared temp dir, which anyone could plant first:
the cache lives in the user's own cache directory instead, used only while it is private.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import lark
from lark import Lark, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

from bpmn_engine.errors import ExpressionError


def _private(path: Path, kind: int) -> bool:
    """`path` is a `kind` (not a link to one), ours, and nobody else may write it."""
    try:
        found = path.lstat()
    except OSError:
        return False
    return (
        stat.S_IFMT(found.st_mode) == kind
        and found.st_uid == os.getuid()
        and not found.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def cache_file(grammar: str) -> str | None:
    """Where the tables of `grammar` are cached: `$XDG_CACHE_HOME/bpmn-engine` (by default
    `~/.cache/bpmn-engine`), made private; None (no cache) when that directory or the file
    in it could have been written by someone else, or cannot be made."""
    if not hasattr(os, "getuid"):
        return None
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(home) / "bpmn-engine"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    if not _private(folder, stat.S_IFDIR):
        return None
    version = f"{lark.__version__} {sys.version_info[:2]} {grammar}".encode()
    path = folder / f"feel-{hashlib.sha256(version).hexdigest()[:32]}.lark"
    if path.exists() and not _private(path, stat.S_IFREG):
        return None
    return str(path)


@functools.cache
def _parser() -> Lark:
    grammar = resources.files(__package__).joinpath("feel.lark").read_text(encoding="utf-8")
    options: dict[str, Any] = {
        "parser": "lalr",
        "start": ["start", "unary_tests"],
        "maybe_placeholders": True,
    }
    cached = cache_file(grammar)
    if cached is None:
        return Lark(grammar, **options)
    # lark writes its cache in place, and rewrites a file it cannot read: two processes
    # starting at once (parallel test workers, two `bpmn` commands) could read each other's
    # half-written tables, or interleave their writes. Reading and writing it under one
    # lock (next to it, in the private folder) makes each see a whole file or none.
    import fcntl  # here: POSIX only, as is the cache (`cache_file`: None without getuid)

    with open(lock_file(cached), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return Lark(grammar, cache=cached, **options)


def lock_file(cached: str) -> str:
    """The lock held while the cache file `cached` is read or written."""
    return str(Path(cached).with_suffix(".lock"))


def parse(text: str, start: str = "start") -> Tree:
    """Parse FEEL text; a syntax error is an ExpressionError saying where."""
    if not text.strip():
        raise ExpressionError("FEEL: the expression is empty")
    try:
        return _parser().parse(text, start=start)
    except UnexpectedEOF:
        raise ExpressionError("FEEL syntax error: the expression ends too early") from None
    except UnexpectedToken as error:
        found = "end of the expression" if error.token.type == "$END" else repr(str(error.token))
        raise ExpressionError(
            f"FEEL syntax error at line {error.line}, column {error.column}: unexpected {found}"
        ) from None
    except UnexpectedCharacters as error:
        raise ExpressionError(
            f"FEEL syntax error at line {error.line}, column {error.column}: "
            f"unexpected {text[error.pos_in_stream]!r}"
        ) from None
    except LarkError as error:
        raise ExpressionError(f"FEEL syntax error: {error}") from None
