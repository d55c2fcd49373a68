"""What a service that only names things gets from the engine (the HTTP API is one):
a deployed process started by its id, a diagram read from text, a decision evaluated by
name, and `NotFound` (a UsageError) for what is not there."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import LoadError, NotFound, UsageError, load_decisions, loads
from tests.dmn.tables import decision_file, table_xml
from tests.runtime.conftest import HEADER, MakeEngine, flow

WAITS = (
    f'{HEADER}<process id="p" isExecutable="true"><startEvent id="S"/>{flow("S", "T")}'
    f'<userTask id="T"/>{flow("T", "E")}<endEvent id="E"/></process></definitions>'
)


def test_a_deployed_process_starts_by_its_id(make_engine: MakeEngine) -> None:
    engine = make_engine()
    [deployment] = engine.deploy_processes(loads(WAITS, "waits.bpmn"))
    assert [d["process"] for d in engine.deployments()] == ["p"]
    instance = engine.start_deployed("p", {"x": 1}, business_key="K-1")
    assert instance.definition_version == deployment.version
    assert instance.run().state == "waiting" and instance.business_key == "K-1"
    shown = engine.instance(instance.id).to_json(last=1)
    assert shown["state"] == "waiting" and len(shown["history"]) == 1
    with pytest.raises(NotFound, match=r"no process 'q' is deployed \(deployed: p\)"):
        engine.start_deployed("q")


def test_text_that_is_no_diagram_names_itself() -> None:
    with pytest.raises(LoadError, match=r"upload\.bpmn"):
        loads("<definitions", "upload.bpmn")


def test_a_decision_is_evaluated_by_name_and_a_missing_one_is_not_found(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    engine = make_engine()
    rules = [(["> 1"], ['"big"']), (["<= 1"], ['"small"'])]
    engine.deploy_decisions(
        load_decisions(decision_file(tmp_path, table_xml("UNIQUE", ["x"], ["y"], rules)))
    )
    assert engine.decide("Decision", {"x": 3}).value == "big"
    with pytest.raises(NotFound):
        engine.decide("Nothing")
    assert issubclass(NotFound, UsageError)  # every `except UsageError` still catches it
    with pytest.raises(NotFound, match="no instance"):
        engine.instance("missing")
