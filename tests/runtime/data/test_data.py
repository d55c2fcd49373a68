"""BPMN data: data objects as variables of their scope, data associations (source/target,
assignments, transformations), ioSpecification and properties (data stores:
test_data_stores.py)."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError
from tests.runtime.conftest import Bpmn, flow, script


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """The real `bpmn` command, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "cli", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def scripted(task_id: str, code: str, data: str) -> str:
    """A python script task with data elements (properties, ioSpecification, associations)."""
    text = code.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (
        f'<scriptTask id="{task_id}" scriptFormat="python">{data}'
        f"<script>{text}</script></scriptTask>"
    )


def reads(assoc_id: str, source: str, target: str, inner: str = "") -> str:
    return (
        f'<dataInputAssociation id="{assoc_id}"><sourceRef>{source}</sourceRef>'
        f"<targetRef>{target}</targetRef>{inner}</dataInputAssociation>"
    )


def writes(assoc_id: str, target: str, source: str | None = None, inner: str = "") -> str:
    src = f"<sourceRef>{source}</sourceRef>" if source else ""
    return (
        f'<dataOutputAssociation id="{assoc_id}">{src}'
        f"<targetRef>{target}</targetRef>{inner}</dataOutputAssociation>"
    )


PLACEHOLDER = '<property id="P_{0}" name="__targetRef_placeholder"/>'


def line(*elements: str, prefix: str = "") -> str:
    """start -> each element in turn -> end (elements' ids are their first id attribute)."""
    ids = [e.split('id="', 1)[1].split('"', 1)[0] for e in elements]
    chain = [f"{prefix}S", *ids, f"{prefix}E"]
    return (
        f'<startEvent id="{prefix}S"/>'
        + "".join(elements)
        + f'<endEvent id="{prefix}E"/>'
        + "".join(flow(a, b) for a, b in itertools.pairwise(chain))
    )


def test_a_data_object_is_written_and_read_by_script_tasks_through_associations(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given: bpmn.io's shape: no sourceRef on the output, a placeholder property on the input
    body = (
        '<dataObject id="order"/>'
        '<dataObjectReference id="Ref1" dataObjectRef="order"/>'
        '<dataObjectReference id="Ref2" dataObjectRef="order"/>'
        + line(
            scripted("Make", "order = {'total': 40}", writes("W", "Ref1")),
            scripted(
                "Use",
                "charged = order['total'] + 2",
                PLACEHOLDER.format("Use") + reads("R", "Ref2", "P_Use"),
            ),
        )
    )
    # when
    outcome = engine.start(bpmn(body)).run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"order": {"total": 40}, "charged": 42}


def test_a_data_object_starts_as_none_in_its_process(bpmn: Bpmn, engine: Engine) -> None:
    body = '<dataObject id="note"/>' + line(script("T", "seen = note is None"))
    assert engine.start(bpmn(body)).run().variables == {"note": None, "seen": True}


