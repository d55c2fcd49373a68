"""The machine format: a JSON list of findings with stable keys (`trace` is [] unless set)."""

from __future__ import annotations

import json
from typing import Any, TextIO

from bpmn_engine.validate.findings import Finding
from bpmn_engine.validate.runner import Report


def as_dict(finding: Finding) -> dict[str, Any]:
    return {
        "file": finding.file,
        "line": finding.line,
        "column": finding.column,
        "element": finding.element,
        "rule": finding.rule,
        "severity": str(finding.severity),
        "message": finding.message,
        "hint": finding.hint,
        "trace": list(finding.trace),
    }


def emit(report: Report, out: TextIO) -> None:
    json.dump([as_dict(f) for f in report.findings], out, indent=2, ensure_ascii=False)
    out.write("\n")
