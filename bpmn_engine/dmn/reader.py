"""DMN 1.1-1.5 XML → `model.DmnDefinitions`, every FEEL text compiled once.

Files are read as BPMN files are (`parse/xml.py`: regular files only, 64 MiB, no DTD, no
entities, no network). The element names are the same in every version; only the namespace
differs, and any of the five is accepted. What cannot be evaluated (a hit policy that does not
exist, FEEL that does not parse, an expression language other than FEEL, a reference to
nothing) is a LoadError naming the file, the line and the element id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from lxml import etree

from bpmn_engine.dmn.model import (
    Bkm,
    Conditional,
    Context,
    ContextEntry,
    Decision,
    DecisionService,
    DecisionTable,
    DmnDefinitions,
    Expr,
    Filter,
    FunctionDef,
    Import,
    InputClause,
    InputData,
    Invocation,
    ItemDefinition,
    Iteration,
    ListExpr,
    Literal,
    OutputClause,
    Relation,
    Requirements,
    Rule,
    TypeRef,
    Unparsed,
    Where,
)
from bpmn_engine.dmn.names import MAX_ALIASES, Rewriter, aliases
from bpmn_engine.errors import ExpressionError, LoadError
from bpmn_engine.expressions.feel import FeelExpression, UnaryTests, compile_feel
from bpmn_engine.expressions.feel import compile_unary_tests as compile_tests
from bpmn_engine.expressions.feel.types import item_types
from bpmn_engine.parse.xml import parse_xml, read_source

VERSIONS = {
    "http://www.omg.org/spec/DMN/20151101/dmn.xsd": "1.1",
    "http://www.omg.org/spec/DMN/20180521/MODEL/": "1.2",
    "https://www.omg.org/spec/DMN/20191111/MODEL/": "1.3",
    "https://www.omg.org/spec/DMN/20211108/MODEL/": "1.4",
    "https://www.omg.org/spec/DMN/20230324/MODEL/": "1.5",
}
CAMUNDA = "http://camunda.org/schema/1.0/dmn"
HIT_POLICIES = ("UNIQUE", "FIRST", "PRIORITY", "ANY", "COLLECT", "RULE ORDER", "OUTPUT ORDER")
AGGREGATIONS = ("SUM", "MIN", "MAX", "COUNT")
_BOXED = ("literalExpression", "context", "list", "relation", "invocation")
_NOT_LOGIC = ("variable", "parameter", "text", "description", "extensionElements")
_BOXED += ("functionDefinition", "decisionTable", "conditional", "filter", "for", "some", "every")


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""


def _feel_language(language: str | None) -> bool:
    return not language or "feel" in language.lower()


Source = tuple[str, bytes]  # (path, the file's bytes)


def read_roots(paths: Iterable[str | Path]) -> list[tuple[str, etree._Element]]:
    """Each file's XML root, checked to be DMN."""
    return [parse_root(str(path), read_source(path)) for path in paths]


def parse_root(name: str, source: bytes) -> tuple[str, etree._Element]:
    root = parse_xml(source, name)
    if _local(root) != "definitions" or etree.QName(root).namespace not in VERSIONS:
        raise LoadError(
            "not a DMN file: the root is not a DMN 1.1-1.5 <definitions>",
            file=name,
            line=root.sourceline,
        )
    return name, root


def all_names(roots: list[tuple[str, etree._Element]]) -> set[str]:
    """Every name an expression may use, in every file (for the stand-ins of `names.py`)."""
    found: set[str] = set()
    for _, root in roots:
        for element in root.iter():
            if not isinstance(element.tag, str) or _local(element) in ("definitions",):
                continue
            if _local(element) == "itemDefinition":
                continue
            name = element.get("name")
            if name:
                found.add(name)
    return found


