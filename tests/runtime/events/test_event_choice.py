"""What an event-based gateway may lead to is checked before the first step: the spec allows
receive tasks and catch events of a message, signal, timer or condition (BPMN 2.0.2 10.6.6);
a link, another element, a condition or a catch of several triggers were an incident when
the token reached the gateway."""

from __future__ import annotations

import pytest

from bpmn_engine import Engine, LoadError
from tests.runtime.conftest import Bpmn, flow

TARGETS = {
    "link": (
        '<intermediateCatchEvent id="t"><linkEventDefinition name="L"/></intermediateCatchEvent>',
        "leads to the link catch event 't'",
    ),
    "task": ('<task id="t"/>', "leads to task 't': an event-based gateway must lead to"),
    "conditional": (
        '<intermediateCatchEvent id="t"><conditionalEventDefinition><condition>x &gt; 1'
        "</condition></conditionalEventDefinition></intermediateCatchEvent>",
        "a conditional catch event: not supported yet",
    ),
    "multiple": (
        '<intermediateCatchEvent id="t"><messageEventDefinition messageRef="m"/>'
        "<timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>"
        "</intermediateCatchEvent>",
        "a catch event of several triggers: not supported yet",
    ),
}


def _diagram(target: str) -> str:
    return (
        f'<startEvent id="s"/>{flow("s", "g")}<eventBasedGateway id="g"/>'
        f'{flow("g", "t")}{target}{flow("t", "e")}<endEvent id="e"/>'
        f'{flow("g", "w")}<intermediateCatchEvent id="w"><timerEventDefinition>'
        f"<timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>"
        f'{flow("w", "e2")}<endEvent id="e2"/>'
    )


@pytest.mark.parametrize("kind", sorted(TARGETS))
def test_what_no_run_can_wait_for_after_an_event_based_gateway_is_refused_at_load(
    bpmn: Bpmn, engine: Engine, kind: str
) -> None:
    target, reason = TARGETS[kind]
    with pytest.raises(LoadError, match=rf"\bg\b.*{reason}"):
        engine.start(bpmn(_diagram(target)))


def test_a_message_and_a_timer_after_an_event_based_gateway_still_run(
    bpmn: Bpmn, engine: Engine
) -> None:
    target = (
        '<intermediateCatchEvent id="t"><messageEventDefinition messageRef="m"/>'
        "</intermediateCatchEvent>"
    )
    path = bpmn(_diagram(target))
    text = path.read_text().replace("</process>", '</process><message id="m" name="go"/>')
    path.write_text(text)
    instance = engine.start(path)
    assert {w["reason"] for w in instance.run().waiting_for} == {"message", "timer"}
