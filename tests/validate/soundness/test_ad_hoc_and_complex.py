"""Complex gateways and ad-hoc subprocesses: the analysis does not guess (no false findings)."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine.validate.findings import Issue, Severity
from tests.validate.soundness.diagrams import check, process

COUNT = "<activationCondition>activationCount &gt;= 1</activationCondition>"


def everything(found: dict[str, list[Issue]]) -> list[tuple[str, Issue]]:
    return [(rule, issue) for rule, issues in found.items() for issue in issues]


def test_a_complex_gateway_after_an_exclusive_split_is_no_deadlock(tmp_path: Path) -> None:
    # given: the shape that is a deadlock with a parallel join (test_classic), but a
    # complex gateway that fires on the first token
    nodes = {
        "s": "startEvent",
        "split": "exclusiveGateway",
        "a": "task",
        "b": "task",
        "join": ("complexGateway", "", COUNT),
        "e": "endEvent",
    }
    xml = process(nodes, "s->split split->a?x split->b! a->join b->join join->e")
    # when
    found = everything(check(tmp_path, xml))
    # then: one note that the analysis cannot say, no error
    assert [(rule, issue.severity) for rule, issue in found] == [("deadlock", Severity.INFO)]
    assert "does not model complex gateway 'join'" in found[0][1].message


def test_a_two_of_three_complex_join_is_no_finding(tmp_path: Path) -> None:
    nodes = {
        "s": "startEvent",
        "fork": "parallelGateway",
        "a": "task",
        "b": "task",
        "c": "task",
        "join": ("complexGateway", "", COUNT.replace("1", "2")),
        "e": "endEvent",
    }
    xml = process(nodes, "s->fork fork->a fork->b fork->c a->join b->join c->join join->e")
    found = everything(check(tmp_path, xml))
    assert [issue.severity for _, issue in found] == [Severity.INFO]


def test_an_ad_hoc_subprocess_with_an_inner_join_has_no_finding(tmp_path: Path) -> None:
    # given: inside, a parallel join after two activities a person may activate or not
    inner = (
        '<task id="a"/><task id="b"/><parallelGateway id="j"/><task id="c"/>'
        '<sequenceFlow id="i1" sourceRef="a" targetRef="j"/>'
        '<sequenceFlow id="i2" sourceRef="b" targetRef="j"/>'
        '<sequenceFlow id="i3" sourceRef="j" targetRef="c"/>'
    )
    nodes = {"s": "startEvent", "h": ("adHocSubProcess", "", inner), "e": "endEvent"}
    xml = process(nodes, "s->h h->e")
    # then
    assert everything(check(tmp_path, xml)) == []
