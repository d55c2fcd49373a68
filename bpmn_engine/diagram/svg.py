"""A BPMN diagram drawn as SVG, in the notation bpmn.io draws: what the modeller drew, where.

Every shape is a `<g class="shape KIND" data-element-id="ID">` placed at its DI bounds, and
every edge a `<g class="edge KIND" data-element-id="ID">`; overlays (tokens, history, coverage)
find an element by that id. Text from the diagram goes in as XML text through lxml, so a name
can never become markup.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from lxml import etree

from bpmn_engine.diagram.di import Bounds, Drawing, Edge, Plane, Shape

SVG = "http://www.w3.org/2000/svg"
STROKE = "#22242a"
FILL = "#ffffff"
MARGIN = 20.0
FONT = 12.0
CHAR = FONT * 0.5  # average advance of a character of the sans-serif used

ACTIVITIES = {
    "task",
    "userTask",
    "serviceTask",
    "scriptTask",
    "sendTask",
    "receiveTask",
    "manualTask",
    "businessRuleTask",
    "callActivity",
    "subProcess",
    "transaction",
    "adHocSubProcess",
}
EVENTS = {
    "startEvent",
    "endEvent",
    "intermediateCatchEvent",
    "intermediateThrowEvent",
    "boundaryEvent",
}
GATEWAYS = {
    "exclusiveGateway",
    "parallelGateway",
    "inclusiveGateway",
    "complexGateway",
    "eventBasedGateway",
}
DATA = {"dataObjectReference", "dataObject", "dataStoreReference", "dataInput", "dataOutput"}
STYLE = f"""
.shape rect, .shape circle, .shape polygon, .shape path.outline {{
  fill: {FILL}; stroke: {STROKE}; stroke-width: 2; }}
.shape .marker {{ fill: none; stroke: {STROKE}; stroke-width: 1.5; }}
.shape .filled {{ fill: {STROKE}; stroke: {STROKE}; }}
.edge path {{ fill: none; stroke: {STROKE}; stroke-width: 1.5; }}
.edge.messageFlow path {{ stroke-dasharray: 10 6; }}
.edge.association path, .edge.dataInputAssociation path, .edge.dataOutputAssociation path {{
  stroke-dasharray: 2 4; }}
text {{ font-family: Arial, Helvetica, sans-serif; font-size: {FONT:g}px; fill: {STROKE}; }}
"""


STYLED = {"stroke_width", "stroke_dasharray", "stroke", "fill"}


def _el(parent: etree._Element, tag: str, **attributes: object) -> etree._Element:
    """An SVG element; stroke and fill given here go in its style, which wins over the
    stylesheet's defaults (a presentation attribute would lose to them)."""
    node = etree.SubElement(parent, f"{{{SVG}}}{tag}")
    style = []
    for name, value in attributes.items():
        attribute = name.rstrip("_").replace("_", "-")
        if name in STYLED and tag != "marker":
            style.append(f"{attribute}: {_number(value)}")
        else:
            node.set(attribute, _number(value))
    if style:
        node.set("style", "; ".join(style))
    return node


def _box(group: etree._Element, b: Bounds, **attributes: object) -> etree._Element:
    """A rectangle over bounds: a task, a pool, a group, an element without a symbol."""
    return _el(group, "rect", x=b.x, y=b.y, width=b.width, height=b.height, **attributes)


def _number(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".")
    return str(value)


