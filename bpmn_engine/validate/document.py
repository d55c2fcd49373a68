"""One file under validation: its XML tree (if it parses) and its compiled model (if any).

Also the `Workspace`, the files validated together plus the files they import, so that a
reference (a called process, a message) may resolve in another file.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from lxml import etree

from bpmn_engine.dmn import Decisions
from bpmn_engine.dmn import load as load_decisions
from bpmn_engine.dmn.reader import VERSIONS as DMN_VERSIONS
from bpmn_engine.errors import LoadError
from bpmn_engine.model import Definitions
from bpmn_engine.model.kinds import BPMN
from bpmn_engine.parse import compile_tree, folders
from bpmn_engine.parse.xml import parse_xml, read_source
from bpmn_engine.validate.repair import without_broken_references

EXTENSION_ELEMENTS = f"{{{BPMN}}}extensionElements"
SEARCH_BACK_LINES = 40  # how far above a reported line a multi-line start tag may begin


@dataclass
class Document:
    """`root` is the lxml root (None if the XML could not be read); `definitions` is the
    compiled model. When the parser refuses the file, `model_error` says why (e.g. a dangling
    reference, which the `references` layer reports on its own terms) and `definitions` is
    the model compiled without the broken references (`repair.py`; `left_out` names what it
    dropped or touched), or None if there is none."""

    path: str
    source: bytes | None = None
    root: etree._Element | None = None
    definitions: Definitions | None = None
    read_error: LoadError | None = None
    model_error: LoadError | None = None
    left_out: frozenset[str] = frozenset()
    # set by the runner: every file of this run; rules may look across files through it
    workspace: Workspace | None = field(default=None, repr=False, compare=False)
    # set by the runner: the options of `[level, options]` rule settings, by rule id
    rule_options: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # per-document results a rule shares with another (e.g. `executable` reads `references`)
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def read(cls, path: str) -> Document:
        document = cls(path)
        try:
            document.source = read_source(path)
            document.root = parse_xml(document.source, path)
        except LoadError as error:
            document.read_error = error
            return document
        if document.is_dmn:
            return document
        try:
            document.definitions = compile_tree(document.root, document.source, path)
        except LoadError as error:
            document.model_error = error
            checkable = None
            if document.is_bpmn:
                checkable = without_broken_references(document.root, document.source, path)
            if checkable is not None:
                document.definitions = checkable.definitions
                document.left_out = checkable.left_out
        return document

    @property
    def is_dmn(self) -> bool:
        """The XML read, and its root is a DMN 1.1-1.5 `definitions` element."""
        if self.root is None or not isinstance(self.root.tag, str):
            return False
        name = etree.QName(self.root)
        return name.localname == "definitions" and name.namespace in DMN_VERSIONS

    @property
    def is_bpmn(self) -> bool:
        """The XML read, and its root is a BPMN 2.0 `definitions` element."""
        return self.root is not None and self.root.tag == f"{{{BPMN}}}definitions"

    def bpmn_elements(self) -> list[etree._Element]:
        """Every BPMN-namespace element, skipping vendor content inside `extensionElements`."""
        if self.root is None:
            return []
        found: list[etree._Element] = []
        stack = [self.root]
        while stack:
            element = stack.pop()
            if not isinstance(element.tag, str) or not element.tag.startswith(f"{{{BPMN}}}"):
                continue
            found.append(element)
            if element.tag != EXTENSION_ELEMENTS:
                stack.extend(reversed(element))
        return found

    @cached_property
    def elements_by_id(self) -> dict[str, etree._Element]:
        """BPMN elements by id (the first one when an id is duplicated)."""
        index: dict[str, etree._Element] = {}
        for element in self.bpmn_elements():
            element_id = element.get("id")
            if element_id and element_id not in index:
                index[element_id] = element
        return index

    @staticmethod
    def owner_id(element: etree._Element | None) -> str | None:
        """The element's id, else its nearest ancestor's: what a finding names as `element`."""
        while element is not None:
            if isinstance(element.tag, str) and element.get("id"):
                return element.get("id")
            element = element.getparent()
        return None

    def where(self, element: etree._Element) -> tuple[int | None, int | None]:
        """Line and column where an element's start tag begins."""
        tag = etree.QName(element).localname if isinstance(element.tag, str) else None
        return self.locate(element.get("id"), element.sourceline, tag)

    # --- where in the source --------------------------------------------------------------

    def column_at(self, element_id: str | None, line: int | None) -> int | None:
        """The column of the start tag, within the element `element_id` (itself included),
        that libxml2 read on `line`, if that tag also begins on that line."""
        element = self.elements_by_id.get(element_id or "")
        if element is None or line is None:
            return None
        for inner in element.iter():
            if isinstance(inner.tag, str) and inner.sourceline == line:
                found_line, column = self.locate(None, line, etree.QName(inner).localname)
                return column if found_line == line else None
        return None

    @cached_property
    def _text(self) -> str:
        return (self.source or b"").decode("utf-8", errors="replace")

    @cached_property
    def _line_starts(self) -> list[int]:
        return [0, *(m.end() for m in re.finditer("\n", self._text))]

    def _position(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self._line_starts, offset) - 1
        return index + 1, offset - self._line_starts[index] + 1

    def locate(
        self, element_id: str | None, line: int | None, tag: str | None = None
    ) -> tuple[int | None, int | None]:
        """Line and column of the `<` that opens an element's start tag.

        libxml2 gives the line where a start tag *ends*; ruff-style output wants where it
        begins. Found by the element's `id="..."` (or its local tag name), searching at and
        above `line`; when nothing matches, `(line, None)`.
        """
        if not self._text or (element_id is None and (tag is None or line is None)):
            return line, None
        if element_id is not None:
            pattern = rf"""\bid\s*=\s*["']{re.escape(element_id)}["']"""
        else:
            pattern = rf"<(?:[\w.-]+:)?{re.escape(tag or '')}(?=[\s/>])"
        start, end = 0, len(self._text)
        if line is not None and 0 < line <= len(self._line_starts):
            start = self._line_starts[max(0, line - 1 - SEARCH_BACK_LINES)]
            end = self._line_starts[line] if line < len(self._line_starts) else len(self._text)
        matches = list(re.finditer(pattern, self._text[start:end]))
        if not matches:
            return line, None
        offset = start + (matches[-1].start() if line is not None else matches[0].start())
        if element_id is not None:
            offset = self._text.rfind("<", 0, offset)
            if offset < 0:
                return line, None
        return self._position(offset)


