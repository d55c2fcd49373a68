"""Files in the pre-release BPMN 2.0 namespace (Activiti 5.0 alphas, early bpmn-engine
examples) are read as BPMN 2.0.2, saying so (`parse/prerelease.py`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bpmn_engine import Engine
from bpmn_engine.parse import compile_definitions
from bpmn_engine.parse.prerelease import PRERELEASE

BODY = (
    '<process id="p"><startEvent id="s"/><userTask id="u" name="First task"/>'
    '<endEvent id="e"/><sequenceFlow id="f1" sourceRef="s" targetRef="u"/>'
    '<sequenceFlow id="f2" sourceRef="u" targetRef="e"/></process></definitions>'
)
OLD = f'<definitions xmlns="{PRERELEASE}" targetNamespace="t">\n{BODY}'
FINAL = OLD.replace(PRERELEASE, "http://www.omg.org/spec/BPMN/20100524/MODEL")


def test_a_prerelease_file_runs_as_bpmn_2_and_warns_once(tmp_path: Path) -> None:
    path = tmp_path / "old.bpmn"
    path.write_text(OLD, encoding="utf-8")
    engine = Engine(":memory:")
    instance = engine.start(path)
    outcome = instance.run()
    assert outcome.state == "waiting" and [w["element"] for w in outcome.waiting_for] == ["u"]
    warnings = [e.data["message"] for e in instance.history() if e.event == "warning"]
    assert len(warnings) == 1 and PRERELEASE in warnings[0] and "read as BPMN 2.0.2" in warnings[0]
    instance.complete_task("u")
    assert instance.run().state == "completed"


def test_the_final_namespace_gives_no_warning() -> None:
    definitions = compile_definitions(FINAL.encode(), "final.bpmn")
    assert definitions.processes["p"].warned == ()
    old = compile_definitions(OLD.encode(), "old.bpmn")
    assert [w.line for w in old.processes["p"].warned] == [1]


def test_validate_reports_the_namespace_as_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "old.bpmn"
    path.write_text(OLD, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "cli", "validate", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "warning" in done.stdout and "pre-release BPMN 2.0 namespace" in done.stdout
    assert "not a BPMN" not in done.stdout + done.stderr