def _path(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(
        f"{'M' if i == 0 else 'L'} {_number(x)} {_number(y)}" for i, (x, y) in enumerate(points)
    )


# --- text -------------------------------------------------------------------------------------
def _lines(text: str, width: float) -> list[str]:
    """Words wrapped to `width` (approximately: no font metrics here), newlines kept."""
    per_line = max(int(width / CHAR), 1)
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for word in paragraph.split():  # a word longer than the box overflows it, whole
            candidate = f"{line} {word}" if line else word
            if len(candidate) > per_line and line:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return [line for line in lines if line] or []


def _text(parent: etree._Element, text: str, box: Bounds, *, middle: bool = True) -> None:
    """`text` centred in `box` (or from its top), one tspan per line."""
    lines = _lines(text, box.width)
    if not lines:
        return
    height = FONT * 1.2
    top = box.y + (box.height - height * len(lines)) / 2 if middle else box.y
    node = _el(parent, "text", text_anchor="middle")
    for index, line in enumerate(lines):
        span = _el(node, "tspan", x=box.x + box.width / 2, y=top + height * (index + 0.8))
        span.text = line


# --- shapes -----------------------------------------------------------------------------------
def _event(group: etree._Element, shape: Shape) -> None:
    element, b = shape.element, shape.bounds
    cx, cy = b.centre
    r = min(b.width, b.height) / 2
    kind = element.kind
    interrupting = element.attributes.get("cancelActivity", "true") != "false"
    if kind == "startEvent":
        interrupting = element.attributes.get("isInterrupting", "true") != "false"
    dash = {} if interrupting else {"stroke_dasharray": "6 4"}
    if kind == "endEvent":
        _el(group, "circle", cx=cx, cy=cy, r=r, stroke_width=4)
    elif kind == "startEvent":
        _el(group, "circle", cx=cx, cy=cy, r=r, **dash)
    else:
        _el(group, "circle", cx=cx, cy=cy, r=r, stroke_width=1.5, **dash)
        _el(group, "circle", cx=cx, cy=cy, r=r - 3, stroke_width=1.5, **dash)
    filled = kind in ("endEvent", "intermediateThrowEvent")
    kinds = [d for d in element.definitions if d != "ref"]
    if len(kinds) > 1:
        parallel = element.attributes.get("parallelMultiple") == "true"
        _event_marker(group, "parallelMultiple" if parallel else "multiple", cx, cy, r, filled)
    elif kinds:
        _event_marker(group, kinds[0], cx, cy, r, filled)


def _event_marker(
    group: etree._Element, kind: str, cx: float, cy: float, r: float, filled: bool
) -> None:
    style = "filled" if filled else "marker"
    s = r / 18  # markers are drawn for the standard 36 x 36 event
    if kind == "message":
        w, h = 18 * s, 12 * s
        _el(group, "rect", x=cx - w / 2, y=cy - h / 2, width=w, height=h, class_=style)
        _el(
            group,
            "path",
            d=_path([(cx - w / 2, cy - h / 2), (cx, cy + 1 * s), (cx + w / 2, cy - h / 2)]),
            class_="marker",
            stroke=FILL if filled else STROKE,
        )
    elif kind == "timer":
        _el(group, "circle", cx=cx, cy=cy, r=11 * s, class_="marker")
        for hour in range(12):
            angle = math.tau * hour / 12
            inner, outer = 8.5 * s, 11 * s
            _el(
                group,
                "path",
                d=_path(
                    [
                        (cx + inner * math.sin(angle), cy - inner * math.cos(angle)),
                        (cx + outer * math.sin(angle), cy - outer * math.cos(angle)),
                    ]
                ),
                class_="marker",
            )
        _el(group, "path", d=_path([(cx, cy - 7 * s), (cx, cy), (cx + 5 * s, cy)]), class_="marker")
    elif kind in ("signal",):
        points = [(cx, cy - 10 * s), (cx + 9 * s, cy + 6 * s), (cx - 9 * s, cy + 6 * s)]
        _el(group, "polygon", points=_points(points), class_=style)
    elif kind == "error":
        points = [
            (cx - 8 * s, cy + 8 * s),
            (cx - 3 * s, cy - 8 * s),
            (cx + 2 * s, cy + 1 * s),
            (cx + 8 * s, cy - 8 * s),
            (cx + 3 * s, cy + 8 * s),
            (cx - 2 * s, cy - 1 * s),
        ]
        _el(group, "polygon", points=_points(points), class_=style)
    elif kind == "escalation":
        points = [
            (cx, cy - 10 * s),
            (cx + 7 * s, cy + 9 * s),
            (cx, cy + 2 * s),
            (cx - 7 * s, cy + 9 * s),
        ]
        _el(group, "polygon", points=_points(points), class_=style)
    elif kind == "compensate":
        _rewind(group, cx, cy, s, style)
    elif kind == "conditional":
        w, h = 12 * s, 16 * s
        _el(group, "rect", x=cx - w / 2, y=cy - h / 2, width=w, height=h, class_="marker")
        for index in range(4):
            y = cy - h / 2 + (index + 1) * h / 5
            _el(
                group,
                "path",
                d=_path([(cx - w / 2 + 2 * s, y), (cx + w / 2 - 2 * s, y)]),
                class_="marker",
            )
    elif kind == "link":
        points = [
            (cx - 8 * s, cy - 3 * s),
            (cx + 1 * s, cy - 3 * s),
            (cx + 1 * s, cy - 8 * s),
            (cx + 9 * s, cy),
            (cx + 1 * s, cy + 8 * s),
            (cx + 1 * s, cy + 3 * s),
            (cx - 8 * s, cy + 3 * s),
        ]
        _el(group, "polygon", points=_points(points), class_=style)
    elif kind == "terminate":
        _el(group, "circle", cx=cx, cy=cy, r=10 * s, class_="filled")
    elif kind == "cancel":
        for sign in (1, -1):
            _el(
                group,
                "path",
                d=_path([(cx - 7 * s, cy - 7 * s * sign), (cx + 7 * s, cy + 7 * s * sign)]),
                class_="marker",
                stroke_width=4 * s,
            )
    elif kind == "multiple":
        points = [
            (cx + 10 * s * math.sin(math.tau * i / 5), cy - 10 * s * math.cos(math.tau * i / 5))
            for i in range(5)
        ]
        _el(group, "polygon", points=_points(points), class_=style)
    elif kind == "parallelMultiple":
        _plus(group, cx, cy, 10 * s, "marker")


def _points(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{_number(x)},{_number(y)}" for x, y in points)


def _rewind(group: etree._Element, cx: float, cy: float, s: float, style: str) -> None:
    for shift in (-6 * s, 2 * s):
        points = [
            (cx + shift, cy),
            (cx + shift + 7 * s, cy - 6 * s),
            (cx + shift + 7 * s, cy + 6 * s),
        ]
        _el(group, "polygon", points=_points(points), class_=style)


def _plus(group: etree._Element, cx: float, cy: float, half: float, style: str) -> None:
    _el(group, "path", d=_path([(cx - half, cy), (cx + half, cy)]), class_=style, stroke_width=3)
    _el(group, "path", d=_path([(cx, cy - half), (cx, cy + half)]), class_=style, stroke_width=3)


def _gateway(group: etree._Element, shape: Shape) -> None:
    b, kind = shape.bounds, shape.element.kind
    cx, cy = b.centre
    diamond = [(cx, b.y), (b.x + b.width, cy), (cx, b.y + b.height), (b.x, cy)]
    _el(group, "polygon", points=_points(diamond))
    s = min(b.width, b.height) / 50
    if kind == "exclusiveGateway" and shape.marker_visible:
        for sign in (1, -1):
            d = _path([(cx - 8 * s, cy - 10 * s * sign), (cx + 8 * s, cy + 10 * s * sign)])
            _el(group, "path", d=d, class_="marker", stroke_width=4 * s)
    elif kind == "parallelGateway":
        _plus(group, cx, cy, 12 * s, "marker")
    elif kind == "inclusiveGateway":
        _el(group, "circle", cx=cx, cy=cy, r=11 * s, class_="marker", stroke_width=3 * s)
    elif kind == "complexGateway":
        _plus(group, cx, cy, 12 * s, "marker")
        for sign in (1, -1):
            d = _path([(cx - 8 * s, cy - 8 * s * sign), (cx + 8 * s, cy + 8 * s * sign)])
            _el(group, "path", d=d, class_="marker", stroke_width=3)
    elif kind == "eventBasedGateway":
        instantiate = shape.element.attributes.get("instantiate") == "true"
        _el(group, "circle", cx=cx, cy=cy, r=13 * s, class_="marker")
        if not instantiate:
            _el(group, "circle", cx=cx, cy=cy, r=10.5 * s, class_="marker")
        points = [
            (cx + 7 * s * math.sin(math.tau * i / 5), cy - 7 * s * math.cos(math.tau * i / 5))
            for i in range(5)
        ]
        parallel = shape.element.attributes.get("eventGatewayType") == "Parallel"
        if parallel:
            _plus(group, cx, cy, 7 * s, "marker")
        else:
            _el(group, "polygon", points=_points(points), class_="marker")


def _activity(group: etree._Element, shape: Shape) -> None:
    element, b = shape.element, shape.bounds
    kind = element.kind
    expanded = shape.expanded if shape.expanded is not None else False
    container = kind in ("subProcess", "transaction", "adHocSubProcess")
    width = 5 if kind == "callActivity" else 2
    attributes: dict[str, object] = {"stroke_width": width}
    if element.attributes.get("triggeredByEvent") == "true":
        attributes["stroke_dasharray"] = "2 3"
    _box(group, b, rx=10, ry=10, **attributes)
    if kind == "transaction":
        inner = Bounds(b.x + 3, b.y + 3, b.width - 6, b.height - 6)
        _box(group, inner, rx=7, ry=7, class_="marker")
    _task_icon(group, kind, b)
    markers: list[str] = []
    if (container or kind == "callActivity") and not expanded:
        markers.append("collapsed")
    if element.loop:
        markers.append(element.loop)
    if kind == "adHocSubProcess":
        markers.append("adhoc")
    if element.attributes.get("isForCompensation") == "true":
        markers.append("compensation")
    _activity_markers(group, b, markers)
    if element.name:
        if container and expanded:
            _text(
                group, element.name, Bounds(b.x + 5, b.y + 5, b.width - 10, FONT * 3), middle=False
            )
        else:
            _text(group, element.name, Bounds(b.x + 5, b.y + 5, b.width - 10, b.height - 20))


def _task_icon(group: etree._Element, kind: str, b: Bounds) -> None:
    x, y = b.x + 8, b.y + 8
    if kind == "userTask":
        _el(group, "circle", cx=x + 7, cy=y + 5, r=4, class_="marker")
        _el(group, "path", d=f"M {_number(x)} {_number(y + 17)} q 7 -12 14 0 z", class_="marker")
    elif kind == "serviceTask":
        _el(
            group,
            "circle",
            cx=x + 7,
            cy=y + 7,
            r=6,
            class_="marker",
            stroke_dasharray="3 2",
            stroke_width=3,
        )
        _el(group, "circle", cx=x + 7, cy=y + 7, r=2.5, class_="marker")
    elif kind == "scriptTask":
        d = f"M {_number(x + 3)} {_number(y)} h 11 q -5 8 0 16 h -11 q 5 -8 0 -16 z"
        _el(group, "path", d=d, class_="marker")
        for line in range(3):
            yy = y + 4 + line * 4
            _el(
                group, "path", d=_path([(x + 4, yy), (x + 11, yy)]), class_="marker", stroke_width=1
            )
    elif kind in ("sendTask", "receiveTask"):
        style = "filled" if kind == "sendTask" else "marker"
        _el(group, "rect", x=x, y=y + 2, width=16, height=11, class_=style)
        stroke = FILL if kind == "sendTask" else STROKE
        _el(
            group,
            "path",
            d=_path([(x, y + 2), (x + 8, y + 8), (x + 16, y + 2)]),
            class_="marker",
            stroke=stroke,
        )
    elif kind == "manualTask":
        d = f"M {_number(x)} {_number(y + 8)} h 12 a 2 2 0 0 1 0 4 h -6 v 4 h -6 z"
        _el(group, "path", d=d, class_="marker")
    elif kind == "businessRuleTask":
        _el(group, "rect", x=x, y=y, width=17, height=13, class_="marker")
        _el(group, "rect", x=x, y=y, width=17, height=4, class_="filled")
        _el(
            group,
            "path",
            d=_path([(x, y + 8.5), (x + 17, y + 8.5)]),
            class_="marker",
            stroke_width=1,
        )
        _el(
            group,
            "path",
            d=_path([(x + 5, y + 4), (x + 5, y + 13)]),
            class_="marker",
            stroke_width=1,
        )


def _activity_markers(group: etree._Element, b: Bounds, markers: list[str]) -> None:
    """Loop, multi-instance, collapsed, ad-hoc and compensation markers, centred at the bottom."""
    size, gap = 14.0, 4.0
    left = b.x + b.width / 2 - (len(markers) * size + (len(markers) - 1) * gap) / 2
    top = b.y + b.height - size - 5
    for index, marker in enumerate(markers):
        x = left + index * (size + gap)
        cx, cy = x + size / 2, top + size / 2
        if marker == "collapsed":
            _el(group, "rect", x=x, y=top, width=size, height=size, class_="marker")
            _plus(group, cx, cy, 4, "marker")
        elif marker == "parallel":
            for i in range(3):
                _el(
                    group,
                    "path",
                    d=_path([(x + 3 + i * 4, top), (x + 3 + i * 4, top + size)]),
                    class_="marker",
                    stroke_width=2,
                )
        elif marker == "sequential":
            for i in range(3):
                _el(
                    group,
                    "path",
                    d=_path([(x, top + 3 + i * 4), (x + size, top + 3 + i * 4)]),
                    class_="marker",
                    stroke_width=2,
                )
        elif marker == "standard":
            d = (
                f"M {_number(cx - 5)} {_number(cy + 5)} a 6 6 0 1 1 10 0"
                f" m 0 0 l 2 -4 m -2 4 l -4 -2"
            )
            _el(group, "path", d=d, class_="marker")
        elif marker == "adhoc":
            d = f"M {_number(x)} {_number(cy)} q 3.5 -5 7 0 t 7 0"
            _el(group, "path", d=d, class_="marker", stroke_width=2)
        elif marker == "compensation":
            _rewind(group, cx - 1, cy, 0.9, "marker")


def _participant(group: etree._Element, shape: Shape) -> None:
    b = shape.bounds
    _box(group, b)
    if shape.element.kind == "participant" and shape.horizontal:
        _el(group, "path", d=_path([(b.x + 30, b.y), (b.x + 30, b.y + b.height)]), class_="marker")
    name = shape.element.name
    if not name:
        return
    if shape.horizontal:  # the name reads upwards in the band at the left
        band = 30 if shape.element.kind == "participant" else 24
        cx, cy = b.x + band / 2, b.y + b.height / 2
        box = Bounds(cx - b.height / 2, cy - band / 2, b.height, band)
        text_group = _el(group, "g", transform=f"rotate(-90 {_number(cx)} {_number(cy)})")
        _text(text_group, name, box)
    else:
        _text(group, name, Bounds(b.x, b.y, b.width, 30))


def _data(group: etree._Element, shape: Shape) -> None:
    b, kind = shape.bounds, shape.element.kind
    if kind == "dataStoreReference":
        rx, ry = b.width / 2, min(8.0, b.height / 6)
        arc = f"a {_number(rx)} {_number(ry)} 0 0 0"
        side = _number(b.height - 2 * ry)
        d = (
            f"M {_number(b.x)} {_number(b.y + ry)} {arc} {_number(b.width)} 0"
            f" {arc} {_number(-b.width)} 0 v {side} {arc} {_number(b.width)} 0 v -{side}"
        )
        _el(group, "path", d=d, class_="outline")
    else:
        fold = min(10.0, b.width / 3)
        points = [
            (b.x, b.y),
            (b.x + b.width - fold, b.y),
            (b.x + b.width, b.y + fold),
            (b.x + b.width, b.y + b.height),
            (b.x, b.y + b.height),
        ]
        _el(group, "polygon", points=_points(points))
        corner = [
            (b.x + b.width - fold, b.y),
            (b.x + b.width - fold, b.y + fold),
            (b.x + b.width, b.y + fold),
        ]
        _el(group, "path", d=_path(corner), class_="marker")
        if kind in ("dataInput", "dataOutput"):
            style = "filled" if kind == "dataOutput" else "marker"
            arrow = [
                (b.x + 3, b.y + 5),
                (b.x + 9, b.y + 5),
                (b.x + 9, b.y + 2),
                (b.x + 14, b.y + 7),
                (b.x + 9, b.y + 12),
                (b.x + 9, b.y + 9),
                (b.x + 3, b.y + 9),
            ]
            _el(group, "polygon", points=_points(arrow), class_=style)
        target = shape.element
        if target.attributes.get("isCollection") == "true":
            for i in range(3):
                x = b.x + b.width / 2 - 5 + i * 4
                _el(
                    group,
                    "path",
                    d=_path([(x, b.y + b.height - 12), (x, b.y + b.height - 4)]),
                    class_="marker",
                    stroke_width=2,
                )


def _annotation(group: etree._Element, shape: Shape) -> None:
    b = shape.bounds
    d = _path([(b.x + 10, b.y), (b.x, b.y), (b.x, b.y + b.height), (b.x + 10, b.y + b.height)])
    _el(group, "path", d=d, class_="marker")
    text = shape.element.attributes.get("text", "")
    _text(group, text, Bounds(b.x + 5, b.y + 5, b.width - 10, b.height - 10))


def _group(group: etree._Element, shape: Shape) -> None:
    _box(group, shape.bounds, rx=10, ry=10, class_="marker", stroke_dasharray="8 3 1 3")


# --- edges ------------------------------------------------------------------------------------
def _edge(parent: etree._Element, edge: Edge, kinds: dict[str, str]) -> etree._Element:
    element = edge.element
    group = _el(parent, "g", class_=f"edge {element.kind}")
    group.set("data-element-id", element.id)
    points = edge.waypoints
    if len(points) < 2:
        return group
    attributes: dict[str, object] = {"d": _path(points)}
    if element.kind == "sequenceFlow":
        attributes["marker_end"] = "url(#arrow)"
        source_kind = kinds.get(element.source or "", "")
        if element.default:
            attributes["marker_start"] = "url(#default)"
        elif element.conditional and source_kind in ACTIVITIES:
            attributes["marker_start"] = "url(#conditional)"
    elif element.kind == "messageFlow":
        attributes["marker_start"] = "url(#message-start)"
        attributes["marker_end"] = "url(#message-end)"
    elif element.kind in ("dataInputAssociation", "dataOutputAssociation"):
        attributes["marker_end"] = "url(#open-arrow)"
    elif element.kind == "association":
        direction = element.attributes.get("associationDirection", "None")
        if direction in ("One", "Both"):
            attributes["marker_end"] = "url(#open-arrow)"
        if direction == "Both":
            attributes["marker_start"] = "url(#open-arrow-start)"
    _el(group, "path", **attributes)
    if element.name:
        box = edge.label or _edge_label_box(points)
        _text(group, element.name, box)
    return group


def _edge_label_box(points: tuple[tuple[float, float], ...]) -> Bounds:
    (x1, y1), (x2, y2) = points[len(points) // 2 - 1], points[len(points) // 2]
    return Bounds((x1 + x2) / 2 - 45, (y1 + y2) / 2 - 20, 90, 18)


def _markers(defs: etree._Element) -> None:
    def marker(name: str, path: str, *, fill: str, ref: tuple[float, float]) -> None:
        node = _el(
            defs,
            "marker",
            id=name,
            viewBox="0 0 20 20",
            refX=ref[0],
            refY=ref[1],
            markerWidth=10,
            markerHeight=10,
            markerUnits="userSpaceOnUse",  # the same size on a thicker (painted) flow
            orient="auto-start-reverse" if name.endswith("-start") else "auto",
        )
        _el(node, "path", d=path, fill=fill, stroke=STROKE, stroke_width=1.5)

    marker("arrow", "M 1 5 L 11 10 L 1 15 Z", fill=STROKE, ref=(11, 10))
    marker("open-arrow", "M 1 5 L 11 10 L 1 15", fill="none", ref=(11, 10))
    marker("open-arrow-start", "M 1 5 L 11 10 L 1 15", fill="none", ref=(11, 10))
    marker("message-end", "M 1 5 L 11 10 L 1 15 Z", fill=FILL, ref=(11, 10))
    marker(
        "message-start", "M 6 10 m -5 0 a 5 5 0 1 0 10 0 a 5 5 0 1 0 -10 0", fill=FILL, ref=(6, 10)
    )
    marker("default", "M 6 4 L 10 16", fill="none", ref=(0, 10))
    marker("conditional", "M 0 10 L 8 6 L 16 10 L 8 14 Z", fill=FILL, ref=(-1, 10))


# --- the whole ---------------------------------------------------------------------------------
def _extent(plane: Plane) -> Bounds:
    xs: list[float] = []
    ys: list[float] = []
    for shape in plane.shapes:
        for box in (shape.bounds, shape.label):
            if box is not None:
                xs += [box.x, box.x + box.width]
                ys += [box.y, box.y + box.height]
    for edge in plane.edges:
        xs += [x for x, _ in edge.waypoints]
        ys += [y for _, y in edge.waypoints]
        if edge.label is not None:
            xs += [edge.label.x, edge.label.x + edge.label.width]
            ys += [edge.label.y, edge.label.y + edge.label.height]
    if not xs:
        return Bounds(0, 0, 100, 100)
    return Bounds(
        min(xs) - MARGIN,
        min(ys) - MARGIN,
        max(xs) - min(xs) + 2 * MARGIN,
        max(ys) - min(ys) + 2 * MARGIN,
    )


def _draw_shape(parent: etree._Element, shape: Shape) -> etree._Element:
    element = shape.element
    group = _el(parent, "g", class_=f"shape {element.kind}")
    group.set("data-element-id", element.id)
    b = shape.bounds
    group.set("data-bounds", _points([(b.x, b.y), (b.width, b.height)]))
    kind = element.kind
    if kind in EVENTS:
        _event(group, shape)
    elif kind in GATEWAYS:
        _gateway(group, shape)
    elif kind in ACTIVITIES:
        _activity(group, shape)
    elif kind in ("participant", "lane"):
        _participant(group, shape)
    elif kind in DATA:
        _data(group, shape)
    elif kind == "textAnnotation":
        _annotation(group, shape)
    elif kind == "group":
        _group(group, shape)
    else:  # an element the notation has no symbol for: its box, so nothing goes missing
        _box(group, b, class_="marker", stroke_dasharray="4 4")
    outside = kind in EVENTS or kind in GATEWAYS or kind in DATA
    if outside and element.name:  # where DI puts the label, else below the shape
        box = shape.label or Bounds(b.x - 30, b.y + b.height + 5, b.width + 60, FONT * 2.5)
        _text(group, element.name, box, middle=False)
    return group


ORDER = {"participant": 0, "lane": 1, "group": 5}


def draw(drawing: Drawing, plane_index: int = 0) -> etree._Element:
    """The SVG root of one of the file's diagrams (its first by default)."""
    plane = drawing.planes[plane_index]
    extent = _extent(plane)
    root = etree.Element(f"{{{SVG}}}svg", nsmap={None: SVG})
    root.set(
        "viewBox",
        _points([(extent.x, extent.y)]).replace(",", " ")
        + f" {_number(extent.width)} {_number(extent.height)}",
    )
    root.set("width", _number(extent.width))
    root.set("height", _number(extent.height))
    root.set("data-diagram", plane.id)
    style = _el(root, "style")
    style.text = STYLE
    defs = _el(root, "defs")
    _markers(defs)
    shapes_layer = _el(root, "g", class_="shapes")
    kinds = {e.id: e.kind for e in drawing.elements.values()}
    containers = [s for s in plane.shapes if ORDER.get(s.element.kind, 3) < 3]
    for shape in sorted(containers, key=lambda s: ORDER[s.element.kind]):
        _draw_shape(shapes_layer, shape)
    # expanded subprocesses before what they hold: a bigger box under a smaller one
    rest = [s for s in plane.shapes if ORDER.get(s.element.kind, 3) >= 3]
    rest.sort(key=lambda s: -(s.bounds.width * s.bounds.height) if s.expanded else 0)
    for shape in [s for s in rest if s.expanded]:
        _draw_shape(shapes_layer, shape)
    edges_layer = _el(root, "g", class_="edges")
    for edge in plane.edges:
        _edge(edges_layer, edge, kinds)
    nodes_layer = _el(root, "g", class_="nodes")  # over the flows that end at them
    boundary_layer = _el(root, "g", class_="boundary-events")  # over their activities
    for shape in [s for s in rest if not s.expanded]:
        layer = boundary_layer if shape.element.kind == "boundaryEvent" else nodes_layer
        _draw_shape(layer, shape)
    return root


def to_svg(drawing: Drawing, plane_index: int = 0) -> str:
    # not pretty-printed: the whitespace between a text's lines would become spaces
    return etree.tostring(draw(drawing, plane_index), encoding="unicode") + "\n"
