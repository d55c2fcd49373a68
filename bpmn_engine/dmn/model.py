"""DMN definitions compiled once: frozen dataclasses, every FEEL text already compiled.

The reader (`reader.py`) builds these; the evaluator (`evaluate.py`, `tables.py`) runs them.
Nothing here knows XML or evaluates anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bpmn_engine.expressions.feel import FeelExpression, UnaryTests


@dataclass(frozen=True, slots=True)
class Where:
    """Where an element is, for messages: file, line and id."""

    file: str
    line: int
    id: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.id}" if self.id else f"{self.file}:{self.line}"


@dataclass(frozen=True, slots=True)
class TypeRef:
    """A type reference: a FEEL built-in type or an item definition (by name, after imports).
    `name` None is `Any`."""

    name: str | None
    namespace: str = ""  # the definitions the name is read in (item definitions are local)


@dataclass(frozen=True, slots=True)
class ItemDefinition:
    """A named type: a base type with allowed values, a structure of components, or a list."""

    name: str
    where: Where
    type_ref: TypeRef | None
    allowed: UnaryTests | None = None
    collection: bool = False
    components: tuple[ItemDefinition, ...] = ()
    output: TypeRef | None = None  # a function item's `outputTypeRef`: what a call returns


# --- boxed expressions ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Literal:
    where: Where
    feel: FeelExpression | None  # None: an empty literal expression, which is null
    type_ref: TypeRef | None = None


@dataclass(frozen=True, slots=True)
class ContextEntry:
    name: str | None  # None: the context's result entry
    type_ref: TypeRef | None
    value: Expr


@dataclass(frozen=True, slots=True)
class Context:
    where: Where
    entries: tuple[ContextEntry, ...]
    type_ref: TypeRef | None = None


@dataclass(frozen=True, slots=True)
class ListExpr:
    where: Where
    items: tuple[Expr, ...]
    type_ref: TypeRef | None = None


@dataclass(frozen=True, slots=True)
class Relation:
    where: Where
    columns: tuple[str, ...]
    rows: tuple[tuple[Expr, ...], ...]
    type_ref: TypeRef | None = None
    column_types: tuple[TypeRef | None, ...] = ()  # each cell conforms to its column's


@dataclass(frozen=True, slots=True)
class Invocation:
    where: Where
    target: Expr  # what is invoked: usually a literal naming a BKM or decision service
    bindings: tuple[tuple[str, Expr | None], ...]
    type_ref: TypeRef | None = None
    parameter_types: tuple[TypeRef | None, ...] = ()  # each binding's, as its parameter says


@dataclass(frozen=True, slots=True)
class FunctionDef:
    where: Where
    parameters: tuple[tuple[str, TypeRef | None], ...]
    body: Expr | None
    type_ref: TypeRef | None = None


@dataclass(frozen=True, slots=True)
class Conditional:
    """DMN 1.4's boxed `if`/`then`/`else`."""

    where: Where
    test: Expr
    then: Expr
    otherwise: Expr
    type_ref: TypeRef | None = None


@dataclass(frozen=True, slots=True)
class Iteration:
    """DMN 1.4's boxed `for` (`kind` "for": the list of `body` per item), `some` and
    `every` (whether `body` holds for some or every item), over `iterator` in `source`."""

    where: Where
    kind: str
    iterator: str
    source: Expr
    body: Expr
    type_ref: TypeRef | None = None


@dataclass(frozen=True, slots=True)
class Filter:
    """DMN 1.4's boxed filter: the items of `source` for which `match` is true (`item`, and
    a context item's entries, in scope)."""

    where: Where
    source: Expr
    match: Expr
    type_ref: TypeRef | None = None


@dataclass(frozen=True, slots=True)
class InputClause:
    where: Where
    expression: FeelExpression
    label: str
    allowed: UnaryTests | None
    type_ref: TypeRef | None
    variable: str  # the name the input value is bound to in its entries (Camunda: cellInput)


