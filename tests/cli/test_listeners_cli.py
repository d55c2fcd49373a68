"""Listeners through the `bpmn` command: handlers from `--handlers`, a failing listener as an
incident that `bpmn resume` retries, and what cannot run refused with its location."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Bpmn

PROCESS = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <process id="p" isExecutable="true">
    <startEvent id="S"/>
    <task id="T" name="Audited">
      <extensionElements>
        <camunda:executionListener event="start" class="org.example.Audit">
          <camunda:field name="level" stringValue="high"/>
        </camunda:executionListener>
        <camunda:executionListener event="end">
          <camunda:script scriptFormat="{format}">summary = level + str(total)</camunda:script>
        </camunda:executionListener>
      </extensionElements>
    </task>
    <endEvent id="E"/>
    <sequenceFlow id="f1" sourceRef="S" targetRef="T"/>
    <sequenceFlow id="f2" sourceRef="T" targetRef="E"/>
  </process>
</definitions>
"""
HANDLERS = """
def Audit(ctx):
    return {"level": ctx.fields["level"], "event": ctx.event}
"""


def write(tmp_path: Path, script_format: str = "python") -> None:
    (tmp_path / "audit.bpmn").write_text(PROCESS.replace("{format}", script_format))
    (tmp_path / "handlers.py").write_text(HANDLERS)


def test_a_failing_listener_is_an_incident_and_resume_finishes_the_run(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    # given: the end listener needs `total`, which the first run lacks
    write(tmp_path)
    # when
    failed = bpmn("run", "audit.bpmn", "--handlers", "handlers.py", "--db", "runs.db")
    # then
    assert failed.returncode == 1, failed.stderr
    assert "Traceback" not in failed.stdout + failed.stderr
    assert "T: camunda:executionListener (end, line 11) failed: unknown variable 'total'" in (
        failed.stdout
    )
    instance = failed.stdout.split("bpmn resume ")[1].split()[0]
    # when
    resumed = bpmn(
        "resume", instance, "--var", "total=3", "--handlers", "handlers.py", "--db", "runs.db"
    )
    # then
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert 'summary="high3"' in resumed.stdout  # the field the class listener passed on
    assert 'event="start"' in resumed.stdout


def test_a_listener_in_another_language_is_refused_by_run_and_validate(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    # given
    write(tmp_path, "groovy")
    # when
    run = bpmn("run", "audit.bpmn", "--db", "runs.db")
    checked = bpmn("validate", "audit.bpmn", "--preset", "correctness")
    # then
    assert run.returncode == 2
    assert "Traceback" not in run.stdout + run.stderr
    assert "audit.bpmn:11: T: camunda:executionListener (end, line 11)" in run.stderr
    assert "script format 'groovy' is a JVM language" in run.stderr
    assert checked.returncode == 1
    executable = [line for line in checked.stdout.splitlines() if " executable " in line]
    assert len(executable) == 1, checked.stdout
    # validate names the listener's line, as run does
    assert executable[0].startswith("audit.bpmn:11:") and executable[0].endswith("[T]")
    assert "camunda:executionListener (end, line 11)" in executable[0]
    assert "groovy" in executable[0]


def test_cancel_runs_the_end_listeners_its_handlers_serve(bpmn: Bpmn, tmp_path: Path) -> None:
    """`bpmn cancel` had no --handlers: a Camunda 7 end listener served by a handler was
    skipped as the instance ended."""
    (tmp_path / "wait.bpmn").write_text(
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
        'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">'
        '<process id="p" isExecutable="true"><startEvent id="S"/><userTask id="U">'
        '<extensionElements><camunda:executionListener event="end" class="org.example.Cleanup"/>'
        '</extensionElements></userTask><endEvent id="E"/>'
        '<sequenceFlow id="f1" sourceRef="S" targetRef="U"/>'
        '<sequenceFlow id="f2" sourceRef="U" targetRef="E"/></process></definitions>'
    )
    marker = tmp_path / "cleaned"
    (tmp_path / "handlers.py").write_text(
        f"import pathlib\n\ndef Cleanup(ctx):\n    pathlib.Path({str(marker)!r}).touch()\n"
    )
    waiting = bpmn("run", "wait.bpmn", "--db", "w.db")
    assert waiting.returncode == 3, waiting.stdout + waiting.stderr
    instance = waiting.stdout.split("bpmn complete ")[1].split()[0]
    done = bpmn("cancel", instance, "--handlers", "handlers.py", "--db", "w.db")
    assert done.returncode == 0, done.stdout + done.stderr
    assert marker.exists()
