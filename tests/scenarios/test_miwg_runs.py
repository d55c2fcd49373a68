"""Running the MIWG reference diagrams: each either runs, waits, is refused at load with a
location, or fails with an incident naming an element of the file. Never a crash."""

from __future__ import annotations

import pytest

from bpmn_engine import Engine, LoadError, UsageError, load
from tests.conftest import MIWG

NAMES = sorted(p.name for p in MIWG.glob("*.bpmn"))


@pytest.mark.parametrize("name", NAMES)
def test_every_process_of_a_reference_diagram_runs_or_is_refused_clearly(name: str) -> None:
    definitions = load(MIWG / name)
    engine = Engine(":memory:")
    for process_id, process in definitions.processes.items():
        if not process.nodes:
            continue
        try:
            instance = engine.start(definitions, process_id)
        except LoadError as error:
            assert error.file == str(MIWG / name) and error.line and error.element_id
            continue
        except UsageError as error:
            assert process_id in str(error) and "start" in str(error)
            continue
        steps = 0
        while instance.step_once():
            steps += 1
            assert steps < 10_000, f"{process_id} does not settle: {instance.tokens()}"
        outcome = instance.outcome()
        assert outcome.state in ("completed", "waiting", "failed")
        if outcome.state == "failed":
            element, _, message = outcome.incident.partition(": ")
            assert element in definitions.node_scopes, outcome.incident
            assert message
        if outcome.state == "waiting":
            assert outcome.waiting_for
