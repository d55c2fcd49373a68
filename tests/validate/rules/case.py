"""One rule with a diagram it accepts and one it rejects, naming the element it must flag."""

from __future__ import annotations

from dataclasses import dataclass

from bpmn_engine.validate.findings import Rule


@dataclass(frozen=True)
class Case:
    rule: Rule
    good: str
    bad: str
    element: str  # the id the rule must report in `bad`
    message: str  # a part of the message it must say

    def __str__(self) -> str:
        return self.rule.id