def read_files(paths: Iterable[str | Path]) -> list[Source]:
    """The files given, and the DMN files they import that none of them is (found by the
    import's `locationURI`, a relative path, in the importing file's folder or below)."""
    sources = [(str(path), read_source(path)) for path in paths]
    roots = [parse_root(name, source) for name, source in sources]
    seen = {Path(name).resolve() for name, _ in roots}
    index = 0
    while index < len(roots):
        name, root = roots[index]
        index += 1
        have = {r.get("namespace") for _, r in roots}
        for element in root:
            location = _importable(element, name, have)
            if location is not None and location not in seen:
                seen.add(location)
                sources.append((str(location), read_source(location)))
                roots.append(parse_root(*sources[-1]))
    return sources


def compile_sources(sources: list[Source]) -> list[DmnDefinitions]:
    """Files already read (`read_files`, or a set kept in a store) compiled together."""
    roots = [parse_root(name, source) for name, source in sources]
    table = aliases(all_names(roots))
    if len(table) > MAX_ALIASES:
        raise LoadError(
            f"more than {MAX_ALIASES:,} names with characters FEEL cannot read as a name "
            "(such as - / + * . or a keyword)",
            file=sources[0][0],
        )
    compiled: dict[tuple[str, str], Any] = {}  # one compile per distinct text, for all files
    with item_types():  # FEEL here may name the model's item definitions as types
        return [Reader(name, root, table, compiled).definitions() for name, root in roots]


def _importable(element: etree._Element, importer: str, have: set[str | None]) -> Path | None:
    """The file a DMN `<import>` not yet satisfied names, if it is a relative path that stays
    in the importing file's folder (never an absolute path, a URL or `..`)."""
    if _local(element) != "import" or element.get("namespace") in have:
        return None
    if "dmn" not in (element.get("importType") or "").lower():
        return None
    location = element.get("locationURI") or ""
    if not location or "://" in location or location.startswith(("/", "\\")) or ".." in location:
        return None
    folder = Path(importer).resolve().parent
    path = (folder / location).resolve()
    if folder not in path.parents or not path.is_file():
        return None
    return path


def _split_top(text: str) -> list[str]:
    """`"a", "b", [1..2]` → its items: commas outside strings and brackets."""
    parts, depth, current, quoted, escaped = [], 0, [], False, False
    for char in text:
        if quoted:
            current.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
            continue
        if char == '"':
            quoted = True
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    parts.append("".join(current).strip())
    return [p for p in parts if p]


