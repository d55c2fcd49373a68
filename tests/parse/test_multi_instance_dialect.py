"""A multi-instance activity's dialect: plain BPMN in a file drawn for SpiffWorkflow (the file
declares its namespace) is read as SpiffWorkflow reads it; vendor attributes still win."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine.model import MultiInstance
from bpmn_engine.parse import load_file

SPIFF_NS = 'xmlns:spiffworkflow="http://spiffworkflow.org/bpmn/schema/1.0/core"'
CAMUNDA_NS = 'xmlns:camunda="http://camunda.org/schema/1.0/bpmn"'


@pytest.mark.parametrize(
    ("namespaces", "attrs", "dialect"),
    [
        (SPIFF_NS, "", "spiff"),
        ("", "", "bpmn"),
        (f"{SPIFF_NS} {CAMUNDA_NS}", 'camunda:asyncBefore="true"', "camunda"),
    ],
    ids=["spiffworkflow-file", "plain-file", "camunda-attributes-in-a-spiffworkflow-file"],
)
def test_the_dialect_of_a_plain_multi_instance(
    tmp_path: Path, namespaces: str, attrs: str, dialect: str
) -> None:
    path = tmp_path / "mi.bpmn"
    path.write_text(
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
        f'{namespaces} id="d" targetNamespace="t"><process id="p" isExecutable="true">'
        f'<task id="A" {attrs}><multiInstanceLoopCharacteristics>'
        "<loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></task>"
        "</process></definitions>"
    )
    spec = load_file(path).node("A").loop_characteristics
    assert isinstance(spec, MultiInstance) and spec.dialect == dialect
