"""The reference diagrams raise no soundness errors; large models are checked at once."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Severity
from bpmn_engine.validate.soundness import RULES, search
from tests.validate.soundness.diagrams import check, process, structured


def test_miwg_reference_diagrams_have_no_soundness_errors(miwg_dir: Path) -> None:
    files = sorted(miwg_dir.glob("*.bpmn"))
    assert len(files) == 21
    errors = []
    for path in files:
        document = Document.read(str(path))
        assert document.definitions is not None, path.name
        for rule in RULES:
            errors += [(path.name, rule.id, i) for i in rule.check(document) if i.severity is None]
    assert errors == []


def test_large_structured_model_is_checked_without_searching_its_states(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its blocks are proved sound by structure, so the state search (exponential in the
    parallel branches) runs on almost nothing: the work does not grow with the model."""
    searched: list[int] = []
    run = search.Search.run

    def counting(self: search.Search, initial: Iterable[str]) -> list:
        try:
            return run(self, initial)
        finally:
            searched.append(len(self.markings))

    monkeypatch.setattr(search.Search, "run", counting)
    nodes, flows = structured(2000)
    assert len(nodes) > 1800
    path = tmp_path / "large.bpmn"
    path.write_text(process(nodes, flows))
    document = Document.read(str(path))
    found = [i for rule in RULES for i in rule.check(document)]
    assert found == []
    assert sum(searched) <= 10, searched  # measured: one search of 3 markings


def test_flaw_deep_inside_a_large_model_is_an_error_at_its_place(tmp_path: Path) -> None:
    """Decomposition localises the flaw: it is certain within its own fragment."""
    nodes, flows = structured(600, seed=3)
    nodes.update({"fx": "exclusiveGateway", "fa": "task", "fb": "task", "fj": "parallelGateway"})
    first = flows.split()[0]  # splice the flawed block into the first flow
    source, target = first.split("->")
    target = target.split("?")[0].rstrip("!")
    flows = flows.replace(first, f"{source}->fx", 1)
    flows += f" fx->fa fx->fb fa->fj fb->fj fj->{target}"
    found = check(tmp_path, process(nodes, flows))
    assert [(i.element, i.severity) for i in found["deadlock"]] == [("fj", None)]
    assert sum(len(v) for v in found.values()) == 1


def test_past_the_state_bound_the_result_is_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fork of 12 branches into an inclusive join needs 4 096 markings; allow 500."""
    monkeypatch.setattr(search, "MAX_STATES", 500)
    nodes = {"s": "startEvent", "fork": "task", "join": "inclusiveGateway", "e": "endEvent"}
    flows = ["s->fork", "join->e"]
    for number in range(12):
        nodes[f"t{number}"] = "task"
        flows += [f"fork->t{number}", f"t{number}->join"]
    found = check(tmp_path, process(nodes, " ".join(flows)))
    assert [i.severity for i in found["deadlock"]] == [Severity.INFO]
    assert "soundness unknown" in found["deadlock"][0].message
    assert sum(len(v) for v in found.values()) == 1
