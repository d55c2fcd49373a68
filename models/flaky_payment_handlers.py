"""Handlers for models/flaky-payment.bpmn: a payment gateway that times out twice, then pays.

  bpmn run models/flaky-payment.bpmn --handlers models/flaky_payment_handlers.py --var amount=40

The task's `camunda:failedJobRetryTimeCycle` is R3/PT1S: three tries, a second apart. The
first two tries raise (a timeout: a passing failure), so the engine tries again on the same
token after the backoff; the third pays, and the run ends at EndEvent_PaymentTaken about two
seconds later, the two failed tries in its trace (docs/operations.md).

With GATEWAY_DOWN=1 in the environment every try times out: the tries run out and the token
stops on an incident, the runbook's case (docs/operations.md#runbook).
"""

import os


def charge_card(ctx):
    """Time out on the first two tries of a payment (`ctx.attempt` counts them, and is kept
    with the token: a resume or a worker after a crash goes on counting), then pay."""
    if ctx.attempt < 3 or os.environ.get("GATEWAY_DOWN") == "1":
        raise TimeoutError(f"payment gateway timed out (try {ctx.attempt})")
    return {
        "paymentId": f"PAY-{ctx.idempotency_key[-6:].upper()}",
        "charged": ctx.variables["amount"],
    }