@dataclass(frozen=True, slots=True)
class OutputClause:
    where: Where
    name: str
    allowed: UnaryTests | None
    priorities: tuple[UnaryTests, ...]  # each allowed value alone: the order of PRIORITY
    default: FeelExpression | None
    type_ref: TypeRef | None


@dataclass(frozen=True, slots=True)
class Rule:
    where: Where
    inputs: tuple[UnaryTests, ...]
    outputs: tuple[FeelExpression | None, ...]
    annotations: tuple[str, ...] = ()
    output_types: tuple[TypeRef | None, ...] = ()  # an output entry's own typeRef


@dataclass(frozen=True, slots=True)
class DecisionTable:
    where: Where
    hit_policy: str  # UNIQUE, FIRST, PRIORITY, ANY, COLLECT, RULE ORDER, OUTPUT ORDER
    aggregation: str | None  # SUM, MIN, MAX, COUNT (COLLECT only)
    inputs: tuple[InputClause, ...]
    outputs: tuple[OutputClause, ...]
    rules: tuple[Rule, ...]
    type_ref: TypeRef | None = None


@dataclass(frozen=True, slots=True)
class Unparsed:
    """A decision's logic or a BKM's function that does not compile: the model loads all the
    same, and evaluating this fails with `problem` (file:line: element: the reason), so that
    one expression the compiler cannot read refuses only what depends on it."""

    where: Where
    problem: str
    type_ref: TypeRef | None = None


Expr = (
    Literal
    | Context
    | ListExpr
    | Relation
    | Invocation
    | FunctionDef
    | Conditional
    | DecisionTable
    | Unparsed
)


# --- DRG elements --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Requirements:
    """What a decision (or a BKM) needs, as (namespace, id) references."""

    decisions: tuple[tuple[str, str], ...] = ()
    inputs: tuple[tuple[str, str], ...] = ()
    knowledge: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class InputData:
    where: Where
    name: str
    namespace: str
    type_ref: TypeRef | None


@dataclass(frozen=True, slots=True)
class Decision:
    where: Where
    name: str
    namespace: str
    type_ref: TypeRef | None
    logic: Expr | None
    requires: Requirements = field(default_factory=Requirements)


@dataclass(frozen=True, slots=True)
class Bkm:
    """A business knowledge model: a function (its encapsulated logic) others invoke."""

    where: Where
    name: str
    namespace: str
    logic: FunctionDef | Unparsed | None
    requires: Requirements = field(default_factory=Requirements)


@dataclass(frozen=True, slots=True)
class DecisionService:
    """Decisions packaged as a function: parameters are its input decisions, then input data."""

    where: Where
    name: str
    namespace: str
    outputs: tuple[tuple[str, str], ...]
    encapsulated: tuple[tuple[str, str], ...]
    input_decisions: tuple[tuple[str, str], ...]
    input_data: tuple[tuple[str, str], ...]
    type_ref: TypeRef | None = None


@dataclass(frozen=True, slots=True)
class Import:
    """`<import>` of another DMN file's definitions, known in FEEL under `name`."""

    where: Where
    namespace: str
    name: str


@dataclass(frozen=True)
class DmnDefinitions:
    """One DMN file: its elements by id, and what it imports."""

    path: str
    namespace: str
    name: str
    version: str  # "1.1" ... "1.5"
    decisions: dict[str, Decision]
    bkms: dict[str, Bkm]
    services: dict[str, DecisionService]
    inputs: dict[str, InputData]
    items: dict[str, ItemDefinition]
    imports: tuple[Import, ...]
    aliases: dict[str, str] = field(default_factory=dict)  # name -> the FEEL-safe name used

    def unparsed(self) -> list[Unparsed]:
        """Every decision's logic and BKM's function that did not compile, in file order."""
        found = [d.logic for d in self.decisions.values() if isinstance(d.logic, Unparsed)]
        found += [b.logic for b in self.bkms.values() if isinstance(b.logic, Unparsed)]
        return sorted(found, key=lambda u: u.where.line)

    def element(self, element_id: str) -> Any:
        for table in (self.decisions, self.bkms, self.services, self.inputs):
            if element_id in table:
                return table[element_id]
        return None
