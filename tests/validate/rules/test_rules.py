"""Every bpmnlint rule flags its incorrect diagram at the right element and line, and is
silent on its correct one."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine.validate.rules import RULES
from tests.validate.rules import cases_di, cases_flow, cases_scope
from tests.validate.rules.bpmnxml import line_of, run
from tests.validate.rules.case import Case

CASES: list[Case] = [*cases_flow.CASES, *cases_scope.CASES, *cases_di.CASES]

BPMNLINT_RULES = {
    "ad-hoc-sub-process": ("error", "error"),
    "conditional-event": (None, "error"),
    "conditional-flows": ("error", None),
    "end-event-required": ("error", None),
    "event-based-gateway": ("error", "error"),
    "event-sub-process-typed-start-event": ("error", "error"),
    "fake-join": ("warn", None),
    "global": ("warn", None),
    "label-required": ("error", None),
    "link-event": ("error", "error"),
    "no-bpmndi": ("error", None),
    "no-complex-gateway": ("error", None),
    "no-disconnected": ("error", None),
    "no-duplicate-sequence-flows": ("error", "warn"),
    "no-gateway-join-fork": ("error", None),
    "no-implicit-end": ("error", None),
    "no-implicit-split": ("error", None),
    "no-implicit-start": ("error", None),
    "no-inclusive-gateway": ("warn", None),
    "no-overlapping-elements": ("warn", None),
    "single-blank-start-event": ("error", "error"),
    "single-event-definition": ("error", None),
    "standard-size": (None, None),
    "start-event-required": ("error", None),
    "sub-process-blank-start-event": ("error", "error"),
    "superfluous-gateway": ("warn", None),
    "superfluous-termination": ("warn", None),
}


def test_the_27_rules_have_bpmnlint_ids_and_default_levels() -> None:
    assert [rule.id for rule in RULES] == sorted(BPMNLINT_RULES)
    for rule in RULES:
        recommended, correctness = BPMNLINT_RULES[rule.id]
        expected = {"all": "error"}
        if recommended:
            expected["recommended"] = recommended
        if correctness:
            expected["correctness"] = correctness
        assert rule.levels == expected, rule.id
        assert rule.summary


def test_every_rule_has_a_case() -> None:
    assert sorted(case.rule.id for case in CASES) == sorted(BPMNLINT_RULES)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_incorrect_diagram_is_flagged_at_the_element(tmp_path: Path, case: Case) -> None:
    issues = run(tmp_path, case.rule, case.bad)
    flagged = [i for i in issues if i.element == case.element and case.message in i.message]
    assert flagged, issues
    assert flagged[0].line == line_of(case.bad, case.element)
    assert flagged[0].severity is None


@pytest.mark.parametrize("case", CASES, ids=str)
def test_correct_diagram_is_accepted(tmp_path: Path, case: Case) -> None:
    assert run(tmp_path, case.rule, case.good) == []
