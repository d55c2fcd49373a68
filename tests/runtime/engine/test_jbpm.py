"""jBPM's dialect (docs/dialects.md#jbpm): a task's data inputs by name, constant and
`#{...}` data input values, `drools:taskName` handlers, `#{path}` conditions, and what of
jBPM's namespace is refused before the first step (Java, MVEL, Drools rules, on-entry
scripts, ad-hoc processes, flow priorities)."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError
from bpmn_engine.runtime.clock import VirtualClock
from bpmn_engine.runtime.handlers import ServiceTaskContext
from tests.runtime.conftest import MakeEngine, events_named

JBPM_HEADER = (
    '<bpmn2:definitions xmlns:bpmn2="http://www.omg.org/spec/BPMN/20100524/MODEL"'
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    ' xmlns:drools="http://www.jboss.org/drools" xmlns:tns="http://www.jboss.org/drools"'
    ' id="d" targetNamespace="http://www.jboss.org/drools">'
)
MVEL = "http://www.mvel.org/2.0"
START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
Jbpm = Callable[..., Path]


@pytest.fixture
def jbpm(tmp_path: Path) -> Jbpm:
    """Write a process body (bpmn2: prefixed) into a file drawn for jBPM; return its path."""
    numbers = itertools.count(1)

    def write(body: str, process: str = 'tns:packageName="org.example" tns:version="1"') -> Path:
        path = tmp_path / f"jbpm{next(numbers)}.bpmn"
        path.write_text(
            f'<?xml version="1.0" encoding="UTF-8"?>\n{JBPM_HEADER}\n'
            f'<bpmn2:process id="p" isExecutable="true" {process}>\n{body}\n'
            "</bpmn2:process></bpmn2:definitions>\n",
            encoding="utf-8",
        )
        return path

    return write


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def flow(source: str, target: str, inner: str = "", attrs: str = "") -> str:
    return (
        f'<bpmn2:sequenceFlow id="{source}-{target}" sourceRef="{source}" targetRef="{target}"'
        f" {attrs}>{inner}</bpmn2:sequenceFlow>"
    )


def line(*elements: str) -> str:
    """start -> each element -> end."""
    ids = [e.split('id="', 1)[1].split('"', 1)[0] for e in elements]
    chain = ["S", *ids, "E"]
    return (
        '<bpmn2:startEvent id="S"/>'
        + "".join(elements)
        + '<bpmn2:endEvent id="E"/>'
        + "".join(flow(a, b) for a, b in itertools.pairwise(chain))
    )


def constant(task: str, name: str, text: str) -> str:
    """jBPM's data input association: no sourceRef, the value in the assignment's `from`."""
    return (
        f"<bpmn2:dataInputAssociation><bpmn2:targetRef>{task}_{name}InputX</bpmn2:targetRef>"
        f'<bpmn2:assignment><bpmn2:from xsi:type="bpmn2:tFormalExpression">{text}</bpmn2:from>'
        f'<bpmn2:to xsi:type="bpmn2:tFormalExpression">{task}_{name}InputX</bpmn2:to>'
        "</bpmn2:assignment></bpmn2:dataInputAssociation>"
    )


def mapped_in(task: str, name: str, variable: str) -> str:
    return (
        f"<bpmn2:dataInputAssociation><bpmn2:sourceRef>{variable}</bpmn2:sourceRef>"
        f"<bpmn2:targetRef>{task}_{name}InputX</bpmn2:targetRef></bpmn2:dataInputAssociation>"
    )


def mapped_out(task: str, name: str, variable: str) -> str:
    return (
        f"<bpmn2:dataOutputAssociation><bpmn2:sourceRef>{task}_{name}OutputX</bpmn2:sourceRef>"
        f"<bpmn2:targetRef>{variable}</bpmn2:targetRef></bpmn2:dataOutputAssociation>"
    )


def io(task: str, inputs: tuple[str, ...], outputs: tuple[str, ...] = ()) -> str:
    """The ioSpecification jBPM writes: `{task}_{name}InputX` ids, parameter names."""
    return (
        "<bpmn2:ioSpecification>"
        + "".join(f'<bpmn2:dataInput id="{task}_{n}InputX" name="{n}"/>' for n in inputs)
        + "".join(f'<bpmn2:dataOutput id="{task}_{n}OutputX" name="{n}"/>' for n in outputs)
        + "<bpmn2:inputSet>"
        + "".join(f"<bpmn2:dataInputRefs>{task}_{n}InputX</bpmn2:dataInputRefs>" for n in inputs)
        + "</bpmn2:inputSet><bpmn2:outputSet>"
        + "".join(
            f"<bpmn2:dataOutputRefs>{task}_{n}OutputX</bpmn2:dataOutputRefs>" for n in outputs
        )
        + "</bpmn2:outputSet></bpmn2:ioSpecification>"
    )


def user_task(inner: str, attrs: str = "") -> str:
    return f'<bpmn2:userTask id="U" name="Review" {attrs}>{inner}</bpmn2:userTask>'


def properties(*names: str) -> str:
    return "".join(f'<bpmn2:property id="{n}"/>' for n in names)


# -- data inputs -----------------------------------------------------------------------------


def test_a_user_task_gets_its_constant_inputs_under_their_names(jbpm: Jbpm, engine: Engine) -> None:
    # given: jBPM's user task: TaskName, GroupId, Skippable and a quoted Comment as constants
    body = line(
        user_task(
            io("U", ("TaskName", "GroupId", "Skippable", "Comment"))
            + constant("U", "TaskName", "Review order")
            + constant("U", "GroupId", "managers")
            + constant("U", "Skippable", "false")
            + constant("U", "Comment", '"Please look"')
        )
    )
    # when
    instance = engine.start(jbpm(body))
    outcome = instance.run()
    # then: the text is the value (a string, its double quotes removed), keyed by name
    assert outcome.state == "waiting"
    [task] = instance.user_tasks()
    assert task.inputs == {
        "TaskName": "Review order",
        "GroupId": "managers",
        "Skippable": "false",
        "Comment": "Please look",
    }
    instance.complete_task(task.id, {})
    assert instance.run().state == "completed"


def test_a_data_input_value_puts_variable_and_property_paths_in_place_as_text(
    jbpm: Jbpm, engine: Engine
) -> None:
    # given: #{...} in the text, as jBPM replaces them when it creates the work item
    body = properties("order", "customer", "rush", "rate", "note") + line(
        user_task(
            io("U", ("Comment",))
            + constant("U", "Comment", "#{order.id} for #{customer}: #{rush} at #{rate} (#{note})")
        )
    )
    variables = {"order": {"id": 7}, "customer": "Ada", "rush": True, "rate": 2.5}
    # when
    instance = engine.start(jbpm(body), variables=variables)
    instance.run()
    # then: Java's text of each value (true, not True), null (the unset `note`) as ""
    [task] = instance.user_tasks()
    assert task.inputs == {"Comment": "7 for Ada: true at 2.5 ()"}


def test_a_value_java_would_write_differently_is_an_incident_naming_it(
    jbpm: Jbpm, engine: Engine
) -> None:
    body = properties("items") + line(
        user_task(io("U", ("Comment",)) + constant("U", "Comment", "Items: #{items}"))
    )
    outcome = engine.start(jbpm(body), variables={"items": ["a", "b"]}).run()
    assert outcome.state == "failed"
    assert "#{items}" in (outcome.incident or "") and "toString" in (outcome.incident or "")


def test_an_input_no_association_fills_is_none_and_a_mapped_one_takes_the_variable(
    jbpm: Jbpm, engine: Engine
) -> None:
    # given: ActorId declared and left unset, GroupId with an association that reads nothing,
    # Reviewer from the variable `employee`
    empty = (
        "<bpmn2:dataInputAssociation><bpmn2:targetRef>U_GroupIdInputX</bpmn2:targetRef>"
        "</bpmn2:dataInputAssociation>"
    )
    body = properties("employee") + line(
        user_task(
            io("U", ("ActorId", "GroupId", "Reviewer"))
            + empty
            + mapped_in("U", "Reviewer", "employee")
        )
    )
    # when
    instance = engine.start(jbpm(body), variables={"employee": "krisv"})
    instance.run()
    # then: jBPM leaves an unset parameter null (a required input elsewhere: an incident)
    [task] = instance.user_tasks()
    assert task.inputs == {"ActorId": None, "GroupId": None, "Reviewer": "krisv"}


def test_a_user_task_output_comes_back_by_its_name(jbpm: Jbpm, engine: Engine) -> None:
    body = properties("approved") + line(
        user_task(io("U", (), ("Approved",)) + mapped_out("U", "Approved", "approved"))
    )
    instance = engine.start(jbpm(body))
    instance.run()
    [task] = instance.user_tasks()
    instance.complete_task(task.id, {"Approved": True})
    assert instance.run().variables == {"approved": True}


@pytest.mark.parametrize(
    ("text", "named"),
    [("sum #{a.size()}", r"#\{a.size\(\)\}"), ("#{a}#{b}", r"#\{a\}#\{b\}.*put a space")],
)
def test_a_data_input_value_with_mvel_in_it_is_refused_before_the_first_step(
    jbpm: Jbpm, engine: Engine, text: str, named: str
) -> None:
    body = properties("a", "b") + line(
        user_task(io("U", ("Comment",)) + constant("U", "Comment", text))
    )
    with pytest.raises(LoadError, match=named) as error:
        engine.start(jbpm(body))
    assert "is MVEL, which needs a JVM" in str(error.value)
    assert error.value.element_id == "U" and error.value.line


def test_a_multi_instance_reads_the_collection_its_loop_input_is_associated_with(
    jbpm: Jbpm, engine: Engine
) -> None:
    # given: jBPM's shape: loopDataInputRef names a data input whose association reads `list`
    loop = (
        "<bpmn2:multiInstanceLoopCharacteristics>"
        "<bpmn2:loopDataInputRef>U_IN_COLLECTIONInputX</bpmn2:loopDataInputRef>"
        '<bpmn2:inputDataItem id="item" name="item"/>'
        "</bpmn2:multiInstanceLoopCharacteristics>"
    )
    body = properties("list") + line(
        user_task(
            io("U", ("IN_COLLECTION", "TaskName"))
            + mapped_in("U", "IN_COLLECTION", "list")
            + constant("U", "TaskName", "Check #{item}")
            + loop
        )
    )
    # when
    instance = engine.start(jbpm(body), variables={"list": ["a", "b"]})
    instance.run()
    # then: one task per item, each with its own text
    assert sorted(t.inputs["TaskName"] for t in instance.user_tasks()) == ["Check a", "Check b"]


def test_a_file_that_only_declares_the_namespace_is_read_as_bpmn(
    tmp_path: Path, engine: Engine
) -> None:
    # given: the declaration alone (some tools copy it), no drools: attribute or element
    path = tmp_path / "declared.bpmn"
    path.write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n{JBPM_HEADER}'
        '<bpmn2:process id="p" isExecutable="true">'
        + line(user_task(io("U", ("Comment",)) + constant("U", "Comment", "1 + 1")))
        + "</bpmn2:process></bpmn2:definitions>",
        encoding="utf-8",
    )
    # when
    instance = engine.start(path)
    instance.run()
    # then: the assignment is an expression and the input is named by its id
    [task] = instance.user_tasks()
    assert task.inputs == {"U_CommentInputX": 2}


def test_a_multi_instance_gathers_each_output_item_into_its_loop_output(
    jbpm: Jbpm, engine: Engine
) -> None:
    # given: each task reads its `item` (the loop's input item) as Item; its Verdict goes to
    # the output item `verdict`, which the loop gathers into the collection its
    # loopDataOutputRef's association writes, `verdicts`
    loop = (
        "<bpmn2:multiInstanceLoopCharacteristics>"
        "<bpmn2:loopDataInputRef>U_IN_COLLECTIONInputX</bpmn2:loopDataInputRef>"
        "<bpmn2:loopDataOutputRef>U_OUT_COLLECTIONOutputX</bpmn2:loopDataOutputRef>"
        '<bpmn2:inputDataItem id="item"/><bpmn2:outputDataItem id="verdict"/>'
        "</bpmn2:multiInstanceLoopCharacteristics>"
    )
    body = properties("list", "verdicts") + line(
        user_task(
            io("U", ("IN_COLLECTION", "Item"), ("OUT_COLLECTION", "Verdict"))
            + mapped_in("U", "IN_COLLECTION", "list")
            + mapped_in("U", "Item", "item")
            + mapped_out("U", "OUT_COLLECTION", "verdicts")
            + mapped_out("U", "Verdict", "verdict")
            + loop
        )
    )
    instance = engine.start(jbpm(body), variables={"list": ["a", "b"]})
    instance.run()
    # when
    for task in sorted(instance.user_tasks(), key=lambda t: t.id):
        instance.complete_task(task.id, {"Verdict": f"ok-{task.inputs['Item']}"})
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["verdicts"] == ["ok-a", "ok-b"]


# -- work item handlers ----------------------------------------------------------------------


def email_task(inner: str = "") -> str:
    return f'<bpmn2:task id="T" name="Send" drools:taskName="Email">{inner}</bpmn2:task>'


def test_a_task_naming_a_work_item_calls_its_handler_with_its_parameters(
    jbpm: Jbpm, make_engine: MakeEngine
) -> None:
    # given: a jBPM custom task, handler "Email", a To parameter and a Result
    seen: list[dict] = []

    def email(context: ServiceTaskContext) -> dict:
        seen.append(context.variables)
        return {"Result": "sent"}

    body = properties("status", "to") + line(
        email_task(
            io("T", ("To",), ("Result",))
            + constant("T", "To", "#{to}")
            + mapped_out("T", "Result", "status")
        )
    )
    engine = make_engine(handlers={"Email": email})
    # when
    outcome = engine.start(jbpm(body), variables={"to": "ada@example.org"}).run()
    # then
    assert outcome.state == "completed"
    assert seen and seen[0]["To"] == "ada@example.org"
    assert outcome.variables == {"status": "sent", "to": "ada@example.org"}


def test_a_task_naming_a_work_item_without_its_handler_waits_as_a_job(
    jbpm: Jbpm, engine: Engine
) -> None:
    # given no Email handler: jBPM would not pass the task by, so it waits for one
    instance = engine.start(jbpm(line(email_task())))
    outcome = instance.run()
    assert outcome.state == "waiting"
    assert outcome.waiting_for == [
        {"element": "T", "reason": "job", "track": 1, "handlers": ["Email", "T"]}
    ]
    assert events_named(instance, "job.started") == []


def test_a_java_service_task_calls_the_handler_named_by_its_operation(
    jbpm: Jbpm, make_engine: MakeEngine
) -> None:
    # given: jBPM's Java service task, interface and operation as the designer writes them
    task = (
        '<bpmn2:serviceTask id="T" implementation="Java" drools:serviceimplementation="Java"'
        ' drools:serviceinterface="org.example.Greeter" drools:serviceoperation="greet"/>'
    )
    path = jbpm(line(task))
    # when: no handler, then one named by the operation
    waiting = make_engine().start(path).run()
    done = make_engine(handlers={"greet": lambda c: {"greeted": True}}).start(path).run()
    # then
    assert waiting.waiting_for[0]["handlers"] == ["Greeter.greet", "greet", "Java", "T"]
    assert done.state == "completed" and done.variables == {"greeted": True}


# -- timers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("duration", "waited"),
    [
        ("1m 30s", timedelta(seconds=90)),
        ("250ms", timedelta(milliseconds=250)),
        ("1500", timedelta(seconds=1.5)),  # a bare number: milliseconds
        ("PT2H", timedelta(hours=2)),
        ("#{delay}", timedelta(minutes=3)),  # MVEL: the variable's value
    ],
)
def test_a_timer_waits_for_a_jbpm_duration(
    jbpm: Jbpm, make_engine: MakeEngine, duration: str, waited: timedelta
) -> None:
    clock = VirtualClock(START)
    timer = (
        '<bpmn2:intermediateCatchEvent id="W"><bpmn2:timerEventDefinition>'
        f'<bpmn2:timeDuration xsi:type="bpmn2:tFormalExpression">{duration}'
        "</bpmn2:timeDuration></bpmn2:timerEventDefinition></bpmn2:intermediateCatchEvent>"
    )
    path = jbpm(properties("delay") + line(timer))
    outcome = make_engine(clock=clock).start(path, variables={"delay": "PT3M"}).run()
    assert outcome.state == "completed"
    assert clock.now() == START + waited


# -- conditions ------------------------------------------------------------------------------


def choice(condition: str, language: str | None = MVEL) -> str:
    lang = f' language="{language}"' if language else ""
    return (
        '<bpmn2:exclusiveGateway id="G" gatewayDirection="Diverging" default="G-No"/>'
        '<bpmn2:endEvent id="Yes"/><bpmn2:endEvent id="No"/>'
        '<bpmn2:startEvent id="S"/>'
        + flow("S", "G")
        + flow(
            "G",
            "Yes",
            f'<bpmn2:conditionExpression xsi:type="bpmn2:tFormalExpression"{lang}>'
            f"{condition}</bpmn2:conditionExpression>",
        )
        + flow("G", "No")
    )


@pytest.mark.parametrize(("approved", "end"), [(True, "Yes"), (False, "No")])
def test_an_mvel_condition_that_reads_a_property_path_is_evaluated(
    jbpm: Jbpm, engine: Engine, approved: bool, end: str
) -> None:
    body = properties("order") + choice("#{order.approved}")
    outcome = engine.start(jbpm(body), variables={"order": {"approved": approved}}).run()
    assert outcome.state == "completed" and outcome.end_event == end


@pytest.mark.parametrize(
    ("condition", "language", "named"),
    [
        ("return x &gt; 5;", MVEL, "MVEL"),
        ("#{x &gt; 5}", MVEL, "MVEL"),
        ("x &gt; 5", None, "MVEL"),  # jBPM reads a condition that names no language as MVEL
        ("return x &gt; 5;", "http://www.java.com/java", "Java"),
        ("Order( total &gt; 5 )", "http://www.jboss.org/drools/rule", "Drools rule"),
    ],
)
def test_a_jvm_condition_is_refused_before_the_first_step_naming_its_language(
    jbpm: Jbpm, engine: Engine, condition: str, language: str | None, named: str
) -> None:
    with pytest.raises(LoadError, match=f"G-Yes: {named} expression .*needs a JVM") as error:
        engine.start(jbpm(properties("x") + choice(condition, language)), variables={"x": 9})
    assert error.value.element_id == "G-Yes" and error.value.line


def test_a_script_task_without_a_script_format_is_mvel_and_refused(
    jbpm: Jbpm, engine: Engine
) -> None:
    body = line('<bpmn2:scriptTask id="T"><bpmn2:script>x = 1</bpmn2:script></bpmn2:scriptTask>')
    # (MVEL beyond printing and variables: refused, where it would have run as python)
    with pytest.raises(
        LoadError, match=re.escape("script format 'http://www.mvel.org/2.0'") + ".*assigns x"
    ) as error:
        engine.start(jbpm(body))
    assert error.value.element_id == "T"


def script_task(task_id: str, script: str, script_format: str | None = None) -> str:
    fmt = f' scriptFormat="{script_format}"' if script_format else ""
    text = script.replace("&", "&amp;").replace("<", "&lt;")
    return (
        f'<bpmn2:scriptTask id="{task_id}"{fmt}><bpmn2:script>{text}</bpmn2:script>'
        "</bpmn2:scriptTask>"
    )


@pytest.mark.parametrize("script_format", [None, MVEL, "http://www.java.com/java"])
def test_scripts_that_print_and_set_variables_run(
    jbpm: Jbpm, engine: Engine, script_format: str | None
) -> None:
    # given: jBPM's Hello World, and a script that reads and sets variables with kcontext
    body = properties("name", "greeting") + line(
        script_task("Hello", 'System.out.println("Hello World");', script_format),
        script_task(
            "Greet",
            'String g = "Hello " + name + "!";\n'
            'kcontext.setVariable("greeting", g);\n'
            'System.out.println(kcontext.getVariable("greeting"));',
            script_format,
        ),
    )
    # when
    instance = engine.start(jbpm(body), variables={"name": "Ada"})
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert instance.variables["greeting"] == "Hello Ada!"
    printed = [
        (e.element, e.data["text"]) for e in instance.history() if e.event == "script.printed"
    ]
    assert printed == [("Hello", "Hello World\n"), ("Greet", "Hello Ada!\n")]


def test_a_script_that_does_arithmetic_stops_with_an_incident_saying_so(
    jbpm: Jbpm, engine: Engine
) -> None:
    body = properties("n") + line(script_task("T", 'kcontext.setVariable("n", n + 1);', MVEL))
    outcome = engine.start(jbpm(body), variables={"n": 1}).run()
    assert outcome.state == "failed"
    assert "arithmetic" in str(outcome.incident) and "is not imitated" in str(outcome.incident)


# -- jBPM's namespace ------------------------------------------------------------------------


def test_attributes_that_change_nothing_run(jbpm: Jbpm, engine: Engine) -> None:
    # given: package, version, adHoc="false", selectable, equal flow priorities, metadata
    body = properties("x") + (
        '<bpmn2:startEvent id="S" drools:selectable="true"/>'
        '<bpmn2:exclusiveGateway id="G" gatewayDirection="Diverging"/>'
        '<bpmn2:task id="A" drools:selectable="true"><bpmn2:extensionElements>'
        '<drools:metaData name="elementname"><drools:metaValue>A</drools:metaValue>'
        "</drools:metaData></bpmn2:extensionElements></bpmn2:task>"
        '<bpmn2:endEvent id="Big"/><bpmn2:endEvent id="Small"/>'
        + flow("S", "G")
        + flow(
            "G",
            "A",
            f'<bpmn2:conditionExpression language="{MVEL}">#{{x}}</bpmn2:conditionExpression>',
            'tns:priority="1"',
        )
        + flow(
            "G",
            "Small",
            f'<bpmn2:conditionExpression language="{MVEL}">#{{x}}</bpmn2:conditionExpression>',
            'tns:priority="1"',
        )
        + flow("A", "Big")
    )
    process = 'drools:packageName="org.example" drools:version="1.0" drools:adHoc="false"'
    outcome = engine.start(jbpm(body, process), variables={"x": True}).run()
    assert outcome.state == "completed" and outcome.end_event == "Big"


def on(tag: str, script: str, script_format: str = "http://www.java.com/java") -> str:
    """A drools:onEntry-script or onExit-script (`tag`) holding `script`."""
    return (
        f'<bpmn2:extensionElements><drools:{tag}-script scriptFormat="{script_format}">'
        f"<drools:script>{script}</drools:script></drools:{tag}-script>"
        "</bpmn2:extensionElements>"
    )


OUT_OF_ORDER = properties("x") + (
    '<bpmn2:startEvent id="S"/><bpmn2:exclusiveGateway id="G" gatewayDirection="Diverging"/>'
    '<bpmn2:endEvent id="A"/><bpmn2:endEvent id="B"/>'
    + flow("S", "G")
    + flow(
        "G",
        "A",
        f'<bpmn2:conditionExpression language="{MVEL}">#{{x}}</bpmn2:conditionExpression>',
        'tns:priority="2"',
    )
    + flow(
        "G",
        "B",
        f'<bpmn2:conditionExpression language="{MVEL}">#{{x}}</bpmn2:conditionExpression>',
        'tns:priority="1"',
    )
)


def assigned_in(language: str) -> str:
    """A user task whose input is an assignment over a variable (`sourceRef`)."""
    lang = f' language="{language}"' if language else ""
    return properties("order") + line(
        '<bpmn2:userTask id="T">'
        + io("T", ("City",))
        + "<bpmn2:dataInputAssociation><bpmn2:sourceRef>order</bpmn2:sourceRef>"
        "<bpmn2:targetRef>T_CityInputX</bpmn2:targetRef><bpmn2:assignment>"
        f'<bpmn2:from xsi:type="bpmn2:tFormalExpression"{lang}>address.city</bpmn2:from>'
        '<bpmn2:to xsi:type="bpmn2:tFormalExpression">.</bpmn2:to>'
        "</bpmn2:assignment></bpmn2:dataInputAssociation></bpmn2:userTask>"
    )


REFUSED = {
    "xpath assignment": (assigned_in(""), "", "T", "jBPM evaluates it as XPath over the source"),
    "mvel assignment": (assigned_in(MVEL), "", "T", "jBPM evaluates it as MVEL over the source"),
    "on-entry script that throws": (
        line(f'<bpmn2:task id="T">{on("onEntry", "throw new RuntimeException();")}</bpmn2:task>'),
        "",
        "T",
        r"drools:onEntry-script \(Java\): .*uses 'throw'",
    ),
    "on-entry script that sets variables": (
        line(
            f'<bpmn2:task id="T">{on("onEntry", "kcontext.setVariable(&quot;x&quot;, 1);")}'
            "</bpmn2:task>"
        ),
        "",
        "T",
        r"drools:onEntry-script \(Java\) sets variables",
    ),
    "javascript on-exit script": (
        line(
            f'<bpmn2:task id="T">{on("onExit", "print(1)", "http://www.javascript.com/javascript")}'
            "</bpmn2:task>"
        ),
        "",
        "T",
        r"drools:onExit-script \(JavaScript\)",
    ),
    "ad-hoc process": (line('<bpmn2:task id="T"/>'), 'drools:adHoc="true"', "p", "adHoc"),
    "flow priorities": (OUT_OF_ORDER, "", "G", "drools:priority"),
    "behaviour metadata": (
        line(
            '<bpmn2:task id="T"><bpmn2:extensionElements><drools:metaData name="customAutoStart">'
            "<drools:metaValue>true</drools:metaValue></drools:metaData>"
            "</bpmn2:extensionElements></bpmn2:task>"
        ),
        "",
        "T",
        "customAutoStart",
    ),
    "call without waiting": (
        line('<bpmn2:callActivity id="C" calledElement="p" drools:waitForCompletion="false"/>'),
        "",
        "C",
        "waitForCompletion",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_changes_how_jbpm_runs_is_refused_before_the_first_step(
    jbpm: Jbpm, engine: Engine, case: str
) -> None:
    body, process, element, message = REFUSED[case]
    path = jbpm(body, process) if process else jbpm(body)
    with pytest.raises(LoadError, match=message) as error:
        engine.start(path)
    assert error.value.element_id == element and error.value.line


@pytest.mark.parametrize("case", ["on-entry script that sets variables", "flow priorities"])
def test_validate_reports_the_refusals_of_the_jbpm_dialect(
    jbpm: Jbpm, tmp_path: Path, case: str
) -> None:
    body, _, element, message = REFUSED[case]
    result = cli(tmp_path, "validate", str(jbpm(body)))
    assert result.returncode != 0
    rows = [row for row in result.stdout.splitlines() if "executable" in row]
    assert any(re.search(message, row) and f"[{element}]" in row for row in rows), result.stdout
    assert "Traceback" not in result.stderr


def test_validate_reports_an_mvel_condition_naming_its_language(jbpm: Jbpm, tmp_path: Path) -> None:
    result = cli(tmp_path, "validate", str(jbpm(properties("x") + choice("return x;"))))
    assert result.returncode != 0
    assert "MVEL expression 'return x;'" in result.stdout


SHARED_ID = (
    '<bpmn2:startEvent id="S"/><bpmn2:task id="T"/><bpmn2:endEvent id="E"/>'
    '<bpmn2:sequenceFlow id="T" sourceRef="S" targetRef="T"/>'
    '<bpmn2:sequenceFlow id="T-E" sourceRef="T" targetRef="E"/>'
)


def test_a_flow_sharing_a_node_id_is_renamed_with_a_warning(jbpm: Jbpm, engine: Engine) -> None:
    # given: jBPM's files may give a sequence flow the id of a node (read apart in jBPM)
    body = SHARED_ID
    instance = engine.start(jbpm(body))
    outcome = instance.run()
    assert outcome.state == "completed" and outcome.end_event == "E"
    [warning] = events_named(instance, "warning")
    assert warning.element == "T-line4" and "sequence flow id 'T'" in warning.data["message"]


def test_two_flows_with_one_id_both_run(jbpm: Jbpm, engine: Engine) -> None:
    # given: two flows into a join, written with the same id (as in jBPM's link event test)
    body = (
        '<bpmn2:startEvent id="S"/><bpmn2:parallelGateway id="F"/>'
        '<bpmn2:parallelGateway id="J"/><bpmn2:endEvent id="E"/>'
        + flow("S", "F")
        + '<bpmn2:sequenceFlow id="twice" sourceRef="F" targetRef="J"/>'
        + '<bpmn2:sequenceFlow id="twice" sourceRef="F" targetRef="J"/>'
        + flow("J", "E")
    )
    outcome = engine.start(jbpm(body)).run()
    assert outcome.state == "completed" and outcome.end_event == "E"


def test_a_duplicate_node_id_stays_refused_in_a_jbpm_file(jbpm: Jbpm, engine: Engine) -> None:
    body = line('<bpmn2:task id="T"/>', '<bpmn2:task id="T"/>')
    with pytest.raises(LoadError, match="duplicate id"):
        engine.start(jbpm(body))


def test_validate_warns_of_the_renamed_flow_as_run_does(jbpm: Jbpm, tmp_path: Path) -> None:
    result = cli(tmp_path, "validate", str(jbpm(SHARED_ID)))
    rows = [row for row in result.stdout.splitlines() if "executable" in row]
    assert any("warning" in row and "[T-line4]" in row for row in rows), result.stdout
    assert "duplicate id" not in result.stdout and "Traceback" not in result.stderr


def test_a_conditional_event_in_a_jvm_language_is_refused_before_the_first_step(
    jbpm: Jbpm, engine: Engine
) -> None:
    # given: jBPM's conditional event, its condition a Drools rule (it was an incident
    # when a token reached the event)
    event = (
        '<bpmn2:intermediateCatchEvent id="C"><bpmn2:conditionalEventDefinition>'
        '<bpmn2:condition xsi:type="bpmn2:tFormalExpression"'
        ' language="http://www.jboss.org/drools/rule">Person( name == "Jack" )</bpmn2:condition>'
        "</bpmn2:conditionalEventDefinition></bpmn2:intermediateCatchEvent>"
    )
    with pytest.raises(LoadError, match=r"C: Drools rule expression .*needs a JVM") as error:
        engine.start(jbpm(line(event)))
    assert error.value.element_id == "C" and error.value.line


def test_on_entry_and_on_exit_scripts_that_print_and_set_variables_run(
    jbpm: Jbpm, engine: Engine
) -> None:
    # given: jBPM's on-entry and on-exit scripts (Java; MVEL when none is named)
    entry = on("onEntry", 'System.out.println("entering " + kcontext.getVariable("x"));')
    exit_ = on("onExit", 'kcontext.setVariable("x", "done"); System.out.println("left")', "")
    body = properties("x") + line(
        f'<bpmn2:task id="T">{entry.replace("</bpmn2:extensionElements>", "")}'
        f"{exit_.replace('<bpmn2:extensionElements>', '')}</bpmn2:task>"
    )
    # when
    instance = engine.start(jbpm(body), variables={"x": "x0"})
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert instance.variables["x"] == "done"
    printed = [e.data["text"] for e in instance.history() if e.event == "script.printed"]
    assert printed == ["entering x0\n", "left\n"]
