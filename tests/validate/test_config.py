"""Configuration: `.bpmnlintrc`, `[tool.bpmn.validate]`, presets and levels."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine.errors import UsageError
from bpmn_engine.validate import Config, load_config, validate
from bpmn_engine.validate.config import parse_config, resolve_levels
from bpmn_engine.validate.findings import Severity
from bpmn_engine.validate.presets import effective_severity, merge_levels, preset_levels


class FakeRule:
    def __init__(self, id: str, **levels: str) -> None:
        self.id, self.levels, self.summary = id, levels, id

    def check(self, document: object) -> list:
        return []


RULES = [
    FakeRule("style", recommended="warn"),
    FakeRule("bug", recommended="error", correctness="warn"),
    FakeRule("nitpick"),
]
BROKEN = (
    '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="D" '
    'targetNamespace="http://example.com"><bpmn:process id="P">'
    '<bpmn:sequenceFlow id="F" sourceRef="Nowhere" targetRef="Nothing"/>'
    "</bpmn:process></bpmn:definitions>"
)


def test_presets_come_from_each_rules_levels() -> None:
    assert preset_levels(RULES, "recommended") == {
        "style": "warn",
        "bug": "error",
        "nitpick": "off",
    }
    assert preset_levels(RULES, "all") == dict.fromkeys(["style", "bug", "nitpick"], "error")
    assert merge_levels(RULES, ["recommended", "correctness"])["bug"] == "warn"


def test_a_bpmnlintrc_is_parsed_like_bpmnlint() -> None:
    config = parse_config(
        {
            "extends": ["bpmnlint:recommended", "plugin:camunda/recommended"],
            "rules": {
                "bpmnlint/style": 0,
                "bug": "WARN",
                "nitpick": ["info", {"width": 100}],
                "camunda/forbidden": "error",
            },
        },
        ".bpmnlintrc",
    )
    assert config.extends == ("recommended",)
    assert config.rules == {"style": "off", "bug": "warn", "nitpick": "info"}
    assert config.options == {"nitpick": {"width": 100}}
    assert len(config.notes) == 2  # the plugin config and the plugin rule are skipped


@pytest.mark.parametrize(
    "data",
    [
        {"extends": "eslint:recommended"},
        {"extends": 3},
        {"rules": {"bug": "loud"}},
        {"rules": {"bug": 7}},
        {"rules": {"bug": True}},
        {"rules": []},
        [],
    ],
)
def test_a_bad_config_is_a_usage_error_naming_the_file(data: object) -> None:
    with pytest.raises(UsageError, match=r"^my\.rc"):
        parse_config(data, "my.rc")


def test_levels_start_from_the_preset_then_the_configs_rules() -> None:
    config = Config(extends=("correctness",), rules={"nitpick": "error", "ghost": "warn"})
    levels, notes = resolve_levels(RULES, None, config)
    assert levels == {"style": "off", "bug": "warn", "nitpick": "error"}
    assert notes == ["config: unknown rule 'ghost' ignored"]
    levels, _ = resolve_levels(RULES, "recommended", config)  # --preset replaces `extends`
    assert levels == {"style": "warn", "bug": "error", "nitpick": "error"}
    levels, _ = resolve_levels(RULES, None, Config())  # no `extends`: recommended
    assert levels["bug"] == "error"


def test_an_issue_is_never_louder_than_its_rule() -> None:
    assert effective_severity(None, "warn") == Severity.WARNING
    assert effective_severity(Severity.ERROR, "warn") == Severity.WARNING
    assert effective_severity(Severity.WARNING, "error") == Severity.WARNING
    assert effective_severity(Severity.ERROR, "off") is None


def test_bpmnlintrc_in_the_folder_comes_before_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.bpmn.validate]\nrules = { "references" = "warn" }\n', "utf-8"
    )
    assert load_config(cwd=tmp_path).rules == {"references": "warn"}
    (tmp_path / ".bpmnlintrc").write_text('{"rules": {"references": "off"}}', "utf-8")
    assert load_config(cwd=tmp_path).rules == {"references": "off"}
    assert load_config(cwd=tmp_path / "elsewhere") == Config()


def test_a_pyproject_without_the_section_is_no_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', "utf-8")
    assert load_config(cwd=tmp_path).rules == {}


def test_a_missing_config_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such config file"):
        load_config(tmp_path / "nope.json")


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".bpmnlintrc", '{"extends": "bpmnlint:recommended", "rules": {"references": "off"}}'),
        ("pyproject.toml", '[tool.bpmn.validate]\nrules = { references = "off" }\n'),
    ],
)
def test_a_config_file_turns_a_rule_off(tmp_path: Path, name: str, text: str) -> None:
    diagram = tmp_path / "broken.bpmn"
    diagram.write_text(BROKEN, "utf-8")
    assert "references" in {f.rule for f in validate(diagram).findings}
    (tmp_path / name).write_text(text, "utf-8")
    report = validate(diagram, config=tmp_path / name)
    assert "references" not in {f.rule for f in report.findings}
    assert "references" not in {rule.id for rule in report.rules}
