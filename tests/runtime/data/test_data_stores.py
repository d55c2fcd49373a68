"""Data stores: named JSON values kept in the engine's database, shared by every instance of
every process there, read and written through data associations in the step's transaction
(docs/data-stores.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError, UsageError
from bpmn_engine.expressions.guards import MAX_SIZE
from tests.runtime.conftest import HEADER, Bpmn, MakeEngine, events_named
from tests.runtime.data.test_data import PLACEHOLDER, cli, line, reads, scripted, writes

COUNTER = '<dataStore id="counter" name="Counter"/>'


def diagram(tmp_path: Path, body: str, *, roots: str = COUNTER, name: str = "model") -> Path:
    """A file with root elements (`dataStore`s) before the process `p`."""
    path = tmp_path / f"{name}.bpmn"
    path.write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n{HEADER}\n{roots}\n'
        f'<process id="p" isExecutable="true">\n{body}\n</process>\n</definitions>\n',
        encoding="utf-8",
    )
    return path


def writer(code: str) -> str:
    """A process whose script task writes the store `Counter` (bpmn.io's shape: no sourceRef,
    the value is the script's variable of the dataStore's id)."""
    return '<dataStoreReference id="Ref" dataStoreRef="counter"/>' + line(
        scripted("Write", code, writes("W", "Ref"))
    )


def reader(code: str) -> str:
    """A process whose script task reads `Counter` into its variable `counter`."""
    return '<dataStoreReference id="Ref" dataStoreRef="counter"/>' + line(
        scripted("Read", code, PLACEHOLDER.format("Read") + reads("R", "Ref", "P_Read"))
    )


def test_a_store_written_by_one_instance_is_read_by_another_of_another_process(
    tmp_path: Path, engine: Engine
) -> None:
    # given: one process writes the store, another reads it
    write = diagram(tmp_path, writer("counter = {'n': 41}"), name="write")
    read = diagram(tmp_path, reader("seen = counter['n'] + 1"), name="read")
    # when
    written = engine.start(write).run()
    outcome = engine.start(read).run()
    # then: the value went through the database, not through the instances' variables
    assert written.state == "completed" and written.variables == {}
    assert outcome.state == "completed"
    assert outcome.variables == {"seen": 42}
    stored = engine.data_store("Counter")
    assert stored is not None
    assert (stored.value, stored.instance, stored.element, stored.writes) == (
        {"n": 41},
        written.instance,
        "Write",
        1,
    )


def test_each_instance_reads_what_the_last_one_wrote(tmp_path: Path, engine: Engine) -> None:
    # given: a task that reads the store, adds one and writes it back
    data = PLACEHOLDER.format("Add") + reads("R", "Ref", "P_Add") + writes("W", "Ref")
    body = '<dataStoreReference id="Ref" dataStoreRef="counter"/>' + line(
        scripted("Add", "counter = (counter or 0) + 1", data)
    )
    path = diagram(tmp_path, body)
    # when: three instances, one after the other
    outcomes = [engine.start(path).run() for _ in range(3)]
    # then
    assert [o.state for o in outcomes] == ["completed"] * 3
    stored = engine.data_store("Counter")
    assert stored is not None and (stored.value, stored.writes) == (3, 3)
    assert stored.instance == outcomes[-1].instance


def test_a_store_never_written_reads_as_null_with_a_warning(tmp_path: Path, engine: Engine) -> None:
    path = diagram(tmp_path, reader("empty = counter is None"))
    instance = engine.start(path)
    outcome = instance.run()
    assert outcome.state == "completed" and outcome.variables == {"empty": True}
    [warning] = events_named(instance, "warning")
    assert warning.data["message"] == "data store 'Counter' was never written: it reads as null"
    assert engine.data_store("Counter") is None
    assert engine.data_stores() == []


def test_a_failing_step_leaves_the_store_as_it_was(tmp_path: Path, engine: Engine) -> None:
    # given: the store holds 1; a task writes 2 to it, then its next association fails
    engine.start(diagram(tmp_path, writer("counter = 1"), name="first")).run()
    data = writes("W", "Ref") + writes(
        "Broken", "Other", inner="<transformation>1 / 0</transformation>"
    )
    body = (
        '<dataStoreReference id="Ref" dataStoreRef="counter"/>'
        '<dataObject id="other"/><dataObjectReference id="Other" dataObjectRef="other"/>'
        + line(scripted("Write", "counter = 2", data))
    )
    # when
    outcome = engine.start(diagram(tmp_path, body, name="second")).run()
    # then: the step was rolled back whole, the store's write with it
    assert outcome.state == "failed" and "Broken" in (outcome.incident or "")
    stored = engine.data_store("Counter")
    assert stored is not None and (stored.value, stored.writes) == (1, 1)


def test_a_value_too_long_for_a_store_is_an_incident(tmp_path: Path, engine: Engine) -> None:
    big = "x" * (MAX_SIZE + 1)
    engine.handlers = {"big": lambda ctx: {"counter": big}}
    body = '<dataStoreReference id="Ref" dataStoreRef="counter"/>' + line(
        f'<serviceTask id="Make" camunda:type="big">{writes("W", "Ref")}</serviceTask>'
    )
    outcome = engine.start(diagram(tmp_path, body)).run()
    assert outcome.state == "failed"
    assert "data store 'Counter' cannot hold the value" in (outcome.incident or "")
    assert engine.data_store("Counter") is None


def test_a_store_is_named_by_its_name_else_its_id_and_a_lone_reference_by_its_own(
    tmp_path: Path, engine: Engine
) -> None:
    # given: a dataStore without a name, and a reference that names no dataStore
    body = (
        '<dataStoreReference id="A" dataStoreRef="unnamed"/>'
        '<dataStoreReference id="B" name="Ledger"/>'
        '<dataStoreReference id="C"/>'
        + line(
            scripted(
                "Write",
                "unnamed = 1\nB = 2\nC = 3",
                writes("W1", "A") + writes("W2", "B") + writes("W3", "C"),
            )
        )
    )
    path = diagram(tmp_path, body, roots='<dataStore id="unnamed"/>')
    # when
    outcome = engine.start(path).run()
    # then
    assert outcome.state == "completed" and outcome.variables == {}
    assert {s.name: s.value for s in engine.data_stores()} == {
        "C": 3,
        "Ledger": 2,
        "unnamed": 1,
    }


def test_associations_read_into_a_data_input_and_write_from_a_data_output(
    tmp_path: Path, engine: Engine
) -> None:
    # given: the store's value read into the data input `stock`, through a transformation;
    # the data output `left` written to the store
    data = (
        '<ioSpecification><dataInput id="stock"/><dataOutput id="left"/>'
        "<inputSet><dataInputRefs>stock</dataInputRefs></inputSet>"
        "<outputSet><dataOutputRefs>left</dataOutputRefs></outputSet></ioSpecification>"
        + reads("R", "Ref", "stock", "<transformation>counter * 10</transformation>")
        + writes("W", "Ref", "left")
    )
    body = '<dataStoreReference id="Ref" dataStoreRef="counter"/>' + line(
        scripted("Take", "left = stock - 1", data)
    )
    engine.start(diagram(tmp_path, writer("counter = 5"), name="first")).run()
    # when
    outcome = engine.start(diagram(tmp_path, body, name="second")).run()
    # then
    assert outcome.state == "completed" and outcome.variables == {}
    stored = engine.data_store("Counter")
    assert stored is not None and stored.value == 49


def test_reading_and_writing_a_store_is_in_the_history(tmp_path: Path, engine: Engine) -> None:
    instance = engine.start(diagram(tmp_path, writer("counter = [1, 2]")))
    instance.run()
    [written] = events_named(instance, "data_store.written")
    assert (written.element, written.data) == ("Write", {"store": "Counter", "value": [1, 2]})
    other = engine.start(diagram(tmp_path, reader("x = counter"), name="read"))
    other.run()
    [read] = events_named(other, "data_store.read")
    assert (read.element, read.data) == ("Read", {"store": "Counter"})


def test_rewinding_a_store_write_puts_the_store_back(
    tmp_path: Path, make_engine: MakeEngine
) -> None:
    engine = make_engine(undo=True)
    engine.start(diagram(tmp_path, writer("counter = 1"), name="first")).run()
    second = engine.start(diagram(tmp_path, writer("counter = 2"), name="second"))
    while engine.data_store("Counter").value != 2:  # type: ignore[union-attr]
        assert second.step_once()
    # when: the step that wrote 2 goes back
    engine.rewind(second.id)
    # then
    stored = engine.data_store("Counter")
    assert stored is not None and (stored.value, stored.writes) == (1, 1)


def test_rewinding_past_a_store_write_another_instance_overwrote_is_refused(
    tmp_path: Path, make_engine: MakeEngine
) -> None:
    engine = make_engine(undo=True)
    first = engine.start(diagram(tmp_path, writer("counter = 1"), name="first"))
    while engine.data_store("Counter") is None:
        assert first.step_once()
    engine.start(diagram(tmp_path, writer("counter = 2"), name="second")).run()
    # when / then: going back would lose the second write: refused, nothing changes
    with pytest.raises(UsageError, match="data store 'Counter': the store was written since"):
        engine.rewind(first.id)
    stored = engine.data_store("Counter")
    assert stored is not None and (stored.value, stored.writes) == (2, 2)
    assert engine.store.undoable_steps(first.id) > 0


SPIFF_TYPED = '<dataStoreReference id="Ref" dataStoreRef="records"/>' + line(
    '<task id="T">' + writes("W", "Ref") + "</task>"
)


def test_a_spiffworkflow_typed_store_is_refused_by_name(tmp_path: Path, engine: Engine) -> None:
    path = diagram(tmp_path, SPIFF_TYPED, roots='<dataStore id="records" name="KKVDataStore"/>')
    with pytest.raises(LoadError, match="SpiffWorkflow's KKVDataStore") as error:
        engine.start(path)
    assert error.value.element_id == "W" and error.value.line


def test_a_reference_to_a_data_store_nobody_declares_is_refused(bpmn: Bpmn, engine: Engine) -> None:
    with pytest.raises(LoadError, match="names dataStore 'records', which the definitions"):
        engine.start(bpmn(SPIFF_TYPED))


def test_writing_a_store_through_assignments_is_refused(tmp_path: Path, engine: Engine) -> None:
    assignment = (
        '<assignment><from xsi:type="tFormalExpression">1</from>'
        '<to xsi:type="tFormalExpression">counter</to></assignment>'
    )
    body = '<dataStoreReference id="Ref" dataStoreRef="counter"/>' + line(
        scripted("T", "x = 1", writes("W", "Ref", inner=assignment))
    )
    with pytest.raises(LoadError, match="writes data store 'Counter' through assignments"):
        engine.start(diagram(tmp_path, body))


def test_validate_accepts_a_store_and_refuses_a_typed_one(tmp_path: Path) -> None:
    plain = diagram(tmp_path, SPIFF_TYPED, roots='<dataStore id="records" name="Records"/>')
    typed = diagram(
        tmp_path, SPIFF_TYPED, roots='<dataStore id="records" name="JSONDataStore"/>', name="t"
    )
    accepted = cli(tmp_path, "validate", str(plain))
    refused = cli(tmp_path, "validate", str(typed))
    assert "data store" not in accepted.stdout + accepted.stderr, accepted.stdout
    assert refused.returncode != 0
    assert "SpiffWorkflow's JSONDataStore" in refused.stdout + refused.stderr


MESSAGES = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <message id="M" name="parcel"/>
  <dataStore id="outgoing" name="Outgoing"/>
  <dataStore id="received" name="Received"/>
  <process id="sender" isExecutable="true">
    <dataStoreReference id="Out" dataStoreRef="outgoing"/>
    <startEvent id="s1"/>
    <intermediateThrowEvent id="ship">
      <dataInput id="parcel_in"/>
      <dataInputAssociation id="a_in"><sourceRef>Out</sourceRef><targetRef>parcel_in</targetRef>
      </dataInputAssociation>
      <messageEventDefinition messageRef="M"/>
    </intermediateThrowEvent>
    <endEvent id="e1"/>
    <sequenceFlow id="f1" sourceRef="s1" targetRef="ship"/>
    <sequenceFlow id="f2" sourceRef="ship" targetRef="e1"/>
  </process>
  <process id="receiver" isExecutable="true">
    <dataStoreReference id="In" dataStoreRef="received"/>
    <startEvent id="s2"/>
    <intermediateCatchEvent id="arrive">
      <dataOutput id="parcel_out"/>
      <dataOutputAssociation id="a_out"><sourceRef>parcel_out</sourceRef><targetRef>In</targetRef>
      </dataOutputAssociation>
      <messageEventDefinition messageRef="M"/>
    </intermediateCatchEvent>
    <endEvent id="e2"/>
    <sequenceFlow id="f3" sourceRef="s2" targetRef="arrive"/>
    <sequenceFlow id="f4" sourceRef="arrive" targetRef="e2"/>
  </process>
</definitions>
"""


