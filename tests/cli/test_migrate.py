"""`bpmn migrate`: the plan, then the move; a plan with a problem is exit 2 and moves
nothing."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Bpmn

HEAD = (
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" '
    'targetNamespace="t"><process id="p" isExecutable="true">'
)
V1 = (
    HEAD + '<startEvent id="s"/><userTask id="A"/><endEvent id="e"/>'
    '<sequenceFlow id="f1" sourceRef="s" targetRef="A"/>'
    '<sequenceFlow id="f2" sourceRef="A" targetRef="e"/></process></definitions>'
)
V2 = (
    HEAD + '<startEvent id="s"/><userTask id="Approve"/><userTask id="Review"/>'
    '<endEvent id="e"/><sequenceFlow id="f1" sourceRef="s" targetRef="Approve"/>'
    '<sequenceFlow id="f2" sourceRef="Approve" targetRef="Review"/>'
    '<sequenceFlow id="f3" sourceRef="Review" targetRef="e"/></process></definitions>'
)


def test_migrate_all_instances_of_a_process_with_a_mapping(bpmn: Bpmn, tmp_path: Path) -> None:
    (tmp_path / "v1.bpmn").write_text(V1, encoding="utf-8")
    (tmp_path / "v2.bpmn").write_text(V2, encoding="utf-8")
    ids = [str(bpmn.json_lines("run", "v1.bpmn", "--db", "m.db")[1][-1]["instance"]) for _ in "ab"]
    # without the mapping: refused, exit 2, nothing moved
    refused = bpmn("migrate", "--all", "--process", "p", "--to", "v2.bpmn", "--db", "m.db")
    assert refused.returncode == 2 and "--map A=NEW_ID" in refused.stderr
    assert "Traceback" not in refused.stderr
    # the plan, then the move
    args = ("migrate", "--all", "--process", "p", "--to", "v2.bpmn", "--map", "A=Approve")
    code, plans = bpmn.json_lines(*args, "--dry-run", "--db", "m.db")
    assert code == 0 and [p["moves"] for p in plans] == [{"A": "Approve"}] * 2
    moved = bpmn(*args, "--db", "m.db")
    assert moved.returncode == 0 and moved.stdout.count("(A → Approve)") == 2
    done = bpmn("complete", ids[0], "Approve", "--db", "m.db")
    assert done.returncode == 3 and "user task Review" in done.stdout  # the new path


def test_a_bad_mapping_is_exit_2(bpmn: Bpmn, tmp_path: Path) -> None:
    (tmp_path / "v1.bpmn").write_text(V1, encoding="utf-8")
    instance = str(bpmn.json_lines("run", "v1.bpmn", "--db", "m.db")[1][-1]["instance"])
    done = bpmn("migrate", instance, "--to", "v1.bpmn", "--map", "A", "--db", "m.db")
    assert done.returncode == 2 and "expected OLD=NEW" in done.stderr
