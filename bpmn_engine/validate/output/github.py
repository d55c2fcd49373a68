"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request.

`::error file=...,line=...,col=...,title=rule::message`; values are escaped as the runner
expects (`%`, CR, LF everywhere; `:` and `,` inside properties too).
"""

from __future__ import annotations

from typing import TextIO

from bpmn_engine.validate.findings import Finding, Severity
from bpmn_engine.validate.runner import Report

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(finding: Finding) -> str:
    properties = [f"file={escape_property(finding.file)}"]
    if finding.line:
        properties.append(f"line={finding.line}")
        if finding.column:
            properties.append(f"col={finding.column}")
    properties.append(f"title={escape_property(finding.rule)}")
    message = finding.message + (f" [{finding.element}]" if finding.element else "")
    return f"::{COMMANDS[finding.severity]} {','.join(properties)}::{escape_data(message)}"


def emit(report: Report, out: TextIO) -> None:
    for finding in report.findings:
        out.write(command(finding) + "\n")
