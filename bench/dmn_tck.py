"""Where the DMN engine stands on the DMN TCK (github.com/dmn-tck/tck): level 2 and 3.

    python bench/dmn_tck.py TCK/TestCases [--level 3] [--show N] [--json] [--only NAME]

TCK is a checkout of the conformance suite (not shipped here). Each test directory holds
models (`*.dmn`) and test files (`*-test-*.xml`, `testCases` in the TCK's own schema); every
`testCase` invokes a decision or a decision service over its `inputNode`s and compares
every `resultNode` with what is expected. A case passes when all its results do; the
counts are per test case, as the TCK's reports count them, and per result.

Values the test file gives without a type (`<value>10</value>`) are read by the typeRef of
the input data (or item definition component) they go to; expected values without a type
are compared with the computed value's own reading of the text. Numbers compare exactly,
as FEEL decimals do, but for `xsd:double` (to 15 significant digits) and untyped numbers
printed as doubles (twelve significant digits or more: the computed decimal rounded to the
places written). A model that does not load
fails each of its cases, with the load error as the cause.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from lxml import etree

from bpmn_engine.dmn import load
from bpmn_engine.errors import BpmnEngineError
from bpmn_engine.expressions.feel.values import (
    equal,
    parse_date,
    parse_date_time,
    parse_duration,
    parse_time,
    text,
)

TC = "{http://www.omg.org/spec/DMN/20160719/testcase}"
XSI = "{http://www.w3.org/2001/XMLSchema-instance}"
_NIL = f"{XSI}nil"
_TYPE = f"{XSI}type"


@dataclass
class Outcome:
    case: str
    passed: bool
    results: int = 0
    results_passed: int = 0
    cause: str = ""


@dataclass
class Model:
    """What the runner needs from a model besides the engine: the typeRef of each input
    data, and the item definitions by name (their components), to read untyped values."""

    inputs: dict[str, str] = field(default_factory=dict)
    items: dict[str, etree._Element] = field(default_factory=dict)


def _local(tag: Any) -> str:
    return str(tag).rsplit("}", 1)[-1]


def _type_name(ref: str | None) -> str:
    ref = (ref or "").strip()
    return ref.rsplit(":", 1)[-1] if ref.count(":") == 1 and "." not in ref else ref


def read_model(paths: list[Path]) -> Model:
    model = Model()
    for path in paths:
        root = etree.parse(str(path)).getroot()
        for element in root.iter():
            kind = _local(element.tag)
            if kind == "inputData":
                variable = next((c for c in element if _local(c.tag) == "variable"), None)
                ref = variable.get("typeRef") if variable is not None else None
                model.inputs[element.get("name", "")] = _type_name(ref)
            elif kind == "itemDefinition" and _local(element.getparent().tag) == "definitions":
                model.items[element.get("name", "")] = element
    return model


_BUILT_IN = {
    "number",
    "string",
    "boolean",
    "date",
    "time",
    "dateTime",
    "date and time",
    "dayTimeDuration",
    "days and time duration",
    "yearMonthDuration",
    "years and months duration",
    "duration",
    "context",
    "Any",
}


def _item_type(model: Model, name: str) -> tuple[str, dict[str, str], str | None]:
    """(base type, component types, the item type when a collection) of a type name,
    through item definitions."""
    seen = 0
    while name not in _BUILT_IN and name in model.items and seen < 20:
        seen += 1
        item = model.items[name]
        components = [c for c in item if _local(c.tag) == "itemComponent"]
        if item.get("isCollection") == "true":
            model.items[f"{name}[item]"] = _as_item(item)
            return "list", {}, f"{name}[item]"
        if components:
            types = {}
            for c in components:
                ref = next((x for x in c if _local(x.tag) == "typeRef"), None)
                component = c.get("name", "")
                types[component] = _type_name(ref.text if ref is not None else "")
                if not types[component]:  # an anonymous type of its own
                    types[component] = f"{name}.{component}"
                    model.items[types[component]] = c
            return "context", types, None
        ref = next((x for x in item if _local(x.tag) == "typeRef"), None)
        name = _type_name(ref.text if ref is not None else "")
    return name, {}, None


def _as_item(item: etree._Element) -> etree._Element:
    """A collection's item definition without its collection mark: its items' type."""
    copy = etree.fromstring(etree.tostring(item))
    copy.attrib.pop("isCollection", None)
    return copy


def _scalar(raw: str, xsd: str | None, hint: str) -> Any:
    """A test file's value: by its xsi:type, else by the type it goes to (`hint`)."""
    kind = (xsd or "").rsplit(":", 1)[-1] or hint
    try:
        if kind in ("decimal", "double", "integer", "int", "long", "float", "number"):
            return Decimal(raw.strip())
        if kind == "boolean":
            return raw.strip() == "true"
        if kind == "date":
            return parse_date(raw.strip())
        if kind in ("dateTime", "date and time"):
            return parse_date_time(raw.strip())
        if kind == "time":
            return parse_time(raw.strip())
        if kind in (
            "duration",
            "dayTimeDuration",
            "yearMonthDuration",
            "days and time duration",
            "years and months duration",
        ):
            return parse_duration(raw.strip())
    except Exception:  # what does not read as its type is given as written
        return raw
    return raw


