"""The classic soundness cases, each a tiny diagram: one flaw found, or none at all."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine.validate.findings import Issue, Severity
from tests.validate.soundness.diagrams import Node, check, process, subprocess

TERMINATE = ("endEvent", "", "<terminateEventDefinition/>")
REMINDER = ("boundaryEvent", 'attachedToRef="a" cancelActivity="false"', "<timerEventDefinition/>")


def diamond(split: str, join: str) -> dict[str, Node]:
    return {
        "s": "startEvent",
        "split": split,
        "a": "task",
        "b": "task",
        "join": join,
        "e": "endEvent",
    }


FLOWS = "s->split split->a{0} split->b{0} a->join b->join join->e"


def only(found: dict[str, list[Issue]], rule: str) -> Issue:
    """The one issue of the diagram, which must be of `rule`."""
    everything = [(r, i) for r, issues in found.items() for i in issues]
    assert [r for r, _ in everything] == [rule], everything
    return everything[0][1]


def clean(found: dict[str, list[Issue]]) -> bool:
    return not any(found.values())


def test_parallel_join_after_exclusive_split_deadlocks(tmp_path: Path) -> None:
    xml = process(diamond("exclusiveGateway", "parallelGateway"), FLOWS.format(""))
    issue = only(check(tmp_path, xml), "deadlock")
    assert issue.severity is None  # whatever the gateway decides: an error
    assert issue.element == "join"
    assert issue.line is not None
    assert issue.trace[0] == "s" and issue.trace[-1] == "join"
    assert "split" in issue.trace


def test_exclusive_merge_after_parallel_split_lacks_synchronisation(tmp_path: Path) -> None:
    xml = process(diamond("parallelGateway", "exclusiveGateway"), FLOWS.format(""))
    issue = only(check(tmp_path, xml), "lack-of-synchronization")
    assert issue.severity is None
    assert issue.element == "join"
    assert issue.trace[:2] == ("s", "split") and issue.trace[-1] == "join"
    assert {"a", "b"} <= set(issue.trace)


def test_implicit_split_of_an_activity_into_a_merge(tmp_path: Path) -> None:
    """An activity with two unconditioned flows forks: the task after them runs twice."""
    xml = process(diamond("task", "task"), FLOWS.format(""))
    assert only(check(tmp_path, xml), "lack-of-synchronization").element == "join"


def test_nested_well_formed_blocks_are_clean(tmp_path: Path) -> None:
    nodes: dict[str, Node] = {
        "s": "startEvent",
        "and1": "parallelGateway",
        "x1": "exclusiveGateway",
        "a": "task",
        "b": "task",
        "x2": "exclusiveGateway",
        "or1": "inclusiveGateway",
        "c": "task",
        "d": "userTask",
        "or2": "inclusiveGateway",
        "and2": "parallelGateway",
        "e": "endEvent",
    }
    flows = (
        "s->and1 and1->x1 x1->a x1->b a->x2 b->x2 x2->and2 "
        "and1->or1 or1->c?ok or1->d! c->or2 d->or2 or2->and2 and2->e"
    )
    assert clean(check(tmp_path, process(nodes, flows)))


def test_inclusive_split_and_join_are_clean(tmp_path: Path) -> None:
    xml = process(diamond("inclusiveGateway", "inclusiveGateway"), FLOWS.format("?go"))
    assert clean(check(tmp_path, xml))


def test_inclusive_split_into_parallel_join_is_a_data_dependent_deadlock(
    tmp_path: Path,
) -> None:
    """With every condition true the join fires: the deadlock depends on data, a warning."""
    xml = process(diamond("inclusiveGateway", "parallelGateway"), FLOWS.format("?go"))
    issue = only(check(tmp_path, xml), "deadlock")
    assert issue.severity is Severity.WARNING
    assert issue.element == "join"


def test_conditional_flows_of_an_activity_into_a_parallel_join(tmp_path: Path) -> None:
    xml = process(diamond("task", "parallelGateway"), FLOWS.format("?go"))
    assert only(check(tmp_path, xml), "deadlock").severity is Severity.WARNING


def test_event_based_gateway_into_parallel_join_deadlocks(tmp_path: Path) -> None:
    nodes = diamond("eventBasedGateway", "parallelGateway")
    nodes["a"] = ("intermediateCatchEvent", "", "<timerEventDefinition/>")
    nodes["b"] = ("intermediateCatchEvent", "", "<signalEventDefinition/>")
    issue = only(check(tmp_path, process(nodes, FLOWS.format(""))), "deadlock")
    assert issue.severity is None


def test_loop_with_no_exit_is_a_livelock(tmp_path: Path) -> None:
    nodes: dict[str, Node] = {
        "s": "startEvent",
        "m": "exclusiveGateway",
        "a": "task",
        "x": "exclusiveGateway",
        "b": "task",
    }
    issue = only(check(tmp_path, process(nodes, "s->m m->a a->x x->m x->b b->m")), "livelock")
    assert issue.severity is None
    assert issue.element == "m"
    assert issue.trace == ("s", "m", "a", "x", "m")


def test_loop_with_an_exit_is_clean(tmp_path: Path) -> None:
    nodes: dict[str, Node] = {
        "s": "startEvent",
        "m": "exclusiveGateway",
        "a": "task",
        "x": "exclusiveGateway",
        "e": "endEvent",
    }
    assert clean(check(tmp_path, process(nodes, "s->m m->a a->x x->m?again x->e!")))


def test_unreachable_task_is_dead(tmp_path: Path) -> None:
    nodes: dict[str, Node] = {"s": "startEvent", "a": "task", "d": "task", "e": "endEvent"}
    issue = only(check(tmp_path, process(nodes, "s->a a->e d->e")), "dead-element")
    assert issue.severity is None
    assert issue.element == "d"
    assert issue.trace == ("d",)


def test_terminate_end_ends_concurrent_branches_cleanly(tmp_path: Path) -> None:
    nodes: dict[str, Node] = {
        "s": "startEvent",
        "fork": "parallelGateway",
        "a": "userTask",
        "b": "userTask",
        "stop": TERMINATE,
        "e": "endEvent",
    }
    assert clean(check(tmp_path, process(nodes, "s->fork fork->a fork->b a->stop b->e")))


def test_first_of_two_branches_wins_through_a_terminate_end(tmp_path: Path) -> None:
    """The first token through the merge terminates the scope before a second can pass."""
    nodes = diamond("parallelGateway", "exclusiveGateway")
    nodes["e"] = TERMINATE
    assert clean(check(tmp_path, process(nodes, FLOWS.format(""))))


def test_non_interrupting_boundary_branch_ending_on_its_own_is_clean(tmp_path: Path) -> None:
    nodes: dict[str, Node] = {
        "s": "startEvent",
        "a": "userTask",
        "remind": REMINDER,
        "r": "sendTask",
        "e2": "endEvent",
        "e": "endEvent",
    }
    assert clean(check(tmp_path, process(nodes, "s->a a->e remind->r r->e2")))


def test_non_interrupting_boundary_merging_back_is_no_lack_of_synchronisation(
    tmp_path: Path,
) -> None:
    nodes: dict[str, Node] = {
        "s": "startEvent",
        "a": "userTask",
        "remind": REMINDER,
        "r": "sendTask",
        "m": "exclusiveGateway",
        "e": "endEvent",
    }
    assert clean(check(tmp_path, process(nodes, "s->a a->m remind->r r->m m->e")))


def test_interrupting_boundary_leaving_a_parallel_branch(tmp_path: Path) -> None:
    """If the timer fires, the join waits forever: a deadlock that depends on the event."""
    nodes = diamond("parallelGateway", "parallelGateway")
    nodes["late"] = ("boundaryEvent", 'attachedToRef="a"', "<timerEventDefinition/>")
    nodes["e2"] = "endEvent"
    issue = only(check(tmp_path, process(nodes, FLOWS.format("") + " late->e2")), "deadlock")
    assert issue.severity is Severity.WARNING
    assert "late" in issue.trace


def test_not_executable_process_reports_warnings_only(tmp_path: Path) -> None:
    nodes = diamond("exclusiveGateway", "parallelGateway")
    xml = process(nodes, FLOWS.format(""), executable=False)
    issue = only(check(tmp_path, xml), "deadlock")
    assert issue.severity is Severity.WARNING


def test_subprocess_body_is_analysed_with_the_path_that_leads_to_it(tmp_path: Path) -> None:
    inner = diamond("exclusiveGateway", "parallelGateway")
    nodes: dict[str, Node] = {
        "start": "startEvent",
        "sub": subprocess(inner, FLOWS.format("")),
        "end": "endEvent",
    }
    issue = only(check(tmp_path, process(nodes, "start->sub sub->end")), "deadlock")
    assert issue.element == "join"
    assert issue.trace[:3] == ("start", "sub", "s")


def test_unstructured_but_sound_model_is_clean(tmp_path: Path) -> None:
    """Two forks crossing into two joins: no block structure, so the state search decides."""
    nodes: dict[str, Node] = {
        "s": "startEvent",
        "f1": "parallelGateway",
        "a": "task",
        "f2": "parallelGateway",
        "b": "task",
        "j1": "parallelGateway",
        "c": "task",
        "j2": "parallelGateway",
        "e": "endEvent",
    }
    flows = "s->f1 f1->a f1->b a->f2 f2->j1 f2->c b->j1 j1->j2 c->j2 j2->e"
    assert clean(check(tmp_path, process(nodes, flows)))


def test_start_event_variants_raise_no_false_alarms(tmp_path: Path) -> None:
    """A message start beside the none start, a link pair and an event subprocess."""
    nodes: dict[str, Node] = {
        "s": "startEvent",
        "msg": ("startEvent", "", "<messageEventDefinition/>"),
        "m": "exclusiveGateway",
        "a": "task",
        "go": ("intermediateThrowEvent", "", '<linkEventDefinition name="L"/>'),
        "land": ("intermediateCatchEvent", "", '<linkEventDefinition name="L"/>'),
        "e": "endEvent",
        "handler": subprocess(
            {"es": ("startEvent", "", "<signalEventDefinition/>"), "h": "task", "he": "endEvent"},
            "es->h h->he",
            'triggeredByEvent="true"',
        ),
    }
    assert clean(check(tmp_path, process(nodes, "s->m msg->m m->a a->go land->e")))
