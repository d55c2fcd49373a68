"""Who a user task is for, as each dialect writes it, compiled to `model.Assignment`.

Camunda 7, Activiti and Flowable write `assignee`, `candidateUsers` and `candidateGroups`
attributes: comma lists whose entries may be `${...}` expressions (a comma inside one does
not split it). Zeebe writes `zeebe:assignmentDefinition`: a static comma list, or one FEEL
expression (`=...`) for the whole attribute. BPMN's own `humanPerformer` (the assignee) and
`potentialOwner` (candidates) hold a `formalExpression`: a comma list of `user(name)`,
`group(name)` and bare names, which are groups as Camunda reads them and users as jBPM does.
A performer given only by `resourceRef` (a resource and its parameters) is not read: the
task has no candidates from it, as before.
"""

from __future__ import annotations

import re

from lxml import etree

from bpmn_engine.model.elements import Assignment, Expression
from bpmn_engine.model.kinds import BPMN
from bpmn_engine.parse.extensions import ZEEBE, ElementIndex

_KIND = re.compile(r"^(user|group)\((.*)\)$", re.DOTALL)
_FORMAL = f"{{{BPMN}}}formalExpression"

Entry = str | Expression


def read(ext: ElementIndex, *, bare_is_user: bool = False) -> Assignment | None:
    """The user task's assignee and candidates, None when it names nobody. `bare_is_user`:
    a bare name in a `potentialOwner` is a user (jBPM), not a group (Camunda)."""
    assignee: Entry | None = None
    users: list[Entry] = []
    groups: list[Entry] = []
    line = ext.element.sourceline or 0
    for performer in ext.bpmn_children("humanPerformer") if ext.children else ():
        for text in _formal(performer):
            entries = entries_of(text, line)
            if entries and assignee is None:
                assignee = _kind(entries[0], line)[1]
    for owner in ext.bpmn_children("potentialOwner") if ext.children else ():
        for text in _formal(owner):
            for entry in entries_of(text, line):
                kind, name = _kind(entry, line)
                if kind == "user" or (kind is None and bare_is_user):
                    users.append(name)
                else:
                    groups.append(name)
    text = ext.vendor_attr("assignee")
    if text and text.strip():
        assignee = _single(text.strip(), line)
    users += entries_of(ext.vendor_attr("candidateUsers") or "", line)
    groups += entries_of(ext.vendor_attr("candidateGroups") or "", line)
    for definition in ext.extension_children(ZEEBE, "assignmentDefinition"):
        where = definition.sourceline or line
        text = (definition.get("assignee") or "").strip()
        if text:
            assignee = _single(text, where)
        users += entries_of(definition.get("candidateUsers") or "", where)
        groups += entries_of(definition.get("candidateGroups") or "", where)
    if assignee is None and not users and not groups:
        return None
    return Assignment(assignee, tuple(users), tuple(groups))


def _formal(performer: etree._Element) -> list[str]:
    """The texts of a performer's `resourceAssignmentExpression/formalExpression`."""
    return [
        (found.text or "").strip()
        for found in performer.iter(_FORMAL)
        if (found.text or "").strip()
    ]


def _single(text: str, line: int) -> Entry:
    """An assignee: one name, or one expression (never split: a name may hold a comma)."""
    return Expression(text, None, line) if _has_expression(text) else text


def entries_of(text: str, line: int = 0) -> list[Entry]:
    """A comma list: names, and expressions (a FEEL `=...` is the whole text; a comma inside
    `${...}` or `#{...}` does not split)."""
    text = text.strip()
    if not text:
        return []
    if text.startswith("="):
        return [Expression(text, None, line)]
    entries: list[Entry] = []
    for part in _split(text):
        part = part.strip()
        if part:
            entries.append(Expression(part, None, line) if _has_expression(part) else part)
    return entries


def _split(text: str) -> list[str]:
    """`text` cut at each comma outside an expression's braces."""
    parts, start, depth = [], 0, 0
    for index, char in enumerate(text):
        if char == "{" and (depth or text[index - 1 : index] in ("$", "#")):
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char == "," and not depth:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def _has_expression(text: str) -> bool:
    return text.startswith("=") or "${" in text or "#{" in text


def _kind(entry: Entry, line: int) -> tuple[str | None, Entry]:
    """`user(name)` or `group(name)` as (kind, name); a bare entry as (None, itself)."""
    text = entry.text if isinstance(entry, Expression) else entry
    found = _KIND.match(text.strip())
    if found is None:
        return None, entry
    inner = found.group(2).strip()
    return found.group(1), _single(inner, line)
