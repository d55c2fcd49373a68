"""All 27 rules run over the 21 MIWG reference diagrams without an exception.

Style findings are expected there (the reference models are drawn by many tools); each one
must still point at an element of the file and a line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine.validate.document import Document
from bpmn_engine.validate.rules import RULES
from tests.conftest import MIWG

NAMES = sorted(p.name for p in MIWG.glob("*.bpmn"))


@pytest.mark.parametrize("name", NAMES)
def test_all_rules_run_on_reference_diagram(miwg_dir: Path, name: str) -> None:
    document = Document.read(str(miwg_dir / name))
    assert document.root is not None
    ids = {e.get("id") for e in document.root.iter() if isinstance(e.tag, str)}
    for rule in RULES:
        for issue in rule.check(document):
            assert issue.element in ids, (rule.id, issue)
            assert issue.line is not None and issue.line > 0, (rule.id, issue)
            assert issue.severity is None, (rule.id, issue)
