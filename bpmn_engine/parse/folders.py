"""Finding a called process in the BPMN files of a folder, when no file given defines it.

Real projects keep a called process in another file of the same folder: Camunda Modeler
deploys the folder, SpiffWorkflow resolves process ids across a project's files. So a
`calledElement` found nowhere else is looked up, by process id, in the BPMN files beside the
calling file and in the folders of a search path (`--path DIR`), not recursively.

Only what is needed is parsed: a file is read, and compiled only when its bytes hold the
process's id (`id="X"`), so a big folder costs one read per file, and only when a call is not
found elsewhere. Two files defining the process is an error naming both (which one is meant
cannot be guessed); a file that does not load is skipped, unless it is the only one whose
bytes define the process: then the error names it and says why it does not load.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bpmn_engine.errors import LoadError
from bpmn_engine.model import Definitions
from bpmn_engine.parse.reader import compile_definitions
from bpmn_engine.parse.xml import read_source

SUFFIXES = (".bpmn", ".bpmn2", ".bpmn20.xml")


@dataclass(frozen=True)
class Folder:
    """A folder searched for called processes: `shown` as the user named it (joined to the
    file names a message shows), `why` it is searched ("beside a.bpmn", "in the search
    path DIR")."""

    shown: str
    why: str


@dataclass(frozen=True)
class FoundFile:
    """The file of a folder that defines a called process."""

    process: str
    path: str
    folder: Folder
    definitions: Definitions

    @property
    def note(self) -> str:
        """What the run says, so that a user sees which file it took."""
        return f"calls {self.process} from {self.path} (found {self.folder.why})"


def beside(definitions: Definitions) -> Folder | None:
    """The folder of the file definitions were read from, while that file is still there
    and unchanged (its SHA-256 is their version). A stored path may be relative to a working
    directory left long ago, or name a file edited since: its folder is not searched then."""
    path = definitions.path
    try:
        if not os.path.isfile(path) or hashlib.sha256(read_source(path)).hexdigest() != (
            definitions.version
        ):
            return None
    except LoadError:
        return None
    return folder_of(path)


def folder_of(path: str) -> Folder:
    """The folder of a BPMN file, searched for what its call activities call."""
    return Folder(os.path.dirname(path) or ".", f"beside {path}")


def search_path(folders: Iterable[str | Path]) -> tuple[Folder, ...]:
    """The folders of a search path (`--path DIR`), each checked to be one: a typo must not
    pass silently."""
    found = []
    for folder in folders:
        if not os.path.isdir(folder):
            raise LoadError("not a folder (a search path for called processes)", file=str(folder))
        found.append(Folder(str(folder), f"in the search path {folder}"))
    return tuple(found)


def find_process(
    process_id: str, folders: Sequence[Folder], skip: Collection[Path] = ()
) -> FoundFile | None:
    """The one file of `folders` that defines `process_id` (None: no file does); `skip` are
    files already searched (resolved paths). Raises a LoadError when two files define it, or
    when the only file whose bytes define it does not load."""
    pattern = _id_pattern(process_id)
    found: list[FoundFile] = []
    broken: list[tuple[str, LoadError]] = []
    seen = {Path(p) for p in skip}
    for folder in folders:
        for path in _bpmn_files(folder, seen):
            try:
                source = read_source(path)
            except LoadError:
                continue  # unreadable (not a regular file, too big...): not a BPMN file here
            if not pattern.search(source):
                continue
            try:
                definitions = compile_definitions(source, path)
            except LoadError as error:
                if _defines(source, process_id):
                    broken.append((path, error))
                continue
            if process_id in definitions.processes:
                found.append(FoundFile(process_id, path, folder, definitions))
    if len(found) > 1:
        files = " and ".join(f"{f.path} ({f.folder.why})" for f in found)
        raise LoadError(
            f"calls process {process_id!r}, which {len(found)} files define: {files}; give "
            "the one to call with the caller on the command line (bpmn run CALLER FILE)"
        )
    if found:
        return found[0]
    if broken:
        path, error = broken[0]
        raise LoadError(
            f"calls process {process_id!r}, found only in {path}, which does not load: {error}"
        )
    return None


def _bpmn_files(folder: Folder, seen: set[Path]) -> list[str]:
    """The BPMN files directly in a folder, sorted, each once in a search (by resolved path)."""
    try:
        names = sorted(os.listdir(folder.shown))
    except OSError:
        return []
    files = []
    for name in names:
        if name.startswith(".") or not name.lower().endswith(SUFFIXES):
            continue
        path = os.path.join(folder.shown, name)
        resolved = Path(path).resolve()
        if resolved in seen or not os.path.isfile(path):
            continue
        seen.add(resolved)
        files.append(path if folder.shown != "." else name)
    return files


def _id_pattern(process_id: str) -> re.Pattern[bytes]:
    """The cheap test a file passes before it is compiled: its bytes hold `id="X"`."""
    quoted = re.escape(process_id.encode())
    return re.compile(rb"""\bid\s*=\s*["']""" + quoted + rb"""["']""")


def _defines(source: bytes, process_id: str) -> bool:
    """Whether a file that does not load has a `process` start tag with this id: the file
    the user meant, whose error is worth naming (an element of that id elsewhere is not)."""
    quoted = re.escape(process_id.encode())
    tag = rb"""<(?:[\w.-]+:)?process\s[^>]*?\bid\s*=\s*["']""" + quoted + rb"""["']"""
    return re.search(tag, source) is not None
