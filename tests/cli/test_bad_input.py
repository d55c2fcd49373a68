"""Bad input gets a clear message naming the file, line and element, and exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import FIXTURES, Bpmn

PROCESS = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="d" targetNamespace="t">
  <process id="p" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="g"/>
    <exclusiveGateway id="g" default="f3"/>
    <sequenceFlow id="f2" sourceRef="g" targetRef="e">
      <conditionExpression xsi:type="tFormalExpression">{condition}</conditionExpression>
    </sequenceFlow>
    <sequenceFlow id="f3" sourceRef="g" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>
"""

XXE = """<?xml version="1.0"?>
<!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">
  <process id="p">&xxe;</process>
</definitions>
"""

LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
]>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">
  <process id="p" name="&lol5;"/>
</definitions>
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def assert_bad_input(done, *needles: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    for needle in needles:
        assert needle in done.stderr, done.stderr


def test_missing_file(bpmn: Bpmn) -> None:
    assert_bad_input(bpmn("run", "nowhere.bpmn"), "nowhere.bpmn", "no such file")


def test_malformed_xml_names_file_and_line(bpmn: Bpmn, tmp_path: Path) -> None:
    path = write(tmp_path, "broken.bpmn", "<definitions>\n<process id='p'>\n</definitions>\n")
    assert_bad_input(bpmn("run", path), "broken.bpmn:3", "malformed XML")


@pytest.mark.parametrize("text", [XXE, LAUGHS], ids=["xxe", "billion-laughs"])
def test_entity_attacks_are_refused(bpmn: Bpmn, tmp_path: Path, text: str) -> None:
    path = write(tmp_path, "evil.bpmn", text)
    done = bpmn("run", path)
    assert_bad_input(done, "evil.bpmn:2", "DTD")
    assert "root:" not in done.stdout + done.stderr


def test_a_file_that_is_not_bpmn(bpmn: Bpmn, tmp_path: Path) -> None:
    path = write(tmp_path, "pom.xml", "<project><modelVersion>4</modelVersion></project>")
    assert_bad_input(bpmn("run", path), "pom.xml:1", "not a BPMN 2.0 file")


def test_unknown_process_id(bpmn: Bpmn) -> None:
    path = str(FIXTURES / "counter-loop.bpmn")
    assert_bad_input(bpmn("run", path, "--process", "Nope"), "no process 'Nope'")


def test_var_without_equals(bpmn: Bpmn) -> None:
    path = str(FIXTURES / "counter-loop.bpmn")
    assert_bad_input(bpmn("run", path, "--var", "n"), "NAME=VALUE")


def test_dangling_sequence_flow(bpmn: Bpmn, tmp_path: Path) -> None:
    text = PROCESS.format(condition="x").replace('targetRef="e"/>', 'targetRef="ghost"/>')
    path = write(tmp_path, "dangling.bpmn", text)
    assert_bad_input(bpmn("run", path), "dangling.bpmn:11: f3:", "'ghost'")


@pytest.mark.parametrize(
    "condition",
    ["n &lt;", "__import__('os').system('echo pwned')", "n.__class__", "open('/etc/passwd')"],
    ids=["syntax-error", "import", "dunder", "open"],
)
def test_bad_or_hostile_condition_is_refused_with_the_element(
    bpmn: Bpmn, tmp_path: Path, condition: str
) -> None:
    path = write(tmp_path, "cond.bpmn", PROCESS.format(condition=condition))
    assert_bad_input(bpmn("run", path, "--var", "n=1"), "cond.bpmn:9: f2:")
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    "script",
    ["import os", "x = __import__('os')", "x = ().__class__.__bases__", "x = open('/etc/passwd')"],
    ids=["import", "dunder-import", "dunder-attribute", "open"],
)
def test_hostile_sandboxed_script_is_refused(bpmn: Bpmn, tmp_path: Path, script: str) -> None:
    text = PROCESS.format(condition="True").replace(
        '<exclusiveGateway id="g" default="f3"/>',
        f'<exclusiveGateway id="g" default="f3"/><scriptTask id="evil" scriptFormat="python">'
        f"<script>{script}</script></scriptTask>",
    )
    path = write(tmp_path, "script.bpmn", text)
    assert_bad_input(bpmn("run", path), "script.bpmn:", "evil")
