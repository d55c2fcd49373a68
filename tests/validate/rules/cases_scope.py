"""Correct and incorrect diagrams for the rules about scopes, events, names and globals."""

from __future__ import annotations

from bpmn_engine.validate.rules import (
    ad_hoc_sub_process,
    conditional_event,
    end_event_required,
    event_sub_process_typed_start_event,
    global_,
    label_required,
    link_event,
    single_blank_start_event,
    single_event_definition,
    start_event_required,
    sub_process_blank_start_event,
    superfluous_termination,
)
from tests.validate.rules.bpmnxml import chain, definitions, flow, process
from tests.validate.rules.case import Case

START_END = ['<startEvent id="Start" name="Start"/>', '<endEvent id="End" name="End"/>']


def _with_subprocess(*inner: str, attributes: str = "", tag: str = "subProcess") -> str:
    """Start -> subprocess (with the given content) -> end."""
    return definitions(
        process(
            *START_END,
            f'<{tag} id="Sub"{attributes}>',
            *inner,
            f"</{tag}>",
            *chain("Start", "Sub", "End"),
        )
    )


def _conditional(condition: str) -> str:
    return definitions(
        process(
            *START_END,
            '<intermediateCatchEvent id="Wait" name="Wait">',
            "<conditionalEventDefinition>",
            f'<condition xsi:type="tFormalExpression" '
            f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">{condition}</condition>',
            "</conditionalEventDefinition>",
            "</intermediateCatchEvent>",
            *chain("Start", "Wait", "End"),
            executable=True,
        )
    )


def _event_subprocess(start: str) -> str:
    return definitions(
        process(
            *START_END,
            flow("F", "Start", "End"),
            '<subProcess id="OnEvent" triggeredByEvent="true">',
            start,
            '<endEvent id="OnEventEnd"/>',
            flow("FE", "EventStart", "OnEventEnd"),
            "</subProcess>",
        )
    )


def _message_catch(message: str) -> str:
    return definitions(
        message,
        process(
            *START_END,
            '<intermediateCatchEvent id="Receive" name="Receive">',
            '<messageEventDefinition messageRef="Message_1"/>',
            "</intermediateCatchEvent>",
            *chain("Start", "Receive", "End"),
        ),
    )


def _link(catch_name: str) -> str:
    return definitions(
        process(
            *START_END,
            '<intermediateThrowEvent id="GoTo"><linkEventDefinition name="L"/>'
            "</intermediateThrowEvent>",
            f'<intermediateCatchEvent id="Label"><linkEventDefinition name="{catch_name}"/>'
            "</intermediateCatchEvent>",
            flow("F1", "Start", "GoTo"),
            flow("F2", "Label", "End"),
        )
    )


def _terminating(*extra: str) -> str:
    return definitions(
        process(
            '<startEvent id="Start"/>',
            '<parallelGateway id="Fork"/>',
            '<task id="Task" name="Task"/>',
            '<endEvent id="Kill"><terminateEventDefinition/></endEvent>',
            *chain("Start", "Fork", "Task", "Kill"),
            *extra,
        )
    )


CASES = [
    Case(
        ad_hoc_sub_process.RULE,
        good=_with_subprocess('<task id="Inner" name="Inner"/>', tag="adHocSubProcess"),
        bad=_with_subprocess(
            '<startEvent id="InnerStart"/>',
            '<task id="Inner" name="Inner"/>',
            flow("FI", "InnerStart", "Inner"),
            tag="adHocSubProcess",
        ),
        element="InnerStart",
        message="A <Start Event> is not allowed in <Ad Hoc Sub Process>",
    ),
    Case(
        conditional_event.RULE,
        good=_conditional("${ready}"),
        bad=_conditional(""),
        element="Wait",
        message="Conditional event is missing a condition",
    ),
    Case(
        end_event_required.RULE,
        good=definitions(process(*START_END, flow("F", "Start", "End"))),
        bad=definitions(process('<startEvent id="Start"/>')),
        element="Process",
        message="Process is missing end event",
    ),
    Case(
        start_event_required.RULE,
        good=definitions(process(*START_END, flow("F", "Start", "End"))),
        bad=definitions(process('<endEvent id="End"/>')),
        element="Process",
        message="Process is missing start event",
    ),
    Case(
        event_sub_process_typed_start_event.RULE,
        good=_event_subprocess(
            '<startEvent id="EventStart"><messageEventDefinition/></startEvent>'
        ),
        bad=_event_subprocess('<startEvent id="EventStart"/>'),
        element="EventStart",
        message="Start event is missing event definition",
    ),
    Case(
        sub_process_blank_start_event.RULE,
        good=_with_subprocess(
            '<startEvent id="InnerStart"/>',
            '<endEvent id="InnerEnd"/>',
            flow("FI", "InnerStart", "InnerEnd"),
        ),
        bad=_with_subprocess(
            '<startEvent id="InnerStart"><timerEventDefinition/></startEvent>',
            '<endEvent id="InnerEnd"/>',
            flow("FI", "InnerStart", "InnerEnd"),
        ),
        element="InnerStart",
        message="Start event must be blank",
    ),
    Case(
        single_blank_start_event.RULE,
        good=definitions(
            process(
                *START_END,
                '<startEvent id="OnMessage"><messageEventDefinition/></startEvent>',
                flow("F1", "Start", "End"),
                flow("F2", "OnMessage", "End"),
            )
        ),
        bad=definitions(
            process(
                *START_END,
                '<startEvent id="Start2"/>',
                flow("F1", "Start", "End"),
                flow("F2", "Start2", "End"),
            )
        ),
        element="Process",
        message="Process has multiple blank start events",
    ),
    Case(
        single_event_definition.RULE,
        good=definitions(
            process('<endEvent id="End"><messageEventDefinition/></endEvent>'),
        ),
        bad=definitions(
            process(
                '<endEvent id="End"><messageEventDefinition/><signalEventDefinition/></endEvent>'
            ),
        ),
        element="End",
        message="Event has multiple event definitions",
    ),
    Case(
        global_.RULE,
        good=_message_catch('<message id="Message_1" name="Order received"/>'),
        bad=_message_catch('<message id="Message_1" name=""/>'),
        element="Message_1",
        message="Element is missing name",
    ),
    Case(
        label_required.RULE,
        good=definitions(
            process(*START_END, '<task id="Task" name="Do"/>', *chain("Start", "Task", "End"))
        ),
        bad=definitions(
            process(*START_END, '<task id="Task" name="  "/>', *chain("Start", "Task", "End"))
        ),
        element="Task",
        message="Element is missing label/name",
    ),
    Case(
        link_event.RULE,
        good=_link("L"),
        bad=_link("Other"),
        element="GoTo",
        message="Link catch event with link name <L> missing in scope",
    ),
    Case(
        superfluous_termination.RULE,
        good=_terminating('<endEvent id="Done"/>', flow("F9", "Fork", "Done")),
        bad=definitions(
            process(
                '<startEvent id="Start"/>',
                '<task id="Task" name="Task"/>',
                '<endEvent id="Kill"><terminateEventDefinition/></endEvent>',
                *chain("Start", "Task", "Kill"),
            )
        ),
        element="Kill",
        message="Termination is superfluous.",
    ),
]
