"""Loading DMN files: every version's namespace, and every file that cannot be used refused
with a LoadError naming the file, the line and the element, never a traceback or a hang."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bpmn_engine import LoadError, UsageError, dmn
from tests.dmn.tables import NAMESPACES, decision_file, table_xml, unparsed

FILES = Path(__file__).parent / "files"
SIMPLE = table_xml("UNIQUE", ["x"], ["y"], [(["> 1"], ['"big"']), (["<= 1"], ['"small"'])])


@pytest.mark.parametrize("version", sorted(NAMESPACES))
def test_every_dmn_version_loads(tmp_path: Path, version: str) -> None:
    decisions = dmn.load(decision_file(tmp_path, SIMPLE, version=version))
    assert decisions.evaluate("Decision", {"x": 3}).value == "big"
    assert decisions.evaluate("decision", {"x": 0}).value == "small"  # by id too


def test_malformed_xml_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.dmn"
    path.write_text(
        '<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/">\n<decision>'
    )
    with pytest.raises(LoadError, match=r"bad\.dmn:2: malformed XML"):
        dmn.load(path)


def test_a_file_that_is_not_dmn(tmp_path: Path) -> None:
    path = tmp_path / "p.bpmn"
    path.write_text('<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"/>')
    with pytest.raises(LoadError, match="not a DMN file"):
        dmn.load(path)


def test_unknown_hit_policy_names_the_table(tmp_path: Path) -> None:
    path = decision_file(tmp_path, SIMPLE.replace('"UNIQUE"', '"SOMETIMES"'))
    assert re.search(r"d\.dmn:\d+: table: unknown hit policy 'SOMETIMES'", unparsed(path))


def test_aggregation_needs_collect(tmp_path: Path) -> None:
    path = decision_file(
        tmp_path, SIMPLE.replace('hitPolicy="UNIQUE"', 'hitPolicy="FIRST" aggregation="SUM"')
    )
    assert re.search("needs hit policy COLLECT", unparsed(path))


def test_priority_needs_output_values(tmp_path: Path) -> None:
    path = decision_file(tmp_path, SIMPLE.replace('"UNIQUE"', '"PRIORITY"'))
    assert re.search("PRIORITY needs output values", unparsed(path))


def test_feel_syntax_error_names_the_rule(tmp_path: Path) -> None:
    path = decision_file(tmp_path, SIMPLE.replace("&gt; 1", "&gt; &gt; 1"))
    assert re.search(r"d\.dmn:\d+: rule1: FEEL syntax error", unparsed(path))


def test_feel_syntax_error_in_a_literal_expression(tmp_path: Path) -> None:
    logic = '<literalExpression id="lit"><text>1 +* 2</text></literalExpression>'
    assert re.search(
        r"d\.dmn:\d+: lit: FEEL syntax error", unparsed(decision_file(tmp_path, logic))
    )


def test_other_expression_languages_are_refused(tmp_path: Path) -> None:
    logic = (
        '<literalExpression id="lit" expressionLanguage="javascript">'
        "<text>1 + 2</text></literalExpression>"
    )
    assert re.search("'javascript' is not supported", unparsed(decision_file(tmp_path, logic)))


def test_rule_with_the_wrong_number_of_entries(tmp_path: Path) -> None:
    broken = SIMPLE.replace('<outputEntry><text>"big"</text></outputEntry>', "")
    assert re.search(
        "rule1: the rule has 1 input and 0 output entries",
        unparsed(decision_file(tmp_path, broken)),
    )


def test_a_reference_to_nothing(tmp_path: Path) -> None:
    logic = '<informationRequirement><requiredDecision href="#nowhere"/></informationRequirement>'
    logic += "<literalExpression><text>1</text></literalExpression>"
    extra = '<decision id="other" name="Other"><literalExpression><text>2</text>'
    extra += "</literalExpression></decision>"
    decisions = dmn.load(decision_file(tmp_path, logic, extra=extra))  # the others load
    [failed] = decisions.unparsed()
    assert (
        "decision: requires decision #nowhere, which is not" in f"{failed.where}: {failed.problem}"
    )
    result = decisions.evaluate("Decision")
    assert result.value is None and "requires decision #nowhere" in (result.error or "")
    assert decisions.evaluate("Other").value == 2


def test_a_decision_that_requires_itself(tmp_path: Path) -> None:
    logic = '<informationRequirement><requiredDecision href="#other"/></informationRequirement>'
    logic += "<literalExpression><text>1</text></literalExpression>"
    other = (
        '<decision id="other" name="Other"><informationRequirement>'
        '<requiredDecision href="#decision"/></informationRequirement>'
        "<literalExpression><text>2</text></literalExpression></decision>"
    )
    with pytest.raises(LoadError, match="requires itself"):
        dmn.load(decision_file(tmp_path, logic, extra=other))


def test_an_import_of_a_file_not_given_is_found_beside_the_importer(tmp_path: Path) -> None:
    alone = dmn.load(FILES / "loan-origination.dmn")  # financial.dmn, by its locationURI
    assert sorted(Path(p).name for p in alone.paths) == ["financial.dmn", "loan-origination.dmn"]
    moved = tmp_path / "loan.dmn"
    moved.write_bytes((FILES / "loan-origination.dmn").read_bytes())
    with pytest.raises(LoadError, match=r"loan\.dmn:\d+: loan_origination: imports namespace"):
        dmn.load(moved)


def test_an_import_never_reads_outside_the_importers_folder(tmp_path: Path) -> None:
    source = (FILES / "loan-origination.dmn").read_text()
    (tmp_path / "sub").mkdir()
    (tmp_path / "financial.dmn").write_bytes((FILES / "financial.dmn").read_bytes())
    escaping = tmp_path / "sub" / "loan.dmn"
    escaping.write_text(
        source.replace('locationURI="financial.dmn"', 'locationURI="../financial.dmn"')
    )
    with pytest.raises(LoadError, match="imports namespace"):
        dmn.load(escaping)


def test_an_unknown_type(tmp_path: Path) -> None:
    logic = '<variable name="Decision" typeRef="tNothing"/>'
    logic += "<literalExpression><text>1</text></literalExpression>"
    decisions = dmn.load(decision_file(tmp_path, logic))
    assert "unknown type 'tNothing'" in decisions.unparsed()[0].problem
    assert "unknown type 'tNothing'" in (decisions.evaluate("Decision").error or "")


def test_an_item_definition_of_an_unknown_type_fails_what_uses_it(tmp_path: Path) -> None:
    """Old exports say `feel:null`: the decisions typed by it fail, the rest evaluate."""
    items = '<itemDefinition id="t" name="tResult"><typeRef>feel:null</typeRef></itemDefinition>'
    logic = '<variable name="Decision" typeRef="tResult"/>'
    logic += "<literalExpression><text>1</text></literalExpression>"
    other = '<decision id="other" name="Other"><variable name="Other" typeRef="number"/>'
    other += "<literalExpression><text>2</text></literalExpression></decision>"
    decisions = dmn.load(decision_file(tmp_path, logic, extra=items + other))
    assert "type 'tResult' is defined by an unknown type 'feel:null'" in (
        decisions.evaluate("Decision").error or ""
    )
    assert decisions.evaluate("Other").value == 2


def test_an_unknown_decision_lists_the_known_ones(tmp_path: Path) -> None:
    decisions = dmn.load(decision_file(tmp_path, SIMPLE))
    with pytest.raises(UsageError, match=r"no decision 'Nope' in .*\(decisions: 'Decision'\)"):
        decisions.evaluate("Nope", {})


def test_a_dtd_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "laughs.dmn"
    path.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
        '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>\n'
        f'<definitions xmlns="{NAMESPACES["1.3"]}">&lol2;</definitions>'
    )
    with pytest.raises(LoadError, match=r"laughs\.dmn:2: document type declarations"):
        dmn.load(path)


def test_deep_nesting_is_refused_not_a_crash(tmp_path: Path) -> None:
    depth = 100_000
    logic = "<context>" * depth + "</context>" * depth
    path = decision_file(tmp_path, logic)
    with pytest.raises(LoadError, match="malformed XML"):
        dmn.load(path)


def test_nested_boxed_expressions_within_the_parser_limit_load(tmp_path: Path) -> None:
    depth = 100
    entry = "<context><contextEntry>"
    logic = entry * depth + "<literalExpression><text>7</text></literalExpression>"
    logic += "</contextEntry></context>" * depth
    assert dmn.load(decision_file(tmp_path, logic)).evaluate("Decision", {}).value == 7


def test_a_directory_is_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="not a regular file"):
        dmn.load(tmp_path)


def test_too_many_names_feel_cannot_read_are_refused(tmp_path: Path) -> None:
    extra = "".join(
        f'<inputData id="in{i}" name="in-{i}"><variable name="in-{i}"/></inputData>'
        for i in range(1001)
    )
    logic = "<literalExpression><text>in-1 + 1</text></literalExpression>"
    with pytest.raises(LoadError, match="more than 1,000 names"):
        dmn.load(decision_file(tmp_path, logic, extra=extra))
    fewer = extra.split('<inputData id="in1000"')[0]
    assert (
        dmn.load(decision_file(tmp_path, logic, extra=fewer))
        .evaluate("Decision", {"in-1": 2})
        .value
        == 3
    )


def test_two_files_with_one_id_in_one_namespace_are_refused(tmp_path: Path) -> None:
    first = decision_file(tmp_path, SIMPLE, name="a.dmn")
    second = decision_file(tmp_path, SIMPLE, name="b.dmn")
    with pytest.raises(LoadError, match=r"b\.dmn:\d+: decision: the id is defined in .*a\.dmn too"):
        dmn.load(first, second)


def test_a_decision_that_does_not_compile_and_requires_nothing_is_listed_once(
    tmp_path: Path,
) -> None:
    logic = '<informationRequirement><requiredDecision href="#nowhere"/></informationRequirement>'
    logic += "<literalExpression><text>1 +</text></literalExpression>"
    [failed] = dmn.load(decision_file(tmp_path, logic)).unparsed()
    assert "FEEL" in failed.problem  # what it says first: its own text
