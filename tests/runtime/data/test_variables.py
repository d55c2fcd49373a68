"""Variables: start values, input/output mappings, where writes land, what can be stored."""

from __future__ import annotations

import pytest

from bpmn_engine import Engine, ServiceTaskContext, UsageError
from tests.runtime.conftest import Bpmn, MakeEngine, events_named, flow, script


def io(*parameters: str) -> str:
    return (
        "<extensionElements><camunda:inputOutput>"
        + "".join(parameters)
        + "</camunda:inputOutput></extensionElements>"
    )


def inp(name: str, text: str) -> str:
    return f'<camunda:inputParameter name="{name}">{text}</camunda:inputParameter>'


def out(name: str, text: str) -> str:
    return f'<camunda:outputParameter name="{name}">{text}</camunda:outputParameter>'


def around(task: str, task_id: str = "T") -> str:
    return (
        '<startEvent id="S"/>'
        + task
        + '<endEvent id="E"/>'
        + flow("S", task_id)
        + flow(task_id, "E")
    )


def test_start_variables_are_the_initial_process_variables(bpmn: Bpmn, engine: Engine):
    # given
    variables = {"n": 1, "s": "x", "l": [1, {"a": None}], "f": 1.5, "b": False}
    # when
    instance = engine.start(bpmn('<startEvent id="S"/>'), variables=variables)
    # then
    assert instance.variables == variables
    assert instance.history()[0].data["variables"] == variables
    assert instance.run().variables == variables


def test_the_callers_start_variables_and_read_variables_are_copies(bpmn: Bpmn, engine: Engine):
    # given
    given = {"items": ["book"]}
    instance = engine.start(bpmn('<userTask id="T"/>'), variables=given)
    # when
    given["items"].append("lamp")
    instance.variables["items"].append("desk")
    # then
    assert instance.variables == {"items": ["book"]}
    assert engine.instance(instance.id).variables == {"items": ["book"]}


@pytest.mark.parametrize("value", [object(), {1, 2}, float("nan"), b"bytes"])
def test_a_start_variable_that_cannot_be_stored_is_a_usage_error(
    bpmn: Bpmn, engine: Engine, value: object
):
    # when / then
    with pytest.raises(UsageError, match="bad"):
        engine.start(bpmn('<startEvent id="S"/>'), variables={"bad": value})
    assert engine.instances() == []


def test_script_writes_are_recorded_in_a_variables_updated_event(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(around(script("T", "a = 1\nb = 'two'"))))
    # when
    instance.run()
    # then
    [updated] = events_named(instance, "variables.updated")
    assert (updated.element, updated.data) == ("T", {"variables": {"a": 1, "b": "two"}})


def test_input_parameters_are_local_to_the_task(bpmn: Bpmn, engine: Engine):
    # given: `factor` exists only inside T
    task = (
        '<scriptTask id="T" scriptFormat="python">'
        + io(inp("factor", "${x + 1}"), inp("label", "fixed"))
        + "<script>y = x * factor\nz = label</script></scriptTask>"
    )
    instance = engine.start(bpmn(around(task)), variables={"x": 3})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"x": 3, "y": 12, "z": "fixed"}
    assert "factor" not in outcome.variables
    assert "label" not in outcome.variables


def test_list_and_map_input_parameters(bpmn: Bpmn, engine: Engine):
    # given
    parameters = io(
        '<camunda:inputParameter name="names"><camunda:list>'
        "<camunda:value>a</camunda:value><camunda:value>b</camunda:value>"
        "</camunda:list></camunda:inputParameter>",
        '<camunda:inputParameter name="sizes"><camunda:map>'
        '<camunda:entry key="s">small</camunda:entry><camunda:entry key="l">large</camunda:entry>'
        "</camunda:map></camunda:inputParameter>",
    )
    task = (
        '<scriptTask id="T" scriptFormat="python">'
        + parameters
        + "<script>picked = names[1] + sizes['l']</script></scriptTask>"
    )
    # when
    outcome = engine.start(bpmn(around(task))).run()
    # then
    assert outcome.variables == {"picked": "blarge"}


def test_output_parameters_map_results_out_and_nothing_else_leaves(bpmn: Bpmn, engine: Engine):
    # given
    task = (
        '<scriptTask id="T" scriptFormat="python">'
        + io(out("total", "${tmp * 2}"), out("kind", "constant"))
        + "<script>tmp = x + 1</script></scriptTask>"
    )
    instance = engine.start(bpmn(around(task)), variables={"x": 4})
    # when
    outcome = instance.run()
    # then
    assert outcome.variables == {"x": 4, "total": 10, "kind": "constant"}


