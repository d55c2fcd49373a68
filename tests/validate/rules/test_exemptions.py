"""The finer points of bpmnlint's semantics: what each rule exempts, and what it still flags."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine.validate.findings import Rule
from bpmn_engine.validate.rules import (
    RULES,
    conditional_event,
    conditional_flows,
    end_event_required,
    global_,
    label_required,
    link_event,
    no_disconnected,
    no_duplicate_sequence_flows,
    no_implicit_end,
    no_implicit_split,
    no_implicit_start,
    start_event_required,
    superfluous_termination,
)
from tests.validate.rules.bpmnxml import chain, definitions, event, flow, process, read, run

START_END = ['<startEvent id="Start" name="Start"/>', '<endEvent id="End" name="End"/>']


def flagged(tmp_path: Path, rule: Rule, xml: str) -> list[str | None]:
    return [issue.element for issue in run(tmp_path, rule, xml)]


def test_flows_come_from_source_and_target_refs_not_incoming_children(tmp_path: Path) -> None:
    xml = definitions(
        process(
            '<startEvent id="Start"><outgoing>Ghost</outgoing></startEvent>',
            '<task id="Task" name="T"><incoming>Ghost</incoming><incoming>Other</incoming></task>',
            '<endEvent id="End"/>',
            *chain("Start", "Task", "End"),
        )
    )
    for rule in RULES:
        if rule.id in ("fake-join", "no-implicit-start", "no-implicit-end", "no-disconnected"):
            assert list(rule.check(read(tmp_path, xml))) == [], rule.id


def test_ad_hoc_subprocess_needs_no_start_or_end_but_event_subprocess_does(
    tmp_path: Path,
) -> None:
    xml = definitions(
        process(
            *START_END,
            '<adHocSubProcess id="AdHoc"><task id="A" name="A"/></adHocSubProcess>',
            *chain("Start", "AdHoc", "End"),
            '<subProcess id="OnError" triggeredByEvent="true">',
            event("startEvent", "Caught", "error"),
            "</subProcess>",
        )
    )
    # bpmnlint exempts ad-hoc subprocesses only: an event subprocess must end explicitly
    assert flagged(tmp_path, start_event_required.RULE, xml) == []
    assert flagged(tmp_path, end_event_required.RULE, xml) == ["OnError"]
    # the ad-hoc subprocess's task and the event subprocess itself are no implicit start,
    # end or disconnected node; the start event that leads nowhere is
    assert flagged(tmp_path, no_implicit_start.RULE, xml) == []
    assert flagged(tmp_path, no_implicit_end.RULE, xml) == ["Caught"]
    assert flagged(tmp_path, no_disconnected.RULE, xml) == ["Caught"]


def test_compensation_boundary_events_and_links_are_no_implicit_start_or_end(
    tmp_path: Path,
) -> None:
    xml = definitions(
        process(
            *START_END,
            '<task id="Book" name="Book"/>',
            event("boundaryEvent", "Compensate", "compensate", ' attachedToRef="Book"'),
            '<task id="Undo" name="Undo" isForCompensation="true"/>',
            '<association id="Assoc" sourceRef="Compensate" targetRef="Undo"/>',
            '<boundaryEvent id="Late" attachedToRef="Book"><timerEventDefinition/></boundaryEvent>',
            '<intermediateThrowEvent id="Jump"><linkEventDefinition name="L"/>'
            "</intermediateThrowEvent>",
            '<intermediateCatchEvent id="Land"><linkEventDefinition name="L"/>'
            "</intermediateCatchEvent>",
            *chain("Start", "Book", "Jump"),
            *chain("Land", "End"),
            flow("FLate", "Late", "End"),
        )
    )
    assert flagged(tmp_path, no_implicit_start.RULE, xml) == []
    assert flagged(tmp_path, no_implicit_end.RULE, xml) == []
    assert flagged(tmp_path, no_disconnected.RULE, xml) == []
    assert flagged(tmp_path, link_event.RULE, xml) == []


def test_no_disconnected_skips_artifacts_data_and_call_activities(tmp_path: Path) -> None:
    xml = definitions(
        process(
            *START_END,
            flow("F", "Start", "End"),
            '<textAnnotation id="Note"><text>a note</text></textAnnotation>',
            '<dataObjectReference id="DataRef" dataObjectRef="Data"/>',
            '<dataObject id="Data"/>',
            '<callActivity id="Call" calledElement="Other"/>',
            '<boundaryEvent id="Dangling" attachedToRef="Call"><timerEventDefinition/>'
            "</boundaryEvent>",
        )
    )
    # like bpmnlint: a boundary event with no outgoing flow is not connected
    assert flagged(tmp_path, no_disconnected.RULE, xml) == ["Dangling"]


def test_label_required_exemptions(tmp_path: Path) -> None:
    xml = definitions(
        '<collaboration id="Collab"><participant id="Pool" processRef="Process"/></collaboration>',
        process(
            '<laneSet id="Lanes"><lane id="Lane"/></laneSet>',
            *START_END,
            '<parallelGateway id="Fork"/>',
            '<exclusiveGateway id="Choice"/>',
            '<exclusiveGateway id="Merge"/>',
            '<subProcess id="Sub"/>',
            '<task id="A" name="A"/>',
            flow("F1", "Start", "Fork"),
            flow("F2", "Fork", "Choice"),
            flow("F3", "Fork", "Sub"),
            flow("F4", "Choice", "A", "${a}"),
            flow("F5", "Choice", "Merge", "${!a}"),
            flow("F6", "A", "Merge"),
            flow("F7", "Merge", "End"),
        ),
    )
    assert flagged(tmp_path, label_required.RULE, xml) == ["Pool", "Lane", "Choice", "F4", "F5"]


def test_conditional_event_only_in_executable_processes(tmp_path: Path) -> None:
    xml = definitions(
        process(
            '<intermediateCatchEvent id="Wait"><conditionalEventDefinition/>'
            "</intermediateCatchEvent>"
        )
    )
    assert flagged(tmp_path, conditional_event.RULE, xml) == []
    executable = xml.replace('isExecutable="false"', 'isExecutable="true"')
    assert flagged(tmp_path, conditional_event.RULE, executable) == ["Wait"]


def test_default_flow_makes_a_conditional_fork(tmp_path: Path) -> None:
    xml = definitions(
        process(
            '<task id="Task" name="T" default="F1"/>',
            '<endEvent id="E1"/>',
            '<endEvent id="E2"/>',
            '<endEvent id="E3"/>',
            flow("F1", "Task", "E1"),
            flow("F2", "Task", "E2", "${b}"),
            flow("F3", "Task", "E3"),
        )
    )
    assert flagged(tmp_path, conditional_flows.RULE, xml) == ["F3"]
    assert flagged(tmp_path, no_implicit_split.RULE, xml) == []


def test_link_events_many_throws_one_catch(tmp_path: Path) -> None:
    def links(*events: str) -> str:
        return definitions(process(*events))

    throw = (
        '<intermediateThrowEvent id="{}"><linkEventDefinition name="{}"/></intermediateThrowEvent>'
    )
    catch = (
        '<intermediateCatchEvent id="{}"><linkEventDefinition name="{}"/></intermediateCatchEvent>'
    )
    ok = links(throw.format("T1", "L"), throw.format("T2", "L"), catch.format("C", "L"))
    assert flagged(tmp_path, link_event.RULE, ok) == []
    twice = links(throw.format("T", "L"), catch.format("C1", "L"), catch.format("C2", "L"))
    assert flagged(tmp_path, link_event.RULE, twice) == ["C1", "C2"]
    unnamed = links(throw.format("T", ""))
    assert flagged(tmp_path, link_event.RULE, unnamed) == ["T"]


def test_global_unused_and_duplicate_names(tmp_path: Path) -> None:
    xml = definitions(
        '<message id="M1" name="Order"/>',
        '<message id="M2" name="Order"/>',
        '<signal id="S1" name="Alarm"/>',
        '<error id="E1" name="Failure"/>',
        process(
            '<sendTask id="Send" name="Send" messageRef="M1"/>',
            '<endEvent id="End"><errorEventDefinition errorRef="E1"/></endEvent>',
        ),
    )
    issues = run(tmp_path, global_.RULE, xml)
    assert [(i.element, i.message) for i in issues] == [
        ("M1", "Element name is not unique"),
        ("M2", "Element is unused"),
        ("M2", "Element name is not unique"),
        ("S1", "Element is unused"),
    ]


def test_duplicate_flows_also_name_source_and_target(tmp_path: Path) -> None:
    xml = definitions(
        process(
            *START_END,
            flow("F1", "Start", "End"),
            flow("F2", "Start", "End"),
            flow("F3", "Start", "End"),
            flow("F4", "Start", "End", "${x}"),
        )
    )
    assert flagged(tmp_path, no_duplicate_sequence_flows.RULE, xml) == [
        "F2",
        "Start",
        "End",
        "F3",
    ]


def test_termination_is_not_superfluous_when_other_ends_exist(tmp_path: Path) -> None:
    def scope(*extra: str) -> str:
        return definitions(
            process(
                '<startEvent id="Start"/>',
                '<endEvent id="Kill"><terminateEventDefinition/></endEvent>',
                flow("F", "Start", "Kill"),
                *extra,
            )
        )

    interrupting = (
        '<subProcess id="OnMsg" triggeredByEvent="true">',
        event("startEvent", "MsgStart", "message"),
        "</subProcess>",
    )
    assert flagged(tmp_path, superfluous_termination.RULE, scope(*interrupting)) == ["Kill"]
    non_interrupting = (
        interrupting[0],
        interrupting[1].replace(">", ' isInterrupting="false">', 1),
    )
    non_interrupting += (interrupting[2],)
    assert flagged(tmp_path, superfluous_termination.RULE, scope(*non_interrupting)) == []


def test_rules_survive_odd_documents(tmp_path: Path) -> None:
    odd = [
        '<?xml version="1.0"?><html><body/></html>',
        definitions('<process><task/><sequenceFlow/><startEvent id=""/></process>'),
        definitions(
            '<process id="P"><sequenceFlow id="F" sourceRef="X" targetRef="Y"/></process>',
            '<bpmndi:BPMNDiagram><bpmndi:BPMNPlane><bpmndi:BPMNShape bpmnElement="P">'
            '<dc:Bounds x="a" y="" width="1"/></bpmndi:BPMNShape></bpmndi:BPMNPlane>'
            "</bpmndi:BPMNDiagram>",
        ),
    ]
    for number, xml in enumerate(odd):
        document = read(tmp_path, xml, name=f"odd{number}.bpmn")
        for rule in RULES:
            list(rule.check(document))