class Reader:
    """Compiles one file's root; errors name this file."""

    def __init__(
        self,
        file: str,
        root: etree._Element,
        table: dict[str, str],
        compiled: dict[tuple[str, str], Any] | None = None,
    ) -> None:
        self.compiled = {} if compiled is None else compiled  # decision tables repeat cells
        self.file = file
        self.root = root
        self.ns = etree.QName(root).namespace or ""
        self.namespace = root.get("namespace") or ""
        self.language = root.get("expressionLanguage")
        self.rewrite = Rewriter(table)
        self.table = table
        self.imports: dict[str, str] = {}  # import name -> namespace

    # --- helpers ----------------------------------------------------------------------------
    def where(self, element: etree._Element) -> Where:
        return Where(self.file, element.sourceline or 0, self._id(element))

    def _id(self, element: etree._Element | None) -> str:
        while element is not None:
            if element.get("id"):
                return element.get("id") or ""
            element = element.getparent()
        return ""

    def error(self, message: str, element: etree._Element) -> LoadError:
        return LoadError(
            message, file=self.file, line=element.sourceline, element_id=self._id(element) or None
        )

    def children(self, element: etree._Element, name: str) -> list[etree._Element]:
        return [c for c in element if _local(c) == name and etree.QName(c).namespace == self.ns]

    def child(self, element: etree._Element, name: str) -> etree._Element | None:
        found = self.children(element, name)
        return found[0] if found else None

    def text(self, element: etree._Element | None) -> str:
        if element is None:
            return ""
        text = self.child(element, "text")
        return (text.text or "").strip() if text is not None else ""

    def check_language(self, element: etree._Element) -> None:
        language = element.get("expressionLanguage") or self.language
        if not _feel_language(language):
            raise self.error(
                f"expression language {language!r} is not supported (only FEEL)", element
            )

    def feel(self, text: str, element: etree._Element) -> FeelExpression:
        self.check_language(element)
        key = ("expression", text)
        if key not in self.compiled:
            try:
                self.compiled[key] = compile_feel(self.rewrite(text))
            except ExpressionError as error:
                raise self.error(f"{error} in {text!r}", element) from None
        found: FeelExpression = self.compiled[key]
        return found

    def tests(self, text: str, element: etree._Element) -> UnaryTests:
        self.check_language(element)
        key = ("tests", text or "-")
        if key not in self.compiled:
            try:
                self.compiled[key] = compile_tests(self.rewrite(text) if text else "-")
            except ExpressionError as error:
                raise self.error(f"{error} in {text!r}", element) from None
        found: UnaryTests = self.compiled[key]
        return found

    def type_ref(self, element: etree._Element) -> TypeRef | None:
        value = element.get("typeRef")
        if value is None:
            child = self.child(element, "typeRef")
            value = (child.text or "").strip() if child is not None else None
        return self.type_named(value, element)

    def type_named(self, value: str | None, element: etree._Element) -> TypeRef | None:
        """The type a `typeRef` (or `outputTypeRef`) of `element` names, after its imports."""
        if not value:
            return None
        prefix, colon, local = value.partition(":")
        if colon and prefix in (element.nsmap or {}):  # DMN 1.1 QNames: feel:string, tns:tType
            value = local
        head, dot, rest = value.partition(".")
        if dot and head in self.imports:
            return TypeRef(rest, self.imports[head])
        return TypeRef(value, self.namespace)

    def href(self, element: etree._Element) -> tuple[str, str]:
        href = element.get("href") or ""
        namespace, sharp, element_id = href.rpartition("#")
        if not sharp or not element_id:
            raise self.error(f'the reference {href!r} names no element (href="#id")', element)
        return (namespace or self.namespace, element_id)

    # --- the file ---------------------------------------------------------------------------
    def definitions(self) -> DmnDefinitions:
        root = self.root
        imports = []
        for element in self.children(root, "import"):
            name, namespace = element.get("name") or "", element.get("namespace") or ""
            if not namespace:
                raise self.error("the import has no namespace", element)
            imports.append(Import(self.where(element), namespace, name))
            self.imports[name] = namespace
        items = {}
        for element in self.children(root, "itemDefinition"):
            item = self.item(element)
            items[item.name] = item
        decisions, bkms, services, inputs = {}, {}, {}, {}
        for element in root:
            kind = _local(element)
            if not kind or etree.QName(element).namespace != self.ns:
                continue
            # the id is optional in the schema: an element without one is known by its name
            # (nothing can reference it by href, but it can be evaluated)
            key = element.get("id") or element.get("name") or ""
            drg = kind in ("decision", "businessKnowledgeModel", "decisionService", "inputData")
            if drg and not element.get("name"):
                raise self.error(f"the {kind} has no name", element)
            if kind == "decision":
                decisions[key] = self.decision(element)
            elif kind == "businessKnowledgeModel":
                bkms[key] = self.bkm(element)
            elif kind == "decisionService":
                services[key] = self.service(element)
            elif kind == "inputData":
                variable = self.child(element, "variable")
                inputs[key] = InputData(
                    self.where(element),
                    element.get("name") or "",
                    self.namespace,
                    self.type_ref(variable) if variable is not None else None,
                )
        return DmnDefinitions(
            path=self.file,
            namespace=self.namespace,
            name=root.get("name") or "",
            version=VERSIONS[self.ns],
            decisions=decisions,
            bkms=bkms,
            services=services,
            inputs=inputs,
            items=items,
            imports=tuple(imports),
            aliases=self.table,
        )

    def item(self, element: etree._Element) -> ItemDefinition:
        allowed = self.child(element, "allowedValues")
        name = element.get("name") or ""
        if not name:
            raise self.error("an item definition (or component) without a name", element)
        function = self.child(element, "functionItem")
        output = None
        if function is not None:
            type_ref = TypeRef("function", self.namespace)
            output = self.type_named(function.get("outputTypeRef"), function)
        else:
            type_ref = self.type_ref(element)
        return ItemDefinition(
            name=name,
            where=self.where(element),
            type_ref=type_ref,
            allowed=self.tests(self.text(allowed), allowed) if allowed is not None else None,
            collection=element.get("isCollection") == "true",
            components=tuple(self.item(c) for c in self.children(element, "itemComponent")),
            output=output,
        )

    def requirements(self, element: etree._Element) -> Requirements:
        decisions, inputs, knowledge = [], [], []
        for requirement in self.children(element, "informationRequirement"):
            for target in requirement:
                if _local(target) == "requiredDecision":
                    decisions.append(self.href(target))
                elif _local(target) == "requiredInput":
                    inputs.append(self.href(target))
        for requirement in self.children(element, "knowledgeRequirement"):
            for target in requirement:
                if _local(target) == "requiredKnowledge":
                    knowledge.append(self.href(target))
        return Requirements(tuple(decisions), tuple(inputs), tuple(knowledge))

    def decision(self, element: etree._Element) -> Decision:
        variable = self.child(element, "variable")
        type_ref = self.type_ref(variable) if variable is not None else None
        try:
            logic: Expr | None = self.logic(element)
        except LoadError as error:  # the others load: this one fails when evaluated
            logic = self.unparsed(error, element, type_ref)
        return Decision(
            where=self.where(element),
            name=element.get("name") or "",
            namespace=self.namespace,
            type_ref=type_ref,
            logic=logic,
            requires=self.requirements(element),
        )

    def unparsed(
        self, error: LoadError, element: etree._Element, type_ref: TypeRef | None = None
    ) -> Unparsed:
        """What stands for logic that does not compile: where the error is, and why."""
        where = self.where(element)
        line, element_id = error.line or where.line, error.element_id or where.id
        return Unparsed(Where(self.file, line, element_id), error.message, type_ref)

    def logic(self, element: etree._Element) -> Expr | None:
        boxed = [c for c in element if _local(c) in _BOXED]
        return self.expression(boxed[0]) if boxed else None

    def bkm(self, element: etree._Element) -> Bkm:
        logic = self.child(element, "encapsulatedLogic")
        try:
            function: FunctionDef | Unparsed | None = (
                self.function(logic) if logic is not None else None
            )
        except LoadError as error:  # as a decision's: fails when invoked
            function = self.unparsed(error, element)
        return Bkm(
            where=self.where(element),
            name=element.get("name") or "",
            namespace=self.namespace,
            logic=function,
            requires=self.requirements(element),
        )

    def service(self, element: etree._Element) -> DecisionService:
        def refs(tag: str) -> tuple[tuple[str, str], ...]:
            return tuple(self.href(c) for c in self.children(element, tag))

        variable = self.child(element, "variable")
        return DecisionService(
            where=self.where(element),
            name=element.get("name") or "",
            namespace=self.namespace,
            outputs=refs("outputDecision"),
            encapsulated=refs("encapsulatedDecision"),
            input_decisions=refs("inputDecision"),
            input_data=refs("inputData"),
            type_ref=self.type_ref(variable) if variable is not None else None,
        )

    # --- boxed expressions ------------------------------------------------------------------
    def expression(self, element: etree._Element) -> Expr:
        readers: dict[str, Callable[[etree._Element], Expr]] = {
            "literalExpression": self.literal,
            "context": self.context,
            "list": self.list,
            "relation": self.relation,
            "invocation": self.invocation,
            "functionDefinition": self.function,
            "decisionTable": self.table_of,
            "conditional": self.conditional,
            "filter": self.filter,
            "for": self.iteration,
            "some": self.iteration,
            "every": self.iteration,
        }
        reader = readers.get(_local(element))
        if reader is None:
            raise self.error(f"<{_local(element)}> is not a supported expression", element)
        return reader(element)

    def inner(self, element: etree._Element) -> Expr | None:
        """The one boxed expression inside a context entry, binding, row, parameter..."""
        boxed = [c for c in element if _local(c) in _BOXED]
        if not boxed:
            other = [c for c in element if isinstance(c.tag, str) and _local(c) not in _NOT_LOGIC]
            if other:
                raise self.error(f"<{_local(other[0])}> is not a supported expression", other[0])
            return None
        return self.expression(boxed[0])

    def literal(self, element: etree._Element) -> Literal:
        if self.child(element, "importedValues") is not None:
            raise self.error("imported values are not supported", element)
        text = self.text(element)
        return Literal(
            self.where(element), self.feel(text, element) if text else None, self.type_ref(element)
        )

    def context(self, element: etree._Element) -> Context:
        entries = []
        for entry in self.children(element, "contextEntry"):
            variable = self.child(entry, "variable")
            value = self.inner(entry) or Literal(self.where(entry), None)
            entries.append(
                ContextEntry(
                    name=variable.get("name") if variable is not None else None,
                    type_ref=self.type_ref(variable) if variable is not None else None,
                    value=value,
                )
            )
        return Context(self.where(element), tuple(entries), self.type_ref(element))

    def list(self, element: etree._Element) -> ListExpr:
        items = [self.expression(c) for c in element if _local(c) in _BOXED]
        return ListExpr(self.where(element), tuple(items), self.type_ref(element))

    def relation(self, element: etree._Element) -> Relation:
        declared = self.children(element, "column")
        columns = tuple(c.get("name") or "" for c in declared)
        rows = []
        for row in self.children(element, "row"):
            cells = tuple(self.expression(c) for c in row if _local(c) in _BOXED)
            if len(cells) != len(columns):
                raise self.error(f"the row has {len(cells)} cells for {len(columns)} columns", row)
            rows.append(cells)
        types = tuple(self.type_ref(c) for c in declared)
        return Relation(self.where(element), columns, tuple(rows), self.type_ref(element), types)

    def invocation(self, element: etree._Element) -> Invocation:
        targets = [c for c in element if _local(c) in _BOXED]
        if not targets:
            raise self.error("the invocation names nothing to invoke", element)
        bindings, types = [], []
        for binding in self.children(element, "binding"):
            parameter = self.child(binding, "parameter")
            if parameter is None or not parameter.get("name"):
                raise self.error("a binding without a parameter name", binding)
            bindings.append((parameter.get("name") or "", self.inner(binding)))
            types.append(self.type_ref(parameter))
        return Invocation(
            self.where(element),
            self.expression(targets[0]),
            tuple(bindings),
            self.type_ref(element),
            tuple(types),
        )

    def function(self, element: etree._Element) -> FunctionDef:
        kind = element.get("kind") or "FEEL"
        if kind.upper() not in ("FEEL", "F"):
            raise self.error(f"{kind} functions are not supported (only FEEL)", element)
        parameters = tuple(
            (p.get("name") or "", self.type_ref(p))
            for p in self.children(element, "formalParameter")
        )
        body = [c for c in element if _local(c) in _BOXED]
        return FunctionDef(
            self.where(element),
            parameters,
            self.expression(body[0]) if body else None,
            self.type_ref(element),
        )

    def conditional(self, element: etree._Element) -> Conditional:
        parts = []
        for tag in ("if", "then", "else"):
            part = self.child(element, tag)
            if part is None:
                raise self.error(f"the conditional has no <{tag}>", element)
            parts.append(self.inner(part) or Literal(self.where(part), None))
        return Conditional(self.where(element), *parts, type_ref=self.type_ref(element))

    def part(self, element: etree._Element, tag: str) -> Expr:
        """The expression inside a required child (`in`, `return`, `match`...)."""
        child = self.child(element, tag)
        if child is None:
            raise self.error(f"the {_local(element)} has no <{tag}>", element)
        return self.inner(child) or Literal(self.where(child), None)

    def filter(self, element: etree._Element) -> Filter:
        return Filter(
            self.where(element),
            self.part(element, "in"),
            self.part(element, "match"),
            self.type_ref(element),
        )

    def iteration(self, element: etree._Element) -> Iteration:
        kind = _local(element)
        iterator = element.get("iteratorVariable") or ""
        if not iterator:
            raise self.error(f"the {kind} has no iteratorVariable", element)
        body = self.part(element, "return" if kind == "for" else "satisfies")
        return Iteration(
            self.where(element),
            kind,
            iterator,
            self.part(element, "in"),
            body,
            self.type_ref(element),
        )

    # --- decision tables --------------------------------------------------------------------
    def table_of(self, element: etree._Element) -> DecisionTable:
        policy = (element.get("hitPolicy") or "UNIQUE").upper().replace("_", " ")
        if policy not in HIT_POLICIES:
            raise self.error(
                f"unknown hit policy {element.get('hitPolicy')!r} "
                f"(one of {', '.join(HIT_POLICIES)})",
                element,
            )
        aggregation = element.get("aggregation")
        if aggregation is not None:
            aggregation = aggregation.upper()
            if aggregation not in AGGREGATIONS:
                raise self.error(
                    f"unknown aggregation {aggregation!r} (one of {', '.join(AGGREGATIONS)})",
                    element,
                )
            if policy != "COLLECT":
                raise self.error(f"an aggregation needs hit policy COLLECT, not {policy}", element)
        inputs = tuple(self.input_clause(c) for c in self.children(element, "input"))
        outputs = tuple(self.output_clause(c) for c in self.children(element, "output"))
        if not outputs:
            raise self.error("the decision table has no output", element)
        if aggregation and len(outputs) > 1:
            raise self.error("an aggregation needs a single output", element)
        if len(outputs) > 1 and any(not o.name for o in outputs):
            raise self.error("with several outputs, each needs a name", element)
        if policy in ("PRIORITY", "OUTPUT ORDER") and not any(o.priorities for o in outputs):
            raise self.error(f"hit policy {policy} needs output values to order by", element)
        rules = tuple(self.rule(r, inputs, outputs) for r in self.children(element, "rule"))
        return DecisionTable(
            self.where(element), policy, aggregation, inputs, outputs, rules, self.type_ref(element)
        )

    def input_clause(self, element: etree._Element) -> InputClause:
        expression = self.child(element, "inputExpression")
        text = self.text(expression)
        if expression is None or not text:
            raise self.error("the input has no input expression", element)
        allowed = self.child(element, "inputValues")
        variable = element.get(f"{{{CAMUNDA}}}inputVariable") or "cellInput"
        return InputClause(
            where=self.where(element),
            expression=self.feel(text, expression),
            label=element.get("label") or text,
            allowed=self.allowed(allowed),
            type_ref=self.type_ref(expression),
            variable=variable,
        )

    def allowed(self, element: etree._Element | None) -> UnaryTests | None:
        text = self.text(element)
        return self.tests(text, element) if element is not None and text else None

    def output_clause(self, element: etree._Element) -> OutputClause:
        values = self.child(element, "outputValues")
        text = self.text(values)
        priorities = tuple(self.tests(p, values) for p in _split_top(text)) if text else ()
        default = self.child(element, "defaultOutputEntry")
        default_text = self.text(default)
        return OutputClause(
            where=self.where(element),
            name=element.get("name") or "",
            allowed=self.allowed(values),
            priorities=priorities,
            default=self.feel(default_text, default)
            if default is not None and default_text
            else None,
            type_ref=self.type_ref(element),
        )

    def rule(
        self, element: etree._Element, inputs: tuple[Any, ...], outputs: tuple[Any, ...]
    ) -> Rule:
        entries = self.children(element, "inputEntry")
        results = self.children(element, "outputEntry")
        if len(entries) != len(inputs) or len(results) != len(outputs):
            raise self.error(
                f"the rule has {len(entries)} input and {len(results)} output entries for "
                f"{len(inputs)} inputs and {len(outputs)} outputs",
                element,
            )
        return Rule(
            where=self.where(element),
            inputs=tuple(self.tests(self.text(e), e) for e in entries),
            outputs=tuple(self.feel(self.text(r), r) if self.text(r) else None for r in results),
            annotations=tuple(self.text(a) for a in self.children(element, "annotationEntry")),
            output_types=tuple(self.type_ref(r) for r in results),
        )
