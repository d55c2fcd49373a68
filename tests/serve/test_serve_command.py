"""`bpmn serve` as a user starts it: a real server process, spoken to over HTTP."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from bpmn_engine.cli.serve import loopback
from tests.serve.conftest import call, diagram, flow

# a one-second timer, then the end: only a worker moves it on once it is due
TIMED = diagram(
    "timed",
    '<startEvent id="s"/>'
    + flow("s", "t")
    + '<intermediateCatchEvent id="t"><timerEventDefinition><timeDuration>PT1S</timeDuration>'
    "</timerEventDefinition></intermediateCatchEvent>" + flow("t", "e") + '<endEvent id="e"/>',
)


@pytest.mark.parametrize("server", [["--worker"]], indirect=True)
def test_the_server_and_its_worker_run_a_deployed_process(server: Any) -> None:
    base, _ = server
    xml = {"content-type": "application/xml"}
    assert call(f"{base}/api/deployments?name=timed.bpmn", TIMED.encode(), xml)[0] == 201
    status, started = call(
        f"{base}/api/instances",
        json.dumps({"process": "timed"}).encode(),
        {"content-type": "application/json"},
    )
    assert status == 201 and started["state"] in ("waiting", "completed")
    deadline = time.monotonic() + 60
    while call(f"{base}/api/instances/{started['instance']}")[1]["state"] != "completed":
        assert time.monotonic() < deadline, "the worker never fired the due timer"
        time.sleep(0.1)


def test_without_a_worker_a_timer_waits(server: Any) -> None:
    base, _ = server
    call(f"{base}/api/deployments", TIMED.encode(), {"content-type": "application/xml"})
    _, started = call(
        f"{base}/api/instances",
        json.dumps({"process": "timed"}).encode(),
        {"content-type": "application/json"},
    )
    assert started["state"] == "waiting"
    time.sleep(1.5)  # the timer is due now: nobody fires it
    assert call(f"{base}/api/instances/{started['instance']}")[1]["state"] == "waiting"


@pytest.mark.parametrize("server", [["--host", "0.0.0.0"]], indirect=True)
def test_bound_beyond_loopback_changes_need_the_printed_token(server: Any) -> None:
    base, process = server
    status, answer = call(f"{base}/api/signals", b'{"name": "go"}')
    assert status == 401 and "token" in answer["error"]
    assert call(f"{base}/api/instances")[0] == 200
    process.terminate()
    printed = process.communicate(timeout=30)[0]
    token = next(line.split("Bearer ")[1] for line in printed.splitlines() if "Bearer " in line)
    assert len(token) >= 24


def test_which_hosts_are_loopback() -> None:
    assert loopback("127.0.0.1") and loopback("::1") and loopback("localhost")
    assert not loopback("0.0.0.0") and not loopback("192.168.1.2") and not loopback("example.com")
