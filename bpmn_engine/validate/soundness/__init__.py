"""Soundness rules: deadlock, lack of synchronisation, dead elements and livelocks.

A data-blind analysis of the control flow of every process and subprocess scope; see
`analysis.py` for the algorithm and `docs/rules.md` for what each rule reports.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.soundness.analysis import issues_for

if TYPE_CHECKING:
    from bpmn_engine.validate.document import Document


@dataclass(frozen=True)
class SoundnessRule:
    """One soundness rule; all four share one analysis per file (cached in `analysis`)."""

    id: str
    summary: str
    levels: dict[str, str] = field(
        default_factory=lambda: {"recommended": "error", "correctness": "error", "all": "error"}
    )

    def check(self, document: Document) -> Iterable[Issue]:
        if document.definitions is None:
            return []
        issues = issues_for(document.definitions, self.id)
        # next to a broken reference left out of the model, a finding would only echo it
        return [issue for issue in issues if issue.element not in document.left_out]


RULES: list = [
    SoundnessRule("deadlock", "no join waits forever for a token that cannot come"),
    SoundnessRule(
        "lack-of-synchronization", "no element runs twice because concurrent tokens merge"
    ),
    SoundnessRule("dead-element", "every flow node can be reached from a start"),
    SoundnessRule("livelock", "every loop has a way out to an end"),
]

__all__ = ["RULES", "SoundnessRule"]
