"""The four emitters: text, json, github and sarif, on one hand-made report."""

from __future__ import annotations

import io
import json

import pytest

from bpmn_engine.validate.findings import Finding, Severity
from bpmn_engine.validate.output import EMITTERS, FORMATS
from bpmn_engine.validate.output.github import command
from bpmn_engine.validate.output.text import summary
from bpmn_engine.validate.runner import Report
from bpmn_engine.validate.schema import RULE as SCHEMA

FINDINGS = [
    Finding("a.bpmn", 3, 5, "Flow_1", "schema", Severity.ERROR, "bad, really: bad", "h#schema"),
    Finding(
        "a.bpmn",
        9,
        None,
        "Join",
        "deadlock",
        Severity.WARNING,
        "join waits\nforever",
        "docs/rules.md#deadlock",
        ("Start", "Split", "Join"),
    ),
    Finding("b.bpmn", None, None, None, "parse", Severity.ERROR, "no such file", None),
    Finding("b.bpmn", 1, 1, None, "label-required", Severity.INFO, "missing label", None),
]


def report() -> Report:
    return Report(findings=list(FINDINGS), files=["a.bpmn", "b.bpmn", "c.bpmn"], rules=[SCHEMA])


def emit(output_format: str) -> str:
    out = io.StringIO()
    EMITTERS[output_format](report(), out)
    return out.getvalue()


def test_every_format_has_an_emitter() -> None:
    assert FORMATS == ("text", "json", "github", "sarif")


def test_text_groups_by_file_and_ends_with_the_summary() -> None:
    lines = emit("text").splitlines()
    assert lines == [
        "a.bpmn:3:5 error schema bad, really: bad [Flow_1]",
        "a.bpmn:9 warning deadlock join waits forever [Join]",
        "    trace: Start -> Split -> Join",
        "",
        "b.bpmn error parse no such file",
        "b.bpmn:1:1 info label-required missing label",
        "",
        "4 problems (2 errors, 1 warning, 1 info) in 3 files",
    ]


def test_the_summary_of_a_clean_run() -> None:
    assert summary(Report(files=["one.bpmn"])) == "0 problems (0 errors, 0 warnings) in 1 file"


def test_json_is_a_list_of_findings_with_every_key() -> None:
    data = json.loads(emit("json"))
    assert len(data) == 4
    keys = {"file", "line", "column", "element", "rule", "severity", "message", "hint", "trace"}
    assert all(set(item) == keys for item in data)
    assert data[1]["trace"] == ["Start", "Split", "Join"]
    assert (data[2]["line"], data[2]["severity"]) == (None, "error")


def test_github_lines_are_workflow_commands() -> None:
    lines = emit("github").splitlines()
    assert [line.split(" ")[0] for line in lines] == ["::error", "::warning", "::error", "::notice"]
    assert lines[0] == "::error file=a.bpmn,line=3,col=5,title=schema::bad, really: bad [Flow_1]"
    assert lines[1].endswith("::join waits%0Aforever [Join]")
    assert lines[2] == "::error file=b.bpmn,title=parse::no such file"


@pytest.mark.parametrize(("name", "escaped"), [("a,b:c.bpmn", "a%2Cb%3Ac.bpmn")])
def test_github_escapes_properties(name: str, escaped: str) -> None:
    finding = Finding(name, 1, 1, None, "parse", Severity.ERROR, "100% broken", None)
    assert command(finding) == f"::error file={escaped},line=1,col=1,title=parse::100%25 broken"


def test_sarif_is_version_2_1_0_with_rules_and_located_results() -> None:
    data = json.loads(emit("sarif"))
    assert data["version"] == "2.1.0"
    assert data["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    [run] = data["runs"]
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert {"schema", "parse", "rule-error", "deadlock", "label-required"} <= set(rules)
    assert rules["schema"]["helpUri"] == "docs/rules.md#schema"
    assert rules["schema"]["shortDescription"]["text"] == SCHEMA.summary
    first, second, third, fourth = run["results"]
    assert (first["ruleId"], first["level"], first["message"]["text"]) == (
        "schema",
        "error",
        "bad, really: bad",
    )
    location = first["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": "a.bpmn"},
        "region": {"startLine": 3, "startColumn": 5},
    }
    assert run["tool"]["driver"]["rules"][first["ruleIndex"]]["id"] == "schema"
    assert second["properties"]["trace"] == ["Start", "Split", "Join"]
    assert "region" not in third["locations"][0]["physicalLocation"]
    assert fourth["level"] == "note"
