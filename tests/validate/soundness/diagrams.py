"""Tiny BPMN diagrams for the soundness tests, written from a compact description.

`process({"s": "startEvent", ...}, "s->a a->b?x>1 b->c!")`: nodes by id (a tag, or a tag
with attributes and inner XML), flows as `source->target`, `?condition` for a conditional
flow, a trailing `!` for the default flow of its source.
"""

from __future__ import annotations

import random
from pathlib import Path

from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.soundness import RULES

Node = str | tuple[str, str] | tuple[str, str, str]

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'id="defs" targetNamespace="http://example.com/soundness">\n'
)


def body(nodes: dict[str, Node], flows: str) -> str:
    """The flow nodes and sequence flows of one scope."""
    defaults: dict[str, str] = {}
    lines = []
    for number, text in enumerate(flows.split()):
        arrow, _, condition = text.partition("?")
        is_default = arrow.endswith("!") or condition.endswith("!")
        arrow, condition = arrow.rstrip("!"), condition.rstrip("!")
        source, target = arrow.split("->")
        flow_id = f"f{number}_{source}_{target}"
        if is_default:
            defaults[source] = flow_id
        inner = f"<conditionExpression>{condition}</conditionExpression>" if condition else ""
        lines.append(
            f'<sequenceFlow id="{flow_id}" sourceRef="{source}" targetRef="{target}">'
            f"{inner}</sequenceFlow>"
        )
    for node_id, spec in nodes.items():
        tag, attrs, inner = (spec, "", "") if isinstance(spec, str) else (*spec, "")[:3]
        if node_id in defaults:
            attrs += f' default="{defaults[node_id]}"'
        lines.append(f'<{tag} id="{node_id}" {attrs}>{inner}</{tag}>')
    return "\n".join(lines)


def process(nodes: dict[str, Node], flows: str, executable: bool = True) -> str:
    flag = "true" if executable else "false"
    return (
        f'{HEAD}<process id="p" isExecutable="{flag}">\n{body(nodes, flows)}\n</process>\n'
        "</definitions>\n"
    )


def subprocess(nodes: dict[str, Node], flows: str, attrs: str = "") -> tuple[str, str, str]:
    return ("subProcess", attrs, body(nodes, flows))


def check(tmp_path: Path, xml: str, name: str = "model.bpmn") -> dict[str, list[Issue]]:
    """Every soundness rule's issues for the diagram, by rule id."""
    path = tmp_path / name
    path.write_text(xml)
    document = Document.read(str(path))
    assert document.definitions is not None, document.model_error
    return {rule.id: list(rule.check(document)) for rule in RULES}


def structured(size: int, seed: int = 7) -> tuple[dict[str, Node], str]:
    """A random well-structured model of about `size` nodes: nested blocks and loops."""
    rng = random.Random(seed)
    nodes: dict[str, Node] = {"start": "startEvent", "end": "endEvent"}
    flows: list[str] = []
    count = [0]

    def new(tag: str) -> str:
        count[0] += 1
        node_id = f"n{count[0]}"
        nodes[node_id] = tag
        return node_id

    def block(budget: int) -> tuple[str, str]:
        """(first, last) node of a fragment of about `budget` nodes."""
        if budget <= 2:
            task = new("task")
            return task, task
        shape = rng.choice(["seq", "xor", "and", "or", "loop"])
        if shape == "seq":
            first, middle = block(budget // 2)
            second, last = block(budget - budget // 2)
            flows.append(f"{middle}->{second}")
            return first, last
        if shape == "loop":
            merge, split = new("exclusiveGateway"), new("exclusiveGateway")
            first, last = block(budget - 2)
            flows.extend([f"{merge}->{first}", f"{last}->{split}", f"{split}->{merge}?again"])
            after = new("task")
            flows.append(f"{split}->{after}!")
            return merge, after
        tag = {"xor": "exclusiveGateway", "and": "parallelGateway", "or": "inclusiveGateway"}
        split, join = new(tag[shape]), new(tag[shape])
        branches = rng.randint(2, 4)
        for _ in range(branches):
            first, last = block((budget - 2) // branches)
            condition = "?go" if shape != "and" else ""
            flows.extend([f"{split}->{first}{condition}", f"{last}->{join}"])
        return split, join

    first, last = block(size)
    flows.extend([f"start->{first}", f"{last}->end"])
    return nodes, " ".join(flows)