class Workspace:
    """The documents validated together, and the BPMN files they import (read on demand).

    References such as `calledElement` or `messageRef` may point into any of them: the MIWG
    diagram C.9.0 calls a process defined in C.9.2 and imports C.9.1. A called process none
    of them defines is looked for as `bpmn run` looks for it: in the BPMN files beside the
    calling file, then in the folders of `search_path` (`--path DIR`).
    """

    def __init__(self, documents: list[Document], search_path: Iterable[str | Path] = ()) -> None:
        self.documents: dict[str, Document] = {}
        for document in documents:
            self.documents.setdefault(_key(document.path), document)
            document.workspace = self
        self.validated = list(documents)
        self._decisions: dict[str, Decisions | LoadError] | None = None
        self.search_path = folders.search_path(search_path)
        self._in_folders: dict[tuple[str, str], folders.FoundFile | LoadError | None] = {}

    def called_elsewhere(
        self, document: Document, process_id: str
    ) -> folders.FoundFile | LoadError | None:
        """The file beside `document` (or in the search path) defining a process that no
        file validated or imported defines; a LoadError when two files define it, or the one
        that does does not load (`parse/folders.py`); None when no file does."""
        key = (os.path.dirname(_key(document.path)), process_id)
        if key not in self._in_folders:
            searched = (folders.folder_of(document.path), *self.search_path)
            skip = [Path(_key(d.path)) for d in self.all_documents]
            try:
                self._in_folders[key] = folders.find_process(process_id, searched, skip)
            except LoadError as error:
                self._in_folders[key] = error
        return self._in_folders[key]

    def decisions(self) -> dict[str, Decisions | LoadError]:
        """Each DMN file validated, loaded (with what it imports beside it), or why not."""
        if self._decisions is None:
            self._decisions = {}
            for document in self.validated:
                if document.is_dmn:
                    try:
                        self._decisions[document.path] = load_decisions(document.path)
                    except LoadError as error:
                        self._decisions[document.path] = error
        return self._decisions

    def has_decision(self, name_or_id: str) -> bool:
        """Whether a DMN file validated (that loads) has this decision."""
        return any(
            isinstance(loaded, Decisions) and loaded.has(name_or_id)
            for loaded in self.decisions().values()
        )

    def imported(self, document: Document) -> list[tuple[etree._Element, Document | None]]:
        """Each BPMN `import` of a document with the document it names (None: unreadable)."""
        if document.root is None:
            return []
        found: list[tuple[etree._Element, Document | None]] = []
        for element in document.root.iterchildren(f"{{{BPMN}}}import"):
            location = element.get("location")
            if not location or element.get("importType") != BPMN or "://" in location:
                continue
            path = Path(document.path).parent / location
            key = _key(str(path))
            if key not in self.documents:
                self.documents[key] = Document.read(str(path))
                self.documents[key].workspace = self
            imported = self.documents[key]
            found.append((element, imported if imported.is_bpmn else None))
        return found

    def import_error(self, document: Document, location: str) -> str | None:
        """Why a file `document` imports could not be read (not a regular file, too large...)."""
        imported = self.documents.get(_key(str(Path(document.path).parent / location)))
        error = imported.read_error if imported is not None else None
        return error.message if error is not None else None

    @cached_property
    def all_documents(self) -> list[Document]:
        """The validated documents and, transitively, every BPMN file they import."""
        seen: dict[str, Document] = {}
        queue = list(self.validated)
        while queue:
            document = queue.pop(0)
            key = _key(document.path)
            if key in seen:
                continue
            seen[key] = document
            queue.extend(d for _, d in self.imported(document) if d is not None)
        return list(seen.values())

    @cached_property
    def ids(self) -> dict[str, list[etree._Element]]:
        """Every BPMN id in the workspace, with the elements (across files) that carry it."""
        index: dict[str, list[etree._Element]] = {}
        for document in self.all_documents:
            for element_id, element in document.elements_by_id.items():
                index.setdefault(element_id, []).append(element)
        return index

    @cached_property
    def process_ids(self) -> frozenset[str]:
        """Ids of every `process` in the workspace: what a call activity may call."""
        tag = f"{{{BPMN}}}process"
        return frozenset(
            element_id
            for element_id, elements in self.ids.items()
            if any(e.tag == tag for e in elements)
        )

    @cached_property
    def non_executable_process_ids(self) -> frozenset[str]:
        """Processes marked `isExecutable="false"`: descriptions, not programs."""
        return frozenset(
            process.get("id") or ""
            for document in self.all_documents
            if document.root is not None
            for process in document.root.iterchildren(f"{{{BPMN}}}process")
            if process.get("isExecutable", "").strip().lower() == "false"
        )


def _key(path: str) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):
        return path
