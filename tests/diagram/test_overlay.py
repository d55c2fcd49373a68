"""An instance, or coverage over a database, painted on its diagram; `bpmn step --view`."""

from __future__ import annotations

import json
from pathlib import Path

from lxml import etree

from tests.cli.conftest import Bpmn
from tests.conftest import ROOT

SVG = "{http://www.w3.org/2000/svg}"
MODELS = ROOT / "models"
PAYMENT = [
    str(MODELS / "order-payment.bpmn"),
    "--handlers",
    str(MODELS / "order_payment_handlers.py"),
]


def groups(svg: etree._Element, kind: str) -> dict[str, etree._Element]:
    return {
        g.get("data-element-id"): g
        for g in svg.iter(f"{SVG}g")
        if kind in (g.get("class") or "").split()
    }


def waiting_instance(bpmn: Bpmn) -> str:
    code, lines = bpmn.json_lines(
        "run", *PAYMENT, "--var", "orderId=A-4", "--var", 'address=""', "--db", "v.db"
    )
    assert code == 3
    done = bpmn("message", "payment-received", "--key", "A-4", *PAYMENT[1:], "--db", "v.db")
    assert done.returncode == 3, done.stderr
    return lines[-1]["instance"]


def test_an_instance_is_painted_with_its_tokens_and_history(bpmn: Bpmn, tmp_path: Path) -> None:
    instance = waiting_instance(bpmn)
    done = bpmn("render", "--instance", instance, "--db", "v.db", "-o", "i.svg")
    assert done.returncode == 0, done.stderr
    svg = etree.parse(str(tmp_path / "i.svg")).getroot()
    shapes = groups(svg, "shape")
    assert "completed" in shapes["Task_ReserveStock"].get("class").split()
    assert "waiting" in shapes["Task_FixAddress"].get("class").split()
    assert "completed" not in shapes["Task_ReleaseStock"].get("class").split()
    taken = {k for k, g in groups(svg, "edge").items() if "taken" in g.get("class").split()}
    assert {"Flow_ToReserveStock", "Flow_ToFixAddress"} <= taken
    assert "Flow_ToReleaseStock" not in taken
    badges = {
        (g.get("data-element-id"), g.get("class"))
        for g in svg.iter(f"{SVG}g")
        if g.get("class", "").startswith("badge")
    }
    assert ("Task_FixAddress", "badge tokens") in badges
    title = shapes["Task_ReserveStock"].find(f"{SVG}title")
    assert title is not None and "element.completed" in title.text


def test_the_html_page_is_self_contained(bpmn: Bpmn, tmp_path: Path) -> None:
    instance = waiting_instance(bpmn)
    assert bpmn("render", "--instance", instance, "--db", "v.db", "-o", "i.html").returncode == 0
    text = (tmp_path / "i.html").read_text()
    assert text.startswith("<!doctype html>")
    assert "<script" not in text and "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    assert "<h2>Variables</h2>" in text and "&quot;A-4&quot;" in text
    assert "<h2>History</h2>" in text and "Legend" in text


def test_a_failed_element_carries_its_incident(bpmn: Bpmn, tmp_path: Path) -> None:
    code, lines = bpmn.json_lines(
        "run", str(MODELS / "loan-approval.bpmn"), "--var", "income=1000", "--db", "f.db"
    )
    assert code == 1
    done = bpmn("render", "--instance", lines[-1]["instance"], "--db", "f.db")
    svg = etree.fromstring(done.stdout.encode())
    task = groups(svg, "shape")["Task_ScoreApplication"]
    assert "failed" in task.get("class").split()
    assert "incident: " in task.find(f"{SVG}title").text
    assert any(g.get("class") == "badge incident" for g in svg.iter(f"{SVG}g"))


def test_coverage_over_a_database_is_a_heat_map_with_figures(bpmn: Bpmn, tmp_path: Path) -> None:
    loan = str(MODELS / "loan-approval.bpmn")
    for amount in ("5000", "6000"):
        code, _ = bpmn.json_lines(
            "run",
            loan,
            "--var",
            "income=4200",
            "--var",
            f"amount={amount}",
            "--var",
            "hasCollateral=false",
            "--db",
            "c.db",
        )
        assert code == 0
    done = bpmn("render", loan, "--coverage", "--db", "c.db", "--json", "-o", "c.svg")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.splitlines()[0])
    assert figures["instances"] == 2
    assert figures["elements"] == {"total": 11, "reached": 8}
    assert figures["flows"] == {"total": 12, "reached": 7}
    assert figures["element_hits"]["Task_CreditCheck"] == 2
    svg = etree.parse(str(tmp_path / "c.svg")).getroot()
    shapes = groups(svg, "shape")
    assert "unreached" in shapes["Task_ManualReview"].get("class").split()
    assert "fill: #" in shapes["Task_CreditCheck"].find(f"{SVG}rect").get("style")
    text = bpmn("render", loan, "--coverage", "--db", "c.db", "-o", "c.html")
    assert "coverage: 65.2% over 2 instance(s)" in text.stdout
    # without -o: the figures and what was not reached, never SVG dumped after them
    shown = bpmn("render", loan, "--coverage", "--db", "c.db")
    assert shown.returncode == 0
    assert "<svg" not in shown.stdout
    assert shown.stdout.splitlines()[0].startswith("coverage: 65.2% over 2 instance(s)")
    assert "not reached: " in shown.stdout and "Task_ManualReview" in shown.stdout
    assert "add -o coverage.svg" in shown.stdout


def test_step_view_keeps_a_page_current(bpmn: Bpmn, tmp_path: Path) -> None:
    done = bpmn(
        "step",
        str(MODELS / "loan-approval.bpmn"),
        "--var",
        "income=4200",
        "--var",
        "amount=5000",
        "--var",
        "hasCollateral=false",
        "--db",
        "s.db",
        "--view",
        "view.html",
        input="next\nnext\n",
    )
    assert done.returncode == 3, done.stderr
    text = (tmp_path / "view.html").read_text()
    assert '<meta http-equiv="refresh" content="1">' in text
    assert 'class="badge tokens" data-element-id="Gateway_WhichChecks"' in text  # 2 steps on
    assert '<g class="shape scriptTask completed" data-element-id="Task_ScoreApplication"' in text


def test_options_that_would_be_ignored_are_refused(bpmn: Bpmn) -> None:
    loan = str(MODELS / "loan-approval.bpmn")
    done = bpmn("render", loan, "--json")
    assert done.returncode == 2 and "--json gives the coverage figures" in done.stderr
    done = bpmn("render", "--instance", "x", "--process", "P")
    assert done.returncode == 2 and "the instance names its own" in done.stderr


def test_an_instance_is_drawn_on_the_file_given(bpmn: Bpmn, tmp_path: Path) -> None:
    instance = waiting_instance(bpmn)
    done = bpmn(
        "render", str(MODELS / "order-payment.bpmn"), "--instance", instance, "--db", "v.db"
    )
    assert done.returncode == 0, done.stderr
    svg = etree.fromstring(done.stdout.encode())
    assert "waiting" in groups(svg, "shape")["Task_FixAddress"].get("class").split()