def read_value(node: etree._Element, model: Model, type_name: str) -> Any:
    """The value a `valueType` element holds (value, component*, list), read by type."""
    children = [c for c in node if isinstance(c.tag, str)]
    base, components, item_type = _item_type(model, type_name)
    for child in children:
        kind = _local(child.tag)
        if kind == "value":
            if child.get(_NIL) == "true" or (not child.text and child.get(_TYPE) is None):
                return None  # `<value/>`: the older files' null
            return _scalar(child.text or "", child.get(_TYPE), base)
        if kind == "list":
            if child.get(_NIL) == "true":
                return None
            of = item_type or "Any"
            return [read_value(i, model, of) for i in child if _local(i.tag) == "item"]
    found = [c for c in children if _local(c.tag) == "component"]
    if found:
        return {
            c.get("name", ""): read_value(c, model, components.get(c.get("name", ""), "Any"))
            for c in found
        }
    if node.get(_NIL) == "true":
        return None
    return None


def _number(value: Any) -> Decimal | None:
    """A number, or the untyped text of one (the oldest test files give no xsi:type)."""
    if isinstance(value, Decimal):
        return value
    if isinstance(value, str):
        try:
            return Decimal(value)
        except ArithmeticError:
            return None
    return None


def same(computed: Any, expected: Any, node: etree._Element | None = None) -> bool:
    """The computed FEEL value is the expected one."""
    if expected is None or computed is None:
        return expected is None and computed is None
    if isinstance(expected, list):
        return (
            isinstance(computed, list)
            and len(computed) == len(expected)
            and all(same(c, e) for c, e in zip(computed, expected, strict=True))
        )
    if isinstance(expected, dict):
        return (
            isinstance(computed, dict)
            and set(computed) == set(expected)
            and all(same(computed[k], v) for k, v in expected.items())
        )
    if isinstance(expected, str) and not isinstance(computed, str):
        # an untyped expected value: read as the computed value's kind
        if isinstance(computed, bool):
            return expected.strip() == ("true" if computed else "false")
        if isinstance(computed, Decimal):
            try:
                return _numbers_agree(computed, Decimal(expected.strip()))
            except InvalidOperation:
                return False
        return text(computed).strip('"') == expected.strip()
    if isinstance(expected, Decimal) and isinstance(computed, Decimal):
        return expected == computed
    if isinstance(expected, bool) or isinstance(computed, bool):
        return expected is computed
    result = equal(computed, expected)
    return bool(result)


def _expected(result: etree._Element, model: Model) -> tuple[Any, bool, bool]:
    """(expected value, error expected, whether it is only what some engine `computed`: the
    oldest test files give double-precision results there, not expectations)."""
    error = result.get("errorResult") == "true"
    holder = next((c for c in result if _local(c.tag) == "expected"), None)
    computed = holder is None
    if holder is None:
        holder = next((c for c in result if _local(c.tag) == "computed"), None)
    if holder is None:
        return None, error, computed
    return read_value(holder, model, "Any"), error, computed


def _numbers_agree(computed: Decimal, expected: Decimal) -> bool:
    """An untyped expected number: exact, or, when written as a double prints (twelve
    significant digits or more, as the older test files were made), the computed decimal
    rounded to as many places."""
    if computed == expected:
        return True
    digits = len(expected.as_tuple().digits)
    exponent = expected.as_tuple().exponent
    if digits < 12 or not isinstance(exponent, int) or exponent >= 0:
        return False
    return computed.quantize(Decimal(1).scaleb(exponent)) == expected


def _double_close(computed: Any, expected: Any, tolerance: str = "1e-15") -> bool:
    if isinstance(computed, Decimal) and isinstance(expected, Decimal):
        if expected == 0:
            return computed == 0
        return abs((computed - expected) / expected) < Decimal(tolerance)
    return False


def _with_imports(main: Path, models: list[Path]) -> list[Path]:
    """The model under test and the models of its folder it imports, however deep: other
    models beside it (older versions, other tests' models) are left out."""
    namespaces: dict[str, Path] = {}
    imports: dict[Path, list[str]] = {}
    for model in models:
        try:
            root = etree.parse(str(model)).getroot()
        except etree.XMLSyntaxError:
            continue
        namespaces.setdefault(root.get("namespace") or "", model)
        imports[model] = [i.get("namespace") or "" for i in root if _local(i.tag) == "import"]
    chosen, todo = [main], list(imports.get(main, []))
    while todo:
        found = namespaces.get(todo.pop())
        if found is not None and found not in chosen:
            chosen.append(found)
            todo += imports.get(found, [])
    return chosen


