"""Read every file once, run every enabled rule on it, and collect the findings in a Report.

A rule that crashes never stops the run: its exception becomes a `rule-error` finding, the
way bpmnlint reports one. A file that cannot be read (or is not BPMN) becomes a `parse`
finding and is skipped by the rules; the others are still checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bpmn_engine.validate import executable, references, schema
from bpmn_engine.validate.config import Config, resolve_levels
from bpmn_engine.validate.discover import discover
from bpmn_engine.validate.document import Document, Workspace
from bpmn_engine.validate.findings import Finding, Issue, Rule, Severity, rule_doc
from bpmn_engine.validate.presets import effective_severity

PARSE = "parse"
RULE_ERROR = "rule-error"
_XML_POSITION = re.compile(r", line (?P<line>\d+), column (?P<column>\d+)$")
Progress = Callable[[int, int], None]  # (steps done, steps in all): 2 per file


@dataclass
class Report:
    """The outcome of one validation run. `rules` are the rules that were on."""

    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def errors(self) -> int:
        return self.count(Severity.ERROR)

    @property
    def warnings(self) -> int:
        return self.count(Severity.WARNING)

    @property
    def unreadable(self) -> bool:
        """A file could not be read, was not XML or not BPMN: exit code 2."""
        return any(f.rule == PARSE for f in self.findings)

    def exit_code(self, max_warnings: int = -1, strict: bool = False) -> int:
        """2 unreadable input, 1 errors (or too many warnings, or any with `strict`), else 0."""
        if self.unreadable:
            return 2
        if self.errors or (strict and self.warnings):
            return 1
        if max_warnings >= 0 and self.warnings > max_warnings:
            return 1
        return 0


def all_rules() -> list[Rule]:
    """Every rule there is: the layers here, bpmnlint's rules, and the soundness rules."""
    # imported here: the rule packages import this package's modules themselves
    from bpmn_engine.validate.rules import RULES as BPMNLINT_RULES
    from bpmn_engine.validate.soundness import RULES as SOUNDNESS_RULES

    return [schema.RULE, references.RULE, executable.RULE, *BPMNLINT_RULES, *SOUNDNESS_RULES]


def run(
    paths: Iterable[str | Path],
    preset: str | None = None,
    config: Config | None = None,
    progress: Progress | None = None,
    search_path: Iterable[str | Path] = (),
) -> Report:
    """Read every file first (a reference may point into any of them), then check each;
    `search_path`: folders where a called process no file defines is looked for."""
    config = config or Config()
    rules = all_rules()
    levels, notes = resolve_levels(rules, preset, config)
    enabled = [r for r in rules if levels.get(r.id, "off") != "off"]
    found = discover(paths)
    report = Report(files=list(found.files), rules=enabled, notes=notes)
    for path, message in found.problems:
        report.findings.append(_parse_finding(path, None, message))
    steps = 2 * len(found.files)  # one to read each file, one to check it
    documents: list[Document] = []
    for path in found.files:
        documents.append(Document.read(path))
        if progress is not None:
            progress(len(documents), steps)
    Workspace(documents, search_path)
    for done, document in enumerate(documents, start=len(documents) + 1):
        document.rule_options = config.options
        report.findings.extend(check(document, enabled, levels))
        if progress is not None:
            progress(done, steps)
    report.findings.sort(key=_order)
    return report


def check(document: Document, rules: Iterable[Rule], levels: dict[str, str]) -> list[Finding]:
    """The findings for one document read by `Document.read`."""
    if document.read_error is not None:
        error = document.read_error
        return [_parse_finding(document.path, error.line, error.message)]
    if document.is_dmn:  # only the rules that read DMN (`executable`: it loads and compiles)
        rules = [rule for rule in rules if getattr(rule, "checks_dmn", False)]
    elif not document.is_bpmn:
        message = document.model_error.message if document.model_error else "not a BPMN file"
        return [_parse_finding(document.path, None, message)]
    findings: list[Finding] = []
    for rule in rules:
        try:
            issues = list(rule.check(document))
        except Exception as error:  # a bug in one rule must not hide the other findings
            message = f"rule {rule.id} failed: {type(error).__name__}: {error}"
            findings.append(_finding(document, RULE_ERROR, Issue(message), Severity.ERROR))
            continue
        for issue in issues:
            severity = effective_severity(issue.severity, levels.get(rule.id, "off"))
            if severity is not None:
                findings.append(_finding(document, rule.id, issue, severity))
    return findings


def _finding(document: Document, rule_id: str, issue: Issue, severity: Severity) -> Finding:
    line, column = issue.line, issue.column
    if column is None and issue.own_line and line:
        column = document.column_at(issue.element, line)
    elif column is None and issue.element:
        located_line, column = document.locate(issue.element, line)
        line = located_line if column is not None else line
    return Finding(
        file=document.path,
        line=line,
        column=column,
        element=issue.element,
        rule=rule_id,
        severity=severity,
        message=issue.message,
        hint=rule_doc(rule_id),
        trace=tuple(issue.trace),
    )


def _parse_finding(path: str, line: int | None, message: str) -> Finding:
    column = None
    where = _XML_POSITION.search(message)  # libxml2 says where: "..., line 3, column 7"
    if where:
        line, column = int(where["line"]), int(where["column"])
        message = message[: where.start()]
    return Finding(path, line, column, None, PARSE, Severity.ERROR, message, rule_doc(PARSE))


def _order(finding: Finding) -> tuple[str, int, int, str, str]:
    return (finding.file, finding.line or 0, finding.column or 0, finding.rule, finding.message)
