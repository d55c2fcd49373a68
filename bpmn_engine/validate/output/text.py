"""The human format: findings grouped by file, errors first, one `path:line:col` line each,
summary last.

`path:line:col severity rule-id message [element-id]` is what editors and terminals turn into
links; colour is added only when the stream is a terminal, so logs and pipes stay plain.
"""

from __future__ import annotations

from itertools import groupby
from typing import TextIO

from rich.console import Console

from bpmn_engine.terminal import safe, visible
from bpmn_engine.validate.findings import Finding, Severity
from bpmn_engine.validate.runner import Report

STYLES = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "blue"}
# in each file, errors first, then warnings, then infos (each in line order): a file's errors
# are what blocks a deploy, and a long run of style warnings buried them
FIRST = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def emit(report: Report, out: TextIO) -> None:
    colour = out.isatty()
    console = Console(file=out, highlight=False, soft_wrap=True) if colour else None
    for _, group in groupby(report.findings, key=lambda f: f.file):
        for finding in sorted(group, key=lambda f: FIRST[f.severity]):
            lines = [line(finding, colour)]
            if finding.trace:
                trace = "    trace: " + " -> ".join(finding.trace)
                lines.append(safe(trace) if colour else visible(trace))
            for text in lines:
                if console is not None:
                    console.print(text)
                else:
                    out.write(text + "\n")
        out.write("\n")
    if console is not None:
        style = "bold red" if report.errors else "bold yellow" if report.warnings else "bold green"
        console.print(f"[{style}]{safe(summary(report))}[/]")
    else:
        out.write(summary(report) + "\n")


def location(finding: Finding) -> str:
    """`path:line:col`, leaving out what is unknown."""
    where = finding.file
    if finding.line:
        where += f":{finding.line}"
        if finding.column:
            where += f":{finding.column}"
    return where


def line(finding: Finding, colour: bool = False) -> str:
    element = f" [{finding.element}]" if finding.element else ""
    message = " ".join(finding.message.split())  # names may hold line breaks
    if not colour:
        return visible(f"{location(finding)} {finding.severity} {finding.rule} {message}{element}")
    style = STYLES[finding.severity]
    return (
        f"[bold]{safe(location(finding))}[/] [{style}]{finding.severity}[/] "
        f"[cyan]{safe(finding.rule)}[/] {safe(message)}[dim]{safe(element)}[/]"
    )


def summary(report: Report) -> str:
    """`N problems (E errors, W warnings) in F files`."""
    infos = report.count(Severity.INFO)
    parts = [_plural(report.errors, "error"), _plural(report.warnings, "warning")]
    if infos:
        parts.append(_plural(infos, "info"))
    problems = _plural(len(report.findings), "problem")
    return f"{problems} ({', '.join(parts)}) in {_plural(len(report.files), 'file')}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 or noun == "info" else f"{count} {noun}s"
