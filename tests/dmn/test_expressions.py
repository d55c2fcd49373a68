# ruff: noqa: E501  (DMN XML fixtures read best one element per line)
"""Boxed expressions other than tables, item definitions, and the Python value mapping."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from bpmn_engine import dmn
from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions.feel import compile_feel
from tests.dmn.tables import decision_file, unparsed


def literal(text: str, type_ref: str = "") -> str:
    typed = f' typeRef="{type_ref}"' if type_ref else ""
    return f'<variable name="Decision"{typed}/><literalExpression><text>{text}</text></literalExpression>'


def test_numbers_are_decimals_and_ints_and_floats_are_accepted(tmp_path: Path) -> None:
    decisions = dmn.load(decision_file(tmp_path, literal("a + b")))
    result = decisions.evaluate("Decision", {"a": 0.1, "b": 0.2})
    assert result.value == Decimal("0.3") and isinstance(result.value, Decimal)
    assert decisions.evaluate("Decision", {"a": 1, "b": Decimal("2.5")}).value == Decimal("3.5")


def test_temporal_values_map_to_datetime_types(tmp_path: Path) -> None:
    cases = {
        'date("2026-12-01") + duration("P1D")': dt.date(2026, 12, 2),
        'time("10:30:00")': dt.time(10, 30),
        'date and time("2026-12-01T10:00:00")': dt.datetime(2026, 12, 1, 10),
        'duration("PT90M")': dt.timedelta(minutes=90),
        'duration("P1Y2M")': dmn.YearsMonths(14),
        "[1, 2]": [Decimal(1), Decimal(2)],
        '{a: "x"}': {"a": "x"},
        "null": None,
    }
    for text, expected in cases.items():
        value = dmn.load(decision_file(tmp_path, literal(text))).evaluate("Decision", {}).value
        assert value == expected, text


def test_a_typed_date_input_reads_its_text(tmp_path: Path) -> None:
    extra = '<inputData id="d_in" name="Due"><variable name="Due" typeRef="date"/></inputData>'
    logic = '<informationRequirement><requiredInput href="#d_in"/></informationRequirement>'
    logic += literal('Due + duration("P1M")')
    decisions = dmn.load(decision_file(tmp_path, logic, extra=extra))
    assert decisions.evaluate("Decision", {"Due": "2026-01-31"}).value == dt.date(2026, 2, 28)
    wrong = decisions.evaluate("Decision", {"Due": "soon"})
    assert wrong.value is None and any("input 'Due'" in w for w in wrong.warnings)


def test_a_result_of_the_wrong_type_is_null_with_a_warning(tmp_path: Path) -> None:
    result = dmn.load(decision_file(tmp_path, literal('"ten"', "number"))).evaluate("Decision", {})
    assert result.value is None
    assert any("'ten' is not a number" in w for w in result.warnings)


def test_feel_errors_are_null_and_a_warning(tmp_path: Path) -> None:
    result = dmn.load(decision_file(tmp_path, literal('"a" + 1'))).evaluate("Decision", {})
    assert result.value is None and result.ok
    assert any("FEEL" in w for w in result.warnings)


def test_context_list_relation_and_conditional(tmp_path: Path) -> None:
    logic = """
    <context>
      <contextEntry><variable name="Base"/><literalExpression><text>10</text></literalExpression></contextEntry>
      <contextEntry><variable name="Rates"/><list>
        <literalExpression><text>Base * 2</text></literalExpression>
        <literalExpression><text>Base * 3</text></literalExpression></list></contextEntry>
      <contextEntry><variable name="Table"/><relation>
        <column name="Name"/><column name="Price"/>
        <row><literalExpression><text>"tea"</text></literalExpression><literalExpression><text>2</text></literalExpression></row>
        <row><literalExpression><text>"cake"</text></literalExpression><literalExpression><text>Base - 6</text></literalExpression></row>
      </relation></contextEntry>
      <contextEntry><variable name="Size"/><conditional>
        <if><literalExpression><text>sum(Rates) &gt; 40</text></literalExpression></if>
        <then><literalExpression><text>"big"</text></literalExpression></then>
        <else><literalExpression><text>"small"</text></literalExpression></else>
      </conditional></contextEntry>
    </context>"""
    value = dmn.load(decision_file(tmp_path, logic)).evaluate("Decision", {}).value
    assert value == {
        "Base": Decimal(10),
        "Rates": [Decimal(20), Decimal(30)],
        "Table": [{"Name": "tea", "Price": Decimal(2)}, {"Name": "cake", "Price": Decimal(4)}],
        "Size": "big",
    }


def test_a_recursive_bkm_and_a_runaway_one(tmp_path: Path) -> None:
    bkm = """
    <businessKnowledgeModel id="fact" name="Factorial">
      <knowledgeRequirement><requiredKnowledge href="#fact"/></knowledgeRequirement>
      <encapsulatedLogic><formalParameter name="n"/>
        <literalExpression><text>if n &lt;= 1 then 1 else n * Factorial(n - 1)</text></literalExpression>
      </encapsulatedLogic>
    </businessKnowledgeModel>"""
    logic = '<knowledgeRequirement><requiredKnowledge href="#fact"/></knowledgeRequirement>'
    logic += literal("Factorial(x)")
    decisions = dmn.load(decision_file(tmp_path, logic, extra=bkm))
    assert decisions.evaluate("Decision", {"x": 10}).value == Decimal(3628800)
    runaway = decisions.evaluate("Decision", {"x": 10**6})
    assert runaway.value is None and "nested deeper" in runaway.error


def test_a_function_definition_and_an_invocation_with_a_missing_argument(tmp_path: Path) -> None:
    bkm = """
    <businessKnowledgeModel id="greet" name="Greeting">
      <encapsulatedLogic><formalParameter name="who" typeRef="string"/><formalParameter name="title"/>
        <literalExpression><text>"Hello " + (if title = null then "" else title + " ") + who</text></literalExpression>
      </encapsulatedLogic>
    </businessKnowledgeModel>"""
    logic = """<knowledgeRequirement><requiredKnowledge href="#greet"/></knowledgeRequirement>
    <invocation><literalExpression><text>Greeting</text></literalExpression>
      <binding><parameter name="who"/><literalExpression><text>name</text></literalExpression></binding>
    </invocation>"""
    decisions = dmn.load(decision_file(tmp_path, logic, extra=bkm))
    assert decisions.evaluate("Decision", {"name": "Ada"}).value == "Hello Ada"


def test_required_decisions_are_evaluated_once_and_named(tmp_path: Path) -> None:
    extra = """
    <decision id="base" name="Base price"><literalExpression><text>price * 2</text></literalExpression></decision>
    <decision id="tax" name="Tax-rate"><literalExpression><text>0.25</text></literalExpression></decision>"""
    logic = """<informationRequirement><requiredDecision href="#base"/></informationRequirement>
    <informationRequirement><requiredDecision href="#tax"/></informationRequirement>"""
    logic += literal("Base price * (1 + Tax-rate)")
    decisions = dmn.load(decision_file(tmp_path, logic, extra=extra))
    assert decisions.evaluate("Decision", {"price": 4}).value == Decimal(10)


def test_a_failing_required_decision_is_null_and_reported(tmp_path: Path) -> None:
    extra = """<decision id="boom" name="Boom"><decisionTable hitPolicy="UNIQUE">
      <input><inputExpression><text>1</text></inputExpression></input><output name="o"/>
      <rule><inputEntry><text>-</text></inputEntry><outputEntry><text>1</text></outputEntry></rule>
      <rule><inputEntry><text>-</text></inputEntry><outputEntry><text>2</text></outputEntry></rule>
    </decisionTable></decision>"""
    logic = '<informationRequirement><requiredDecision href="#boom"/></informationRequirement>'
    logic += literal('if Boom = null then "no boom" else Boom')
    result = dmn.load(decision_file(tmp_path, logic, extra=extra)).evaluate("Decision", {})
    assert result.value == "no boom" and result.ok
    assert any("decision 'Boom'" in w and "UNIQUE" in w for w in result.warnings)


def test_collection_item_definitions(tmp_path: Path) -> None:
    extra = """<itemDefinition name="tScores" isCollection="true"><typeRef>number</typeRef></itemDefinition>
    <inputData id="s_in" name="Scores"><variable name="Scores" typeRef="tScores"/></inputData>"""
    logic = '<informationRequirement><requiredInput href="#s_in"/></informationRequirement>'
    logic += literal("sum(Scores)")
    decisions = dmn.load(decision_file(tmp_path, logic, extra=extra))
    assert decisions.evaluate("Decision", {"Scores": [1, 2, 3]}).value == Decimal(6)
    assert decisions.evaluate("Decision", {"Scores": 5}).value == Decimal(5)  # a list of one
    bad = decisions.evaluate("Decision", {"Scores": [1, "two"]})
    assert bad.value is None and any("'two' is not a number" in w for w in bad.warnings)


def test_dmn_1_1_camunda_style_file(tmp_path: Path) -> None:
    logic = """<decisionTable id="t" hitPolicy="FIRST">
      <input id="i1" label="Amount" camunda:inputVariable="amount">
        <inputExpression typeRef="integer"><text>order.amount</text></inputExpression></input>
      <output id="o1" name="approver" typeRef="string"/>
      <rule id="r1"><inputEntry><text>amount &gt; 1000</text></inputEntry><outputEntry><text>"manager"</text></outputEntry></rule>
      <rule id="r2"><inputEntry><text></text></inputEntry><outputEntry><text>"clerk"</text></outputEntry></rule>
    </decisionTable>"""
    decisions = dmn.load(decision_file(tmp_path, logic, version="1.1"))
    assert decisions.evaluate("Decision", {"order": {"amount": 5000}}).value == "manager"
    assert decisions.evaluate("Decision", {"order": {"amount": 5}}).value == "clerk"


def test_dmn_1_4_filter_for_some_and_every(tmp_path: Path) -> None:
    logic = """
    <context>
      <contextEntry><variable name="Big"/><filter>
        <in><literalExpression><text>orders</text></literalExpression></in>
        <match><literalExpression><text>amount &gt; 100</text></literalExpression></match>
      </filter></contextEntry>
      <contextEntry><variable name="Doubled"/><for iteratorVariable="o">
        <in><literalExpression><text>orders</text></literalExpression></in>
        <return><literalExpression><text>o.amount * 2</text></literalExpression></return>
      </for></contextEntry>
      <contextEntry><variable name="Any paid"/><some iteratorVariable="o">
        <in><literalExpression><text>orders</text></literalExpression></in>
        <satisfies><literalExpression><text>o.paid</text></literalExpression></satisfies>
      </some></contextEntry>
      <contextEntry><variable name="All paid"/><every iteratorVariable="o">
        <in><literalExpression><text>orders</text></literalExpression></in>
        <satisfies><literalExpression><text>o.paid</text></literalExpression></satisfies>
      </every></contextEntry>
    </context>"""
    orders = [{"amount": 50, "paid": True}, {"amount": 150, "paid": False}]
    value = (
        dmn.load(decision_file(tmp_path, logic, version="1.4"))
        .evaluate("Decision", {"orders": orders})
        .value
    )
    assert value == {
        "Big": [{"amount": Decimal(150), "paid": False}],
        "Doubled": [Decimal(100), Decimal(300)],
        "Any paid": True,
        "All paid": False,
    }


def test_an_unsupported_boxed_expression_fails_its_decision_only(tmp_path: Path) -> None:
    logic = '<context><contextEntry><variable name="x"/><teleport/></contextEntry></context>'
    path = decision_file(tmp_path, logic)
    assert "<teleport> is not a supported expression" in unparsed(path)
    result = dmn.load(path).evaluate("Decision")
    assert result.value is None and "<teleport> is not a supported expression" in result.error


def test_a_result_sharing_its_parts_is_refused_not_written_out_for_ever(tmp_path: Path) -> None:
    """Forty levels of `[l, l]` are small in memory; as JSON they are 2**40 leaves, and
    `bpmn decide` hung writing them, past every budget."""
    entries = ", ".join(f"l{i}: [l{i - 1}, l{i - 1}]" for i in range(1, 41))
    decisions = dmn.load(decision_file(tmp_path, literal("{l0: [1], " + entries + "}.l40")))
    result = decisions.evaluate("Decision", {})
    assert result.value is None
    assert "more than 1,000,000 items" in result.error
    shared = dmn.load(decision_file(tmp_path, literal("{l0: [1], l1: [l0, l0]}.l1"), name="s.dmn"))
    assert shared.evaluate("Decision", {}).to_json()["value"] == [[1], [1]]


def test_an_external_function_fails_its_decision_only_saying_why(tmp_path: Path) -> None:
    """DMN 1.5 `function(...) external {java: ...}`: a JVM's, refused per element."""
    text = (
        'function(a, b) external {java: {class: "java.lang.Math", '
        'method signature: "max(double, double)"}}'
    )
    logic = f"<literalExpression><text>{escape(text)}</text></literalExpression>"
    extra = (
        '<decision id="other" name="Other"><literalExpression><text>1 + 1</text>'
        "</literalExpression></decision>"
    )
    path = decision_file(tmp_path, logic, extra=extra)
    assert "external functions (Java or PMML) are not supported" in unparsed(path)
    assert dmn.load(path).evaluate("Other").value == Decimal(2)