def test_user_task_inputs_are_kept_on_the_task_and_outputs_map_its_answer(
    bpmn: Bpmn, engine: Engine
):
    # given
    task = (
        '<userTask id="T">'
        + io(inp("shown", "${amount}"), out("approved", "${answer == 'yes'}"))
        + "</userTask>"
    )
    instance = engine.start(bpmn(around(task)), variables={"amount": 90})
    instance.run()
    [waiting] = instance.user_tasks()
    # when
    instance.complete_task("T", {"answer": "yes"})
    outcome = instance.run()
    # then
    assert waiting.inputs == {"shown": 90}
    assert outcome.variables == {"amount": 90, "approved": True}


def test_a_user_task_answer_without_output_mapping_sets_variables_but_not_its_inputs(
    bpmn: Bpmn, engine: Engine
):
    # given
    task = '<userTask id="T">' + io(inp("shown", "${amount}")) + "</userTask>"
    instance = engine.start(bpmn(around(task)), variables={"amount": 1})
    instance.run()
    # when
    instance.complete_task("T", {"ok": True, "shown": 2})
    outcome = instance.run()
    # then
    assert outcome.variables == {"amount": 1, "ok": True}


def test_service_task_handler_sees_input_locals_and_outputs_map_its_result(
    bpmn: Bpmn, make_engine: MakeEngine
):
    # given
    seen: list[dict] = []

    def price(context: ServiceTaskContext):
        seen.append(dict(context.variables))
        return {"raw": context.variables["net"] * 2}

    task = (
        '<serviceTask id="T" camunda:type="external" camunda:topic="price">'
        + io(inp("net", "${gross - 1}"), out("price", "${raw + net}"))
        + "</serviceTask>"
    )
    engine = make_engine(handlers={"price": price})
    # when
    outcome = engine.start(bpmn(around(task)), variables={"gross": 11}).run()
    # then
    assert seen == [{"gross": 11, "net": 10}]
    assert outcome.variables == {"gross": 11, "price": 30}


def test_subprocess_input_parameters_are_local_to_the_subprocess(bpmn: Bpmn, engine: Engine):
    # given
    body = (
        '<subProcess id="T">'
        + io(inp("limit", "${base * 10}"), out("found", "${limit + seen}"))
        + '<startEvent id="In"/>'
        + script("Use", "seen = limit + 1")
        + flow("In", "Use")
        + "</subProcess>"
    )
    instance = engine.start(bpmn(around(body)), variables={"base": 2})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert "limit" not in outcome.variables
    assert outcome.variables["found"] == 41
    assert outcome.variables["base"] == 2


def test_zeebe_io_mapping_inputs_and_outputs(bpmn: Bpmn, engine: Engine):
    # given
    task = (
        '<scriptTask id="T" scriptFormat="python"><extensionElements><zeebe:ioMapping>'
        '<zeebe:input source="=x" target="local"/>'
        '<zeebe:output source="=tmp" target="result"/>'
        "</zeebe:ioMapping></extensionElements>"
        "<script>tmp = local * 3</script></scriptTask>"
    )
    # when
    outcome = engine.start(bpmn(around(task)), variables={"x": 5}).run()
    # then
    assert outcome.variables == {"x": 5, "result": 15}


def test_an_output_mapping_that_fails_is_an_incident_at_the_task(bpmn: Bpmn, engine: Engine):
    # given
    task = (
        '<scriptTask id="T" scriptFormat="python">'
        + io(out("total", "${nowhere * 2}"))
        + "<script>tmp = 1</script></scriptTask>"
    )
    instance = engine.start(bpmn(around(task)))
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "failed"
    assert (outcome.incident or "").startswith("T: ")
    assert outcome.variables == {}


def test_parallel_branches_share_the_process_variables(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/><parallelGateway id="Join"/>'
        + script("A", "a = base + 1")
        + script("B", "b = base + 2")
        + script("Sum", "total = a + b")
        + flow("S", "Fork")
        + flow("Fork", "A")
        + flow("Fork", "B")
        + flow("A", "Join")
        + flow("B", "Join")
        + flow("Join", "Sum")
    )
    # when
    outcome = engine.start(path, variables={"base": 10}).run()
    # then
    assert outcome.variables == {"base": 10, "a": 11, "b": 12, "total": 23}


def test_completing_a_task_with_a_value_that_cannot_be_stored_is_a_usage_error(
    bpmn: Bpmn, engine: Engine
):
    # given
    instance = engine.start(bpmn(around('<userTask id="T"/>')))
    instance.run()
    # when / then
    with pytest.raises(UsageError, match="bad"):
        instance.complete_task("T", {"bad": object()})
    assert instance.outcome().state == "waiting"
    assert [t.element for t in instance.user_tasks()] == ["T"]


