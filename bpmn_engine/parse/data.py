"""BPMN data: data objects, properties, `ioSpecification` and data associations.

Item-aware elements become variable names here, once, so the runtime deals only in names:
a `dataObject` is the variable of its id in the (sub)process that declares it, a
`dataObjectReference` names its data object's variable, and a `dataInput`, `dataOutput` or
`property` is the variable of its id (SpiffWorkflow's convention: names such as "input 1"
are labels). A `property` named `__targetRef_placeholder` is bpmn.io's stand-in target of a
data input association: the value arrives under the data object's own name.

A data store is kept in the engine's database, shared by every instance
(docs/data-stores.md): a `dataStoreReference` names its `dataStore` (or stands alone), and
an association that reads or writes it carries the store's name. Its variable is the
`dataStore`'s id (a lone reference's own), as SpiffWorkflow names it; the store's name is
the `dataStore`'s name, else its id (a lone reference's name, else its id). SpiffWorkflow's
typed stores (a `dataStore` named after the class that implements it in spiff-arena) are
refused by name.
"""

from __future__ import annotations

from collections.abc import Callable

from lxml import etree

from bpmn_engine.expressions.jbpm import PARAMETER
from bpmn_engine.model.elements import ActivityData, DataAssociation, Expression
from bpmn_engine.model.kinds import BPMN
from bpmn_engine.model.process import ProcessInterface
from bpmn_engine.parse.extensions import ElementIndex
from bpmn_engine.parse.xml import local_name as _local

PLACEHOLDER = "__targetRef_placeholder"
_STORES = frozenset({"dataStore", "dataStoreReference"})
# SpiffWorkflow's data store classes (spiff-arena): a `dataStore`'s name picks one; each
# keeps its data its own way (a key-key-value table, a JSON document per process group,
# a file, a typeahead index), which no plain store here stands in for
SPIFF_TYPED_STORES = frozenset(
    {"KKVDataStore", "JSONDataStore", "JSONFileDataStore", "TypeaheadDataStore"}
)
_ITEMS = frozenset({"dataObject", "dataInput", "dataOutput", "property"})
_LOOP_ITEMS = ("inputDataItem", "outputDataItem")  # jBPM's associations name them
# the full tag of every element `DataItems.note` keeps, and its kind
ITEM_TAGS = {
    f"{{{BPMN}}}{kind}": kind for kind in (*_STORES, *_ITEMS, *_LOOP_ITEMS, "dataObjectReference")
}

Refuse = Callable[[etree._Element, str], None]
ReadExpression = Callable[[etree._Element], Expression | None]


def _bpmn_children(element: etree._Element, tag: str) -> list[etree._Element]:
    return list(element.iterchildren(f"{{{BPMN}}}{tag}"))


def _text(element: etree._Element) -> str:
    return "".join(element.itertext()).strip()


def _ref(text: str) -> str:
    return text.split(":", 1)[1] if ":" in text and "://" not in text else text


class DataItems:
    """Every item-aware element of one document, by id: the variable it names. The reader
    hands it each element of `ITEM_TAGS` that has an id, in the one walk over the document
    that also indexes the ids."""

    jbpm = False  # read as jBPM reads it (`parse/jbpm.py`): set before the first `note`

    def __init__(self) -> None:
        self.names: dict[str, str | None] = {}
        # a data store or a reference to one, by id: (the `dataStore` it names, None for a
        # `dataStore` itself or a lone reference; its `name` attribute)
        self.stores: dict[str, tuple[str | None, str | None]] = {}

    def note(self, element: etree._Element, item_id: str) -> None:
        """Keep one element (its tag one of `ITEM_TAGS`, `item_id` its non-empty id)."""
        kind = ITEM_TAGS[element.tag]
        if kind in _STORES:
            ref = _ref(element.get("dataStoreRef") or "") or None
            self.stores[item_id] = (ref, (element.get("name") or "").strip() or None)
            self.names[item_id] = ref or item_id  # the variable: the `dataStore`'s id
        elif kind == "dataObjectReference":
            self.names[item_id] = _ref(element.get("dataObjectRef") or "") or item_id
        elif kind == "property" and element.get("name") == PLACEHOLDER:
            self.names[item_id] = None
        elif self.jbpm and kind in ("dataInput", "dataOutput") and _is_parameter(element):
            self.names[item_id] = element.get("name", "").strip()  # a work item's parameter
        elif kind in _ITEMS or (self.jbpm and kind in _LOOP_ITEMS):
            self.names[item_id] = item_id

    def store(self, item_id: str) -> tuple[str | None, str]:
        """The name of the data store `item_id` (a store or a reference to one) keeps its
        value under, or (None, why not)."""
        ref, name = self.stores[item_id]
        if ref is not None:
            if ref not in self.stores or self.stores[ref][0] is not None:
                return None, f"names dataStore {ref!r}, which the definitions do not declare"
            item_id, name = ref, self.stores[ref][1]
        if name in SPIFF_TYPED_STORES:
            return None, (
                f"is SpiffWorkflow's {name} (a typed store that spiff-arena implements): not "
                "supported; a dataStore of any other name is a store kept in the engine's "
                "database (docs/data-stores.md)"
            )
        return name or item_id, ""

    def ends(self, association: etree._Element) -> tuple[list[str], str | None]:
        """The ids an association reads from and the id it writes to, as written."""
        sources = [_ref(_text(s)) for s in _bpmn_children(association, "sourceRef")]
        targets = [_ref(_text(t)) for t in _bpmn_children(association, "targetRef")]
        return [s for s in sources if s], (targets[0] if targets and targets[0] else None)


