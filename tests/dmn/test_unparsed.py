"""One element that does not compile refuses only what depends on it (issue 29, item 1):
the model loads, the other decisions evaluate, and every such element is listed at once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpmn_engine import LoadError, dmn
from tests.cli.conftest import Bpmn
from tests.dmn.tables import NAMESPACES

MODEL = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="{ns}" id="m" name="m" namespace="urn:m">
  <decision id="ok" name="Ok">
    <literalExpression id="okLit"><text>1 + 1</text></literalExpression>
  </decision>
  <decision id="broken" name="Broken">
    <literalExpression id="brokenLit"><text>1 +* 2</text></literalExpression>
  </decision>
  <decision id="needsBroken" name="Needs broken">
    <informationRequirement id="r1"><requiredDecision href="#broken"/></informationRequirement>
    <literalExpression id="needsLit"><text>Broken + 1</text></literalExpression>
  </decision>
  <businessKnowledgeModel id="bkm" name="Twice">
    <encapsulatedLogic id="fn">
      <formalParameter name="x"/>
      <literalExpression id="bkmLit"><text>x * * 2</text></literalExpression>
    </encapsulatedLogic>
  </businessKnowledgeModel>
  <decision id="invokes" name="Invokes">
    <knowledgeRequirement id="k1"><requiredKnowledge href="#bkm"/></knowledgeRequirement>
    <literalExpression id="invokesLit"><text>Twice(3)</text></literalExpression>
  </decision>
  <decision id="other" name="Other">
    <informationRequirement id="r2"><requiredDecision href="#ok"/></informationRequirement>
    <literalExpression id="otherLit"><text>Ok * 10</text></literalExpression>
  </decision>
</definitions>
"""


@pytest.fixture
def bpmn(tmp_path: Path) -> Bpmn:
    return Bpmn(Path(__file__).resolve().parents[2])  # models/ is relative to the checkout


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "m.dmn"
    path.write_text(MODEL.format(ns=NAMESPACES["1.3"]))
    return path


def test_the_model_loads_and_what_compiles_evaluates(model: Path) -> None:
    decisions = dmn.load(model)
    assert decisions.evaluate("Ok").value == 2
    other = decisions.evaluate("Other")
    assert other.value == 20 and other.error is None


def test_the_element_that_does_not_compile_fails_naming_file_line_and_reason(
    model: Path,
) -> None:
    result = dmn.load(model).evaluate("Broken")
    assert result.value is None
    assert result.error is not None
    assert f"{model}:7: brokenLit: FEEL syntax error" in result.error
    assert "does not compile" in result.error


def test_what_requires_it_fails_too(model: Path) -> None:
    decisions = dmn.load(model)
    needs = decisions.evaluate("Needs broken")
    assert needs.value is None
    # the required decision's failure is the reason: its value was null
    assert any("does not compile" in w for w in needs.warnings)
    invokes = decisions.evaluate("Invokes")
    assert invokes.value is None
    assert invokes.error is not None and "'Twice' does not compile" in invokes.error
    assert "DecisionFailed" not in invokes.error
    assert f"{model}:16: bkmLit" in invokes.error


def test_every_such_element_is_listed_at_once(model: Path) -> None:
    found = dmn.load(model).unparsed()
    assert [(u.where.line, u.where.id) for u in found] == [(7, "brokenLit"), (16, "bkmLit")]
    assert all("FEEL syntax error" in u.problem for u in found)
    problem = dmn.load(model).does_not_compile("Broken")
    assert isinstance(problem, LoadError) and problem.line == 7
    assert dmn.load(model).does_not_compile("Ok") is None


def test_decide_check_lists_them_and_exits_1(bpmn: Bpmn, model: Path) -> None:
    checked = bpmn("decide", str(model), "--check")
    assert checked.returncode == 1, checked.stderr
    assert f"{model}:7: brokenLit: FEEL syntax error" in checked.stdout
    assert f"{model}:16: bkmLit: FEEL syntax error" in checked.stdout
    assert "2 elements do not compile" in checked.stdout
    lines = [
        json.loads(x) for x in bpmn("decide", str(model), "--check", "--json").stdout.splitlines()
    ]
    assert [(x["line"], x["element"]) for x in lines] == [(7, "brokenLit"), (16, "bkmLit")]


def test_decide_check_on_a_sound_model_exits_0(bpmn: Bpmn) -> None:
    done = bpmn("decide", "models/shipping-rules.dmn", "--check")
    assert done.returncode == 0 and "every decision and BKM compiles" in done.stdout


def test_deciding_an_element_that_does_not_compile_exits_2(bpmn: Bpmn, model: Path) -> None:
    broken = bpmn("decide", str(model), "--decision", "Broken")
    assert broken.returncode == 2 and f"{model}:7: brokenLit: FEEL syntax error" in broken.stderr
    fine = bpmn("decide", str(model), "--decision", "Other")
    assert fine.returncode == 0 and "20" in fine.stdout


def test_deciding_what_requires_an_element_that_does_not_compile_exits_2(
    bpmn: Bpmn, model: Path
) -> None:
    for name, line, element in (("Needs broken", 7, "brokenLit"), ("Invokes", 16, "bkmLit")):
        done = bpmn("decide", str(model), "--decision", name)
        assert done.returncode == 2, done.stdout
        assert f"{model}:{line}: {element}: FEEL syntax error" in done.stderr