def test_a_decision_without_an_id_is_known_by_its_name(tmp_path: Path) -> None:
    """The schema makes the id optional; such a decision cannot be referenced by href, but
    it evaluates (the whole model was refused before)."""
    path = tmp_path / "no-id.dmn"
    path.write_text(
        '<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="defs" '
        'name="n" namespace="http://example.com/no-id">'
        '<decision name="Answer"><variable name="Answer"/>'
        "<literalExpression><text>40 + 2</text></literalExpression></decision>"
        "</definitions>"
    )
    assert dmn.load(path).evaluate("Answer").value == Decimal(42)


FOO_BAR = (
    '<itemDefinition id="tFooBar" name="tFooBar"><typeRef>string</typeRef>'
    '<allowedValues><text>"foo", "bar"</text></allowedValues></itemDefinition>'
    '<inputData id="given" name="given"><variable name="given"/></inputData>'
)
NEEDS_GIVEN = '<informationRequirement><requiredInput href="#given"/></informationRequirement>'
TYPED_LOGIC = {
    "a decision table's typeRef": (
        '<decisionTable typeRef="tFooBar"><output/><rule>'
        "<outputEntry><text>given</text></outputEntry></rule></decisionTable>"
    ),
    "an output entry's typeRef": (
        '<decisionTable><output name="a"/><output name="b"/><rule>'
        '<outputEntry typeRef="tFooBar"><text>given</text></outputEntry>'
        "<outputEntry><text>given</text></outputEntry></rule></decisionTable>"
    ),
    "a relation column's typeRef": (
        '<relation><column name="a" typeRef="tFooBar"/><row><literalExpression>'
        "<text>given</text></literalExpression></row></relation>"
    ),
    "an invocation parameter's typeRef": (
        "<invocation><literalExpression><text>function(a) a</text></literalExpression>"
        '<binding><parameter name="a" typeRef="tFooBar"/><literalExpression><text>given'
        "</text></literalExpression></binding></invocation>"
    ),
}
TYPED_RESULTS = {  # what each gives for "foo", then for "baz" (which tFooBar does not allow)
    "a decision table's typeRef": ("foo", None),
    "an output entry's typeRef": ({"a": "foo", "b": "foo"}, {"a": None, "b": "baz"}),
    "a relation column's typeRef": ([{"a": "foo"}], [{"a": None}]),
    "an invocation parameter's typeRef": ("foo", None),
}


