"""`bpmn validate`: schema, references, the bpmnlint rules, executability and soundness.

    from bpmn_engine.validate import validate
    report = validate(["models/"], preset="recommended")
    report.findings, report.errors, report.exit_code()

Everything `bpmn validate` does goes through `validate()`; the command only renders.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from bpmn_engine.errors import UsageError
from bpmn_engine.validate.config import Config, load_config
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Finding, Issue, Rule, Severity
from bpmn_engine.validate.presets import PRESETS
from bpmn_engine.validate.runner import Progress, Report, all_rules, run

__all__ = [
    "PRESETS",
    "Config",
    "Document",
    "Finding",
    "Issue",
    "Report",
    "Rule",
    "Severity",
    "all_rules",
    "load_config",
    "validate",
]


def validate(
    paths: str | Path | Iterable[str | Path],
    preset: str | None = None,
    config: Config | str | Path | None = None,
    progress: Progress | None = None,
    search_path: Iterable[str | Path] = (),
) -> Report:
    """Validate files, folders (recursively) and globs together, so references across them
    resolve. `preset` overrides the config's `extends` (default `recommended`); `config` is a
    `Config`, a path to a `.bpmnlintrc` / pyproject.toml, or None for no config file (the
    command reads the one in the current folder: `load_config()`). A called process none of
    the files defines is looked for beside the calling file, then in `search_path`'s folders."""
    if isinstance(paths, str | Path):
        paths = [paths]
    if preset is not None and preset not in PRESETS:
        raise UsageError(f"unknown preset {preset!r} (known: {', '.join(PRESETS)})")
    if config is not None and not isinstance(config, Config):
        config = load_config(config)
    return run(paths, preset, config, progress, search_path)
