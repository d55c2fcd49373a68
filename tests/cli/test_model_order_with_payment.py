"""models/order-with-payment.bpmn + payment.bpmn: the commands its story in models/README.md
documents, run as written (only the database moved to a temporary file)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from bpmn_engine import Engine
from tests.cli.conftest import MODELS, ROOT

SECTION = "## order-with-payment.bpmn + payment.bpmn"


def documented_commands() -> list[str]:
    """The fenced commands of the model's section of models/README.md, in order."""
    text = (MODELS / "README.md").read_text()
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```\n(.*?)```", section, re.S)]


def run(command: str, db: Path) -> subprocess.CompletedProcess:
    line = command.replace("--db /tmp/order-with-payment.db", f"--db {db}")
    line = re.sub(r"(^|\| )bpmn ", rf"\1{sys.executable} -m cli ", line)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        ["bash", "-c", line], cwd=ROOT, capture_output=True, text=True, env=env, timeout=120
    )


def test_the_documented_stories_run_as_the_readme_says(tmp_path: Path) -> None:
    db = tmp_path / "order-with-payment.db"
    commands = documented_commands()
    assert len(commands) == 4
    confirmed, declined, stepped, beside = (run(c, db) for c in commands)
    assert confirmed.returncode == 0, confirmed.stderr
    assert "at EndEvent_OrderConfirmed" in confirmed.stdout
    assert declined.returncode == 0, declined.stderr
    assert "at EndEvent_OrderCancelled" in declined.stdout
    assert stepped.returncode == 0, stepped.stderr
    assert beside.returncode == 0, beside.stderr
    assert (
        "calls Payment from models/payment.bpmn (found beside models/order-with-payment.bpmn)"
        in beside.stdout
    )
    assert "at EndEvent_OrderConfirmed" in beside.stdout
    with Engine(db) as engine:
        roots = [engine.instance(r["id"]) for r in engine.instances() if not r["parent_instance"]]
        orders = {i.variables["orderId"]: i for i in roots}
        b1, b2, b3 = orders["B-1"].variables, orders["B-2"].variables, orders["B-3"].variables
        assert (b1["lineTotals"], b1["total"], b1["charged"]) == ([25.0, 40], 65.0, 65.0)
        assert b1["status"] == "confirmed" and b1["paymentId"].startswith("PAY-")
        assert (b2["total"], b2["status"]) == (2500, "cancelled") and "paymentId" not in b2
        [payment] = engine.family(orders["B-2"].id)[1:]
        assert engine.instance(payment).state == "terminated"
        assert (b3["total"], b3["status"]) == (12.5, "confirmed")
        assert orders["B-3"].state == "completed"
