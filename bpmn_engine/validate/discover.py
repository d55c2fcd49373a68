"""Turn the PATH arguments into the files to validate: files, folders and globs.

A path that names nothing is not silently dropped: it comes back as a problem, which the
runner reports as a `parse` finding (exit code 2), so a typo in CI never passes as "clean".
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

SUFFIXES = (".bpmn", ".bpmn2", ".bpmn20.xml", ".dmn")  # DMN: business rule tasks' decisions
_GLOB_CHARS = frozenset("*?[")


@dataclass
class Discovery:
    """`files` in a stable order, without repeats; `problems` as (path, message)."""

    files: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)


def is_bpmn_name(name: str) -> bool:
    """A BPMN file's name, or a DMN file's (validated with the BPMN files that use it)."""
    return name.lower().endswith(SUFFIXES)


def discover(paths: Iterable[str | Path]) -> Discovery:
    found = Discovery()
    seen: set[str] = set()

    def add(path: str) -> None:
        key = os.path.normpath(path)
        if key not in seen:
            seen.add(key)
            found.files.append(path)

    for raw in paths:
        path = str(raw)
        if os.path.isdir(path):
            files = _folder(path)
            if not files:
                found.problems.append((path, "no *.bpmn, *.bpmn2 or *.bpmn20.xml file in folder"))
            for file in files:
                add(file)
        elif os.path.lexists(path) or not _GLOB_CHARS & set(path):
            add(path)  # a file (any name: asked for by name), or a missing one the reader reports
        else:
            matches = sorted(glob.glob(path, recursive=True))
            for match in matches:
                if os.path.isdir(match):
                    for file in _folder(match):
                        add(file)
                elif is_bpmn_name(match):
                    add(match)
            if not matches:
                found.problems.append((path, "no file matches this pattern"))
    return found


def _folder(folder: str) -> list[str]:
    """Every BPMN file below a folder, sorted, skipping hidden folders (.git, .venv...)."""
    files: list[str] = []
    for current, folders, names in os.walk(folder):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        files.extend(os.path.join(current, n) for n in sorted(names) if is_bpmn_name(n))
    return files