def run_file(test_file: Path, shown: bool) -> list[Outcome]:
    try:
        root = etree.parse(str(test_file)).getroot()
    except etree.XMLSyntaxError as error:  # a test file the runner cannot read counts as one
        return [Outcome(f"{test_file.parent.name}/{test_file.name}", False, 1, 0, str(error))]
    folder = test_file.parent
    model_name = (root.findtext(f"{TC}modelName") or "").strip()
    models = sorted(folder.glob("**/*.dmn"))
    main = folder / model_name if model_name else None
    outcomes: list[Outcome] = []
    try:
        # older test files name the model by its name, not its file: then every model
        ordered = _with_imports(main, models) if main is not None and main.exists() else models
        decisions = load(*ordered)
        model = read_model(ordered)
        load_error = ""
    except (BpmnEngineError, etree.XMLSyntaxError, OSError) as error:
        decisions, model, load_error = None, Model(), str(error).splitlines()[0]
    for case in root.iter(f"{TC}testCase"):
        name = f"{test_file.parent.name}/{case.get('id', '?')}"
        results = [r for r in case if _local(r.tag) == "resultNode"]
        if decisions is None:
            outcomes.append(Outcome(name, False, len(results), 0, f"load: {load_error}"))
            continue
        inputs = {
            node.get("name", ""): read_value(
                node, model, model.inputs.get(node.get("name", ""), "Any")
            )
            for node in case
            if _local(node.tag) == "inputNode"
        }
        kind = case.get("type", "decision")
        passed = 0
        causes: list[str] = []
        for result in results:
            expected, error_expected, only_computed = _expected(result, model)
            target = result.get("name", "")
            if kind == "decisionService":
                target = case.get("invocableName") or target
            elif kind == "bkm":
                causes.append("bkm invocation by the runner: not supported")
                continue
            try:
                found = decisions.evaluate(target, inputs)
            except BpmnEngineError as error:
                causes.append(f"{target}: {str(error).splitlines()[0]}")
                continue
            value = found.value
            if (
                kind == "decisionService"
                and isinstance(value, dict)
                and result.get("name") in value
            ):
                value = value[result.get("name")] if result.get("name") != target else value
            # a double computed through `**` and division is off in its last digits
            tolerance = "1e-12" if only_computed else "1e-15"
            ok = same(value, expected) or _double_close(value, _number(expected), tolerance)
            if error_expected and expected is None:
                ok = value is None
            if ok:
                passed += 1
            else:
                why = found.error or ""
                causes.append(
                    f"{target}: expected {_shown(expected)}, got {_shown(value)}"
                    + (f" ({why})" if why else "")
                )
        outcomes.append(
            Outcome(name, passed == len(results), len(results), passed, "; ".join(causes))
        )
    return outcomes


def _mismatch(cause: str) -> bool:
    """A failure that says the copy is inconsistent, not how the engine evaluates: the test
    file asks for a decision the model does not have, or the model is not DMN at all."""
    return ": no decision '" in cause or "not a DMN file" in cause or "no DMN file given" in cause


def _shown(value: Any) -> str:
    try:
        shown = text(value)
    except Exception:  # a runner's message: any value is shown somehow
        shown = repr(value)
    return shown if len(shown) < 120 else shown[:117] + "..."


_CAUSE_SHAPE = re.compile(r"'[^']*'|\"[^\"]*\"|\d+(\.\d+)?")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("test_cases", help="the TCK's TestCases folder")
    parser.add_argument("--level", action="append", choices=["2", "3"])
    parser.add_argument("--only", help="only test directories whose name contains this")
    parser.add_argument("--show", type=int, default=0, help="failing cases listed")
    parser.add_argument("--json", action="store_true", help="one line per test case")
    args = parser.parse_args()
    root = Path(args.test_cases)
    started = time.perf_counter()
    for level in args.level or ["2", "3"]:
        folder = root / f"compliance-level-{level}"
        if not folder.is_dir():
            continue
        outcomes: list[Outcome] = []
        for test_file in sorted(folder.glob("*/*test*.xml")):
            if args.only and args.only not in test_file.parent.name:
                continue
            outcomes += run_file(test_file, args.show > 0)
        if args.json:
            for o in outcomes:
                print(json.dumps(o.__dict__))
            continue
        cases = len(outcomes)
        passed = sum(o.passed for o in outcomes)
        results = sum(o.results for o in outcomes)
        results_passed = sum(o.results_passed for o in outcomes)
        share = 100 * passed / cases if cases else 0.0
        print(
            f"compliance level {level}: {passed}/{cases} test cases ({share:.1f} %), "
            f"{results_passed}/{results} results, "
            f"{len({o.case.split('/')[0] for o in outcomes})} test directories"
        )
        mismatched = [o for o in outcomes if not o.passed and _mismatch(o.cause)]
        if mismatched:
            usable = cases - len(mismatched)
            share = 100 * passed / usable if usable else 0.0
            print(
                f"  of which {len(mismatched)} fail because the test file and its model do not "
                f"belong together (a decision or input the model lacks, a model that is no "
                f"DMN): {passed}/{usable} ({share:.1f} %) of the others"
            )
        by_dir = Counter(o.case.split("/")[0] for o in outcomes if not o.passed)
        for directory, failed in by_dir.most_common(args.show or 0):
            print(f"  {failed:5d} failing  {directory}")
        if args.show:
            for o in [o for o in outcomes if not o.passed][: args.show]:
                print(f"  ✗ {o.case}: {o.cause[:300]}")
    print(f"({time.perf_counter() - started:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
