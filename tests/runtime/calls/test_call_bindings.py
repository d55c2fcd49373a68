"""Which definitions a call activity calls: Camunda 7 `calledElementBinding`, Zeebe
`bindingType`. What the store can resolve runs; the rest is refused before the first step."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError
from bpmn_engine.validate import validate

from ..conftest import HEADER


def write(path: Path, body: str) -> Path:
    path.write_text(HEADER + body + "</definitions>")
    return path


def caller(tmp_path: Path, attributes: str = "", extensions: str = "") -> Path:
    return write(
        tmp_path / "caller.bpmn",
        f"""
  <process id="parent" isExecutable="true">
    <startEvent id="ps"/>
    <sequenceFlow id="p1" sourceRef="ps" targetRef="call"/>
    <callActivity id="call" calledElement="child" {attributes}>{extensions}</callActivity>
    <sequenceFlow id="p2" sourceRef="call" targetRef="pe"/>
    <endEvent id="pe"/>
  </process>""",
    )


def child(tmp_path: Path, factor: int) -> Path:
    return write(
        tmp_path / f"child-{factor}.bpmn",
        f"""
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="work"/>
    <scriptTask id="work" scriptFormat="python"><script>y = x * {factor}</script></scriptTask>
    <sequenceFlow id="c2" sourceRef="work" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>""",
    )


def deployed_twice(tmp_path: Path) -> Path:
    """A database where `child` was deployed as version 1 (doubles), then 2 (triples)."""
    db = tmp_path / "e.db"
    with Engine(db) as engine:
        engine.deploy_processes(child(tmp_path, 2))
        engine.deploy_processes(child(tmp_path, 3))
    return db


@pytest.mark.parametrize(("version", "y"), [(1, 10), (2, 15)])
def test_binding_version_calls_that_deployment(tmp_path: Path, version: int, y: int) -> None:
    db = deployed_twice(tmp_path)
    path = caller(
        tmp_path, f'camunda:calledElementBinding="version" camunda:calledElementVersion="{version}"'
    )
    with Engine(db) as engine:
        assert engine.start(path, "parent", {"x": 5}).run().variables["y"] == y


def test_binding_latest_calls_the_active_deployment(tmp_path: Path) -> None:
    db = deployed_twice(tmp_path)
    path = caller(tmp_path, 'camunda:calledElementBinding="latest"')
    with Engine(db) as engine:
        assert engine.start(path, "parent", {"x": 5}).run().variables["y"] == 15


def test_a_version_the_store_does_not_have_is_refused_before_the_first_step(
    tmp_path: Path,
) -> None:
    db = deployed_twice(tmp_path)
    path = caller(
        tmp_path, 'camunda:calledElementBinding="version" camunda:calledElementVersion="3"'
    )
    with Engine(db) as engine, pytest.raises(LoadError) as refused:
        engine.start(path, "parent", {"x": 5})
    message = str(refused.value)
    assert message.startswith(f"{path}:5: call: calls version 3 of process 'child'")
    assert "has 2 deployed version(s)" in message


@pytest.mark.parametrize(
    "attributes",
    ['camunda:calledElementBinding="deployment"', ""],
    ids=["camunda", "zeebe"],
)
def test_binding_deployment_finds_only_the_files_given_together(
    tmp_path: Path, attributes: str
) -> None:
    zeebe = (
        ""
        if attributes
        else '<extensionElements><zeebe:calledElement processId="child" bindingType="deployment"/>'
        "</extensionElements>"
    )
    path = caller(tmp_path, attributes, zeebe)
    elsewhere = tmp_path / "deployed"  # not beside the caller: its folder is its deployment
    elsewhere.mkdir()
    db = deployed_twice(elsewhere)  # deployed, but not given with the caller
    with Engine(db) as engine, pytest.raises(LoadError, match="of its own deployment"):
        engine.start(path, "parent", {"x": 1})
    with Engine(db) as engine:  # given together: that file, not the active deployment
        engine.deploy(child(tmp_path, 7))
        assert engine.start(path, "parent", {"x": 1}).run().variables["y"] == 7


def test_a_computed_callee_with_a_version_binding_is_an_incident_when_missing(
    tmp_path: Path,
) -> None:
    db = deployed_twice(tmp_path)
    path = write(
        tmp_path / "computed.bpmn",
        """
  <process id="parent" isExecutable="true">
    <startEvent id="ps"/>
    <sequenceFlow id="p1" sourceRef="ps" targetRef="call"/>
    <callActivity id="call" calledElement="${which}" camunda:calledElementBinding="version"
      camunda:calledElementVersion="9"/>
    <sequenceFlow id="p2" sourceRef="call" targetRef="pe"/>
    <endEvent id="pe"/>
  </process>""",
    )
    with Engine(db) as engine:
        outcome = engine.start(path, "parent", {"which": "child", "x": 1}).run()
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert outcome.incident.startswith("call: cannot call version 9 of process 'child'")


REFUSED = [
    (
        'camunda:calledElementBinding="versionTag" camunda:calledElementVersionTag="v1"',
        "",
        "calledElementBinding 'versionTag': version tags are not kept",
    ),
    (
        "",
        '<extensionElements><zeebe:calledElement processId="child" bindingType="versionTag" '
        'versionTag="v1"/></extensionElements>',
        "bindingType 'versionTag': version tags are not kept",
    ),
    (
        'camunda:calledElementBinding="version"',
        "",
        "calledElementBinding 'version' needs calledElementVersion",
    ),
    (
        'camunda:calledElementBinding="version" camunda:calledElementVersion="${v}"',
        "",
        "calledElementVersion '${v}': an expression is not supported",
    ),
    ('camunda:calledElementBinding="newest"', "", "calledElementBinding 'newest': expected"),
    (
        'camunda:calledElementVersion="2"',
        "",
        "calledElementVersion '2' is used only with calledElementBinding 'version'",
    ),
    ('camunda:calledElementTenantId="t1"', "", "calledElementTenantId: there are no tenants"),
    ('camunda:variableMappingClass="a.B"', "", "variableMappingClass: delegate code"),
]


@pytest.mark.parametrize(("attributes", "extensions", "message"), REFUSED)
def test_a_binding_the_engine_cannot_honour_is_refused_by_run_and_validate(
    tmp_path: Path, attributes: str, extensions: str, message: str
) -> None:
    path = caller(tmp_path, attributes, extensions)
    called = child(tmp_path, 2)
    with pytest.raises(LoadError) as refused:
        Engine(tmp_path / "e.db").start(path, "parent", {"x": 1})
    assert str(refused.value).startswith(f"{path}:")
    assert "call: " + message in str(refused.value)
    findings = [f for f in validate([path, called]).findings if f.rule == "executable"]
    assert [(f.element, f.severity.value) for f in findings] == [("call", "error")]
    assert message in findings[0].message


def test_validate_warns_that_a_version_binding_is_resolved_by_the_database(
    tmp_path: Path,
) -> None:
    path = caller(
        tmp_path, 'camunda:calledElementBinding="version" camunda:calledElementVersion="2"'
    )
    findings = [f for f in validate([path, child(tmp_path, 2)]).findings if f.rule == "executable"]
    assert [(f.element, f.severity.value) for f in findings] == [("call", "warning")]
    assert "calls version 2 of process 'child'" in findings[0].message
