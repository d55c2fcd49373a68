"""What ran, painted on the diagram: an instance's tokens and history, or coverage as heat.

Camunda Operate paints a running instance on its diagram and the token simulation of bpmn-js
puts a badge with the token count on an element; this does both on the SVG `svg.draw` makes,
finding each element by its `data-element-id`. The numbers come from the public API
(`Instance.tokens()`, `Instance.history()`), so the picture can never disagree with `bpmn show`.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from bpmn_engine import Event
from bpmn_engine.diagram.svg import SVG, _el, _number

DONE = "#52b415"  # completed elements and taken flows
ACTIVE = "#1e88e5"  # where tokens are
FAILED = "#e53935"
WAITING = "#fb8c00"

OVERLAY_STYLE = f"""
.shape.completed rect, .shape.completed circle, .shape.completed polygon {{ stroke: {DONE}; }}
.shape.active rect, .shape.active circle, .shape.active polygon {{ stroke: {ACTIVE}; }}
.shape.waiting rect, .shape.waiting circle, .shape.waiting polygon {{ stroke: {WAITING}; }}
.shape.failed rect, .shape.failed circle, .shape.failed polygon {{ stroke: {FAILED}; }}
.edge.taken path {{ stroke: {DONE}; stroke-width: 2.5; }}
.edge.unreached path, .shape.unreached {{ opacity: 0.45; }}
.badge circle {{ stroke: none; }}
.badge text {{ fill: #ffffff; font-size: 11px; font-weight: bold; }}
"""


@dataclass
class Marks:
    """What to paint: per element its state, visits, tokens and notes; per flow how often it
    was taken. `heat` (coverage) paints fills by hits instead of states."""

    states: dict[str, str] = field(default_factory=dict)  # completed, active, waiting, failed
    visits: Counter[str] = field(default_factory=Counter)
    tokens: Counter[str] = field(default_factory=Counter)
    flows: Counter[str] = field(default_factory=Counter)
    notes: dict[str, list[str]] = field(default_factory=dict)  # shown on hover
    heat: bool = False


def instance_marks(
    tokens: Iterable[dict[str, Any]],
    history: Iterable[Event],
    incident: str | None = None,
    waiting: Iterable[str] = (),
) -> Marks:
    """Marks for one instance: from its tokens, its history, its incident and its waits."""
    marks = Marks()
    for event in history:
        element = event.element
        if event.event == "flow.taken" and event.data.get("flow"):
            marks.flows[event.data["flow"]] += 1
        if element is None:
            continue
        if event.event == "element.activated":
            marks.visits[element] += 1
        elif event.event == "element.completed":
            marks.states[element] = "completed"
        elif event.event == "incident.created":
            marks.states[element] = "failed"
        if event.event.startswith(("element.", "incident.", "timer.", "message.", "error.")):
            marks.notes.setdefault(element, []).append(f"#{event.seq} {event.event}")
    for token in tokens:
        marks.tokens[token["element"]] += 1
        if marks.states.get(token["element"]) != "failed":
            marks.states[token["element"]] = "active"
    for element in waiting:
        if marks.states.get(element) != "failed":
            marks.states[element] = "waiting"
    if incident:
        for element, state in marks.states.items():
            if state == "failed":
                marks.notes.setdefault(element, []).append(f"incident: {incident}")
    return marks


def coverage_marks(element_hits: dict[str, int], flow_hits: dict[str, int]) -> Marks:
    """A heat map: how often each element was reached and each flow taken, over many runs."""
    marks = Marks(heat=True)
    marks.visits.update(element_hits)
    marks.flows.update(flow_hits)
    return marks


def paint(svg: etree._Element, marks: Marks) -> etree._Element:
    """Paint `marks` on an SVG made by `svg.draw` (changed in place, and returned)."""
    style = svg.find(f"{{{SVG}}}style")
    if style is not None:
        style.text = (style.text or "") + OVERLAY_STYLE
    hottest = max(marks.visits.values(), default=0)
    badges = _el(svg, "g", class_="badges")
    for group in svg.iter(f"{{{SVG}}}g"):
        element = group.get("data-element-id")
        if element is None:
            continue
        classes = (group.get("class") or "").split()
        if "edge" in classes:
            _paint_edge(group, classes, marks.flows.get(element, 0), marks.heat)
            continue
        bounds = group.get("data-bounds")
        if bounds is None:
            continue
        (x, y), (width, height) = (
            tuple(float(v) for v in part.split(",")) for part in bounds.split()
        )
        visits = marks.visits.get(element, 0)
        if marks.heat:
            _heat(group, classes, visits, hottest)
        elif element in marks.states:
            group.set("class", " ".join([*classes, marks.states[element]]))
        if marks.tokens.get(element):
            colour = FAILED if marks.states.get(element) == "failed" else ACTIVE
            _badge(badges, x, y, str(marks.tokens[element]), colour, element, "tokens")
        if marks.states.get(element) == "failed":
            _badge(badges, x + width, y, "!", FAILED, element, "incident")
        if visits > 1 or (marks.heat and visits):
            _badge(badges, x + width, y + height, f"{visits}", "#616161", element, "visits")
        notes = marks.notes.get(element)
        if notes:
            title = _el(group, "title")
            title.text = "\n".join([element, *notes])
    return svg


def _paint_edge(group: etree._Element, classes: list[str], taken: int, heat: bool) -> None:
    if taken:
        group.set("class", " ".join([*classes, "taken"]))
        title = _el(group, "title")
        title.text = f"taken {taken} time(s)"
    elif heat:
        group.set("class", " ".join([*classes, "unreached"]))


def _heat(group: etree._Element, classes: list[str], visits: int, hottest: int) -> None:
    if not visits:
        group.set("class", " ".join([*classes, "unreached"]))
        return
    share = visits / hottest if hottest else 0.0
    colour = _blend(share)
    for shape in group:
        if shape.tag in (f"{{{SVG}}}rect", f"{{{SVG}}}circle", f"{{{SVG}}}polygon"):
            if "marker" in (shape.get("class") or "") or "filled" in (shape.get("class") or ""):
                continue
            shape.set(
                "style", f"{shape.get('style') + '; ' if shape.get('style') else ''}fill: {colour}"
            )
            break


def _blend(share: float) -> str:
    """White to a strong blue as `share` goes from 0 to 1."""
    low, high = (255, 255, 255), (66, 133, 244)
    rgb = [round(a + (b - a) * (0.15 + 0.85 * share)) for a, b in zip(low, high, strict=True)]
    return "#" + "".join(f"{c:02x}" for c in rgb)


def _badge(
    layer: etree._Element, x: float, y: float, text: str, colour: str, element: str, kind: str
) -> None:
    badge = _el(layer, "g", class_=f"badge {kind}")
    badge.set("data-element-id", element)
    _el(badge, "circle", cx=x, cy=y, r=9, fill=colour)
    label = _el(badge, "text", x=x, y=y + 4, text_anchor="middle")
    label.text = text


# --- the HTML page ------------------------------------------------------------------------------
PAGE_STYLE = """
body { font-family: Arial, Helvetica, sans-serif; margin: 1.5em; color: #22242a; }
h1 { font-size: 1.3em; } h2 { font-size: 1.05em; margin-top: 1.5em; }
.diagram svg { max-width: 100%; height: auto; border: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.9em; }
td, th { border-bottom: 1px solid #eee; padding: 0.2em 0.8em 0.2em 0; text-align: left;
  vertical-align: top; }
.swatch { display: inline-block; width: 1em; height: 1em; border-radius: 50%;
  vertical-align: middle; margin-right: 0.4em; }
code, pre { font-size: 0.9em; }
"""


def page(
    title: str,
    svg: etree._Element,
    *,
    summary: Iterable[str] = (),
    variables: dict[str, Any] | None = None,
    history: Iterable[Event] = (),
    reload_seconds: float | None = None,
    legend: bool = True,
) -> str:
    """A self-contained HTML page: no network, no script (a `meta refresh` reloads it)."""
    parts = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">']
    if reload_seconds is not None:
        parts.append(f'<meta http-equiv="refresh" content="{_number(float(reload_seconds))}">')
    parts.append(f"<title>{html.escape(title)}</title><style>{PAGE_STYLE}</style></head><body>")
    parts.append(f"<h1>{html.escape(title)}</h1>")
    parts += [f"<p>{html.escape(line)}</p>" for line in summary]
    parts.append('<div class="diagram">' + etree.tostring(svg, encoding="unicode") + "</div>")
    if legend:
        parts.append("<h2>Legend</h2><p>")
        for colour, meaning in (
            (ACTIVE, "a token is here (the badge counts them)"),
            (WAITING, "waits (user task, message, timer...)"),
            (DONE, "completed, or a flow taken"),
            (FAILED, "failed: the incident is on hover"),
            ("#616161", "visited more than once (the badge counts the visits)"),
        ):
            parts.append(f'<span class="swatch" style="background:{colour}"></span>{meaning}<br>')
        parts.append("Hover an element for its history.</p>")
    if variables is not None:
        parts.append("<h2>Variables</h2><table><tr><th>name</th><th>value</th></tr>")
        for name, value in sorted(variables.items()):
            parts.append(
                f"<tr><td><code>{html.escape(name)}</code></td>"
                f"<td><code>{html.escape(_show(value))}</code></td></tr>"
            )
        parts.append("</table>")
    events = list(history)
    if events:
        parts.append("<h2>History</h2><table><tr><th>#</th><th>event</th><th>element</th></tr>")
        for event in events:
            parts.append(
                f"<tr><td>{event.seq}</td><td>{html.escape(event.event)}</td>"
                f"<td>{html.escape(event.element or '')}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _show(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)
