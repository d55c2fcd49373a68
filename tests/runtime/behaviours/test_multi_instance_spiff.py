"""Multi-instance collections in files drawn for SpiffWorkflow (the file declares its
namespace): a dict input, an existing output collection, a cardinality's items and the
outputs of a body ended by its completion condition are read as SpiffWorkflow reads them;
the same plain BPMN in any other file, Camunda 7 or Zeebe, behaves as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import Engine
from tests.runtime.conftest import HEADER, flow

SPIFF_NS = 'xmlns:spiffworkflow="http://spiffworkflow.org/bpmn/schema/1.0/core" '
COLLECTIONS = (
    "<loopDataInputRef>items</loopDataInputRef>"
    "<loopDataOutputRef>results</loopDataOutputRef>"
    '<inputDataItem id="item"/><outputDataItem id="result"/>'
)
IN_PLACE = (
    "<loopDataInputRef>items</loopDataInputRef>"
    "<loopDataOutputRef>items</loopDataOutputRef>"
    '<inputDataItem id="item"/><outputDataItem id="result"/>'
)
CARDINALITY = (
    "<loopCardinality>3</loopCardinality>"
    "<loopDataOutputRef>results</loopDataOutputRef>"
    '<inputDataItem id="item"/><outputDataItem id="result"/>'
)


def diagram(
    tmp_path: Path,
    inner: str,
    *,
    spiff: bool = True,
    sequential: bool = False,
    code: str | None = "result = item * 2",
    attrs: str = "",
) -> Path:
    """S -> A (multi-instance, `inner` in its characteristics) -> E: a script task running
    `code`, or a user task when `code` is None."""
    header = HEADER.replace("<definitions ", f"<definitions {SPIFF_NS}") if spiff else HEADER
    flag = "true" if sequential else "false"
    loop = f'<multiInstanceLoopCharacteristics isSequential="{flag}">{inner}'
    loop += "</multiInstanceLoopCharacteristics>"
    if code is None:
        task = f'<userTask id="A" {attrs}>{loop}</userTask>'
    else:
        task = f'<scriptTask id="A" scriptFormat="python" {attrs}>{loop}'
        task += f"<script>{code}</script></scriptTask>"
    path = tmp_path / "mi.bpmn"
    path.write_text(
        f'{header}<process id="p" isExecutable="true"><startEvent id="S"/>{task}'
        f'<endEvent id="E"/>{flow("S", "A")}{flow("A", "E")}</process></definitions>',
        encoding="utf-8",
    )
    return path


def run(engine: Engine, path: Path, variables: dict[str, Any]) -> Any:
    return engine.start(path, variables=variables).run()


SEQUENTIAL = pytest.mark.parametrize("sequential", [False, True], ids=["parallel", "sequential"])


@SEQUENTIAL
def test_a_dict_input_runs_once_per_value_and_fills_a_new_dict_by_key(
    tmp_path: Path, engine: Engine, sequential: bool
):
    # given: a SpiffWorkflow file; the input collection is a dict, no output collection yet
    path = diagram(tmp_path, COLLECTIONS, sequential=sequential)
    # when
    outcome = run(engine, path, {"items": {"a": 1, "b": 2, "c": 3}})
    # then: one instance per value; the outputs under the input's keys
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["results"] == {"a": 2, "b": 4, "c": 6}
    assert outcome.variables["items"] == {"a": 1, "b": 2, "c": 3}


@SEQUENTIAL
def test_a_dict_input_into_an_existing_empty_list_fills_it_in_input_order(
    tmp_path: Path, engine: Engine, sequential: bool
):
    path = diagram(tmp_path, COLLECTIONS, sequential=sequential)
    outcome = run(engine, path, {"items": {"b": 1, "a": 2}, "results": []})
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["results"] == [2, 4]


@pytest.mark.parametrize("dialect", ["bpmn", "camunda", "zeebe"])
def test_a_dict_input_outside_spiffworkflow_files_stays_an_incident(
    tmp_path: Path, engine: Engine, dialect: str
):
    # given: the same collection in a plain BPMN, a Camunda 7 and a Zeebe diagram, none of
    # whose engines iterates a dict there
    attrs = 'camunda:asyncBefore="false"' if dialect == "camunda" else ""
    inner = COLLECTIONS
    if dialect == "zeebe":
        inner = (
            '<extensionElements><zeebe:loopCharacteristics inputCollection="=items" '
            'inputElement="item" outputCollection="results" outputElement="=result"/>'
            "</extensionElements>"
        )
    path = diagram(tmp_path, inner, spiff=False, attrs=attrs)
    # when
    outcome = run(engine, path, {"items": {"a": 1}})
    # then
    assert outcome.state == "failed"
    assert "is a dict" in (outcome.incident or "") and "not a list" in (outcome.incident or "")


def test_a_dict_input_updated_in_place_keeps_its_keys(tmp_path: Path, engine: Engine):
    path = diagram(tmp_path, IN_PLACE, sequential=True)
    outcome = run(engine, path, {"items": {"a": 1, "b": 2, "c": 3}})
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["items"] == {"a": 2, "b": 4, "c": 6}


@SEQUENTIAL
def test_a_list_input_fills_an_existing_dict_by_index(
    tmp_path: Path, engine: Engine, sequential: bool
):
    # given: the output collection exists as a dict (with an entry of its own)
    path = diagram(tmp_path, COLLECTIONS, sequential=sequential)
    # when
    outcome = run(engine, path, {"items": [1, 2, 3], "results": {"kept": 0}})
    # then: filled by index (JSON object keys are text), not replaced by a list
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["results"] == {"kept": 0, "0": 2, "1": 4, "2": 6}


def test_an_existing_dict_output_is_replaced_outside_spiffworkflow_files(
    tmp_path: Path, engine: Engine
):
    path = diagram(tmp_path, COLLECTIONS, spiff=False)
    outcome = run(engine, path, {"items": [1, 2, 3], "results": {"kept": 0}})
    assert outcome.variables["results"] == [2, 4, 6]


@SEQUENTIAL
def test_with_a_cardinality_the_input_item_is_the_instance_index_from_zero(
    tmp_path: Path, engine: Engine, sequential: bool
):
    path = diagram(tmp_path, CARDINALITY, sequential=sequential)
    outcome = run(engine, path, {})
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["results"] == [0, 2, 4]


def test_with_a_cardinality_the_input_item_is_null_outside_spiffworkflow_files(
    tmp_path: Path, engine: Engine
):
    path = diagram(tmp_path, CARDINALITY, spiff=False, code="result = item")
    outcome = run(engine, path, {})
    assert outcome.variables["results"] == [None, None, None]


@SEQUENTIAL
def test_a_completion_condition_leaves_only_the_completed_outputs(
    tmp_path: Path, engine: Engine, sequential: bool
):
    # given: the body ends once the instance for item 2 completed
    inner = COLLECTIONS + "<completionCondition>item == 2</completionCondition>"
    path = diagram(tmp_path, inner, sequential=sequential)
    # when
    outcome = run(engine, path, {"items": [1, 2, 3]})
    # then: no null for the instance that never ran (the parallel script tasks run in order)
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["results"] == [2, 4]


def test_a_completion_condition_keeps_nulls_outside_spiffworkflow_files(
    tmp_path: Path, engine: Engine
):
    inner = COLLECTIONS + "<completionCondition>item == 2</completionCondition>"
    path = diagram(tmp_path, inner, spiff=False, sequential=True)
    outcome = run(engine, path, {"items": [1, 2, 3]})
    assert outcome.variables["results"] == [2, 4, None]


def test_an_input_updated_in_place_keeps_the_items_a_completion_condition_skipped(
    tmp_path: Path, engine: Engine
):
    inner = IN_PLACE + "<completionCondition>item == 1</completionCondition>"
    path = diagram(tmp_path, inner, sequential=True)
    outcome = run(engine, path, {"items": [1, 2, 3]})
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["items"] == [2, 2, 3]


def test_an_output_collection_that_already_holds_items_is_an_incident(
    tmp_path: Path, engine: Engine
):
    # given: the output collection is not the input, and is a non-empty list
    path = diagram(tmp_path, COLLECTIONS)
    # when
    instance = engine.start(path, variables={"items": [1, 2, 3], "results": [7]})
    outcome = instance.run()
    # then: refused when the body starts, no instance ran
    assert outcome.state == "failed"
    assert "'results' already holds 1 items" in (outcome.incident or "")
    assert outcome.variables["results"] == [7]


def test_an_output_collection_that_is_neither_a_dict_nor_a_list_is_an_incident(
    tmp_path: Path, engine: Engine
):
    path = diagram(tmp_path, COLLECTIONS)
    outcome = run(engine, path, {"items": [1], "results": "done"})
    assert outcome.state == "failed"
    assert "fills only a dict or a list" in (outcome.incident or "")


def test_a_non_empty_output_collection_is_replaced_outside_spiffworkflow_files(
    tmp_path: Path, engine: Engine
):
    path = diagram(tmp_path, COLLECTIONS, spiff=False)
    outcome = run(engine, path, {"items": [1, 2, 3], "results": [7]})
    assert outcome.variables["results"] == [2, 4, 6]


def test_camunda_7_attributes_in_a_spiffworkflow_file_keep_camunda_semantics(
    tmp_path: Path, engine: Engine
):
    # given: the SpiffWorkflow namespace, but the activity carries Camunda 7 attributes
    inner = COLLECTIONS + "<completionCondition>item == 2</completionCondition>"
    path = diagram(tmp_path, inner, sequential=True, attrs='camunda:asyncBefore="false"')
    # when
    outcome = run(engine, path, {"items": [1, 2, 3]})
    # then: as in any Camunda 7 diagram
    assert outcome.variables["results"] == [2, 4, None]


def test_parallel_user_tasks_completed_out_of_order_fill_a_dict_output_by_key(
    tmp_path: Path, engine: Engine
):
    # given: one user task per value of a dict
    path = diagram(tmp_path, COLLECTIONS, code=None)
    instance = engine.start(path, variables={"items": {"x": "ann", "y": "bob"}, "results": {}})
    instance.run()
    tasks = sorted(instance.user_tasks(), key=lambda t: t.id)
    assert len(tasks) == 2
    # when: the second completes first
    for task, verdict in zip(reversed(tasks), ["no", "yes"], strict=True):
        instance.complete_task(task.id, {"result": verdict})
        outcome = instance.run()
    # then: each output under its item's key, in the input's order
    assert outcome.state == "completed", outcome.incident
    assert list(outcome.variables["results"].items()) == [("x", "yes"), ("y", "no")]
