"""The cockpit's simulation view: a deployed process stepped action by action on a scratch
database, a choice made at its gateway, a task completed, a step taken back; the served
database never sees it."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from tests.serve.conftest import deploy, diagram, flow
from tests.serve.test_cockpit import csrf_of

CHOICE = diagram(
    "choice",
    '<startEvent id="s"/>'
    + flow("s", "which")
    + '<exclusiveGateway id="which" name="Which way?" default="which_ask"/>'
    + '<sequenceFlow id="which_done" sourceRef="which" targetRef="done">'
    "<conditionExpression>=fast</conditionExpression></sequenceFlow>"
    + flow("which", "ask")
    + '<userTask id="ask" name="Ask a person"/>'
    + flow("ask", "done")
    + '<endEvent id="done"/>',
)


def actions(page: str) -> list[str]:
    return re.findall(r"<button>([^<]+)</button>", page)


def press(client: TestClient, page: str, label: str, **fields: str) -> str:
    """Post the form whose button says `label` (its hidden fields too), as a browser does."""
    for found in re.finditer(r'<form method="post" action="([^"]+)"[^>]*>(.*?)</form>', page):
        if f"<button>{label}</button>" in found.group(2):
            hidden = dict(
                re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', found.group(2))
            )
            answer = client.post(found.group(1), data={**hidden, **fields})
            assert answer.status_code == 200, answer.text
            return answer.text
    raise AssertionError(f"no button {label!r} among {actions(page)}")


def test_a_process_is_stepped_chosen_and_taken_back(client: TestClient) -> None:
    deploy(client, CHOICE)
    listed = client.get("/simulate").text
    page = press(client, listed, "Simulate")
    assert "Simulation of choice" in page and "0 steps taken" in page

    page = press(client, page, "enter s (token 1)")
    assert "1 step taken" in page
    # the condition would need `fast`: choose the flow to the end instead
    chooser = re.search(r'action="([^"]+/choose)"', page).group(1)
    answer = client.post(
        chooser, data={"csrf": csrf_of(page), "gateway": "which", "flow": "which_done"}
    )
    page = answer.text
    label = next(a for a in actions(page) if a.startswith("enter which"))
    page = press(client, page, label)
    label = next(a for a in actions(page) if a.startswith("enter done"))
    page = press(client, page, label)
    assert "completed" in page and "Nothing can happen any more" in page

    page = press(client, page, "Back one step")
    assert "Nothing can happen any more" not in page
    assert any(a.startswith("enter done") for a in actions(page))
    assert client.get("/api/instances").json() == []  # the served database saw nothing


def test_a_task_is_completed_in_a_simulation(client: TestClient) -> None:
    deploy(client, CHOICE)
    page = press(client, client.get("/simulate").text, "Simulate")
    for step in ("enter s", "enter which", "enter ask"):
        page = press(client, page, next(a for a in actions(page) if a.startswith(step)))
    label = next(a for a in actions(page) if a.startswith("complete the task ask"))
    page = press(client, page, label, json='{"answer": 42}')
    assert re.search(r"<code>answer</code></td><td><code>42</code>", page)


def test_an_unknown_simulation_or_process_says_so(client: TestClient) -> None:
    assert client.get("/simulations/nope").status_code == 404
    assert "No process is deployed yet" in client.get("/simulate").text
    deploy(client, CHOICE)
    csrf = csrf_of(client.get("/simulate").text)
    made = client.post("/ui/simulations", data={"csrf": csrf, "process": "nothing"})
    assert made.status_code == 404 and "no process &#x27;nothing&#x27;" in made.text
    page = press(client, client.get("/simulate").text, "Simulate")
    chooser = re.search(r'action="([^"]+/choose)"', page).group(1)
    wrong = client.post(chooser, data={"csrf": csrf, "gateway": "which", "flow": "nowhere"})
    assert wrong.status_code == 400 and "no outgoing flow nowhere" in wrong.text
    assert client.post(chooser.replace("/choose", "/back"), data={"csrf": csrf}).status_code == 400
    stale = {"csrf": csrf, "number": "1", "element": "ask"}  # action 1 is entering s now
    assert client.post(chooser.replace("/choose", "/step"), data=stale).status_code == 409
