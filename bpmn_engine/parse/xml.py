"""Secure XML reading: no DTD, no entities, no network, bounded size.

A BPMN file from a stranger must not read local files (XXE), call out to the network or expand
entities into gigabytes (billion laughs). lxml is told not to resolve anything, and any document
that declares a DTD at all is refused: BPMN never needs one.
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from bpmn_engine.errors import LoadError
from bpmn_engine.userfiles import MAX_FILE_BYTES, read_user_file


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_blank_text=False,
    )


def local_name(element: etree._Element) -> str:
    """The tag without its namespace (`etree.QName(element).localname` without building a
    QName: loading asks it of every element); "" for comments and processing instructions."""
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    return tag[tag.find("}") + 1 :] if tag[:1] == "{" else tag


def read_source(path: str | Path) -> bytes:
    """The file's bytes, or a LoadError that names the file (see `userfiles`: regular files
    only, and the cap is enforced while reading, never trusted to `st_size`)."""
    return read_user_file(path, MAX_FILE_BYTES)


def parse_xml(source: bytes, file: str) -> etree._Element:
    """Parse bytes into an element tree root, refusing DTDs and entity declarations."""
    if len(source) > MAX_FILE_BYTES:
        raise LoadError(f"larger than {MAX_FILE_BYTES >> 20} MiB", file=file)
    doctype_at = source.find(b"<!DOCTYPE")
    if doctype_at >= 0:
        raise _dtd_refused(file, source.count(b"\n", 0, doctype_at) + 1)
    try:
        root = etree.fromstring(source, _parser())
    except etree.XMLSyntaxError as error:
        line = error.lineno if error.lineno else None
        message = error.msg or str(error)
        if "entity" in message.lower():
            message = f"{message} (entities are not allowed in BPMN files)"
        raise LoadError(f"malformed XML: {message}", file=file, line=line) from None
    if root is None:
        raise LoadError("empty document", file=file)
    docinfo = root.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None:
        raise _dtd_refused(file, 1)
    return root


def _dtd_refused(file: str, line: int) -> LoadError:
    return LoadError(
        "document type declarations (DTD) are not allowed in BPMN files: "
        "they enable external entity (XXE) and entity-expansion attacks",
        file=file,
        line=line,
    )
