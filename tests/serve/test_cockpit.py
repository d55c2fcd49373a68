"""The cockpit's pages as a browser gets them: the instance drawn with its waiting task,
the task list whose form completes it, incidents retried, and nothing a diagram says run as
markup or script."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from bpmn_engine.serve import create_app
from tests.serve.conftest import CHARGED, ORDER, deploy, diagram, flow

REVIEW = diagram(
    "review",
    '<startEvent id="s"/>'
    + flow("s", "check")
    + '<userTask id="check" name="Check the claim" camunda:candidateGroups="clerks">'
    "<extensionElements><camunda:formData>"
    '<camunda:formField id="ok" label="Approve?" type="boolean"/>'
    '<camunda:formField id="amount" label="Amount" type="long"/>'
    '<camunda:formField id="level" label="Level" type="enum">'
    '<camunda:value id="low"/><camunda:value id="high"/></camunda:formField>'
    "</camunda:formData></extensionElements></userTask>"
    + flow("check", "e")
    + '<endEvent id="e"/>',
).replace("<definitions ", '<definitions xmlns:camunda="http://camunda.org/schema/1.0/bpmn" ')
HOSTILE = diagram(
    "hostile",
    '<startEvent id="s" name="&lt;script&gt;alert(1)&lt;/script&gt;"/>'
    + flow("s", "t")
    + '<userTask id="t" name="&lt;img src=x onerror=alert(2)&gt; javascript:alert(3)"/>'
    + flow("t", "e")
    + '<endEvent id="e" name="&quot;&gt;&lt;svg onload=alert(4)&gt;"/>',
)


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert found, "the page has no form"
    return found.group(1)


def started(client: TestClient, process: str, **variables: object) -> str:
    answer = client.post("/api/instances", json={"process": process, "variables": variables})
    assert answer.status_code == 201, answer.text
    return answer.json()["instance"]


def test_a_task_is_seen_waiting_and_completed_from_the_task_list(client: TestClient) -> None:
    deploy(client, REVIEW)
    instance = started(client, "review")
    listed = client.get("/").text
    assert f'href="/instances/{instance}"' in listed and "waiting" in listed

    page = client.get(f"/instances/{instance}")
    assert page.status_code == 200
    assert "script-src 'self'" in page.headers["content-security-policy"]
    waiting = re.search(r'<g[^>]*data-element-id="check"[^>]*>', page.text)
    assert waiting and "waiting" in waiting.group(0)  # the task is drawn waiting

    tasks = client.get("/tasks").text
    assert "Check the claim" in tasks and 'type="checkbox" name="var.ok"' in tasks
    assert "<td>clerks</td>" in tasks  # who may take it
    action = re.search(r'action="(/ui/instances/[^"]+/complete[^"]*)"', tasks).group(1)
    form = {"csrf": csrf_of(tasks), "var.ok": "true", "type.ok": "boolean"}
    form |= {"var.amount": "1200", "type.amount": "long", "var.level": "high", "type.level": "enum"}
    done = client.post(action.replace("&amp;", "&"), data=form, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == "/tasks"

    shown = client.get(f"/api/instances/{instance}").json()
    assert shown["state"] == "completed"
    assert {k: shown["variables"][k] for k in ("ok", "amount", "level")} == {
        "ok": True,
        "amount": 1200,
        "level": "high",
    }
    assert "No open user tasks" in client.get("/tasks").text


def test_an_incident_is_retried_from_its_page(client: TestClient) -> None:
    deploy(client, CHARGED)
    instance = started(client, "charged")
    incidents = client.get("/incidents").text
    assert "no amount to charge" in incidents
    deploy(client, ORDER)
    waiting = started(client, "order")
    with_incident = client.get("/", params={"incident": "1"}).text
    assert (
        f"/instances/{instance}" in with_incident and f"/instances/{waiting}" not in with_incident
    )
    action = re.search(r'action="(/ui/instances/[^"]+/retry[^"]*)"', incidents).group(1)
    again = client.post(action, data={"csrf": csrf_of(incidents)}, follow_redirects=False)
    assert again.status_code == 303
    assert client.get(f"/api/instances/{instance}").json()["state"] == "failed"  # still no amount


def test_a_form_from_elsewhere_is_refused(client: TestClient) -> None:
    deploy(client, ORDER)
    instance = started(client, "order")
    action = f"/ui/instances/{instance}/cancel"
    assert client.post(action, data={"csrf": "0" * 64}).status_code == 403
    forged = client.post(
        action,
        data={"csrf": csrf_of(client.get(f"/instances/{instance}").text)},
        headers={"origin": "http://evil.example"},
    )
    assert forged.status_code == 403
    assert client.get(f"/api/instances/{instance}").json()["state"] == "waiting"
    page = client.get(f"/instances/{instance}").text
    cancel = client.post(action, data={"csrf": csrf_of(page)}, follow_redirects=False)
    assert cancel.status_code == 303
    assert client.get(f"/api/instances/{instance}").json()["state"] == "terminated"
    for elsewhere in ("//evil.example", "/\\evil.example", "https://evil.example"):
        went = client.post(
            action, params={"back": elsewhere}, data={"csrf": csrf_of(page)}, follow_redirects=False
        )
        assert went.headers["location"] == "/", elsewhere


def test_what_a_diagram_says_is_text_never_markup(client: TestClient) -> None:
    deploy(client, HOSTILE)
    instance = started(client, "hostile", note="<script>alert(5)</script>")
    for path in ("/", f"/instances/{instance}", "/tasks"):
        text = client.get(path).text
        assert re.findall(r"<script[^>]*>", text) == ['<script src="/static/cockpit.js" defer>']
        assert "<img" not in text and "onerror=" not in text.replace("onerror=alert", "")
        assert "<svg onload" not in text and 'href="javascript:' not in text
    assert "&lt;script&gt;alert(5)&lt;/script&gt;" in client.get(f"/instances/{instance}").text


def test_an_unknown_instance_is_a_page_that_says_so(client: TestClient) -> None:
    missing = client.get("/instances/nope")
    assert missing.status_code == 404 and "no instance" in missing.text
    script = client.get("/static/cockpit.js")
    assert script.headers["content-type"].startswith("application/javascript")
    assert "X-Cockpit-Poll" in script.text


def test_with_a_token_the_cockpit_signs_in_first(db: str) -> None:
    with TestClient(create_app(db, token="s3cret")) as client:
        deploy_headers = {"content-type": "application/xml", "authorization": "Bearer s3cret"}
        client.post("/api/deployments", content=ORDER.encode(), headers=deploy_headers)
        instance = client.post(
            "/api/instances", json={"process": "order"}, headers=deploy_headers
        ).json()["instance"]
        page = client.get(f"/instances/{instance}").text
        refused = client.post(f"/ui/instances/{instance}/cancel", data={"csrf": csrf_of(page)})
        assert refused.status_code == 401
        wrong = client.post("/login", data={"csrf": "x", "token": "nope"})
        assert wrong.status_code == 401
        signed = client.post("/login", data={"token": "s3cret"}, follow_redirects=False)
        assert signed.status_code == 303 and "httponly" in signed.headers["set-cookie"].lower()
        done = client.post(
            f"/ui/instances/{instance}/cancel", data={"csrf": csrf_of(page)}, follow_redirects=False
        )
        assert done.status_code == 303


def test_the_instance_list_shows_the_newest_and_says_how_many_more(
    client: TestClient, monkeypatch
) -> None:
    from bpmn_engine.serve import pages

    monkeypatch.setattr(pages, "MAX_ROWS", 2)
    deploy(client, ORDER)
    made = [started(client, "order") for _ in range(3)]
    listed = client.get("/").text
    assert f"/instances/{made[2]}" in listed and f"/instances/{made[1]}" in listed
    assert f"/instances/{made[0]}" not in listed and "1 older instance not shown" in listed
