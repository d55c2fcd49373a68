"""Which rules run, and how loud: `.bpmnlintrc` (JSON) or `[tool.bpmn.validate]` in pyproject.

Teams that already lint with bpmnlint keep their `.bpmnlintrc`: the same `extends` (a string
or a list of `bpmnlint:recommended|correctness|all`) and `rules` (id -> `off|warn|error|info`,
`0..3`, or `[level, options]`). Plugins cannot run here; they are skipped with a note.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bpmn_engine.errors import LoadError, UsageError
from bpmn_engine.tomlfiles import load_toml
from bpmn_engine.userfiles import read_user_file
from bpmn_engine.validate.findings import Rule
from bpmn_engine.validate.presets import DEFAULT_PRESET, LEVELS, merge_levels, preset_name

RC_FILE = ".bpmnlintrc"
PYPROJECT = "pyproject.toml"
_NUMERIC_LEVELS = {0: "off", 1: "warn", 2: "error", 3: "info"}


@dataclass(frozen=True)
class Config:
    """A parsed configuration. `extends` holds preset names; `rules` the levels set by hand."""

    extends: tuple[str, ...] = ()
    rules: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    source: str | None = None
    notes: tuple[str, ...] = ()


def load_config(path: str | Path | None = None, cwd: str | Path | None = None) -> Config:
    """The config in `path`, else `.bpmnlintrc`, else `pyproject.toml` in `cwd` (or none)."""
    if path is not None:
        path = Path(path)
        if not path.exists():
            raise UsageError(f"{path}: no such config file")
        return read_pyproject(path) if path.suffix == ".toml" else read_rc(path)
    folder = Path(cwd) if cwd is not None else Path.cwd()
    if (folder / RC_FILE).exists():  # a FIFO or a folder by that name is refused, not skipped
        return read_rc(folder / RC_FILE)
    if (folder / PYPROJECT).exists():
        return read_pyproject(folder / PYPROJECT)
    return Config()


def read_rc(path: Path) -> Config:
    try:
        data = json.loads(read_user_file(path).decode("utf-8"))
    except LoadError as error:
        raise UsageError(f"{error}") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise UsageError(f"{path}: not a readable JSON config: {error}") from None
    return parse_config(data, str(path))


def read_pyproject(path: Path) -> Config:
    try:
        data = load_toml(read_user_file(path).decode("utf-8"), str(path))
    except LoadError as error:
        raise UsageError(f"{error}") from None
    except UnicodeDecodeError as error:
        raise UsageError(f"{path}: not a readable TOML file: {error}") from None
    section = data.get("tool", {}).get("bpmn", {}).get("validate")
    if section is None:
        return Config(source=str(path))
    return parse_config(section, f"{path} [tool.bpmn.validate]")


def parse_config(data: Any, source: str) -> Config:
    """Check and normalise a config mapping; a mistake is a UsageError naming the file."""
    if not isinstance(data, dict):
        raise UsageError(f"{source}: the config must be an object with `extends` and `rules`")
    notes: list[str] = []
    extends = data.get("extends", [])
    if isinstance(extends, str):
        extends = [extends]
    if not isinstance(extends, list) or not all(isinstance(e, str) for e in extends):
        raise UsageError(f"{source}: `extends` must be a string or a list of strings")
    presets: list[str] = []
    for entry in extends:
        name = preset_name(entry)
        if name is not None:
            presets.append(name)
        elif entry.startswith("plugin:"):
            notes.append(f"{source}: {entry} skipped: bpmnlint plugins cannot run here")
        else:
            raise UsageError(f"{source}: unknown config {entry!r} in `extends`")
    rules_data = data.get("rules", {})
    if not isinstance(rules_data, dict):
        raise UsageError(f"{source}: `rules` must map rule ids to levels")
    rules: dict[str, str] = {}
    options: dict[str, Any] = {}
    for name, value in rules_data.items():
        rule_id = str(name).removeprefix("bpmnlint/")
        if "/" in rule_id:
            notes.append(f"{source}: rule {name} skipped: bpmnlint plugins cannot run here")
            continue
        level, rule_options = _rule_value(value, source, rule_id)
        rules[rule_id] = level
        if rule_options is not None:
            options[rule_id] = rule_options
    return Config(tuple(presets), rules, options, source, tuple(notes))


def _rule_value(value: Any, source: str, rule_id: str) -> tuple[str, Any]:
    rule_options = None
    if isinstance(value, list) and value:
        value, rule_options = value[0], (value[1] if len(value) > 1 else None)
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise UsageError(f"{source}: rule {rule_id}: level must be off|warn|error|info or 0..3")
    level = _NUMERIC_LEVELS.get(value) if isinstance(value, int) else value.strip().lower()
    level = "warn" if level == "warning" else level
    if level not in LEVELS:
        raise UsageError(f"{source}: rule {rule_id}: unknown level {value!r}")
    return level, rule_options


def resolve_levels(
    rules: Iterable[Rule], preset: str | None, config: Config
) -> tuple[dict[str, str], list[str]]:
    """Level per rule id: `preset` (or the config's `extends`, or `recommended`), then the
    config's own `rules`. Also notes on settings that name no known rule."""
    rules = list(rules)
    presets = [preset] if preset else list(config.extends) or [DEFAULT_PRESET]
    levels = merge_levels(rules, presets)
    notes = list(config.notes)
    for rule_id, level in config.rules.items():
        if rule_id not in levels:
            notes.append(f"{config.source or 'config'}: unknown rule {rule_id!r} ignored")
            continue
        levels[rule_id] = level
    return levels, notes