def _is_parameter(element: etree._Element) -> bool:
    """A data input or output of an activity's `ioSpecification` with a name a variable can
    have: jBPM passes it to the work item (or the called process) under that name."""
    spec = element.getparent()
    holder = spec.getparent() if spec is not None else None
    return (
        spec is not None
        and _local(spec) == "ioSpecification"
        and holder is not None
        and _local(holder) != "process"
        and (element.get("name") or "").strip().isidentifier()
    )


def declared(container: ElementIndex, *, process: bool = False) -> tuple[str, ...]:
    """The variables a process or subprocess declares (`container` its element's index): its
    data objects (and, for a process, its properties; a subprocess's properties are read
    with the activity)."""
    kinds = ("dataObject", "property") if process else ("dataObject",)
    return tuple(
        e.get("id", "") for kind in kinds for e in container.bpmn_children(kind) if e.get("id")
    )


def process_inputs(process: ElementIndex) -> tuple[tuple[str, int], ...]:
    """A process's data inputs (`process` its element's index): each must be given when an
    instance starts."""
    return tuple(
        (item.get("id", ""), item.sourceline or 0)
        for spec in process.bpmn_children("ioSpecification")
        for item in _bpmn_children(spec, "dataInput")
        if item.get("id")
    )


def process_interface(process: ElementIndex) -> ProcessInterface | None:
    """A process's `ioSpecification` as the interface call activities see (None without one)."""
    specs = process.bpmn_children("ioSpecification")
    if not specs:
        return None

    def items(tag: str) -> tuple[tuple[str, str | None], ...]:
        return tuple(
            (item.get("id", ""), item.get("name"))
            for spec in specs
            for item in _bpmn_children(spec, tag)
            if item.get("id")
        )

    return ProcessInterface(items("dataInput"), items("dataOutput"))


def activity_data(
    index: ElementIndex, items: DataItems, expression: ReadExpression, refuse: Refuse
) -> ActivityData | None:
    """An activity's data (`index` its element's), None when it has none."""
    if not index.children:
        return None
    inputs: list[str] = []
    outputs: list[str] | None = None
    collected = _loop_outputs(index) if items.jbpm else set()
    for spec in index.bpmn_children("ioSpecification"):
        inputs += [_name(items, i) for i in _bpmn_children(spec, "dataInput") if i.get("id")]
        found = [
            _name(items, o)
            for o in _bpmn_children(spec, "dataOutput")
            if o.get("id") and o.get("id") not in collected
        ]
        if found:
            outputs = (outputs or []) + found
    properties = [
        p.get("id", "")
        for p in index.bpmn_children("property")
        if p.get("id") and items.names.get(p.get("id", "")) is not None
    ]
    reads = [
        a
        for e in index.bpmn_children("dataInputAssociation")
        if (a := _association(e, items, expression, refuse, reading=True)) is not None
    ]
    writes = [
        a
        for e in index.bpmn_children("dataOutputAssociation")
        if (a := _association(e, items, expression, refuse, reading=False)) is not None
    ]
    if collected:  # the loop's output collection is written by the loop, not per instance
        gathered = {items.names.get(i) or i for i in collected}
        writes = [a for a in writes if a.source not in gathered]
    if items.jbpm:  # a parameter no association fills is None (jBPM leaves it unset)
        filled = {a.target for a in reads} | {t for a in reads for _, t in a.assignments}
        properties += [name for name in inputs if name not in filled]
        inputs = [name for name in inputs if name in filled]
    if not (inputs or outputs is not None or properties or reads or writes):
        return None
    return ActivityData(
        tuple(inputs),
        None if outputs is None else tuple(outputs),
        tuple(properties),
        tuple(reads),
        tuple(writes),
    )


def _loop_outputs(index: ElementIndex) -> set[str]:
    """jBPM: the data output a multi-instance's `loopDataOutputRef` names is the collection
    the loop gathers, not something each instance produces."""
    return {
        _ref(_text(ref))
        for loop in index.bpmn_children("multiInstanceLoopCharacteristics")
        for ref in _bpmn_children(loop, "loopDataOutputRef")
    }


def _name(items: DataItems, element: etree._Element) -> str:
    """The variable of a data input or output (its id, or in jBPM its name)."""
    item_id = element.get("id", "")
    return items.names.get(item_id) or item_id


