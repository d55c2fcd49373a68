"""Rule `schema`: XSD validation against the OMG BPMN 2.0 schemas, with line and column.

The five OMG files ship inside the package (`validate/xsd/`), so validation works from an
installed wheel; the repository's `schemas/` folder is the fallback. The schema is compiled
once per process: compiling Semantic.xsd costs more than validating a typical diagram.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from lxml import etree

from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue

SCHEMA_FOLDERS = (Path(__file__).parent / "xsd", Path(__file__).parents[2] / "schemas")
MAX_EXPECTED = 4  # "Expected is one of (...)" lists can run to 40 names; keep the first few
_PREFIXES = {
    "http://www.omg.org/spec/BPMN/20100524/MODEL": "bpmn",
    "http://www.omg.org/spec/BPMN/20100524/DI": "bpmndi",
    "http://www.omg.org/spec/DD/20100524/DC": "dc",
    "http://www.omg.org/spec/DD/20100524/DI": "di",
}
_EXPECTED = re.compile(r"Expected is one of \( (?P<names>[^)]*) \)")


@cache
def bpmn_schema() -> etree.XMLSchema:
    """The compiled BPMN20.xsd; imports are resolved from its folder, never the network."""
    for folder in SCHEMA_FOLDERS:
        if (folder / "BPMN20.xsd").is_file():
            parser = etree.XMLParser(no_network=True, resolve_entities=False)
            return etree.XMLSchema(etree.parse(str(folder / "BPMN20.xsd"), parser))
    raise FileNotFoundError("BPMN20.xsd not found in " + ", ".join(map(str, SCHEMA_FOLDERS)))


class SchemaRule:
    id = "schema"
    levels = {"recommended": "error", "correctness": "error", "all": "error"}
    summary = "the XML is valid against the OMG BPMN 2.0 XML Schema (BPMN20.xsd)"

    def check(self, document: Document) -> Iterator[Issue]:
        if document.root is None:
            return
        schema = bpmn_schema()
        if schema.validate(document.root):
            return
        tree = document.root.getroottree()
        namespaces = {k: v for k, v in document.root.nsmap.items() if k}
        seen: set[tuple[int, str]] = set()
        for entry in schema.error_log:
            message = readable(entry.message)
            if (entry.line, message) in seen:
                continue
            seen.add((entry.line, message))
            element = _element_at(tree, entry.path, namespaces)
            if element is None:
                yield Issue(message, line=entry.line or None)
                continue
            line, column = document.where(element)
            yield Issue(message, element=document.owner_id(element), line=line, column=column)


def readable(message: str) -> str:
    """Namespace URIs as the usual prefixes, and long "expected" lists cut short."""
    for uri, prefix in _PREFIXES.items():
        message = message.replace(f"{{{uri}}}", f"{prefix}:")

    def shorten(match: re.Match[str]) -> str:
        names = [n.strip() for n in match.group("names").split(",")]
        more = f", ... {len(names) - MAX_EXPECTED} more" if len(names) > MAX_EXPECTED else ""
        return f"Expected is one of ({', '.join(names[:MAX_EXPECTED])}{more})"

    return _EXPECTED.sub(shorten, message).strip()


def _element_at(
    tree: etree._ElementTree, path: str | None, namespaces: dict[str, str]
) -> etree._Element | None:
    if not path:
        return None
    try:
        found = tree.xpath(path, namespaces=namespaces)
    except etree.XPathError:
        return None
    if isinstance(found, list) and found and isinstance(found[0], etree._Element):
        return found[0]
    return None


RULE = SchemaRule()
