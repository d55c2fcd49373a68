"""Terminate end events in the state space: a terminate removes every token of its scope,
so a loop with no exit of its own beside a branch that always terminates is sound."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine.validate.findings import Issue
from tests.validate.soundness.diagrams import Node, check, process, subprocess

TERMINATE = ("endEvent", "", "<terminateEventDefinition/>")

POLLING = {
    "s": "startEvent",
    "fork": "parallelGateway",
    "poll": "task",
    "again": "exclusiveGateway",
    "work": "task",
    "stop": TERMINATE,
}
POLLING_FLOWS = "s->fork fork->poll poll->again again->poll fork->work work->stop"


def findings(found: dict[str, list[Issue]]) -> list[tuple[str, str]]:
    return [(rule, issue.element) for rule, issues in found.items() for issue in issues]


def test_polling_loop_beside_a_terminating_branch_is_sound(tmp_path: Path) -> None:
    assert findings(check(tmp_path, process(POLLING, POLLING_FLOWS))) == []


def test_the_same_loop_without_the_terminating_branch_is_a_livelock(tmp_path: Path) -> None:
    nodes = {k: v for k, v in POLLING.items() if k not in ("work", "stop")}
    found = check(tmp_path, process(nodes, "s->fork fork->poll poll->again again->poll"))
    assert [rule for rule, _ in findings(found)] == ["livelock"]
    assert found["livelock"][0].severity is None


def test_a_plain_end_beside_the_loop_does_not_end_it(tmp_path: Path) -> None:
    """Only a terminate removes the looping token: with a plain end it loops forever."""
    nodes = {**POLLING, "stop": "endEvent"}
    found = check(tmp_path, process(nodes, POLLING_FLOWS))
    assert [rule for rule, _ in findings(found)] == ["livelock"]
    issue = found["livelock"][0]
    assert issue.severity is None
    assert {"poll", "again"} <= set(issue.trace)


def test_terminate_reached_only_by_choice_leaves_a_possible_livelock(tmp_path: Path) -> None:
    """A branch that may terminate or may end plainly: the loop can run forever, depending
    on a decision, so it is reported, but as a warning (the data may rule it out)."""
    nodes = {**POLLING, "pick": "exclusiveGateway", "e": "endEvent"}
    flows = "s->fork fork->poll poll->again again->poll fork->work work->pick pick->stop pick->e"
    found = check(tmp_path, process(nodes, flows))
    assert [rule for rule, _ in findings(found)] == ["livelock"]
    assert found["livelock"][0].severity is not None


def test_terminate_in_a_subprocess_ends_only_its_own_loop(tmp_path: Path) -> None:
    inner = subprocess(POLLING, POLLING_FLOWS)
    nodes: dict[str, Node] = {"s0": "startEvent", "sub": inner, "e0": "endEvent"}
    assert findings(check(tmp_path, process(nodes, "s0->sub sub->e0"))) == []
