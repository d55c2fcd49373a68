"""`bpmn decide`: a decision's value for people and as JSON, and its exit codes (0 a value,
1 the evaluation failed, 2 bad input), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import ROOT, Bpmn

FILES = ROOT / "tests" / "dmn" / "files"
LOAN = str(FILES / "loan-origination.dmn")
CASE = {
    "Applicant data": {
        "Age": 51,
        "MaritalStatus": "M",
        "EmploymentStatus": "EMPLOYED",
        "ExistingCustomer": False,
        "Monthly": {"Income": 10000, "Repayments": 2500, "Expenses": 3000},
    },
    "Requested product": {
        "ProductType": "STANDARD LOAN",
        "Rate": 0.08,
        "Term": 36,
        "Amount": 100000,
    },
}
TABLE = """<?xml version="1.0"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="d"
             namespace="http://example.com/t">
  <decision id="points" name="Points">
    <decisionTable id="table" hitPolicy="{policy}">
      <input id="i"><inputExpression><text>age</text></inputExpression></input>
      <output id="o1" name="points"/><output id="o2" name="band"/>
      <rule id="r1"><inputEntry><text>&lt; 30</text></inputEntry>
        <outputEntry><text>10</text></outputEntry><outputEntry><text>"[young]"</text></outputEntry></rule>
      <rule id="r2"><inputEntry><text>&lt; 50</text></inputEntry>
        <outputEntry><text>20</text></outputEntry><outputEntry><text>"middle"</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>
"""


def case_file(tmp_path: Path) -> str:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(CASE))
    return str(path)


def test_decide_prints_the_value(bpmn: Bpmn, tmp_path: Path) -> None:
    done = bpmn("decide", LOAN, "--decision", "Strategy", "--vars", case_file(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == 'Strategy (strategy): "THROUGH"'


def test_decide_a_decision_service_as_json(bpmn: Bpmn, tmp_path: Path) -> None:
    done = bpmn(
        "decide", LOAN, str(FILES / "financial.dmn"), "--decision",
        "Bureau Strategy Decision Service", "--vars", case_file(tmp_path), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["value"] == {"Bureau call type": "NONE", "Strategy": "THROUGH"}
    assert payload["error"] is None and payload["warnings"] == []


def test_decide_a_table_with_several_rows_and_outputs(bpmn: Bpmn, tmp_path: Path) -> None:
    path = tmp_path / "points.dmn"
    path.write_text(TABLE.replace("{policy}", "RULE ORDER"))
    done = bpmn("decide", str(path), "--decision", "Points", "--var", "age=25")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "points" in lines[1] and "band" in lines[1]
    assert '"[young]"' in done.stdout  # text from the file is shown, not read as markup
    assert lines[-1].startswith('value: [{"points": 10, "band": "[young]"}, {"points": 20')
    code, [payload] = bpmn.json_lines(
        "decide", str(path), "--decision", "points", "--var", "age=25"
    )
    assert code == 0 and payload["entries"][1] == {"points": 20, "band": "middle"}


def test_a_failed_evaluation_exits_1_and_says_why(bpmn: Bpmn, tmp_path: Path) -> None:
    path = tmp_path / "points.dmn"
    path.write_text(TABLE.replace("{policy}", "UNIQUE"))
    done = bpmn("decide", str(path), "--decision", "Points", "--var", "age=25")
    assert done.returncode == 1
    assert "failed:" in done.stdout and "hit policy UNIQUE, but 2 rules match" in done.stdout
    code, [payload] = bpmn.json_lines(
        "decide", str(path), "--decision", "Points", "--var", "age=25"
    )
    assert code == 1 and payload["value"] is None and "UNIQUE" in payload["error"]


def test_warnings_are_shown(bpmn: Bpmn) -> None:
    done = bpmn(
        "decide",
        LOAN,
        "--decision",
        "Application risk score",
        "--var",
        'Applicant data={"Age": "old"}',
    )
    assert done.returncode == 0
    assert "warning:" in done.stdout and "'old' is not a number" in done.stdout


def test_bad_input_exits_2(bpmn: Bpmn, tmp_path: Path) -> None:
    unknown = bpmn("decide", LOAN, "--decision", "Nope")
    assert unknown.returncode == 2 and "no decision 'Nope'" in unknown.stderr
    missing = bpmn("decide", str(tmp_path / "none.dmn"), "--decision", "X")
    assert missing.returncode == 2 and "none.dmn: no such file" in missing.stderr
    broken = tmp_path / "broken.dmn"
    broken.write_text(TABLE.replace("{policy}", "WHATEVER"))
    refused = bpmn("decide", str(broken), "--decision", "Points")
    assert refused.returncode == 2
    assert "broken.dmn:5: table: unknown hit policy 'WHATEVER'" in refused.stderr
    no_decision = bpmn("decide", LOAN)
    assert no_decision.returncode == 2 and "--decision" in no_decision.stderr
    for done in (unknown, missing, refused, no_decision):
        assert "Traceback" not in done.stderr
