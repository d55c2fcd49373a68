"""What every validation layer produces: findings, and the rule contract they come from.

Every layer (`schema`, `references`, the bpmnlint rules, `executable`, soundness) is a set of
`Rule`s; each rule looks at one `Document` and yields `Finding`s. The runner
(`validate/runner.py`) applies the configured level to each rule, so a rule never decides its
own severity except for soundness findings that are warnings by nature (data-dependent).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bpmn_engine.validate.document import Document


RULES_DOC = "docs/rules.md"


def rule_doc(rule_id: str) -> str:
    """Where a rule is explained: every finding's `hint`, and SARIF's `helpUri`."""
    return f"{RULES_DOC}#{rule_id}"


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    """One problem at one place. `trace` is the counterexample path of a soundness finding."""

    file: str
    line: int | None
    column: int | None
    element: str | None
    rule: str
    severity: Severity
    message: str
    hint: str | None = None
    trace: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Issue:
    """What a rule reports; the runner turns it into a `Finding` with file, level and hint.

    `severity` is None to take the configured level of the rule; soundness rules set it to
    WARNING for data-dependent findings and for non-executable processes. Without a column,
    the runner moves `line` to where `element`'s start tag begins, unless `own_line` says
    that the line is that of what to edit (a condition, a script: the line `bpmn run` names).
    """

    message: str
    element: str | None = None
    line: int | None = None
    column: int | None = None
    severity: Severity | None = None
    trace: tuple[str, ...] = ()
    own_line: bool = False


class Rule(Protocol):
    """A validation rule. `id` is bpmnlint's rule id where one exists."""

    id: str
    # default level per preset: {"recommended": "error", "correctness": "warn", "all": "error"};
    # a preset missing from the dict means the rule is off in that preset
    levels: dict[str, str]
    summary: str  # one line: what the rule checks

    def check(self, document: Document) -> Iterable[Issue]: ...
