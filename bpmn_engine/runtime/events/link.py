"""Link events: a throw continues at the catch of the same name in the same scope."""

from __future__ import annotations

from bpmn_engine.model import EventDefinition
from bpmn_engine.runtime.events.definition import EventDefinitionKind
from bpmn_engine.runtime.step.context import Incident, StepContext


class LinkKind(EventDefinitionKind):
    kind = "link"

    def throw(self, ctx: StepContext, definition: EventDefinition) -> None:
        name = definition.ref or ""
        targets = [
            n.id
            for n in ctx.scope_model.nodes.values()
            if n.kind == "intermediateCatchEvent"
            and any(d.kind == "link" and d.ref == name for d in getattr(n, "definitions", ()))
        ]
        if len(targets) != 1:
            found = "no" if not targets else f"{len(targets)}"
            raise Incident(f"link {name!r} has {found} catch events in this scope", ctx.node.id)
        ctx.step.emit("link.taken", ctx.node.id, ctx.track.id, link=name, target=targets[0])
        ctx.step.ready(ctx.track, targets[0], None)


LINK = LinkKind()
