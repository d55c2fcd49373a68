"""`bpmn validate` as CI runs it: a subprocess, its exit code, stdout and stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bpmn_engine.cli import cli

CLEAN = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI"
  xmlns:dc="http://www.omg.org/spec/DD/20100524/DC"
  xmlns:di="http://www.omg.org/spec/DD/20100524/DI"
  id="Defs" targetNamespace="http://example.com/clean">
  <bpmn:process id="Clean" isExecutable="true">
    <bpmn:startEvent id="Start" name="Start"/>
    WORK
    <bpmn:endEvent id="End" name="End"/>
    <bpmn:sequenceFlow id="F1" sourceRef="Start" targetRef="Work"/>
    <bpmn:sequenceFlow id="F2" sourceRef="Work" targetRef="End"/>
  </bpmn:process>
  <bpmndi:BPMNDiagram id="Diagram">
    <bpmndi:BPMNPlane id="Plane" bpmnElement="Clean">
      <bpmndi:BPMNShape id="Start_di" bpmnElement="Start">
        <dc:Bounds x="100" y="100" width="36" height="36"/></bpmndi:BPMNShape>
      <bpmndi:BPMNShape id="Work_di" bpmnElement="Work">
        <dc:Bounds x="200" y="100" width="36" height="36"/></bpmndi:BPMNShape>
      <bpmndi:BPMNShape id="End_di" bpmnElement="End">
        <dc:Bounds x="300" y="100" width="36" height="36"/></bpmndi:BPMNShape>
      <bpmndi:BPMNEdge id="F1_di" bpmnElement="F1">
        <di:waypoint x="136" y="118"/><di:waypoint x="200" y="118"/></bpmndi:BPMNEdge>
      <bpmndi:BPMNEdge id="F2_di" bpmnElement="F2">
        <di:waypoint x="236" y="118"/><di:waypoint x="300" y="118"/></bpmndi:BPMNEdge>
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>
"""
NONE_EVENT = '<bpmn:intermediateThrowEvent id="Work" name="Work"/>'
UNSUPPORTED = (  # a timer throw: valid BPMN the engine cannot run: a warning
    '<bpmn:intermediateThrowEvent id="Work" name="Wait"><bpmn:timerEventDefinition>'
    "<bpmn:timeDuration>PT5M</bpmn:timeDuration></bpmn:timerEventDefinition>"
    "</bpmn:intermediateThrowEvent>"
)
SCHEMA_ERROR = '<bpmn:intermediateThrowEvent id="Work" name="Work" colour="red"/>'
BAD_INPUTS = {
    "empty.bpmn": "",
    "malformed.bpmn": "<bpmn:definitions><unclosed></bpmn:definitions>",
    "not-bpmn.bpmn": '<?xml version="1.0"?><project><name>pom</name></project>',
    "xxe.bpmn": (
        '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL">&x;</definitions>'
    ),
    "laughs.bpmn": (
        '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;">'
        '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]><l>&c;</l>'
    ),
}