def test_a_script_that_changes_a_list_in_place_updates_the_variable(
    bpmn: Bpmn, tmp_path, make_engine: MakeEngine
):
    # given
    engine = make_engine(tmp_path / "v.db")
    path = bpmn(around(script("T", "items.append('lamp')")))
    # when
    outcome = engine.start(path, variables={"items": ["book"]}).run()
    # then
    assert outcome.variables == {"items": ["book", "lamp"]}
    assert engine.instance(outcome.instance).variables == {"items": ["book", "lamp"]}


def test_a_failing_script_leaves_a_list_it_changed_in_place_as_it_was(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(around(script("T", "items.append('lamp')\nboom = 1 / 0")))
    # when
    outcome = engine.start(path, variables={"items": ["book"]}).run()
    # then
    assert outcome.state == "failed"
    assert outcome.variables == {"items": ["book"]}


def test_set_variables_changes_and_unsets_process_variables_durably(
    bpmn: Bpmn, tmp_path, make_engine: MakeEngine
):
    # given
    engine = make_engine(tmp_path / "v.db")
    instance = engine.start(bpmn(around('<userTask id="T"/>')), variables={"a": 1, "b": 2})
    instance.run()
    # when
    instance.set_variables({"a": 10, "c": [3]}, unset=("b",))
    # then
    assert instance.variables == {"a": 10, "c": [3]}
    assert engine.instance(instance.id).variables == {"a": 10, "c": [3]}
    [updated] = events_named(instance, "variables.updated")
    assert updated.element == "p"
    assert updated.data == {"variables": {"a": 10, "c": [3]}, "unset": ["b"]}


@pytest.mark.parametrize(
    ("values", "unset"),
    [({"a": 5, "bad": object()}, ()), ({"a": 5}, ("missing",))],
    ids=["unstorable-value", "unknown-unset"],
)
def test_a_rejected_set_variables_changes_nothing(
    bpmn: Bpmn, tmp_path, make_engine: MakeEngine, values: dict, unset: tuple
):
    # given
    engine = make_engine(tmp_path / "v.db")
    instance = engine.start(bpmn(around('<userTask id="T"/>')), variables={"a": 1})
    instance.run()
    # when
    with pytest.raises(UsageError):
        instance.set_variables(values, unset=unset)
    # then
    assert engine.instance(instance.id).variables == {"a": 1}
    assert instance.variables == {"a": 1}


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("x = 2 ** 20000", "integer of 20001 bits"),
        ("x = [2 ** 20000]", "cannot be stored as JSON"),
        ("x = []\nfor _ in range(5000):\n    x = [x]", "nested too deep"),
    ],
)
def test_a_value_the_store_cannot_hold_is_an_incident_at_its_element(
    bpmn: Bpmn, tmp_path, make_engine: MakeEngine, code: str, why: str
):
    """Full Python (trusted scripts) can build any value: the store's gate refuses what it
    cannot hold, as an incident at the element, and the instance stays resumable."""
    # given
    engine = make_engine(tmp_path / "v.db", trust_scripts=True)
    path = bpmn(around(script("T", code)))
    # when
    outcome = engine.start(path).run()
    # then
    assert outcome.state == "failed"
    assert outcome.incident is not None and outcome.incident.startswith("T: ")
    assert why in outcome.incident
    reopened = engine.instance(outcome.instance)
    assert reopened.outcome().state == "failed"
    assert reopened.retry() == 1  # and fails the same way, cleanly, on every retry
    assert reopened.run().state == "failed"


def test_a_handler_result_the_store_cannot_hold_is_an_incident(
    bpmn: Bpmn, tmp_path, make_engine: MakeEngine
):
    engine = make_engine(tmp_path / "v.db", handlers={"T": lambda ctx: {"n": 7**20000}})
    path = bpmn(around('<serviceTask id="T"/>'))
    outcome = engine.start(path).run()
    assert outcome.state == "failed"
    assert "integer of" in (outcome.incident or "")


def test_a_step_the_store_cannot_encode_is_undone_and_its_element_fails(
    bpmn: Bpmn, tmp_path, make_engine: MakeEngine, monkeypatch: pytest.MonkeyPatch
):
    """The last line behind the gate: whatever the store fails to encode (here forced), the
    step is undone, nothing is half-written, and the element gets the incident."""
    engine = make_engine(tmp_path / "v.db")
    instance = engine.start(bpmn(around(script("T", "x = 1"))))
    real = type(engine.store).commit

    def refuse_scripts(store, step, **options):
        if any(e.event == "variables.updated" for e in step.events):
            raise ValueError("Exceeds the limit (4300 digits) for integer string conversion")
        return real(store, step, **options)

    monkeypatch.setattr(type(engine.store), "commit", refuse_scripts)
    outcome = instance.run()
    assert outcome.state == "failed"
    assert outcome.incident == (
        "T: what the step produced cannot be stored: "
        "Exceeds the limit (4300 digits) for integer string conversion"
    )
    assert engine.instance(instance.id).variables == {}
