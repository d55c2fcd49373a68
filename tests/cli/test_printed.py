"""What a Python script prints: a `script.printed` history event, shown by `bpmn run` under
its element (escaped), never written into the `--json` lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import Bpmn

PRINTING = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="p" isExecutable="true">
    <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="c"/>
    <scriptTask id="c" scriptFormat="python"><script>print('total', n * 2)
print('[bold]\\x1b[31mred')
done = True</script></scriptTask>
    <sequenceFlow id="f2" sourceRef="c" targetRef="e"/><endEvent id="e"/>
  </process>
</definitions>
"""


@pytest.mark.parametrize("trust", [[], ["--trust-scripts"]])
def test_a_scripts_print_is_an_event_and_json_stays_json(
    bpmn: Bpmn, tmp_path: Path, trust: list[str]
) -> None:
    path = tmp_path / "printing.bpmn"
    path.write_text(PRINTING, encoding="utf-8")
    done = bpmn("run", str(path), "--db", ":memory:", "--var", "n=21", "--json", *trust)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]  # every line is JSON
    [printed] = [line for line in lines if line["event"] == "script.printed"]
    assert printed["element"] == "c"
    assert printed["text"] == "total 42\n[bold]\x1b[31mred\n"


def test_bpmn_run_shows_what_a_script_printed_escaped(bpmn: Bpmn, tmp_path: Path) -> None:
    path = tmp_path / "printing.bpmn"
    path.write_text(PRINTING, encoding="utf-8")
    done = bpmn("run", str(path), "--db", ":memory:", "--var", "n=21")
    assert done.returncode == 0, done.stderr
    assert "│ total 42" in done.stdout
    assert "\x1b[31m" not in done.stdout and "[bold]" in done.stdout  # data, not markup


def test_a_spiffworkflow_pre_script_prints_too(bpmn: Bpmn, tmp_path: Path) -> None:
    path = tmp_path / "spiff.bpmn"
    path.write_text(
        PRINTING.replace(
            "<definitions ",
            '<definitions xmlns:spiffworkflow="http://spiffworkflow.org/bpmn/schema/1.0/core" ',
        ).replace(
            '<scriptTask id="c" scriptFormat="python">',
            '<scriptTask id="c" scriptFormat="python"><extensionElements><spiffworkflow:preScript>'
            "print('before', n)</spiffworkflow:preScript></extensionElements>",
        ),
        encoding="utf-8",
    )
    code, lines = bpmn.json_lines("run", str(path), "--db", ":memory:", "--var", "n=1")
    assert code == 0
    texts = [line["text"] for line in lines if line["event"] == "script.printed"]
    assert texts == ["before 1\n", "total 2\n[bold]\x1b[31mred\n"]
