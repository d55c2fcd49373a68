"""`bpmn serve`'s API through Starlette's test client, once per store (SQLite, PostgreSQL)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")
pytest.importorskip("httpx2", reason="the test client needs httpx2 (the test extra)")

from starlette.testclient import TestClient

from bpmn_engine import PermanentError
from bpmn_engine.serve import create_app
from tests.postgresql_server import each_store, shared_db

__all__ = ["each_store"]  # autouse: every test here runs on each store

HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">\n'
)


def flow(source: str, target: str) -> str:
    return f'<sequenceFlow id="{source}_{target}" sourceRef="{source}" targetRef="{target}"/>'


def diagram(process: str, body: str, extra: str = "") -> str:
    return (
        f'{HEADER}{extra}<process id="{process}" isExecutable="true">{body}</process>'
        "</definitions>\n"
    )


# approve (a user task named "Approve order"), then wait for the message "paid" keyed by order
ORDER = diagram(
    "order",
    '<startEvent id="s"/>'
    + flow("s", "approve")
    + '<userTask id="approve" name="Approve order"/>'
    + flow("approve", "paid")
    + '<intermediateCatchEvent id="paid"><messageEventDefinition messageRef="m"/>'
    "</intermediateCatchEvent>" + flow("paid", "e") + '<endEvent id="e"/>',
    extra='<message id="m" name="paid"><extensionElements><zeebe:subscription '
    'correlationKey="=order"/></extensionElements></message>',
)
# wait for the signal "go"
SIGNALLED = diagram(
    "signalled",
    '<startEvent id="s"/>'
    + flow("s", "wait")
    + '<intermediateCatchEvent id="wait"><signalEventDefinition signalRef="g"/>'
    "</intermediateCatchEvent>" + flow("wait", "e") + '<endEvent id="e"/>',
    extra='<signal id="g" name="go"/>',
)
# a receive task with no message: a wait the API triggers
TRIGGERED = diagram(
    "triggered",
    '<startEvent id="s"/>' + flow("s", "hold") + '<receiveTask id="hold"/>' + flow("hold", "e")
    + '<endEvent id="e"/>',
)  # fmt: skip
# a service task `charge` whose handler refuses a charge without an amount
CHARGED = diagram(
    "charged",
    '<startEvent id="s"/>'
    + flow("s", "charge")
    + '<serviceTask id="charge"><extensionElements><zeebe:taskDefinition type="charge"/>'
    "</extensionElements></serviceTask>" + flow("charge", "e") + '<endEvent id="e"/>',
)


def charge(ctx: Any) -> dict[str, Any]:
    if ctx.variables.get("amount") is None:
        raise PermanentError("no amount to charge")
    return {"charged": ctx.variables["amount"]}


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(shared_db(tmp_path / "serve.db"))


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with TestClient(create_app(db, handlers={"charge": charge})) as test_client:
        yield test_client


def deploy(client: TestClient, *sources: str) -> None:
    for number, source in enumerate(sources):
        answer = client.post(
            f"/api/deployments?name=d{number}.bpmn",
            content=source.encode(),
            headers={"content-type": "application/xml"},
        )
        assert answer.status_code == 201, answer.text


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def call(
    url: str, data: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture
def server(tmp_path: Path, db: str, request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """(base URL, what the server printed), for `bpmn serve` with the test's arguments."""
    port = free_port()
    args = getattr(request, "param", [])
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "serve", "--db", db, "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                call(f"{base}/openapi.json")
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(process.communicate()[0]) from None
                time.sleep(0.1)
        yield base, process
    finally:
        process.terminate()
        process.wait(timeout=30)


def deploy_over_http(base: str, source: str) -> None:
    status, answer = call(
        f"{base}/api/deployments?name=diagram.bpmn",
        source.encode(),
        {"content-type": "application/xml"},
    )
    assert status == 201, answer