def _jbpm_assignment(
    element: etree._Element,
    kind: str,
    sources: list[str],
    target: str | None,
    items: DataItems,
    refuse: Refuse,
    *,
    reading: bool,
) -> DataAssociation | None:
    """jBPM's assignment: a data input association without a sourceRef gives its input the
    text of the assignment's `from` (`expressions/jbpm.py`); an empty one leaves it unset.
    jBPM evaluates any other assignment over the source or the result, as XPath or, where
    its `from` says so, as MVEL."""
    assignments = _bpmn_children(element, "assignment")
    if not reading or sources:
        froms = [f for a in assignments for f in _bpmn_children(a, "from")]
        mvel = any("mvel" in f.get("language", "").lower() for f in froms)
        refuse(
            element,
            f"{kind} with {'a sourceRef and ' if sources else ''}an assignment: jBPM "
            f"evaluates it as {'MVEL' if mvel else 'XPath'} over the "
            f"{'source' if reading else 'result'}, which is not supported; map the variable "
            "with sourceRef and targetRef alone",
        )
        return None
    if len(assignments) > 1:
        refuse(element, f"{kind} with {len(assignments)} assignments: jBPM reads only one")
        return None
    froms = _bpmn_children(assignments[0], "from")
    text = "".join(froms[0].itertext()) if froms else ""
    if target is None:  # no targetRef: the `to` names the input
        written = [_ref(_text(t)) for t in _bpmn_children(assignments[0], "to")]
        target = items.names.get(written[0]) if written else None
    if not target or not target.isidentifier():
        refuse(element, f"{kind} has no target: its targetRef must name a data input")
        return None
    if not text:
        return None
    line = froms[0].sourceline or element.sourceline or 0
    return DataAssociation(
        element.get("id", ""),
        element.sourceline or 0,
        None,
        target,
        None,
        ((Expression(text, PARAMETER, line), target),),
    )


def _association(
    element: etree._Element,
    items: DataItems,
    expression: ReadExpression,
    refuse: Refuse,
    *,
    reading: bool,
) -> DataAssociation | None:
    kind = _local(element)
    sources, target_id = items.ends(element)
    stores = _stores(element, items, sources, target_id, refuse, reading=reading)
    if stores is None:
        return None
    if len(sources) > 1:
        refuse(element, f"{kind} reads {len(sources)} sources: only one is supported")
        return None
    unknown = [ref for ref in (*sources, target_id) if ref and ref not in items.names]
    if unknown:
        refuse(element, f"{kind} names {unknown[0]!r}, which is no data object, input or output")
        return None
    source = items.names[sources[0]] if sources else None
    target = items.names[target_id] if target_id else None
    if reading and target is None:  # bpmn.io's placeholder: under the data object's name
        target = source
    if not reading and source is None:  # bpmn.io writes no sourceRef: the same name
        source = target
    if items.jbpm and _bpmn_children(element, "assignment"):
        return _jbpm_assignment(element, kind, sources, target, items, refuse, reading=reading)
    if items.jbpm and reading and not sources and not _bpmn_children(element, "transformation"):
        return None  # nothing to read: jBPM leaves the input unset (None)
    assignments: list[tuple[Expression, str]] = []
    for assignment in _bpmn_children(element, "assignment"):
        read = [expression(f) for f in _bpmn_children(assignment, "from")]
        written = [_text(t) for t in _bpmn_children(assignment, "to")]
        name = items.names.get(_ref(written[0]), _ref(written[0])) if written else None
        if not read or read[0] is None or not name or not name.isidentifier():
            refuse(
                assignment,
                f"assignment of {kind} needs a `from` expression and a `to` naming a variable",
            )
            return None
        assignments.append((read[0], name))
    transformation = None
    for child in _bpmn_children(element, "transformation"):
        transformation = expression(child)
    if target is None and not assignments:
        refuse(element, f"{kind} has no target")
        return None
    if source is None and transformation is None and not assignments:
        refuse(element, f"{kind} has no source")
        return None
    return DataAssociation(
        element.get("id", ""),
        element.sourceline or 0,
        source,
        target or "",
        transformation,
        tuple(assignments),
        *stores,
    )


def _stores(
    element: etree._Element,
    items: DataItems,
    sources: list[str],
    target_id: str | None,
    refuse: Refuse,
    *,
    reading: bool,
) -> tuple[str | None, str | None] | None:
    """(the data store an association reads, the one it writes), by name, each None when
    it has none; None when it cannot run (refused)."""
    kind = _local(element)
    ends = [ref for ref in (*sources, target_id) if ref in items.stores]
    if not ends:
        return None, None
    side = (sources[0] if sources else None) if reading else target_id
    if len(ends) > 1 or ends[0] != side:
        where = "its source" if reading else "its target"
        refuse(
            element,
            f"{kind} with data store {ends[0]!r}: a data store can only be {where} here (an "
            "activity reads a store through a dataInputAssociation, writes one through a "
            "dataOutputAssociation)",
        )
        return None
    name, why = items.store(ends[0])
    if name is None:
        refuse(element, f"{kind} with data store {ends[0]!r}: the store {why}")
        return None
    if not reading and _bpmn_children(element, "assignment"):
        refuse(
            element,
            f"{kind} writes data store {name!r} through assignments: not supported; use a "
            "transformation, or a sourceRef naming what to write",
        )
        return None
    return (name, None) if reading else (None, name)