@pytest.mark.parametrize("where", sorted(TYPED_LOGIC))
def test_a_value_that_does_not_conform_to_a_declared_type_is_null(
    tmp_path: Path, where: str
) -> None:
    """DMN 1.5: every typeRef a boxed expression declares is checked, not only the
    decision's (they passed `"baz"` through)."""
    path = decision_file(tmp_path, NEEDS_GIVEN + TYPED_LOGIC[where], extra=FOO_BAR)
    decisions = dmn.load(path)
    allowed, refused = TYPED_RESULTS[where]
    assert decisions.evaluate("Decision", {"given": "foo"}).value == allowed
    result = decisions.evaluate("Decision", {"given": "baz"})
    assert result.value == refused
    assert any("tFooBar" in w for w in result.warnings)


ITEM_TYPES = (
    '<itemDefinition name="t255"><typeRef>number</typeRef>'
    "<allowedValues><text>[0..255]</text></allowedValues></itemDefinition>"
    '<itemDefinition name="tNumbers" isCollection="true"><typeRef>number</typeRef>'
    "</itemDefinition>"
    '<itemDefinition name="tPair"><itemComponent name="a"><typeRef>string</typeRef>'
    '</itemComponent><itemComponent name="b"><typeRef>string</typeRef></itemComponent>'
    "</itemDefinition>"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("256 instance of t255", True),  # allowed values are no part of the type
        ('"x" instance of t255', False),
        ("[1, 2, null] instance of tNumbers", True),
        ('[1, "2"] instance of tNumbers', False),
        ("1 instance of tNumbers", False),
        ('{a: "x", b: "y", c: 1} instance of tPair', True),  # more entries are allowed
        ('{a: "x"} instance of tPair', False),
        ('[{a: "x", b: "y"}] instance of list<tPair>', True),
        ('(function(p: tPair) p.a)({a: "x", b: "y"})', "x"),
        ("(function(p: tPair) p.a)(1)", None),  # does not conform: null
        ("(function(n: t255) n)(200)", 200),
        ("(function(n: t255) n)(256)", None),  # bound as a BKM's parameter: allowed values count
        ("(function(ns: list<t255>) ns)([256])", [256]),  # inside a type, structure alone
        ("1 instance of tNothing", None),  # no such type: null, with a warning
    ],
)
def test_an_item_definition_is_a_type_in_feel(tmp_path: Path, text: str, expected: object) -> None:
    """DMN 1.5: FEEL inside a model may name the model's item definitions as types."""
    logic = f"<literalExpression><text>{escape(text)}</text></literalExpression>"
    path = decision_file(tmp_path, logic, extra=ITEM_TYPES)
    assert dmn.load(path).evaluate("Decision").value == expected


