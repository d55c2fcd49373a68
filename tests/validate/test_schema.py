"""Rule `schema`: XSD validation against the OMG schemas, with line, column and element."""

from __future__ import annotations

import filecmp
from pathlib import Path

from bpmn_engine.validate import validate
from bpmn_engine.validate.findings import Finding, Severity
from bpmn_engine.validate.schema import SCHEMA_FOLDERS, bpmn_schema, readable
from tests.conftest import ROOT

HEAD = (
    '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'id="Defs" targetNamespace="http://example.com/schema">\n'
)


def write(tmp_path: Path, body: str, name: str = "diagram.bpmn") -> Path:
    path = tmp_path / name
    path.write_text(f"{HEAD}{body}\n</bpmn:definitions>\n", encoding="utf-8")
    return path


def schema_findings(path: Path) -> list[Finding]:
    return [f for f in validate(path).findings if f.rule == "schema"]


def test_a_valid_diagram_has_no_schema_finding(tmp_path: Path) -> None:
    path = write(tmp_path, '<bpmn:process id="P"><bpmn:task id="T" name="Work"/></bpmn:process>')
    assert schema_findings(path) == []


def test_an_unknown_attribute_is_reported_at_its_element_start(tmp_path: Path) -> None:
    # given: the start tag spans two lines; libxml2 reports the line where it ends
    body = '<bpmn:process id="P">\n  <bpmn:task id="T"\n     colour="red"/>\n</bpmn:process>'
    # when
    [finding] = schema_findings(write(tmp_path, body))
    # then
    assert (finding.line, finding.column, finding.element) == (3, 3, "T")
    assert finding.severity == Severity.ERROR
    assert "attribute 'colour' is not allowed" in finding.message
    assert "bpmn:task" in finding.message  # the namespace URI is shown as its usual prefix
    assert finding.hint == "docs/rules.md#schema"


def test_a_misplaced_element_names_its_nearest_parent_with_an_id(tmp_path: Path) -> None:
    body = '<bpmn:process id="P">\n  <bpmn:sequenceFlowz/>\n</bpmn:process>'
    [finding] = schema_findings(write(tmp_path, body))
    assert (finding.line, finding.column, finding.element) == (3, 3, "P")
    assert "not expected" in finding.message


def test_missing_target_namespace_is_a_schema_error(tmp_path: Path) -> None:
    path = tmp_path / "no-ns.bpmn"
    path.write_text(
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="D">'
        '<process id="P"/></definitions>',
        encoding="utf-8",
    )
    [finding] = schema_findings(path)
    assert "targetNamespace" in finding.message


def test_long_expected_lists_are_cut_short() -> None:
    names = ", ".join(f"{{http://www.omg.org/spec/BPMN/20100524/MODEL}}e{i}" for i in range(9))
    text = readable(f"Element 'x': This element is not expected. Expected is one of ( {names} ).")
    assert text.endswith("(bpmn:e0, bpmn:e1, bpmn:e2, bpmn:e3, ... 5 more).")


def test_the_schema_ships_in_the_package_and_matches_the_repository_copy() -> None:
    packaged, repository = SCHEMA_FOLDERS[0], ROOT / "schemas"
    names = ["BPMN20.xsd", "Semantic.xsd", "BPMNDI.xsd", "DC.xsd", "DI.xsd"]
    assert packaged.parent.name == "validate"
    match, mismatch, errors = filecmp.cmpfiles(packaged, repository, names, shallow=False)
    assert (sorted(match), mismatch, errors) == (sorted(names), [], [])


def test_the_schema_is_compiled_once() -> None:
    assert bpmn_schema() is bpmn_schema()
