"""`bpmn store`: a data store's value and its last write, or the list of stores, read from
the database without running anything (docs/data-stores.md)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Bpmn

MODEL = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <dataStore id="orders" name="Open orders"/>
  <process id="p" isExecutable="true">
    <dataStoreReference id="Ref" dataStoreRef="orders"/>
    <startEvent id="S"/>
    <scriptTask id="Save" name="Save the orders" scriptFormat="python">
      <dataOutputAssociation id="W"><targetRef>Ref</targetRef></dataOutputAssociation>
      <script>orders = {"open": [1, 2]}</script>
    </scriptTask>
    <endEvent id="E"/>
    <sequenceFlow id="f1" sourceRef="S" targetRef="Save"/>
    <sequenceFlow id="f2" sourceRef="Save" targetRef="E"/>
  </process>
</definitions>
"""


def test_bpmn_store_shows_a_store_written_by_a_run(bpmn: Bpmn, tmp_path: Path) -> None:
    # given: a run wrote the store "Open orders"
    (tmp_path / "orders.bpmn").write_text(MODEL, encoding="utf-8")
    code, events = bpmn.json_lines("run", "orders.bpmn", "--db", "s.db")
    assert code == 0
    instance = events[-1]["instance"]
    # when
    code, [shown] = bpmn.json_lines("store", "Open orders", "--db", "s.db")
    code_list, listed = bpmn.json_lines("store", "--db", "s.db")
    text = bpmn("store", "Open orders", "--db", "s.db")
    table = bpmn("store", "--db", "s.db")
    # then
    assert code == code_list == 0
    assert {k: shown[k] for k in ("store", "value", "instance", "element", "writes")} == {
        "store": "Open orders",
        "value": {"open": [1, 2]},
        "instance": instance,
        "element": "Save",
        "writes": 1,
    }
    assert shown["written_at"]
    assert listed == [shown]
    assert text.returncode == 0
    assert f"by instance {instance} at Save (1 write)" in text.stdout
    assert '"open": [' in text.stdout
    assert "Open orders" in table.stdout and instance in table.stdout


def test_the_run_shows_the_write_and_a_store_never_written_is_bad_input(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    (tmp_path / "orders.bpmn").write_text(MODEL, encoding="utf-8")
    run = bpmn("run", "orders.bpmn", "--db", "s.db")
    assert run.returncode == 0
    assert 'data store Open orders = {"open": [1, 2]}' in run.stdout  # the trace says so
    missing = bpmn("store", "Closed orders", "--db", "s.db")
    assert missing.returncode == 2
    assert "no data store 'Closed orders' has been written in s.db" in missing.stderr
    assert "Traceback" not in missing.stderr
