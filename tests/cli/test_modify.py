"""`bpmn modify`: the operator's hand on the tokens from the command line, `--dry-run`
first; bad input is exit 2 with the instance unchanged."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Bpmn
from tests.cli.test_incidents import MODEL


def test_modify_skips_a_failed_task_and_the_instance_completes(bpmn: Bpmn, tmp_path: Path) -> None:
    (tmp_path / "review.bpmn").write_text(MODEL, encoding="utf-8")
    _, events = bpmn.json_lines("run", "review.bpmn", "--db", "t.db", "--var", "weight=0")
    instance = str(events[-1]["instance"])
    # the plan first: nothing changes
    code, planned = bpmn.json_lines(
        "modify", instance, "--cancel", "score", "--start-after", "score", "--dry-run",
        "--db", "t.db",
    )  # fmt: skip
    assert code == 0 and sorted(t["element"] for t in planned) == ["ask", "j"]
    _, [incident] = bpmn.json_lines("incidents", "--db", "t.db")
    # then the modification, with a value for what the script would have set
    done = bpmn(
        "modify", instance, "--cancel", "score", "--start-after", "score",
        "--var", "score=1", "--db", "t.db",
    )  # fmt: skip
    assert done.returncode == 3, done.stderr  # on to the join; `ask` waits
    assert "token cancelled by hand" in done.stdout
    assert bpmn.json_lines("incidents", "--db", "t.db")[1] == []
    finished = bpmn("complete", instance, "ask", "--db", "t.db")
    assert finished.returncode == 0 and "completed" in finished.stdout
    assert incident["element"] == "score"


def test_modify_refuses_an_unknown_element_with_exit_2(bpmn: Bpmn, tmp_path: Path) -> None:
    (tmp_path / "review.bpmn").write_text(MODEL, encoding="utf-8")
    _, events = bpmn.json_lines("run", "review.bpmn", "--db", "t.db", "--var", "weight=0")
    instance = str(events[-1]["instance"])
    before = bpmn("show", instance, "--db", "t.db").stdout
    done = bpmn("modify", instance, "--start-before", "Nope", "--db", "t.db")
    assert done.returncode == 2 and "'Nope' is no element of process review" in done.stderr
    assert "Traceback" not in done.stderr
    assert bpmn("show", instance, "--db", "t.db").stdout == before
