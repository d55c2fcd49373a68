"""Handlers for models/payment.bpmn, the process models/order-with-payment.bpmn calls.

Run the order with the payment file next to it (expect EndEvent_OrderConfirmed):
  bpmn run models/order-with-payment.bpmn models/payment.bpmn --handlers models/payment_handlers.py --var orderId=B-1 --var 'lines=[{"sku":"book","qty":2,"price":12.5},{"sku":"lamp","qty":1,"price":40}]'

A total over the card limit is declined (EndEvent_OrderCancelled): the handler raises
BpmnError("PAYMENT_DECLINED") in the called instance, which does not catch it, so the order's
error boundary event on "Take payment" does.

Variables the payment gets (camunda:in): `orderId` and `amount` (the order's `total`); it
gives back (camunda:out) `paymentId` and `charged`.

The handler is deterministic: the payment id is derived from ctx.idempotency_key, which stays
the same when the task is retried.
"""

from bpmn_engine import BpmnError

CARD_LIMIT = 2000  # a charge over this is declined


def charge_card(ctx):
    """Pretend to charge the customer's card for the order's total."""
    amount = ctx.variables["amount"]
    if amount > CARD_LIMIT:
        order = ctx.variables.get("orderId", "?")
        raise BpmnError("PAYMENT_DECLINED", f"order {order}: {amount} is over the card limit")
    return {"paymentId": f"PAY-{ctx.idempotency_key[-6:].upper()}", "charged": amount}
