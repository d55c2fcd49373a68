"""The cockpit in a real headless browser (Debian's chromium, driven by Playwright): the
waiting task is highlighted in the picture, its form on the task list completes it, and the
instance's page, left open, shows it finish without being reloaded. A hostile diagram runs
no script.

`.ci/run` installs chromium when missing; without it the test skips and says so, under CI
(`CI` set) a missing browser fails.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.chromium import FLAGS, chromium
from tests.serve.conftest import call, deploy_over_http
from tests.serve.test_cockpit import HOSTILE, REVIEW

sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright")

ORANGE = "rgb(251, 140, 0)"  # overlay.WAITING


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    found = chromium()
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=found, args=list(FLAGS))
        yield launched
        launched.close()


def start(base: str, process: str, **variables: Any) -> str:
    status, answer = call(
        f"{base}/api/instances",
        json.dumps({"process": process, "variables": variables}).encode(),
        {"content-type": "application/json"},
    )
    assert status == 201, answer
    return answer["instance"]


def test_a_task_seen_waiting_is_completed_from_the_task_list(server: Any, browser: Any) -> None:
    base, _ = server
    deploy_over_http(base, REVIEW)
    instance = start(base, "review")
    watching, working = browser.new_page(), browser.new_page()

    # the instance's page: the waiting task is drawn in the waiting colour
    watching.goto(f"{base}/instances/{instance}")
    task = watching.locator('g.shape[data-element-id="check"]')
    assert "waiting" in (task.get_attribute("class") or "")
    stroke = task.locator("rect").first.evaluate("r => getComputedStyle(r).stroke")
    assert stroke == ORANGE

    assert watching.locator("main > p span.state-waiting").count() == 1
    watching.evaluate("window.stayed = true")  # gone if the page were loaded again

    # the task list: fill in the form and complete the task
    working.goto(f"{base}/tasks")
    working.check('input[name="var.ok"]')
    working.fill('input[name="var.amount"]', "1200")
    working.select_option('select[name="var.level"]', "high")
    with working.expect_navigation():  # the form posts, and comes back to the task list
        working.click('button:has-text("Complete")')
    assert working.url == f"{base}/tasks", working.content()[:500]
    assert "No open user tasks" in working.inner_text("main")

    # the page left open shows the end without a reload
    watching.wait_for_selector("main > p span.state-completed", timeout=20_000)
    assert watching.evaluate("window.stayed === true")
    variables = call(f"{base}/api/instances/{instance}")[1]["variables"]
    assert (variables["ok"], variables["amount"], variables["level"]) == (True, 1200, "high")


def test_a_hostile_diagram_runs_no_script(server: Any, browser: Any) -> None:
    base, _ = server
    deploy_over_http(base, HOSTILE)
    instance = start(base, "hostile", note="<script>alert(5)</script>")
    page = browser.new_page()
    alerts: list[str] = []
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
    for path in ("/", f"/instances/{instance}", "/tasks"):
        page.goto(f"{base}{path}")
        page.wait_for_timeout(300)  # let anything that would run, run
    assert alerts == []
    page.goto(f"{base}/instances/{instance}")
    assert "<script>alert(5)</script>" in page.inner_text("main")  # shown as the text it is
