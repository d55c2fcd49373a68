"""Run the real `bpmn` command in a subprocess, the way a user or CI does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"
FIXTURES = ROOT / "tests" / "fixtures"


class Bpmn:
    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd

    def __call__(self, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "cli", *args],
            cwd=self.cwd,
            capture_output=True,
            text=True,
            input=input,
            timeout=120,
        )

    def json_lines(self, *args: str) -> tuple[int, list[dict[str, Any]]]:
        done = self(*args, "--json")
        assert done.stderr == "" or "Traceback" not in done.stderr
        return done.returncode, [json.loads(line) for line in done.stdout.splitlines()]


@pytest.fixture
def bpmn(tmp_path: Path) -> Bpmn:
    return Bpmn(tmp_path)