def test_a_message_is_made_from_a_store_and_received_into_another(
    tmp_path: Path, engine: Engine
) -> None:
    # given: the store Outgoing holds the parcel; the receiver waits
    path = tmp_path / "messages.bpmn"
    path.write_text(MESSAGES, encoding="utf-8")
    store = diagram(
        tmp_path,
        '<dataStoreReference id="Ref" dataStoreRef="outgoing"/>'
        + line(scripted("Fill", "outgoing = {'code': 'A1'}", writes("W", "Ref"))),
        roots='<dataStore id="outgoing" name="Outgoing"/>',
        name="fill",
    )
    engine.start(store).run()
    receiver = engine.start(path, "receiver")
    assert receiver.run().state == "waiting"
    # when
    sent = engine.start(path, "sender").run()
    # then
    assert sent.state == "completed"
    assert engine.instance(receiver.id).outcome().state == "completed"
    stored = engine.data_store("Received")
    assert stored is not None and stored.value == {"code": "A1"}
    assert (stored.instance, stored.element) == (receiver.id, "arrive")


def test_miwg_c50_runs_its_call_and_writes_its_data_stores(miwg_dir: Path, engine: Engine) -> None:
    """MIWG C.5.0, the bank's customer onboarding: tasks of the process and of the process
    it calls write "Customer Data (temporary storage)" and "Bank System" through their data
    outputs. Each user task is completed with a value for each of its data outputs."""
    root = engine.start(miwg_dir / "C.5.0.bpmn")
    root.run()
    completed: list[str] = []
    while True:
        waiting = [
            (member, task)
            for member in map(engine.instance, engine.family(root.id))
            for task in member.user_tasks()
        ]
        if not waiting:
            break
        member, task = waiting[0]
        node = member.definitions.node(task.element)
        data = getattr(node, "data", None)  # an activity's data outputs, if it has any
        outputs = data.outputs if data is not None and data.outputs else ()
        member.complete_task(task.element, {name: {"by": task.name} for name in outputs})
        member.run()
        completed.append(task.name or task.element)
    stores = {s.name: s for s in engine.data_stores()}
    assert "Check if group of connected clients exists" in completed  # in the called process
    assert stores["Bank System"].value == {"by": "Create customer in the system"}
    assert stores["Customer Data (temporary storage)"].value == {"by": "Document risk assessment"}
    assert stores["Customer Data (temporary storage)"].writes > 1
