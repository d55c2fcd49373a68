"""The JSON API does what the command line's commands do, and says so in JSON: 404 for
what is not there, 409 for a change another process made first, 400 for bad input."""

from __future__ import annotations

from urllib.parse import quote

from starlette.testclient import TestClient

from bpmn_engine import Engine
from bpmn_engine.serve import create_app
from tests.serve.conftest import CHARGED, ORDER, SIGNALLED, TRIGGERED, charge, deploy


def start(client: TestClient, process: str, **body: object) -> dict:
    answer = client.post("/api/instances", json={"process": process, **body})
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_deploy_start_complete_and_correlate_an_order(client: TestClient) -> None:
    deploy(client, ORDER)
    assert [d["process"] for d in client.get("/api/deployments").json()] == ["order"]

    started = start(client, "order", variables={"order": "A-1"}, business_key="A-1")
    assert started["state"] == "waiting" and started["business_key"] == "A-1"
    assert [w["element"] for w in started["waiting_for"]] == ["approve"]
    instance = started["instance"]

    tasks = client.get("/api/tasks", params={"process": "order"}).json()
    assert [(t["instance"], t["element"], t["name"]) for t in tasks] == [
        (instance, "approve", "Approve order")
    ]
    done = client.post(
        f"/api/instances/{instance}/tasks/Approve order/complete",
        json={"variables": {"approved": True}},
    )
    assert done.status_code == 200, done.text
    assert done.json()["state"] == "waiting" and done.json()["variables"]["approved"] is True

    other = client.post("/api/messages", json={"name": "paid", "correlation_key": "B-2"})
    assert other.status_code == 200 and other.json() == {"correlated": []}
    paid = client.post(
        "/api/messages",
        json={"name": "paid", "correlation_key": "A-1", "variables": {"sum": 12.5}, "id": "m1"},
    )
    assert [i["state"] for i in paid.json()["correlated"]] == ["completed"]
    shown = client.get(f"/api/instances/{instance}", params={"last": 2}).json()
    assert shown["state"] == "completed" and shown["variables"]["sum"] == 12.5
    assert len(shown["history"]) == 2 and all(e["at"] for e in shown["history"])
    listed = client.get("/api/instances", params={"state": "completed"}).json()
    assert [row["id"] for row in listed] == [instance]
    tree = client.get(f"/api/instances/{instance}/tree").json()
    assert tree == [
        {"instance": instance, "process": "order", "parent": None, "state": "completed"}
    ]