def test_an_item_definition_name_is_no_type_outside_a_model() -> None:
    with pytest.raises(ExpressionError, match="unknown type 'tPair'"):
        compile_feel("x instance of tPair")


def test_names_in_other_scripts_are_read_as_written() -> None:
    """`Größe` and `名前` are FEEL names as written (the spec's name characters), so they get
    no stand-in; a hyphen still needs one."""
    from bpmn_engine.dmn.names import readable

    assert readable("Größe der Bestellung") and readable("名前") and readable("🐎")
    assert not readable("Pre-bureau risk")


def test_the_grammar_and_the_dmn_names_read_the_same_letters() -> None:
    from bpmn_engine.dmn import names

    grammar = (Path(names.__file__).parent.parent / "expressions/feel/feel.lark").read_text()
    [rule] = [line for line in grammar.splitlines() if line.startswith("NAME:")]
    assert rule.count(f"[{names._START}][{names._PART}]*") == 2


def test_an_invocation_binds_a_built_ins_parameters_by_either_name(tmp_path: Path) -> None:
    """A boxed invocation of a built-in: `match` is `list replace`'s second name for its
    position parameter, and an optional parameter left out stays out."""
    replace = (
        "<invocation><literalExpression><text>list replace</text></literalExpression>"
        '<binding><parameter name="list"/><literalExpression><text>[1, 2, 3]</text>'
        "</literalExpression></binding>"
        '<binding><parameter name="match"/><literalExpression><text>function(item, newItem) '
        "item = 2</text></literalExpression></binding>"
        '<binding><parameter name="newItem"/><literalExpression><text>9</text>'
        "</literalExpression></binding></invocation>"
    )
    assert dmn.load(decision_file(tmp_path, replace)).evaluate("Decision").value == [1, 9, 3]
    cut = (
        "<invocation><literalExpression><text>substring</text></literalExpression>"
        '<binding><parameter name="string"/><literalExpression><text>"foobar"</text>'
        '</literalExpression></binding><binding><parameter name="start position"/>'
        "<literalExpression><text>4</text></literalExpression></binding></invocation>"
    )
    assert dmn.load(decision_file(tmp_path, cut, name="c.dmn")).evaluate("Decision").value == "bar"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{a: "x", b: "y"}', {"a": "x", "b": "y"}),
        ('{a: "x", b: "y", c: 1}', {"a": "x", "b": "y", "c": 1}),  # more entries are allowed
        ('{a: "x", b: null}', {"a": "x", "b": None}),
        ('{a: "x"}', None),  # b is missing: it does not conform, as `instance of` says
        ("{a: 1, b: 2}", None),
    ],
)
def test_a_context_conforms_to_a_structure_with_every_component(
    tmp_path: Path, text: str, expected: object
) -> None:
    logic = (
        '<variable name="Decision" typeRef="tPair"/>'
        f"<literalExpression><text>{escape(text)}</text></literalExpression>"
    )
    path = decision_file(tmp_path, logic, extra=ITEM_TYPES)
    assert dmn.load(path).evaluate("Decision").value == expected


