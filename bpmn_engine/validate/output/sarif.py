"""SARIF 2.1.0, for GitHub code scanning and other static-analysis dashboards.

Each rule that ran is listed under the tool's driver with a `helpUri` into docs/rules.md;
each finding is a result at a file, line and column. Soundness traces go in `properties`.
"""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from bpmn_engine.validate.findings import Finding, Severity, rule_doc
from bpmn_engine.validate.runner import PARSE, RULE_ERROR, Report

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
BUILT_IN = {
    PARSE: "the file can be read, is well-formed XML, and is a BPMN 2.0 document",
    RULE_ERROR: "a rule failed while checking the file (a bug: please report it)",
}


def emit(report: Report, out: TextIO) -> None:
    json.dump(sarif(report), out, indent=2, ensure_ascii=False)
    out.write("\n")


def sarif(report: Report) -> dict[str, Any]:
    summaries = {rule.id: rule.summary for rule in report.rules} | BUILT_IN
    for finding in report.findings:  # a rule may report even if the caller filtered the list
        summaries.setdefault(finding.rule, finding.rule)
    index = {rule_id: i for i, rule_id in enumerate(summaries)}
    driver = {
        "name": "bpmn-engine",
        "version": _version(),
        "rules": [_rule(rule_id, text) for rule_id, text in summaries.items()],
    }
    return {
        "$schema": SCHEMA,
        "version": VERSION,
        "runs": [
            {
                "tool": {"driver": driver},
                "results": [_result(f, index[f.rule]) for f in report.findings],
            }
        ],
    }


def _rule(rule_id: str, summary: str) -> dict[str, Any]:
    return {
        "id": rule_id,
        "name": rule_id,
        "shortDescription": {"text": summary},
        "helpUri": rule_doc(rule_id),
    }


def _result(finding: Finding, rule_index: int) -> dict[str, Any]:
    location: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(finding.file)}}
    if finding.line:
        region = {"startLine": finding.line}
        if finding.column:
            region["startColumn"] = finding.column
        location["region"] = region
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": location}],
    }
    if finding.element:
        result["locations"][0]["logicalLocations"] = [{"name": finding.element}]
    if finding.trace:
        result["properties"] = {"trace": list(finding.trace)}
    return result


def artifact_uri(path: str) -> str:
    """A relative path stays relative (code scanning resolves it against the repository)."""
    candidate = Path(path)
    if candidate.is_absolute():
        return candidate.as_uri()
    return quote(candidate.as_posix())


def _version() -> str:
    try:
        return metadata.version("bpmn-engine")
    except metadata.PackageNotFoundError:
        return "0"