def test_a_subprocess_data_object_is_invisible_outside_the_subprocess(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given: the data object is declared in the subprocess; the script writes it there
    inner = '<dataObject id="draft"/><dataObjectReference id="DR" dataObjectRef="draft"/>' + line(
        scripted("Write", "draft = 'text'", writes("W", "DR")),
        scripted("Read", "length = len(draft)", ""),
        prefix="in",
    )
    body = line(f'<subProcess id="Sub">{inner}</subProcess>', script("After", "outside = 1"))
    # when
    instance = engine.start(bpmn(body))
    outcome = instance.run()
    # then: the subprocess saw it, the process did not keep it
    assert outcome.state == "completed"
    assert outcome.variables == {"length": 4, "outside": 1}


def test_a_later_task_outside_the_subprocess_cannot_read_its_data_object(
    bpmn: Bpmn, engine: Engine
) -> None:
    inner = '<dataObject id="draft"/>' + line(script("Write", "draft = 'text'"), prefix="in")
    body = line(f'<subProcess id="Sub">{inner}</subProcess>', script("After", "x = draft"))
    outcome = engine.start(bpmn(body)).run()
    assert outcome.state == "failed"
    assert outcome.incident.startswith("After:") and "draft" in outcome.incident


def test_assignments_copy_from_an_expression_to_a_named_variable(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given: the input assignment computes `net`; the output one writes `invoice`
    data = (
        '<ioSpecification><dataInput id="net"/><dataOutput id="gross"/>'
        "<inputSet><dataInputRefs>net</dataInputRefs></inputSet>"
        "<outputSet><dataOutputRefs>gross</dataOutputRefs></outputSet></ioSpecification>"
        + reads(
            "R",
            "Price",
            "net",
            '<assignment><from xsi:type="tFormalExpression">price - discount</from>'
            '<to xsi:type="tFormalExpression">net</to></assignment>',
        )
        + writes(
            "W",
            "Invoice",
            "gross",
            '<assignment><from xsi:type="tFormalExpression">{"gross": gross}</from>'
            '<to xsi:type="tFormalExpression">Invoice</to></assignment>',
        )
    )
    body = (
        '<dataObject id="price"/><dataObjectReference id="Price" dataObjectRef="price"/>'
        '<dataObject id="invoice"/><dataObjectReference id="Invoice" dataObjectRef="invoice"/>'
        + line(scripted("Calc", "gross = net * 2\ntemp = 1", data))
    )
    # when
    outcome = engine.start(bpmn(body), variables={"price": 50, "discount": 10}).run()
    # then: only the data output (through the assignment) came back; `temp` stayed inside
    assert outcome.state == "completed"
    assert outcome.variables == {"price": 50, "discount": 10, "invoice": {"gross": 80}}


def test_a_transformation_computes_the_value_an_association_carries(
    bpmn: Bpmn, engine: Engine
) -> None:
    data = '<property id="items"/>' + reads(
        "R",
        "Cart",
        "items",
        '<transformation xsi:type="tFormalExpression">cart[1:]</transformation>',
    )
    body = '<dataObject id="cart"/><dataObjectReference id="Cart" dataObjectRef="cart"/>' + line(
        scripted("Count", "n = len(items)", data)
    )
    outcome = engine.start(bpmn(body), variables={"cart": ["a", "b", "c"]}).run()
    assert outcome.variables == {"cart": ["a", "b", "c"], "n": 2}


def test_only_the_data_outputs_of_an_activity_come_back(bpmn: Bpmn, engine: Engine) -> None:
    # given: Spiff's io_spec_on_task shape, inputs and outputs named by id
    data = (
        '<ioSpecification><dataInput id="in_1" name="input 1"/>'
        '<dataOutput id="out_1" name="output 1"/>'
        "<inputSet><dataInputRefs>in_1</dataInputRefs></inputSet>"
        "<outputSet><dataOutputRefs>out_1</dataOutputRefs></outputSet></ioSpecification>"
    )
    body = line(scripted("T", "out_1 = in_1 + 1\nscratch = 'kept inside'", data))
    # when
    outcome = engine.start(bpmn(body), variables={"in_1": 1}).run()
    # then
    assert outcome.variables == {"in_1": 1, "out_1": 2}


def test_a_missing_data_input_of_an_activity_is_an_incident_naming_it(
    bpmn: Bpmn, engine: Engine
) -> None:
    data = '<ioSpecification><dataInput id="in_1"/><inputSet/><outputSet/></ioSpecification>'
    outcome = engine.start(bpmn(line(scripted("T", "x = 1", data)))).run()
    assert outcome.state == "failed"
    assert outcome.incident.startswith("T:") and "'in_1'" in outcome.incident


def test_a_missing_data_output_is_an_incident_naming_it(bpmn: Bpmn, engine: Engine) -> None:
    data = '<ioSpecification><dataOutput id="out_1"/><inputSet/><outputSet/></ioSpecification>'
    outcome = engine.start(bpmn(line(scripted("T", "x = 1", data)))).run()
    assert outcome.state == "failed"
    assert "data output 'out_1'" in outcome.incident


def test_a_property_is_a_local_of_its_activity(bpmn: Bpmn, engine: Engine) -> None:
    body = line(scripted("T", "seen = counter is None", '<property id="counter"/>'))
    assert engine.start(bpmn(body)).run().variables == {"seen": True}


def test_a_user_task_gets_its_data_inputs_and_sends_back_its_outputs(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = '<dataObject id="doc"/><dataObjectReference id="D" dataObjectRef="doc"/>' + line(
        '<userTask id="U"><property id="P_U" name="__targetRef_placeholder"/>'
        + reads("R", "D", "P_U")
        + writes("W", "D")
        + "</userTask>"
    )
    instance = engine.start(bpmn(body), variables={"doc": "v1"})
    instance.run()
    [task] = instance.user_tasks()
    assert task.inputs == {"doc": "v1"}
    instance.complete_task(task.id, {"doc": "v2"})
    assert instance.run().variables == {"doc": "v2"}


PROCESS_INPUT = (
    '<ioSpecification><dataInput id="customer" name="Customer"/>'
    "<inputSet><dataInputRefs>customer</dataInputRefs></inputSet><outputSet/>"
    "</ioSpecification>"
)


def test_a_process_data_input_is_required_at_start(bpmn: Bpmn, engine: Engine) -> None:
    path = bpmn(PROCESS_INPUT + line(script("T", "x = customer")))
    with pytest.raises(LoadError, match="requires data input 'customer'") as error:
        engine.start(path)
    assert error.value.element_id == "p" and error.value.line
    outcome = engine.start(path, variables={"customer": "Ada"}).run()
    assert outcome.variables == {"customer": "Ada", "x": "Ada"}


def test_bpmn_run_without_a_required_data_input_exits_2_naming_it(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    path = bpmn(PROCESS_INPUT + line(script("T", "x = customer")))
    result = cli(tmp_path, "run", str(path))
    assert result.returncode == 2
    assert "'customer'" in result.stderr and "Traceback" not in result.stderr
    ok = cli(tmp_path, "run", str(path), "--var", "customer=Ada")
    assert ok.returncode == 0, ok.stderr


def test_validate_reports_a_transformation_that_does_not_compile(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    data = reads("R", "Ref", "x", "<transformation>price +</transformation>")
    body = '<dataObject id="price"/><dataObjectReference id="Ref" dataObjectRef="price"/>' + line(
        scripted("T", "y = 1", '<property id="x"/>' + data)
    )
    result = cli(tmp_path, "validate", str(bpmn(body)))
    assert result.returncode != 0
    assert "data association does not compile" in result.stdout + result.stderr
