"""`global` (module `global_`, as `global` is a Python keyword): errors, escalations,
messages and signals are named, used and unique.

These root elements are shared by name across a diagram (and with the engine); an unnamed,
unused or doubly named one is a leftover or a mix-up waiting to happen.
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import children, issue, local, model, name_of, reference

_GLOBALS = ("error", "escalation", "message", "signal")
# what may refer to each kind of global element, and through which attribute
_REFERRERS = {
    "error": ({"errorEventDefinition"}, "errorRef"),
    "escalation": ({"escalationEventDefinition"}, "escalationRef"),
    "message": ({"messageEventDefinition", "messageFlow", "receiveTask", "sendTask"}, "messageRef"),
    "signal": ({"signalEventDefinition"}, "signalRef"),
}


class Global:
    id = "global"
    levels = {"recommended": "warn", "all": "error"}
    summary = "Error, escalation, message and signal definitions are named, used and unique."

    def check(self, document: Document) -> Iterator[Issue]:
        if document.root is None:
            return
        bpmn = model(document)
        used: dict[str, set[str]] = {}
        for kind, (referrers, attribute) in _REFERRERS.items():
            used[kind] = {
                ref for e in bpmn.of(referrers) if (ref := reference(e, attribute)) is not None
            }
        elements = children(document.root, _GLOBALS)
        names: dict[tuple[str, str], int] = {}
        for element in elements:
            key = (local(element) or "", name_of(element))
            names[key] = names.get(key, 0) + 1
        for element in elements:
            kind = local(element) or ""
            name = name_of(element)
            if not name:
                yield issue("Element is missing name", element)
            if element.get("id") not in used[kind]:
                yield issue("Element is unused", element)
            if name and names[(kind, name)] > 1:
                yield issue("Element name is not unique", element)


RULE = Global()
