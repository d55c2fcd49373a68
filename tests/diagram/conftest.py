from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import Bpmn


@pytest.fixture
def bpmn(tmp_path: Path) -> Bpmn:
    return Bpmn(tmp_path)
