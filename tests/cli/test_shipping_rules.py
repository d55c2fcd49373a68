"""models/shipping-rules: the commands of its story in models/README.md, run as written."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from tests.cli.conftest import MODELS, ROOT, Bpmn

README = (MODELS / "README.md").read_text()
RUN = (
    "bpmn run models/shipping-rules.bpmn models/shipping-rules.dmn --var weight=12 "
    "--var destination=EU --var express=false --var orderValue=800"
)
DECIDE = (
    'bpmn decide models/shipping-rules.dmn --decision "Shipping method" --var weight=1.5 '
    "--var destination=domestic --var express=false --var orderValue=20"
)
DEPLOY = "bpmn deploy models/shipping-rules.dmn"
RUN_DEPLOYED = (
    "bpmn run models/shipping-rules.bpmn --var weight=1.5 --var destination=domestic "
    "--var express=false --var orderValue=20"
)


def words(command: str, tmp_path: Path) -> list[str]:
    """The README's command, from the repository root, on a database of the test's own."""
    assert command in README, "the README's story changed: keep this test in step"
    args = shlex.split(command)[1:]
    args = [str(ROOT / a) if a.startswith("models/") else a for a in args]
    return [*args, "--db", str(tmp_path / "story.db")] if args[0] in ("run", "deploy") else args


def test_the_run_decides_and_prints_a_label(bpmn: Bpmn, tmp_path: Path) -> None:
    done = bpmn(*words(RUN, tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["end_event"] == "EndEvent_LabelPrinted"
    assert last["variables"]["shipping"] == {"carrier": "parcel", "cost": 22.9}
    assert last["variables"]["label"] == "parcel to EU, postage 22.9"


def test_heavy_goods_go_by_freight(bpmn: Bpmn, tmp_path: Path) -> None:
    args = words(RUN, tmp_path)
    args[args.index("weight=12")] = "weight=250"
    args[args.index("destination=EU")] = "destination=domestic"
    args[args.index("express=false")] = "express=true"
    args[args.index("orderValue=800")] = "orderValue=200"
    done = bpmn(*args, "--json")
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["end_event"] == "EndEvent_FreightBooked"
    assert last["variables"]["shipping"] == {"carrier": "freight", "cost": 520}
    assert last["variables"]["booking"] == "FRT-domestic-3"


def test_without_the_dmn_file_the_run_is_refused(bpmn: Bpmn, tmp_path: Path) -> None:
    args = [a for a in words(RUN, tmp_path) if not a.endswith(".dmn")]
    done = bpmn(*args)
    assert done.returncode == 2
    assert "decides with decision 'Decision_ShippingMethod', which is in none" in done.stderr


def test_decide_then_deploy_then_run(bpmn: Bpmn, tmp_path: Path) -> None:
    decided = bpmn(*words(DECIDE, tmp_path))
    assert decided.returncode == 0, decided.stderr
    assert '"letter post"  4.5' in decided.stdout
    assert 'value: {"carrier": "letter post", "cost": 4.5}' in decided.stdout
    deployed = bpmn(*words(DEPLOY, tmp_path))
    assert deployed.returncode == 0, deployed.stderr
    assert "deployed decisions 'Insurance fee', 'Shipping method'" in deployed.stdout
    done = bpmn(*words(RUN_DEPLOYED, tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["end_event"] == "EndEvent_LabelPrinted"
    assert last["variables"]["label"] == "letter post to domestic, postage 4.5"


def test_validate_checks_the_decision_with_the_dmn_file(bpmn: Bpmn) -> None:
    both = bpmn("validate", str(MODELS / "shipping-rules.bpmn"), str(MODELS / "shipping-rules.dmn"))
    assert both.returncode == 0, both.stdout
    alone = bpmn("validate", str(MODELS / "shipping-rules.bpmn"))
    assert alone.returncode == 1
    assert "decides with decision 'Decision_ShippingMethod'" in alone.stdout
