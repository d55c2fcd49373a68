"""Rule `executable`: what bpmn-engine cannot run, found before a run."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine.validate import validate
from bpmn_engine.validate.executable import is_cycle, is_date_time, is_duration
from bpmn_engine.validate.findings import Finding, Severity

HEAD = (
    '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'id="Defs_{name}" targetNamespace="http://example.com/exec">\n'
)


def write(folder: Path, body: str, name: str = "diagram.bpmn", executable: str = "true") -> Path:
    path = folder / name
    process = f'<bpmn:process id="P_{path.stem}" isExecutable="{executable}">\n{body}\n'
    path.write_text(
        f"{HEAD.format(name=path.stem)}{process}</bpmn:process>\n</bpmn:definitions>\n", "utf-8"
    )
    return path


def executable_findings(*paths: Path) -> list[Finding]:
    return [f for f in validate(list(paths)).findings if f.rule == "executable"]


def timer(kind: str, value: str) -> str:
    return (
        '<bpmn:intermediateCatchEvent id="Wait"><bpmn:timerEventDefinition>'
        f"<bpmn:{kind}>{value}</bpmn:{kind}></bpmn:timerEventDefinition>"
        "</bpmn:intermediateCatchEvent>"
    )


def test_a_runnable_process_has_no_finding(tmp_path: Path) -> None:
    body = (
        '<bpmn:startEvent id="S"/><bpmn:scriptTask id="Calc"><bpmn:script>y = 1</bpmn:script>'
        '</bpmn:scriptTask><bpmn:exclusiveGateway id="G" default="F3"/>'
        '<bpmn:endEvent id="E"><bpmn:terminateEventDefinition/></bpmn:endEvent>'
        '<bpmn:sequenceFlow id="F1" sourceRef="S" targetRef="Calc"/>'
        '<bpmn:sequenceFlow id="F2" sourceRef="Calc" targetRef="G"/>'
        '<bpmn:sequenceFlow id="F3" sourceRef="G" targetRef="E"/>'
        '<bpmn:sequenceFlow id="F4" sourceRef="G" targetRef="E">'
        "<bpmn:conditionExpression>y &gt; 0</bpmn:conditionExpression></bpmn:sequenceFlow>"
    )
    assert executable_findings(write(tmp_path, body)) == []


@pytest.mark.parametrize(
    ("body", "element", "what"),
    [
        (
            timer("timeDuration", "PT5M").replace("intermediateCatch", "intermediateThrow"),
            "Wait",
            "timer events",
        ),
    ],
)
def test_an_unsupported_element_is_a_warning_with_its_id_and_line(
    tmp_path: Path, body: str, element: str, what: str
) -> None:
    [finding] = [f for f in executable_findings(write(tmp_path, body)) if f.element == element]
    assert finding.severity == Severity.WARNING
    assert f"{what} are not supported yet by bpmn-engine" in finding.message
    assert finding.line == 3


@pytest.mark.parametrize(
    ("loop", "message"),
    [
        ("<bpmn:multiInstanceLoopCharacteristics/>", "the number of instances is unknown"),
        ("<bpmn:standardLoopCharacteristics/>", "would loop forever"),
        (
            '<bpmn:multiInstanceLoopCharacteristics behavior="None">'
            "<bpmn:loopCardinality>2</bpmn:loopCardinality>"
            "</bpmn:multiInstanceLoopCharacteristics>",
            'behavior="None"',
        ),
        (
            "<bpmn:multiInstanceLoopCharacteristics>"
            "<bpmn:loopCardinality>2</bpmn:loopCardinality>"
            "<bpmn:loopDataInputRef>items</bpmn:loopDataInputRef>"
            "</bpmn:multiInstanceLoopCharacteristics>",
            "both a loopCardinality ('2') and an input collection ('items')",
        ),
    ],
    ids=["no-count", "endless", "behavior", "cardinality-and-collection"],
)
def test_a_loop_the_engine_cannot_run_is_an_error(tmp_path: Path, loop: str, message: str) -> None:
    body = f'<bpmn:userTask id="X">{loop}</bpmn:userTask>'
    [finding] = [f for f in executable_findings(write(tmp_path, body)) if f.element == "X"]
    assert finding.severity == Severity.ERROR
    assert message in finding.message
    assert finding.line == 3


def test_a_runnable_multi_instance_and_loop_are_no_finding(tmp_path: Path) -> None:
    body = (
        '<bpmn:userTask id="X"><bpmn:multiInstanceLoopCharacteristics isSequential="true">'
        "<bpmn:loopCardinality>3</bpmn:loopCardinality>"
        "<bpmn:completionCondition>nrOfCompletedInstances &gt;= 2</bpmn:completionCondition>"
        "</bpmn:multiInstanceLoopCharacteristics></bpmn:userTask>"
        '<bpmn:task id="Y"><bpmn:standardLoopCharacteristics loopMaximum="3">'
        "<bpmn:loopCondition>x &lt; 3</bpmn:loopCondition>"
        "</bpmn:standardLoopCharacteristics></bpmn:task>"
    )
    assert [f for f in executable_findings(write(tmp_path, body)) if f.element in "XY"] == []


def test_a_loop_expression_that_does_not_compile_is_an_error(tmp_path: Path) -> None:
    body = (
        '<bpmn:task id="X"><bpmn:multiInstanceLoopCharacteristics>'
        "<bpmn:loopCardinality>3 +</bpmn:loopCardinality>"
        "</bpmn:multiInstanceLoopCharacteristics></bpmn:task>"
    )
    [finding] = [f for f in executable_findings(write(tmp_path, body)) if f.element == "X"]
    assert "loopCardinality does not compile" in finding.message


def test_error_end_and_error_boundary_events_are_supported(tmp_path: Path) -> None:
    body = (
        '<bpmn:task id="T"/><bpmn:boundaryEvent id="B" attachedToRef="T">'
        "<bpmn:errorEventDefinition/></bpmn:boundaryEvent>"
        '<bpmn:endEvent id="E"><bpmn:errorEventDefinition/></bpmn:endEvent>'
    )
    assert [f for f in executable_findings(write(tmp_path, body)) if f.element in "BE"] == []


def test_a_process_marked_not_executable_is_checked_as_bpmn_run_runs_it(tmp_path: Path) -> None:
    # given: a process marked not executable (`bpmn run` runs it anyway, with a warning)
    body = '<bpmn:startEvent id="S"/>' + timer("timeDuration", "five minutes")
    # when
    findings = executable_findings(write(tmp_path, body, executable="false"))
    # then: a warning saying so at the process, and the checks of any process
    by_element = {f.element: f for f in findings}
    assert set(by_element) == {"P_diagram", "Wait"}
    marked = by_element["P_diagram"]
    assert marked.severity == Severity.WARNING and marked.line == 2
    assert 'is marked isExecutable="false", but `bpmn run` still runs it' in marked.message
    assert by_element["Wait"].severity == Severity.ERROR
    assert "timeDuration 'five minutes' is not an ISO 8601 duration" in by_element["Wait"].message


def test_a_call_activity_without_called_element_in_a_non_executable_process(
    tmp_path: Path,
) -> None:
    # given: what issue 24 found unreported: `bpmn run` would run this process
    body = '<bpmn:startEvent id="S"/><bpmn:callActivity id="C"/>'
    # when
    findings = executable_findings(write(tmp_path, body, executable="false"))
    # then
    [error] = [f for f in findings if f.severity == Severity.ERROR]
    assert error.element == "C"
    assert "call activity names no process to call (calledElement)" in error.message


def test_a_process_without_flow_nodes_is_no_finding(tmp_path: Path) -> None:
    assert executable_findings(write(tmp_path, "", executable="false")) == []


def test_a_condition_that_does_not_compile_is_an_error(tmp_path: Path) -> None:
    body = (
        '<bpmn:task id="A"/><bpmn:task id="B"/><bpmn:sequenceFlow id="F" sourceRef="A" '
        'targetRef="B"><bpmn:conditionExpression>amount &gt;</bpmn:conditionExpression>'
        "</bpmn:sequenceFlow>"
    )
    [finding] = executable_findings(write(tmp_path, body))
    assert (finding.element, finding.severity) == ("F", Severity.ERROR)
    assert finding.message.startswith("condition does not compile: ")


def test_a_script_with_a_syntax_error_is_an_error(tmp_path: Path) -> None:
    body = '<bpmn:scriptTask id="S"><bpmn:script>x = (</bpmn:script></bpmn:scriptTask>'
    [finding] = executable_findings(write(tmp_path, body))
    assert (finding.element, finding.severity) == ("S", Severity.ERROR)
    assert "script does not compile" in finding.message


def test_a_script_the_sandbox_refuses_needs_trust_scripts(tmp_path: Path) -> None:
    body = '<bpmn:scriptTask id="S"><bpmn:script>import os</bpmn:script></bpmn:scriptTask>'
    [finding] = executable_findings(write(tmp_path, body))
    assert finding.severity == Severity.WARNING
    assert "--trust-scripts" in finding.message


def test_a_condition_the_sandbox_refuses_needs_trust_scripts(tmp_path: Path) -> None:
    # given: a condition only full Python compiles (`bpmn run --trust-scripts` runs it)
    body = (
        '<bpmn:task id="A"/><bpmn:task id="B"/><bpmn:sequenceFlow id="F" sourceRef="A" '
        "targetRef=\"B\"><bpmn:conditionExpression>'x' in vars()</bpmn:conditionExpression>"
        "</bpmn:sequenceFlow>"
    )
    # when
    [finding] = executable_findings(write(tmp_path, body))
    # then: a warning, as for such a script, not an error
    assert (finding.element, finding.severity) == ("F", Severity.WARNING)
    assert finding.message.startswith("condition runs only with `bpmn run --trust-scripts`: ")


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("timeDate", "2024-05-01T09:00:00Z"),
        ("timeDate", "2024-05-01T09:00:00+02:00"),
        ("timeDuration", "PT5M"),
        ("timeDuration", "P1DT2H"),
        ("timeDuration", "PT0.5S"),
        ("timeCycle", "R3/PT10M"),
        ("timeCycle", "R/2024-01-01T00:00:00Z/PT1H"),
        ("timeCycle", "R2/PT1H/2024-01-02T00:00:00Z"),
        ("timeCycle", "0 0 9 * * MON-FRI"),
        ("timeCycle", "*/5 * * * *"),
        ("timeDuration", "${delay}"),
        ("timeDuration", "= delay"),
    ],
)
def test_a_valid_timer_value_is_accepted_or_only_warned_about(
    tmp_path: Path, kind: str, value: str
) -> None:
    findings = executable_findings(write(tmp_path, timer(kind, value)))
    assert [f.severity for f in findings] == []  # the engine runs every one of them


@pytest.mark.parametrize(
    ("kind", "value", "message"),
    [
        ("timeDuration", "5 minutes", "timeDuration '5 minutes' is not an ISO 8601 duration"),
        ("timeDuration", "PT", "timeDuration 'PT' is not an ISO 8601 duration"),
        ("timeDate", "tomorrow 9am", "timeDate 'tomorrow 9am' is not an ISO 8601 date-time"),
        ("timeCycle", "PT10M", "timeCycle 'PT10M' is not an ISO 8601 repeating interval"),
        ("timeCycle", "R3/10min", "timeCycle 'R3/10min' is not an ISO 8601 repeating interval"),
        ("timeDuration", "${delay +}", "timeDuration expression does not compile"),
    ],
)
def test_a_malformed_timer_value_is_an_error(
    tmp_path: Path, kind: str, value: str, message: str
) -> None:
    errors = [
        f
        for f in executable_findings(write(tmp_path, timer(kind, value)))
        if f.severity == Severity.ERROR
    ]
    assert [f.element for f in errors] == ["Wait"]
    assert errors[0].message.startswith(message)


def test_an_empty_timer_in_a_file_for_no_engine_is_the_wait_a_run_makes_of_it(
    tmp_path: Path,
) -> None:
    """`bpmn run` waits there for `bpmn trigger` (a click in the token simulator), so
    validate warns of that instead of calling the timer malformed."""
    [finding] = executable_findings(write(tmp_path, timer("timeCycle", "")))
    assert (finding.severity, finding.element) == (Severity.WARNING, "Wait")
    assert "timer definition that names nothing" in finding.message
    assert "bpmn trigger INSTANCE Wait" in finding.message


def test_timer_formats() -> None:
    assert is_duration("P1Y2M3W4DT5H6M7S") and not is_duration("P") and not is_duration("1D")
    assert is_date_time("2024-02-29") and not is_date_time("2023-02-29")
    assert is_cycle("R/PT1M") and not is_cycle("R3") and not is_cycle("* * *")


def test_a_dangling_called_element_is_left_to_references(tmp_path: Path) -> None:
    caller = write(tmp_path, '<bpmn:callActivity id="C" calledElement="Missing"/>')
    findings = executable_findings(caller)
    assert findings == []  # call activities run; the missing process is `references`' finding


def test_a_call_to_a_process_in_no_file_is_an_error(tmp_path: Path) -> None:
    # given: a Zeebe call activity, whose process id `references` does not read
    body = (
        '<bpmn:callActivity id="C" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0">'
        '<bpmn:extensionElements><zeebe:calledElement processId="Missing"/>'
        "</bpmn:extensionElements></bpmn:callActivity>"
    )
    # when
    findings = executable_findings(write(tmp_path, body))
    # then
    [error] = [f for f in findings if f.severity == Severity.ERROR]
    assert error.element == "C"
    assert error.message.startswith("calls process 'Missing', which is in none of the files")


def test_a_call_to_a_non_executable_process_is_a_warning(tmp_path: Path) -> None:
    caller = write(tmp_path, '<bpmn:callActivity id="C" calledElement="P_called"/>', "caller.bpmn")
    called = write(tmp_path, '<bpmn:task id="T"/>', "called.bpmn", executable="false")
    messages = [f.message for f in executable_findings(caller, called)]
    assert any("not executable (isExecutable=false)" in m for m in messages)


@pytest.mark.parametrize("executable", ["true", "false"])
def test_a_file_the_engine_cannot_load_is_reported_once(tmp_path: Path, executable: str) -> None:
    # `bpmn run` cannot run a process of it, whatever it is marked
    body = '<bpmn:task id="A"/><bpmn:task id="B"/><bpmn:sequenceFlow id="f" sourceRef="A"/>'
    findings = executable_findings(write(tmp_path, body, executable=executable))
    [finding] = [f for f in findings if "cannot load" in f.message]
    message = "bpmn-engine cannot load this file: sequence flow needs both sourceRef and targetRef"
    assert finding.message == message
    assert finding.severity == Severity.ERROR


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("timeDuration", "P99999999D"),  # past the year 9999
        ("timeCycle", "0 0 0 31 2 ?"),  # 31 February never comes
        ("timeCycle", "0 0 12 ? * 8"),  # Quartz weekdays are 1-7
    ],
)
def test_a_timer_value_the_engine_cannot_schedule_is_an_error(
    tmp_path: Path, kind: str, value: str
) -> None:
    findings = executable_findings(write(tmp_path, timer(kind, value)))
    assert [(f.severity, f.element) for f in findings] == [(Severity.ERROR, "Wait")]
    assert findings[0].message.startswith(kind)


@pytest.mark.parametrize(
    "value", ["0 0 12 L * ?", "0 0 12 ? * 6#3", "0 0 12 15W * ?", "0 0 12 1 * ? 2030"]
)
def test_quartz_cron_cycles_are_accepted(tmp_path: Path, value: str) -> None:
    assert executable_findings(write(tmp_path, timer("timeCycle", value))) == []


@pytest.mark.parametrize("value", ['"PT0.25S"', "delay", "timedelta_text"])
def test_a_spiff_python_timer_expression_is_no_finding(tmp_path: Path, value: str) -> None:
    findings = executable_findings(write(tmp_path, timer("timeDuration", value)))
    assert [f.message for f in findings] == []


def test_an_xpath_condition_is_an_error(tmp_path: Path) -> None:
    body = (
        '<bpmn:startEvent id="S"/><bpmn:endEvent id="E"/>'
        '<bpmn:sequenceFlow id="F" sourceRef="S" targetRef="E"><bpmn:conditionExpression'
        ' language="http://www.w3.org/1999/XPath">count(/x) &gt; 1</bpmn:conditionExpression>'
        "</bpmn:sequenceFlow>"
    )
    [finding] = executable_findings(write(tmp_path, body))
    assert finding.element == "F" and "XPath" in finding.message
    assert finding.severity == Severity.ERROR


def test_a_multi_instance_call_activity_is_no_finding(tmp_path: Path) -> None:
    caller = write(
        tmp_path,
        '<bpmn:callActivity id="C" calledElement="P_called">'
        "<bpmn:multiInstanceLoopCharacteristics>"
        "<bpmn:loopCardinality>3</bpmn:loopCardinality>"
        "</bpmn:multiInstanceLoopCharacteristics></bpmn:callActivity>",
        "caller.bpmn",
    )
    called = write(tmp_path, '<bpmn:startEvent id="S"/>', "called.bpmn")
    assert [f for f in executable_findings(caller, called) if f.element == "C"] == []


RULE_TASK = (
    '<bpmn:businessRuleTask id="Decide" name="Decide" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" {attrs} />'
)


def dmn_file(folder: Path, entry: str, name: str = "rules.dmn") -> Path:
    path = folder / name
    path.write_text(
        '<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="defs" '
        'name="Rules" namespace="http://example.com/rules">\n'
        '<decision id="dish" name="Dish">\n'
        '<decisionTable id="table"><input id="in"><inputExpression><text>season</text>'
        '</inputExpression></input><output id="out" name="dish"/>\n'
        f'<rule id="rule1"><inputEntry id="entry1"><text>{entry}</text></inputEntry>'
        '<outputEntry><text>"Stew"</text></outputEntry></rule>\n'
        "</decisionTable></decision></definitions>\n"
    )
    return path


def test_a_business_rule_task_needs_its_decision_in_a_dmn_file(tmp_path: Path) -> None:
    diagram = write(tmp_path, RULE_TASK.format(attrs='camunda:decisionRef="dish"'))
    [alone] = executable_findings(diagram)
    assert alone.element == "Decide" and alone.severity == Severity.ERROR
    assert "decides with decision 'dish', which is in none of the DMN files" in alone.message
    assert executable_findings(diagram, dmn_file(tmp_path, '"Winter"')) == []


def test_a_dmn_file_whose_feel_does_not_compile_is_an_error(tmp_path: Path) -> None:
    diagram = write(tmp_path, RULE_TASK.format(attrs='camunda:decisionRef="dish"'))
    broken = dmn_file(tmp_path, "&gt; &gt; 3")
    findings = executable_findings(diagram, broken)
    [in_dmn] = [f for f in findings if f.file == str(broken)]
    assert in_dmn.line == 4 and in_dmn.element == "entry1"
    assert in_dmn.severity == Severity.ERROR
    assert "does not compile, so evaluating it (or what requires it) fails" in in_dmn.message
    assert "FEEL syntax error" in in_dmn.message
    # the file loads all the same: the business rule task finds its decision
    assert [f for f in findings if f.file == str(diagram)] == []


def test_a_folder_of_bpmn_and_dmn_files(tmp_path: Path) -> None:
    write(tmp_path, RULE_TASK.format(attrs='camunda:decisionRef="Dish"'))
    dmn_file(tmp_path, "-")
    report = validate([tmp_path])
    assert sorted(Path(f).name for f in report.files) == ["diagram.bpmn", "rules.dmn"]
    assert [f for f in report.findings if f.rule in ("executable", "parse")] == []


def test_a_condition_is_reported_at_its_own_line_as_run_reports_it(tmp_path: Path) -> None:
    # given: a flow over several lines, its condition on a line of its own (line 7)
    body = (
        '<bpmn:startEvent id="S"/><bpmn:endEvent id="E"/>\n'
        '<bpmn:sequenceFlow id="F"\n'
        '    sourceRef="S"\n'
        '    targetRef="E">\n'
        "  <bpmn:conditionExpression>${a &gt;}</bpmn:conditionExpression>\n"
        "</bpmn:sequenceFlow>"
    )
    # when
    [finding] = executable_findings(write(tmp_path, body))
    # then: the line to edit, which `bpmn run` names too (not the flow's start tag, line 4)
    assert (finding.line, finding.column, finding.element) == (7, 3, "F")
    assert finding.message.startswith("condition does not compile")


@pytest.mark.parametrize(
    ("element", "what"),
    [
        ('<bpmn:intermediateCatchEvent id="Wait"/>', "has no event definition"),
        ('<bpmn:receiveTask id="Wait"/>', "has neither a message nor a name"),
    ],
)
def test_a_wait_state_the_api_triggers_is_a_warning_naming_bpmn_trigger(
    tmp_path: Path, element: str, what: str
) -> None:
    # token-simulation diagrams are drawn so on purpose: it runs, and waits for the trigger
    body = (
        f'<bpmn:startEvent id="S"/>{element}<bpmn:endEvent id="E"/>'
        '<bpmn:sequenceFlow id="F1" sourceRef="S" targetRef="Wait"/>'
        '<bpmn:sequenceFlow id="F2" sourceRef="Wait" targetRef="E"/>'
    )
    [finding] = executable_findings(write(tmp_path, body))
    assert (finding.element, finding.severity) == ("Wait", Severity.WARNING)
    assert what in finding.message
    assert "`bpmn trigger INSTANCE Wait`" in finding.message


def test_a_named_receive_task_waits_for_its_message_and_is_no_finding(tmp_path: Path) -> None:
    body = (
        '<bpmn:startEvent id="S"/><bpmn:receiveTask id="Wait" name="parcel"/>'
        '<bpmn:endEvent id="E"/><bpmn:sequenceFlow id="F1" sourceRef="S" targetRef="Wait"/>'
        '<bpmn:sequenceFlow id="F2" sourceRef="Wait" targetRef="E"/>'
    )
    assert executable_findings(write(tmp_path, body)) == []
