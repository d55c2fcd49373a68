"""Scenario files written next to copies of the models, in a temporary folder."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"


@pytest.fixture
def models(tmp_path: Path) -> Path:
    """A copy of models/ (diagrams and handlers), where tests add scenario files."""
    target = tmp_path / "models"
    shutil.copytree(MODELS, target, ignore=shutil.ignore_patterns("*.bpmntest.toml", "*.db*"))
    return target


@pytest.fixture
def scenario_file(models: Path) -> Callable[[str, str], Path]:
    def write(text: str, name: str = "case.bpmntest.toml") -> Path:
        path = models / name
        path.write_text(text)
        return path

    return write
