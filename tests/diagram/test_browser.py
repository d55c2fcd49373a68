"""The HTML page in a real headless browser: the token badge is drawn on the waiting task.

Chromium comes from the distribution's packages (`.ci/run` installs it when missing). On a
machine without it the test skips and says so; under CI (`CI` set) a missing browser fails.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from lxml import etree

from tests.chromium import FLAGS, chromium
from tests.cli.conftest import Bpmn
from tests.conftest import ROOT

SVG = "{http://www.w3.org/2000/svg}"
MODELS = ROOT / "models"
BLUE = (0x1E, 0x88, 0xE5)  # overlay.ACTIVE: the token badge
BORDER = (0xDD, 0xDD, 0xDD)  # the page's frame around the diagram


def close(pixel: tuple[int, ...], colour: tuple[int, int, int], tolerance: int = 40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel[:3], colour, strict=True))


def test_the_token_badge_is_drawn_on_the_waiting_user_task(bpmn: Bpmn, tmp_path: Path) -> None:
    from PIL import Image  # the test extra's: only this test reads a screenshot

    browser = chromium()
    payment = [str(MODELS / "order-payment.bpmn")]
    handlers = ["--handlers", str(MODELS / "order_payment_handlers.py"), "--db", "b.db"]
    code, lines = bpmn.json_lines(
        "run", *payment, "--var", "orderId=A-4", "--var", 'address=""', *handlers
    )
    assert code == 3
    assert bpmn("message", "payment-received", "--key", "A-4", *handlers).returncode == 3
    instance = lines[-1]["instance"]
    assert bpmn("render", "--instance", instance, "--db", "b.db", "-o", "page.html").returncode == 0
    page = tmp_path / "page.html"
    svg = etree.fromstring(page.read_text().split('<div class="diagram">')[1].split("</div>")[0])
    left, top = (float(v) for v in svg.get("viewBox").split()[:2])
    task = next(g for g in svg.iter(f"{SVG}g") if g.get("data-element-id") == "Task_FixAddress")
    x, y = (float(v) for v in task.get("data-bounds").split()[0].split(","))

    shot = tmp_path / "shot.png"
    done = subprocess.run(
        [
            browser,
            "--headless",
            *FLAGS,
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1600,1400",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert shot.exists(), done.stderr[-2000:]
    image = Image.open(shot).convert("RGB")
    width, height = image.size
    pixels = image.load()
    # the diagram's frame: the first row holding a long run of its colour, and where it starts
    frame = next(
        (row, column)
        for row in range(height)
        for column in range(width - 200)
        if all(close(pixels[column + i, row], BORDER, 6) for i in range(0, 200, 10))
    )
    origin_x, origin_y = frame[1] + 1, frame[0] + 1  # inside the 1px border
    badge = (round(origin_x + x - left), round(origin_y + y - top))
    # the badge's disc, left and right of the white count at its centre
    for side in (badge[0] - 6, badge[0] + 6):
        assert close(pixels[side, badge[1]], BLUE), ((side, badge[1]), pixels[side, badge[1]])
    inside = (badge[0] + 40, badge[1] + 40)  # the task's body is white, not a badge
    assert close(pixels[inside], (255, 255, 255), 10), (inside, pixels[inside])
