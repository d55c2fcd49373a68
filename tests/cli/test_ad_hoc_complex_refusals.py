"""Ad-hoc subprocesses and complex gateways: what runs passes, what cannot run is refused
alike by `bpmn validate` and `bpmn run` (file:line: element: why)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine.validate.findings import Severity
from tests.cli.conftest import Bpmn
from tests.validate.test_executable import executable_findings, write

ZEEBE = 'xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"'

RUNS = [
    (
        "complex",
        '<bpmn:startEvent id="S"/>\n<bpmn:complexGateway id="G">'
        "<bpmn:activationCondition>activationCount &gt;= 1</bpmn:activationCondition>"
        '</bpmn:complexGateway>\n<bpmn:endEvent id="E"/>\n'
        '<bpmn:sequenceFlow id="f1" sourceRef="S" targetRef="G"/>'
        '<bpmn:sequenceFlow id="f2" sourceRef="G" targetRef="E"/>',
    ),
    (
        "ad-hoc",
        '<bpmn:startEvent id="S"/>\n<bpmn:adHocSubProcess id="H" ordering="Sequential">'
        '<bpmn:task id="A"/><bpmn:completionCondition>done</bpmn:completionCondition>'
        '</bpmn:adHocSubProcess>\n<bpmn:endEvent id="E"/>\n'
        '<bpmn:sequenceFlow id="f1" sourceRef="S" targetRef="H"/>'
        '<bpmn:sequenceFlow id="f2" sourceRef="H" targetRef="E"/>',
    ),
]


@pytest.mark.parametrize("body", [b for _, b in RUNS], ids=[n for n, _ in RUNS])
def test_what_now_runs_is_no_executable_finding(tmp_path: Path, body: str) -> None:
    assert executable_findings(write(tmp_path, body)) == []


REFUSED = [
    (
        "start-event-inside-ad-hoc",
        '<bpmn:adHocSubProcess id="H"><bpmn:startEvent id="X"/>\n<bpmn:task id="A"/>'
        "</bpmn:adHocSubProcess>",
        "X",
        "an ad-hoc subprocess has no start or end events",
    ),
    (
        "ad-hoc-without-activity",
        '<bpmn:adHocSubProcess id="X">\n</bpmn:adHocSubProcess>',
        "X",
        "needs an activity without incoming flows",
    ),
    (
        "output-collection",
        '<bpmn:adHocSubProcess id="X"><bpmn:extensionElements>'
        '<zeebe:adHoc outputCollection="results"/></bpmn:extensionElements>\n'
        '<bpmn:task id="A"/></bpmn:adHocSubProcess>',
        "X",
        "outputCollection: collecting inner results is not supported yet",
    ),
    (
        "completion-condition-typo",
        '<bpmn:adHocSubProcess id="X"><bpmn:task id="A"/>'
        "<bpmn:completionCondition>done ==</bpmn:completionCondition></bpmn:adHocSubProcess>",
        "X",
        "completionCondition does not compile",
    ),
    (
        "activation-condition-typo",
        '<bpmn:complexGateway id="X">'
        "<bpmn:activationCondition>activationCount &gt;=</bpmn:activationCondition>"
        "</bpmn:complexGateway>",
        "X",
        "activationCondition does not compile",
    ),
]


@pytest.mark.parametrize(
    ("body", "element", "why"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_what_cannot_run_is_an_error_in_validate_and_refused_by_run(
    tmp_path: Path, bpmn: Bpmn, body: str, element: str, why: str
) -> None:
    path = write(tmp_path, body)
    if "zeebe:" in body:
        path.write_text(
            path.read_text().replace("<bpmn:definitions ", f"<bpmn:definitions {ZEEBE} ")
        )
    # validate: an error at the element, on line 3
    [finding] = [f for f in executable_findings(path) if f.element == element]
    assert finding.severity is Severity.ERROR
    assert why in finding.message
    assert finding.line == 3
    # run: refused before the first step, with file, line and element
    done = bpmn("run", str(path))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"diagram.bpmn:3: {element}:" in done.stderr.replace("\n", " ")