def bpmn(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", "validate", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def invoke(cwd: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    """In-process, for speed: exit code, stdout and stderr."""
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(cli, ["validate", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout, result.stderr


def diagram(folder: Path, work: str = NONE_EVENT, name: str = "order.bpmn") -> Path:
    path = folder / name
    path.write_text(CLEAN.replace("WORK", work), "utf-8")
    return path


def test_a_clean_diagram_exits_0(tmp_path: Path) -> None:
    diagram(tmp_path)
    done = bpmn(tmp_path, "order.bpmn")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "0 problems (0 errors, 0 warnings) in 1 file\n"


@pytest.mark.parametrize(
    ("options", "code"),
    [((), 0), (("--max-warnings", "1"), 0), (("--max-warnings", "0"), 1), (("--strict",), 1)],
)
def test_warnings_fail_only_past_max_warnings_or_with_strict(
    tmp_path: Path, options: tuple[str, ...], code: int
) -> None:
    diagram(tmp_path, UNSUPPORTED)
    done = bpmn(tmp_path, "order.bpmn", *options)
    assert done.returncode == code
    assert "order.bpmn:9:5 warning executable" in done.stdout
    assert done.stdout.endswith("1 problem (0 errors, 1 warning) in 1 file\n")


def test_errors_exit_1(tmp_path: Path) -> None:
    diagram(tmp_path, SCHEMA_ERROR)
    done = bpmn(tmp_path, ".")
    assert done.returncode == 1
    assert "order.bpmn:9:5 error schema" in done.stdout
    assert "[Work]" in done.stdout


def test_no_input_crashes_it_and_the_good_files_are_still_checked(tmp_path: Path) -> None:
    # given: every kind of bad input, beside a diagram with an error
    for name, text in BAD_INPUTS.items():
        (tmp_path / name).write_text(text, "utf-8")
    (tmp_path / "folder.bpmn").mkdir()  # a folder with a BPMN name is skipped in a walk
    (tmp_path / "empty-folder").mkdir()
    diagram(tmp_path, SCHEMA_ERROR)
    # when
    done = bpmn(tmp_path, ".", "missing.bpmn", "empty-folder", "--format", "json")
    # then
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "root:" not in done.stdout  # nothing of /etc/passwd
    findings = json.loads(done.stdout)
    parsed = {Path(f["file"]).name for f in findings if f["rule"] == "parse"}
    assert parsed == {*BAD_INPUTS, "missing.bpmn", "empty-folder"}
    assert any(f["rule"] == "schema" and f["file"].endswith("order.bpmn") for f in findings)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".bpmnlintrc", '{"extends": "bpmnlint:recommended", "rules": {"schema": "off"}}'),
        ("pyproject.toml", "[tool.bpmn.validate]\nrules = { schema = 0 }\n"),
    ],
)
def test_a_config_in_the_current_folder_turns_a_rule_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str
) -> None:
    diagram(tmp_path, SCHEMA_ERROR)
    assert invoke(tmp_path, monkeypatch, "order.bpmn")[0] == 1
    (tmp_path / name).write_text(text, "utf-8")
    code, stdout, _ = invoke(tmp_path, monkeypatch, "order.bpmn")
    assert (code, stdout) == (0, "0 problems (0 errors, 0 warnings) in 1 file\n")


def test_a_bad_config_exits_2_with_a_message(tmp_path: Path) -> None:
    diagram(tmp_path)
    (tmp_path / "lint.json").write_text('{"rules": {"schema": "loud"}}', "utf-8")
    done = bpmn(tmp_path, "order.bpmn", "--config", "lint.json")
    assert done.returncode == 2
    assert "lint.json: rule schema: unknown level 'loud'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("output_format", ["json", "github", "sarif"])
def test_each_format_through_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output_format: str
) -> None:
    diagram(tmp_path, SCHEMA_ERROR, "a.bpmn")
    diagram(tmp_path, UNSUPPORTED, "b.bpmn")
    code, stdout, _ = invoke(tmp_path, monkeypatch, "*.bpmn", "--format", output_format)
    assert code == 1
    if output_format == "json":
        rules = [(Path(f["file"]).name, f["rule"]) for f in json.loads(stdout)]
        assert rules == [("a.bpmn", "schema"), ("b.bpmn", "executable")]
    elif output_format == "github":
        assert [line[:10] for line in stdout.splitlines()] == ["::error fi", "::warning "]
    else:
        sarif = json.loads(stdout)
        assert sarif["version"] == "2.1.0"
        assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["schema", "executable"]


def test_json_is_a_flag_as_in_every_other_command(tmp_path: Path) -> None:
    diagram(tmp_path, SCHEMA_ERROR)
    flagged = bpmn(tmp_path, ".", "--json")
    assert flagged.returncode == 1
    assert json.loads(flagged.stdout) == json.loads(bpmn(tmp_path, ".", "--format", "json").stdout)
    both = bpmn(tmp_path, ".", "--json", "--format", "sarif")
    assert both.returncode == 2 and "--json is --format json" in both.stderr


def test_text_lists_a_files_errors_before_its_warnings(tmp_path: Path) -> None:
    """A file's errors block a deploy: a run of style warnings above them buried them."""
    (tmp_path / "mixed.bpmn").write_text(
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" '
        'targetNamespace="t">\n<process id="p" isExecutable="true">\n'
        '<startEvent id="S" name="start"/>\n<inclusiveGateway id="G" name="which"/>\n'
        '<callActivity id="C" name="call"/>\n<endEvent id="E" name="end"/>\n'
        '<sequenceFlow id="a" sourceRef="S" targetRef="G"/>\n'
        '<sequenceFlow id="b" sourceRef="G" targetRef="C"/>\n'
        '<sequenceFlow id="c" sourceRef="C" targetRef="E"/>\n</process></definitions>\n'
    )
    done = bpmn(tmp_path, "mixed.bpmn")
    severities = [line.split()[1] for line in done.stdout.splitlines() if ".bpmn:" in line]
    assert "error" in severities and "warning" in severities, done.stdout
    assert severities == sorted(severities, key=lambda s: s != "error"), done.stdout
