"""The front end's hardening: plain output in pipes and logs, deploy, resume --var, read-only
commands that never write, and clear errors for bad databases, values and durations."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import MODELS, Bpmn

LOAN = str(MODELS / "loan-approval.bpmn")


def test_output_in_a_pipe_is_never_wrapped_or_cut(bpmn: Bpmn, tmp_path: Path) -> None:
    db = str(tmp_path / ("a-database-in-a-folder-with-a-long-name-" * 4 + ".db"))
    process = "Process_LoanApproval_" + "with_a_long_id_" * 6
    diagram = tmp_path / "long.bpmn"
    diagram.write_text(Path(LOAN).read_text().replace("Process_LoanApproval", process))
    done = bpmn("run", str(diagram), "--db", db)  # no income: the first script fails
    assert done.returncode == 1, done.stderr
    instance = json.loads(bpmn("instances", "--db", db, "--json").stdout)["id"]
    resume = [line for line in done.stdout.splitlines() if "bpmn resume" in line]
    assert resume and resume[0].endswith(f"bpmn resume {instance} --db {db}"), done.stdout
    listed = bpmn("instances", "--db", db).stdout.splitlines()
    row = [line for line in listed if instance in line]
    assert row and process in row[0] and "failed" in row[0], listed
