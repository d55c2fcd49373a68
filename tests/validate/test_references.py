"""Rule `references`: unique ids, references that resolve (across files), flows in one scope."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine.validate import validate
from bpmn_engine.validate.findings import Finding
from tests.conftest import MIWG

HEAD = (
    '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:tns="http://example.com/refs" xmlns:vendor="http://example.com/vendor" '
    'id="Defs_{name}" targetNamespace="http://example.com/refs">\n'
)
FLOW = (
    '<bpmn:startEvent id="Start"/><bpmn:task id="Work"/><bpmn:endEvent id="End"/>'
    '<bpmn:sequenceFlow id="F1" sourceRef="Start" targetRef="Work"/>'
    '<bpmn:sequenceFlow id="F2" sourceRef="Work" targetRef="End"/>'
)


def write(folder: Path, body: str, name: str = "diagram.bpmn") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{HEAD.format(name=path.stem)}{body}\n</bpmn:definitions>\n", "utf-8")
    return path


def reference_findings(*paths: Path) -> list[Finding]:
    return [f for f in validate(list(paths)).findings if f.rule == "references"]


def test_a_well_referenced_diagram_has_no_finding(tmp_path: Path) -> None:
    body = (
        '<bpmn:message id="Msg" name="order"/>'
        f'<bpmn:process id="P">{FLOW}'
        '<bpmn:intermediateCatchEvent id="Wait">'
        '<bpmn:messageEventDefinition messageRef="tns:Msg"/></bpmn:intermediateCatchEvent>'
        '<bpmn:exclusiveGateway id="G" default="F4"/>'
        '<bpmn:sequenceFlow id="F3" sourceRef="G" targetRef="End"/>'
        '<bpmn:sequenceFlow id="F4" sourceRef="G" targetRef="Work"/>'
        '<bpmn:boundaryEvent id="B" attachedToRef="Work"/>'
        "</bpmn:process>"
    )
    assert reference_findings(write(tmp_path, body)) == []


def test_duplicate_ids_are_reported_at_the_second_one(tmp_path: Path) -> None:
    body = '<bpmn:process id="P">\n<bpmn:task id="T"/>\n<bpmn:task id="T"/>\n</bpmn:process>'
    [finding] = reference_findings(write(tmp_path, body))
    assert (finding.line, finding.column, finding.element) == (4, 1, "T")
    assert finding.message == "duplicate id 'T' (first used on line 3)"


def test_ids_inside_extension_elements_are_vendor_content(tmp_path: Path) -> None:
    body = (
        '<bpmn:process id="P"><bpmn:task id="T"><bpmn:extensionElements>'
        '<vendor:x id="T"/><bpmn:documentation id="T"/>'
        "</bpmn:extensionElements></bpmn:task></bpmn:process>"
    )
    assert reference_findings(write(tmp_path, body)) == []


@pytest.mark.parametrize(
    ("body", "element", "message"),
    [
        (
            '<bpmn:task id="A"/><bpmn:sequenceFlow id="F" sourceRef="A" targetRef="Nope"/>',
            "F",
            "targetRef 'Nope' is not defined",
        ),
        (
            '<bpmn:task id="A"/><bpmn:subProcess id="S"><bpmn:task id="Inner"/></bpmn:subProcess>'
            '<bpmn:sequenceFlow id="F" sourceRef="A" targetRef="Inner"/>',
            "F",
            "targetRef 'Inner' is in another process or subprocess",
        ),
        (
            '<bpmn:task id="A"/><bpmn:task id="B"/>'
            '<bpmn:exclusiveGateway id="G" default="F"/>'
            '<bpmn:sequenceFlow id="F" sourceRef="A" targetRef="B"/>',
            "G",
            "default flow 'F' starts at 'A', not at this element",
        ),
        (
            '<bpmn:exclusiveGateway id="G" default="Missing"/>',
            "G",
            "default flow 'Missing' is not a sequence flow of this process",
        ),
        (
            '<bpmn:exclusiveGateway id="G"/><bpmn:boundaryEvent id="B" attachedToRef="G"/>',
            "B",
            "attachedToRef 'G' is an exclusiveGateway, not an activity",
        ),
        (
            '<bpmn:endEvent id="E"><bpmn:signalEventDefinition signalRef="Ghost"/></bpmn:endEvent>',
            "E",
            "signalRef 'Ghost' is not defined",
        ),
        (
            '<bpmn:endEvent id="E"><bpmn:errorEventDefinition errorRef="P"/></bpmn:endEvent>',
            "E",
            "errorRef 'P' names a process, not an error",
        ),
        ('<bpmn:callActivity id="C" calledElement="Elsewhere"/>', "C", "calledElement 'Elsewhere'"),
    ],
)
def test_a_broken_reference_is_reported(
    tmp_path: Path, body: str, element: str, message: str
) -> None:
    [finding] = reference_findings(write(tmp_path, f'<bpmn:process id="P">{body}</bpmn:process>'))
    assert finding.element == element
    assert message in finding.message


def test_a_call_resolves_in_a_file_validated_together(tmp_path: Path) -> None:
    caller = write(
        tmp_path,
        '<bpmn:process id="Main"><bpmn:callActivity id="C" calledElement="Other"/></bpmn:process>',
        "caller.bpmn",
    )
    # not beside the caller: found only when validated together
    called = write(tmp_path / "lib", '<bpmn:process id="Other"/>', "called.bpmn")
    assert [f.element for f in reference_findings(caller)] == ["C"]
    assert reference_findings(caller, called) == []


def test_a_call_resolves_in_an_imported_file_relative_to_the_importer(tmp_path: Path) -> None:
    write(tmp_path / "lib", '<bpmn:process id="Other"/>', "called.bpmn")
    importer = write(
        tmp_path,
        '<bpmn:import importType="http://www.omg.org/spec/BPMN/20100524/MODEL" '
        'location="lib/called.bpmn" namespace="http://example.com/lib"/>'
        '<bpmn:process id="Main"><bpmn:callActivity id="C" calledElement="Other"/>'
        "</bpmn:process>",
        "importer.bpmn",
    )
    assert reference_findings(importer) == []


def test_an_import_that_cannot_be_read_is_reported(tmp_path: Path) -> None:
    importer = write(
        tmp_path,
        '<bpmn:import importType="http://www.omg.org/spec/BPMN/20100524/MODEL" '
        'location="gone.bpmn" namespace="http://example.com/gone"/><bpmn:process id="P"/>',
    )
    [finding] = reference_findings(importer)
    assert "imported file 'gone.bpmn'" in finding.message


def test_miwg_c90_finds_its_called_process_in_c92_beside_it(miwg_dir: Path) -> None:
    assert reference_findings(miwg_dir / "C.9.0.bpmn") == []
    assert reference_findings(miwg_dir / "C.9.0.bpmn", miwg_dir / "C.9.2.bpmn") == []


def test_the_21_miwg_diagrams_have_no_schema_or_reference_errors(miwg_dir: Path) -> None:
    report = validate(miwg_dir)
    assert len(report.files) == 21
    bad = [f for f in report.findings if f.rule in ("schema", "references", "parse")]
    assert bad == []
    assert str(MIWG) in report.files[0]