def test_a_signal_a_trigger_and_a_cancel(client: TestClient) -> None:
    deploy(client, SIGNALLED, TRIGGERED, ORDER)
    waiting = start(client, "signalled")["instance"]
    woken = client.post("/api/signals", json={"name": "go", "variables": {"why": "test"}})
    assert [(i["instance"], i["state"]) for i in woken.json()["woken"]] == [(waiting, "completed")]

    held = start(client, "triggered")
    assert held["waiting_for"][0]["reason"] == "trigger"
    moved = client.post(f"/api/instances/{held['instance']}/trigger", json={"element": "hold"})
    assert moved.status_code == 200 and moved.json()["state"] == "completed"

    order = start(client, "order")["instance"]
    cancelled = client.post(f"/api/instances/{order}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "terminated"


def test_an_incident_is_listed_and_retried_with_the_fix(client: TestClient) -> None:
    deploy(client, CHARGED)
    failed = start(client, "charged")
    assert failed["state"] == "failed" and "no amount to charge" in failed["incident"]
    incidents = client.get("/api/incidents", params={"instance": failed["instance"]}).json()
    assert next((i["element"], i["kind"]) for i in incidents)[0] == "charge"
    incident = quote(incidents[0]["incident"], safe="")  # INSTANCE#N: `#` is %23 in a path
    fixed = client.post(f"/api/instances/{incident}/retry", json={"variables": {"amount": 7}})
    assert fixed.status_code == 200, fixed.text
    assert fixed.json()["state"] == "completed" and fixed.json()["variables"]["charged"] == 7
    assert client.get("/api/incidents", params={"instance": failed["instance"]}).json() == []


def test_a_decision_deployed_to_the_database_is_evaluated(client: TestClient, db: str) -> None:
    from bpmn_engine import load_decisions
    from tests.dmn.tables import decision_file, table_xml

    rules = [(["> 10"], ['"big"']), (["<= 10"], ['"small"'])]
    engine = Engine(db)
    try:
        import tempfile
        from pathlib import Path

        with tempfile.TemporaryDirectory() as folder:
            path = decision_file(Path(folder), table_xml("UNIQUE", ["size"], ["Label"], rules))
            engine.deploy_decisions(load_decisions(path))
    finally:
        engine.close()
    answer = client.post("/api/decisions/Decision", json={"inputs": {"size": 12}})
    assert answer.status_code == 200, answer.text
    assert answer.json()["value"] == "big"
    assert client.post("/api/decisions/Nothing", json={}).status_code == 404


def test_errors_are_json_with_the_command_lines_message(client: TestClient) -> None:
    deploy(client, ORDER)
    missing = client.get("/api/instances/nope")
    assert missing.status_code == 404 and "no instance 'nope'" in missing.json()["error"]
    assert client.post("/api/instances", json={"process": "nothing"}).status_code == 404
    assert client.post("/api/instances", json={}).status_code == 400
    not_json = client.post("/api/instances", content=b"{", headers={"content-type": "x"})
    assert not_json.status_code == 400 and "not JSON" in not_json.json()["error"]
    listed = client.post("/api/instances", json=["order"])
    assert listed.status_code == 400
    instance = start(client, "order")["instance"]
    no_task = client.post(f"/api/instances/{instance}/tasks/ship/complete", json={})
    assert no_task.status_code == 404 and "no waiting user task 'ship'" in no_task.json()["error"]
    bad_variables = client.post(
        f"/api/instances/{instance}/tasks/approve/complete", json={"variables": [1]}
    )
    assert bad_variables.status_code == 400
    broken = client.post(
        "/api/deployments", content=b"<definitions", headers={"content-type": "application/xml"}
    )
    assert broken.status_code == 400 and "upload.bpmn" in broken.json()["error"]
    assert client.get("/api/nowhere").status_code == 404
    assert client.get("/api/nowhere").json()["status"] == 404
    assert client.get("/api/instances", params={"last": "x"}).status_code == 200  # not read here
    assert client.get(f"/api/instances/{instance}", params={"last": "-1"}).status_code == 400


def test_changes_need_the_token_when_one_is_set(db: str) -> None:
    with TestClient(create_app(db, token="s3cret")) as client:
        refused = client.post("/api/signals", json={"name": "go"})
        assert refused.status_code == 401 and "token" in refused.json()["error"]
        wrong = client.post(
            "/api/signals", json={"name": "go"}, headers={"authorization": "Bearer nope"}
        )
        assert wrong.status_code == 401
        allowed = client.post(
            "/api/signals", json={"name": "go"}, headers={"authorization": "Bearer s3cret"}
        )
        assert allowed.status_code == 200
        assert client.get("/api/instances").status_code == 200  # looking needs no token


def test_another_sites_page_may_not_change_anything(client: TestClient) -> None:
    deploy(client, SIGNALLED)
    forged = client.post(
        "/api/signals", json={"name": "go"}, headers={"origin": "http://evil.example"}
    )
    assert forged.status_code == 403 and forged.headers["x-content-type-options"] == "nosniff"
    same = client.post("/api/signals", json={"name": "go"}, headers={"origin": "http://testserver"})
    assert same.status_code == 200
    answer = client.get("/api/instances")
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert "default-src 'none'" in answer.headers["content-security-policy"]


def test_the_openapi_document_lists_every_operation(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    assert set(spec["paths"]["/api/instances"]) == {"get", "post"}
    complete = spec["paths"]["/api/instances/{id}/tasks/{task}/complete"]["post"]
    assert [p["name"] for p in complete["parameters"]] == ["id", "task"]
    assert (
        "variables"
        in complete["requestBody"]["content"]["application/json"]["schema"]["properties"]
    )
    deploy_op = spec["paths"]["/api/deployments"]["post"]
    assert "application/xml" in deploy_op["requestBody"]["content"]


def test_a_memory_database_is_refused(tmp_path) -> None:
    import pytest

    from bpmn_engine import UsageError

    with pytest.raises(UsageError, match="outlives a request"):
        create_app(":memory:")
    assert charge  # the handler the fixtures serve


def test_an_instance_is_modified_as_bpmn_modify_does(client: TestClient) -> None:
    deploy(client, ORDER)
    instance = start(client, "order", variables={"order": "A-1"})["instance"]
    at = f"/api/instances/{instance}/modify"
    planned = client.post(
        at, json={"cancel": ["approve"], "start_before": ["paid"], "dry_run": True}
    )
    assert planned.status_code == 200 and planned.json()["dry_run"] is True
    assert [t["element"] for t in planned.json()["tokens"]] == ["paid"]
    assert client.get(f"/api/instances/{instance}").json()["waiting_for"][0]["element"] == "approve"

    moved = client.post(at, json={"cancel": ["approve"], "start_before": ["paid"]})
    assert moved.status_code == 200, moved.text
    assert [w["element"] for w in moved.json()["waiting_for"]] == ["paid"]
    assert client.post(at, json={"cancel": ["nowhere"]}).status_code == 400
    assert client.post(at, json={"cancel": "approve"}).status_code == 400
    assert client.post(at, json={"cancel_tokens": [True]}).status_code == 400
