"""Handlers for models/order-payment.bpmn: one function per service task topic.

Happy path: the run waits at "Payment or timeout?" (exit 3), the message ships the order
(EndEvent_OrderShipped):
  bpmn run models/order-payment.bpmn --handlers models/order_payment_handlers.py --var orderId=A-1 --var 'address="1 Main St"' --db /tmp/order-payment.db
  bpmn message payment-received --key A-1 --handlers models/order_payment_handlers.py --db /tmp/order-payment.db

Other paths through the same model (see models/README.md):
  no payment within 30 minutes, simulated at once (EndEvent_OrderExpired):
  bpmn run models/order-payment.bpmn --handlers models/order_payment_handlers.py --var orderId=A-2 --var 'address="1 Main St"' --clock virtual --db /tmp/order-payment.db
  cancelled while waiting (EndEvent_OrderCancelled), after a run with orderId=A-3:
  bpmn message order-cancelled --key A-3 --handlers models/order_payment_handlers.py --db /tmp/order-payment.db
  empty address (--var 'address=""'): after the payment "Ship order" throws ADDRESS_INVALID and
  "Fix address" waits; completing it ships the order:
  bpmn complete INSTANCE Task_FixAddress --var 'address="2 Side St"' --handlers models/order_payment_handlers.py --db /tmp/order-payment.db

Variables: `orderId` (string; the correlation key of both messages) and `address` (string)
come in with --var. The payment message may carry `paymentId` (--var paymentId=PAY-4): "Refund
and release" refunds only when there is one. `status` records where the order stands
(`reserved`, `shipped`, `expired`, `cancelled`); the "Shipped?" gateway reads it.

Every handler is deterministic: ids are derived from ctx.idempotency_key, which stays the same
when a task is retried.
"""

from bpmn_engine import BpmnError


def _suffix(ctx, length=6):
    return ctx.idempotency_key[-length:].upper()


def reserve_stock(ctx):
    """Pretend to reserve the order's items in the warehouse."""
    return {"reservationId": f"RES-{_suffix(ctx)}", "status": "reserved"}


def ship_order(ctx):
    """Hand the parcel to the carrier; a missing address is a business error, not a crash."""
    address = (ctx.variables.get("address") or "").strip()
    if not address:
        order = ctx.variables.get("orderId", "?")
        raise BpmnError("ADDRESS_INVALID", f"order {order} has no delivery address")
    return {
        "trackingNumber": f"TRK-{_suffix(ctx, 8)}",
        "shippedTo": address,
        "status": "shipped",
    }


def release_stock(ctx):
    """The payment did not come in time: give the reserved items back."""
    return {"stockReleased": True, "status": "expired"}


def refund_and_release(ctx):
    """The customer cancelled: refund the payment if one came in, and give the items back."""
    payment = ctx.variables.get("paymentId")
    result = {"stockReleased": True, "refunded": payment is not None, "status": "cancelled"}
    if payment is not None:
        result["refundId"] = f"REF-{_suffix(ctx)}"
    return result
