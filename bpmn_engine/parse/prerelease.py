"""Files written against the pre-release BPMN 2.0 namespace, read as BPMN 2.0.

Before the OMG fixed `http://www.omg.org/spec/BPMN/20100524/MODEL`, the BPMN 2.0 beta and
the first engines built on it (Activiti 5.0 alphas, early bpmn-engine examples) wrote
`http://schema.omg.org/spec/BPMN/2.0`. Their elements and attributes are the final ones for
everything an engine runs, so such a document is renamed into the final namespace in place
(lines and ids unchanged) and compiled as any other; the compiler warns that it did so
(`renamed`), since a construct that changed meaning after the beta would be read as 2.0.2.
"""

from __future__ import annotations

from lxml import etree

from bpmn_engine.model.kinds import BPMN

PRERELEASE = "http://schema.omg.org/spec/BPMN/2.0"
_OLD = f"{{{PRERELEASE}}}"
_NEW = f"{{{BPMN}}}"

WARNING = (
    f"the file uses the pre-release BPMN 2.0 namespace {PRERELEASE}: read as BPMN 2.0.2 "
    f"({BPMN}); write that namespace to say so"
)


def upgrade(root: etree._Element) -> None:
    """Rename the pre-release namespace's elements into BPMN 2.0's (a no-op for any other
    document, and for one already upgraded)."""
    if not isinstance(root.tag, str) or not root.tag.startswith(_OLD):
        return
    for element in root.iter(f"{_OLD}*"):
        element.tag = _NEW + element.tag[len(_OLD) :]


def renamed(root: etree._Element) -> bool:
    """Whether `upgrade` renamed this document (its old namespace stays declared)."""
    return PRERELEASE in root.nsmap.values() and root.tag.startswith(_NEW)