def test_a_decision_service_typed_as_a_function_item_returns_its_output_type(
    tmp_path: Path,
) -> None:
    """DMN 1.5: a service's variable names a function item type; what the service returns
    conforms to its `outputTypeRef`, called by name or invoked from FEEL."""
    services = "".join(
        f'<decisionService id="{name}" name="{name}"><variable name="{name}" typeRef="{t}"/>'
        '<outputDecision href="#inner"/><inputData href="#given"/></decisionService>'
        for name, t in (("asText", "tGivesText"), ("asNumber", "tGivesNumber"))
    )
    extra = (
        FOO_BAR + '<itemDefinition name="tGivesText"><functionItem outputTypeRef="string"/>'
        "</itemDefinition>"
        '<itemDefinition name="tGivesNumber"><functionItem outputTypeRef="number"/>'
        "</itemDefinition>"
        '<decision id="inner" name="inner"><variable name="inner"/>'
        + NEEDS_GIVEN
        + "<literalExpression><text>given</text></literalExpression></decision>"
        + services
    )
    logic = (
        '<knowledgeRequirement><requiredKnowledge href="#asNumber"/></knowledgeRequirement>'
        '<literalExpression><text>asNumber("foo")</text></literalExpression>'
    )
    decisions = dmn.load(decision_file(tmp_path, logic, extra=extra))
    assert decisions.evaluate("asText", {"given": "foo"}).value == "foo"
    refused = decisions.evaluate("asNumber", {"given": "foo"})
    assert refused.value is None
    assert any("asNumber" in w and "not a number" in w for w in refused.warnings)
    assert decisions.evaluate("Decision").value is None


def test_a_date_where_a_date_and_time_is_declared_is_midnight_utc(tmp_path: Path) -> None:
    logic = (
        '<variable name="Decision" typeRef="date and time"/>'
        "<literalExpression><text>date(2000, 1, 2)</text></literalExpression>"
    )
    value = dmn.load(decision_file(tmp_path, logic)).evaluate("Decision").value
    assert value == dt.datetime(2000, 1, 2, tzinfo=dt.UTC)
    assert value.utcoffset() == dt.timedelta(0)
