"""Shared fixtures: paths to the MIWG reference diagrams and a helper to write inline BPMN."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MIWG = ROOT.parent / "shared" / "miwg" / "reference"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def miwg_dir() -> Path:
    if not MIWG.is_dir():
        pytest.skip("the MIWG reference diagrams (../shared/miwg/reference) are not here")
    return MIWG
