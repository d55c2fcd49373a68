"""The presets `recommended`, `correctness` and `all`, built from each rule's own `levels`.

A rule declares its level per preset (bpmnlint's defaults for bpmnlint's rules), so adding a
rule never means editing a preset table here.
"""

from __future__ import annotations

from collections.abc import Iterable

from bpmn_engine.validate.findings import Rule, Severity

PRESETS = ("recommended", "correctness", "all")
DEFAULT_PRESET = "recommended"
LEVELS = ("off", "info", "warn", "error")
SEVERITY_OF_LEVEL = {"info": Severity.INFO, "warn": Severity.WARNING, "error": Severity.ERROR}
_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


def preset_name(extends: str) -> str | None:
    """`bpmnlint:recommended` (or plain `recommended`) -> `recommended`; None if unknown."""
    name = extends.removeprefix("bpmnlint:")
    return name if name in PRESETS else None


def preset_levels(rules: Iterable[Rule], preset: str) -> dict[str, str]:
    """Level of every rule in one preset. `all` turns every rule on, as bpmnlint's does."""
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r} (known: {', '.join(PRESETS)})")
    levels: dict[str, str] = {}
    for rule in rules:
        default = "error" if preset == "all" else "off"
        levels[rule.id] = rule.levels.get(preset, default)
    return levels


def merge_levels(rules: Iterable[Rule], presets: Iterable[str]) -> dict[str, str]:
    """Presets applied in order, a later one overriding an earlier one (bpmnlint `extends`)."""
    rules = list(rules)
    merged = dict.fromkeys((r.id for r in rules), "off")
    for preset in presets:
        for rule_id, level in preset_levels(rules, preset).items():
            if level != "off" or preset == "all":
                merged[rule_id] = level
    return merged


def effective_severity(issue_severity: Severity | None, level: str) -> Severity | None:
    """The severity a finding gets: the rule's level, or the issue's own if that is lower.

    An issue never rises above its rule's configured level, and an `off` rule reports nothing.
    """
    if level not in SEVERITY_OF_LEVEL:
        return None
    configured = SEVERITY_OF_LEVEL[level]
    if issue_severity is None or _RANK[issue_severity] > _RANK[configured]:
        return configured
    return issue_severity
