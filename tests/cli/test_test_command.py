"""`bpmn test`: scenario files run from the command line, reported as pytest reports tests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree

from tests.cli.conftest import MODELS, Bpmn

SMALL_LOAN = (
    'diagram = "loan-approval.bpmn"\n[[scenario]]\nname = "small loan"\n'
    "variables = { income = 4200, amount = 5000, hasCollateral = false }\n"
    '[scenario.expect]\nstate = "completed"\nend_event = "EndEvent_LoanApproved"\n'
)


def copy_models(tmp_path: Path) -> Path:
    target = tmp_path / "models"
    shutil.copytree(MODELS, target, ignore=shutil.ignore_patterns("*.db*"))
    return target


def test_the_models_scenarios_pass(bpmn: Bpmn) -> None:
    done = bpmn("test", str(MODELS), "--coverage")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "loan-approval.bpmntest.toml ..." in done.stdout
    assert "models/loan-approval.bpmn: 100.0% (11/11 elements, 12/12 flows)" in done.stdout
    assert " passed in " in done.stdout.splitlines()[-1]


def test_a_broken_model_fails_with_the_expectation_and_the_path(bpmn: Bpmn, tmp_path: Path) -> None:
    models = copy_models(tmp_path)
    diagram = models / "loan-approval.bpmn"
    diagram.write_text(diagram.read_text().replace("threshold = 650\n", "threshold = 950\n"))
    done = bpmn("test", "models/loan-approval.bpmntest.toml")
    assert done.returncode == 1
    assert "loan-approval.bpmntest.toml .F." in done.stdout  # only the small loan scores < 950
    assert "expected to end at EndEvent_LoanApproved, ended at EndEvent_LoanRejected" in done.stdout
    assert "path taken: StartEvent_ApplicationReceived -> Task_ScoreApplication" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("2 passed, 1 failed in ")


def test_a_scenario_file_that_cannot_be_read_is_bad_input(bpmn: Bpmn, tmp_path: Path) -> None:
    models = copy_models(tmp_path)
    (models / "typo.bpmntest.toml").write_text(SMALL_LOAN.replace("end_event", "end_evnt"))
    done = bpmn("test", "models")
    assert done.returncode == 2
    assert "typo.bpmntest.toml:7: `expect`: unknown key 'end_evnt'" in done.stdout
    assert "1 file(s) could not be read" in done.stdout
    assert "Traceback" not in done.stderr


def test_nothing_to_run_is_a_usage_error(bpmn: Bpmn, tmp_path: Path) -> None:
    done = bpmn("test", str(tmp_path))
    assert done.returncode == 2
    assert "no scenario files (*.bpmntest.toml)" in done.stderr


def test_junit_xml_and_json_lines(bpmn: Bpmn, tmp_path: Path) -> None:
    models = copy_models(tmp_path)
    (models / "mixed.bpmntest.toml").write_text(
        SMALL_LOAN + '[[scenario]]\nname = "wrong"\nexpect = { state = "completed" }\n'
    )
    code, lines = bpmn.json_lines("test", "models/mixed.bpmntest.toml", "--junit-xml", "j.xml")
    assert code == 1
    assert [line["event"] for line in lines] == ["scenario.passed", "scenario.failed", "summary"]
    [failure] = lines[1]["failures"]  # no variables: the score script fails
    assert failure.startswith(
        "at the end, line 10: expected state completed, got failed (incident:"
    )
    assert lines[2] | {"seconds": 0} == {
        "event": "summary",
        "passed": 1,
        "failed": 1,
        "error": 0,
        "files_broken": 0,
        "seconds": 0,
    }
    suite = ElementTree.parse(tmp_path / "j.xml").getroot().find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("2", "1")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["small loan", "wrong"]
    failure = cases[1].find("failure")
    assert failure is not None and "path taken:" in (failure.text or "")


def test_fail_under_fails_a_passing_suite_that_covers_too_little(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    (tmp_path / "loan-approval.bpmn").write_text((MODELS / "loan-approval.bpmn").read_text())
    (tmp_path / "small.bpmntest.toml").write_text(SMALL_LOAN)
    done = bpmn("test", "--fail-under", "80")
    assert done.returncode == 1
    assert "loan-approval.bpmn: 65.2% (8/11 elements, 7/12 flows)" in done.stdout
    assert "not reached: EndEvent_LoanRejected, Task_AppraiseCollateral, Task_ManualReview" in (
        done.stdout
    )
    assert "below --fail-under 80" in done.stdout
    # the last line says the suite failed: "1 passed" alone read as success with exit 1
    assert done.stdout.splitlines()[-1].startswith("1 passed, coverage 65.2% below --fail-under")
    code, lines = bpmn.json_lines("test", "--fail-under", "60")
    assert code == 0
    coverage = next(line for line in lines if line["event"] == "coverage")
    assert coverage["elements"] == {"total": 11, "reached": 8}
    assert coverage["flows"] == {"total": 12, "reached": 7}


def test_keyword_and_exitfirst_choose_what_runs(bpmn: Bpmn, tmp_path: Path) -> None:
    (tmp_path / "loan-approval.bpmn").write_text((MODELS / "loan-approval.bpmn").read_text())
    (tmp_path / "two.bpmntest.toml").write_text(
        SMALL_LOAN.replace('"small loan"', '"first fails"').replace("completed", "failed")
        + SMALL_LOAN.replace('"small loan"', '"second"').replace("diagram = ", "# ")
    )
    code, lines = bpmn.json_lines("test", "-k", "second")
    assert code == 0 and [line.get("name") for line in lines] == ["second", None]
    code, lines = bpmn.json_lines("test", "-x")
    assert code == 1 and [line.get("name") for line in lines] == ["first fails", None]


def test_hostile_names_are_printed_as_text(bpmn: Bpmn, tmp_path: Path) -> None:
    (tmp_path / "loan-approval.bpmn").write_text((MODELS / "loan-approval.bpmn").read_text())
    name = "x[/][link=https://evil.example]y\\u001b]0;owned\\u0007"
    (tmp_path / "h.bpmntest.toml").write_text(
        SMALL_LOAN.replace('"small loan"', json.dumps(name).replace("\\\\", "\\")).replace(
            "completed", "failed"
        )
    )
    done = bpmn("test")
    assert done.returncode == 1
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "x[/][link=https://evil.example]y\\x1b]0;owned\\x07" in done.stdout
