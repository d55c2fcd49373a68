"""`--trust-scripts`: Python conditions and mappings run as full Python, as trusted scripts do;
every Python script has `datetime` and `timedelta` without an import (docs/sandbox.md)."""

from __future__ import annotations

import pytest

from bpmn_engine import LoadError
from tests.runtime.conftest import Bpmn, MakeEngine, activations, flow, script

HAS_X = "'x' in vars()"


def gateway(condition: str) -> str:
    """S -> G; G -> Has when `condition` holds, else (default) -> Lacks."""
    return (
        '<startEvent id="S"/><exclusiveGateway id="G" default="G_Lacks"/>'
        '<task id="Has"/><task id="Lacks"/><endEvent id="E1"/><endEvent id="E2"/>'
        + flow("S", "G")
        + flow("G", "Has", condition=condition)
        + flow("G", "Lacks")
        + flow("Has", "E1")
        + flow("Lacks", "E2")
    )


@pytest.mark.parametrize(
    ("variables", "taken"), [({"x": 0}, "Has"), ({}, "Lacks")], ids=["defined", "undefined"]
)
def test_a_trusted_condition_asks_whether_a_variable_exists_with_vars(
    bpmn: Bpmn, make_engine: MakeEngine, variables: dict, taken: str
) -> None:
    # given
    engine = make_engine(trust_scripts=True)
    path = bpmn(gateway(HAS_X))
    # when
    instance = engine.start(path, variables=variables)
    outcome = instance.run()
    # then
    assert outcome.state == "completed", outcome.incident
    assert [e for e in activations(instance) if e in ("Has", "Lacks")] == [taken]


def test_without_trust_the_condition_is_refused_before_the_first_step(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    # given: the same condition, no --trust-scripts
    path = bpmn(gateway(HAS_X))
    # when
    with pytest.raises(LoadError) as refused:
        make_engine().start(path, variables={"x": 0})
    # then: the sandbox has no `vars`; the flow is named
    assert refused.value.element_id == "G_Has" and refused.value.line
    assert "'vars' is not allowed in a sandboxed expression" in str(refused.value)


def test_a_trusted_loop_condition_is_full_python_too(bpmn: Bpmn, make_engine: MakeEngine) -> None:
    # given: a standard loop that runs until its script defines `done`
    engine = make_engine(trust_scripts=True)
    task = (
        '<scriptTask id="A" scriptFormat="python"><standardLoopCharacteristics>'
        "<loopCondition>'done' not in vars()</loopCondition></standardLoopCharacteristics>"
        "<script>n = n + 1\nif n == 3:\n    done = True</script></scriptTask>"
    )
    path = bpmn(
        '<startEvent id="S"/>' + task + '<endEvent id="E"/>' + flow("S", "A") + flow("A", "E")
    )
    # when
    outcome = engine.start(path, variables={"n": 0}).run()
    # then
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["n"] == 3


def test_a_trusted_mapping_is_full_python_too(bpmn: Bpmn, make_engine: MakeEngine) -> None:
    # given: a data association whose transformation falls back when `limit` is undefined
    engine = make_engine(trust_scripts=True)
    task = (
        '<scriptTask id="Count" scriptFormat="python"><property id="items"/>'
        '<dataInputAssociation id="R"><sourceRef>Cart</sourceRef><targetRef>items</targetRef>'
        "<transformation>cart[:limit] if 'limit' in vars() else cart</transformation>"
        "</dataInputAssociation><script>n = len(items)</script></scriptTask>"
    )
    body = (
        '<dataObject id="cart"/><dataObjectReference id="Cart" dataObjectRef="cart"/>'
        '<startEvent id="S"/>'
        + task
        + '<endEvent id="E"/>'
        + flow("S", "Count")
        + flow("Count", "E")
    )
    # when
    outcome = engine.start(bpmn(body), variables={"cart": ["a", "b", "c"]}).run()
    # then
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["n"] == 3


@pytest.mark.parametrize("trusted", [False, True], ids=["sandboxed", "trusted"])
def test_a_script_has_datetime_and_timedelta_without_an_import(
    bpmn: Bpmn, make_engine: MakeEngine, trusted: bool
) -> None:
    # given: SpiffArena's names, used without an import
    code = (
        "due = datetime(2026, 1, 1) + timedelta(days=1)\n"
        "gap = due - datetime(2025, 12, 31, 12)\n"
        "late = due > datetime(2026, 1, 1)\n"
        "day = due.day"
    )
    engine = make_engine(trust_scripts=trusted)
    path = bpmn('<startEvent id="S"/>' + script("T", code) + flow("S", "T"))
    # when
    outcome = engine.start(path).run()
    # then: dates and durations are stored as their ISO 8601 text
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["due"] == "2026-01-02T00:00:00"
    assert outcome.variables["gap"] == "P1DT12H"
    assert outcome.variables["late"] is True
    assert outcome.variables["day"] == 2


def test_a_trusted_script_that_deletes_a_variable_deletes_it(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    """`del x` was ignored without a word: `x` stayed with its old value (SpiffWorkflow's
    scripts clean up their data so, and a later `'x' in vars()` read the stale one)."""
    engine = make_engine(trust_scripts=True)
    body = (
        '<startEvent id="S"/>'
        + script("Clean", "del tmp\ndone = 'tmp' not in vars()")
        + '<endEvent id="E"/>'
        + flow("S", "Clean")
        + flow("Clean", "E")
    )
    instance = engine.start(bpmn(body), variables={"tmp": 1, "keep": 2})
    outcome = instance.run()
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables == {"keep": 2, "done": True}
    [updated] = [e for e in instance.history() if e.event == "variables.updated"]
    assert updated.data["unset"] == ["tmp"]


def test_a_sandboxed_script_that_deletes_is_refused_before_the_first_step(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    body = '<startEvent id="S"/>' + script("Clean", "del tmp") + flow("S", "Clean")
    with pytest.raises(LoadError, match="'del' statements are not allowed"):
        make_engine().start(bpmn(body), variables={"tmp": 1})
