"""Handlers for models/order-fulfilment.bpmn: one function per service/send task topic.

Run it (expect EndEvent_OrderShipped, with approval, trackingNumber set):
  bpmn run models/order-fulfilment.bpmn --handlers models/order_fulfilment_handlers.py --answers models/order-fulfilment.answers.json --var 'items=["book","lamp"]' --var total=1250

Other paths through the same model:
  small order, no approval asked (EndEvent_OrderShipped):
  bpmn run models/order-fulfilment.bpmn --handlers models/order_fulfilment_handlers.py --answers models/order-fulfilment.answers.json --var 'items=["book","lamp"]' --var total=250
  out of stock, "chair" has none left (EndEvent_OrderRejected, missingItems=["chair"]):
  bpmn run models/order-fulfilment.bpmn --handlers models/order_fulfilment_handlers.py --answers models/order-fulfilment.answers.json --var 'items=["book","chair"]' --var total=1250

Variables: `items` (list of item names, one entry per unit) and `total` (order value) come in
with --var; "Approve order" sets `approved` (from the answers file for orders over 1000).

Every handler is deterministic: ids are derived from ctx.idempotency_key, which stays the same
when a task is retried, so a retry returns the same ids instead of creating new ones.
"""

# Units on hand per item. The handlers only read it: reserving does not change it, so runs and
# retries always see the same stock.
STOCK = {
    "book": 25,
    "lamp": 4,
    "desk": 2,
    "monitor": 7,
    "chair": 0,
}


def _suffix(ctx, length=6):
    return ctx.idempotency_key[-length:].upper()


def _units(items):
    """Count the units ordered per item name: ["book", "book", "lamp"] -> {"book": 2, "lamp": 1}."""
    units = {}
    for item in items:
        units[item] = units.get(item, 0) + 1
    return units


def check_stock(ctx):
    """Set inStock (every item has enough units) and missingItems (sorted names that do not)."""
    units = _units(ctx.variables["items"])
    missing = sorted(item for item, wanted in units.items() if STOCK.get(item, 0) < wanted)
    return {"inStock": not missing, "missingItems": missing}


def notify_out_of_stock(ctx):
    """Pretend to e-mail the customer which items are out of stock."""
    missing = ctx.variables.get("missingItems", [])
    return {
        "notificationId": f"MSG-{_suffix(ctx)}",
        "notification": "Sorry, out of stock: " + ", ".join(missing),
    }


def notify_rejected(ctx):
    """Pretend to e-mail the customer that the order was not approved."""
    return {
        "notificationId": f"MSG-{_suffix(ctx)}",
        "notification": "Sorry, your order could not be approved.",
    }


def charge_payment(ctx):
    """Pretend to charge the customer; a real handler would call the payment provider with ctx.idempotency_key."""
    total = ctx.variables["total"]
    return {"paymentId": f"PAY-{_suffix(ctx)}", "charged": total}


def reserve_stock(ctx):
    """Pretend to reserve the ordered units in the warehouse."""
    units = _units(ctx.variables["items"])
    return {"reservationId": f"RES-{_suffix(ctx)}", "reservedUnits": sum(units.values())}


def print_invoice(ctx):
    """Pretend to print the invoice for the order total."""
    return {"invoiceNumber": f"INV-{_suffix(ctx)}"}


def ship_order(ctx):
    """Hand the parcel to the carrier and record its tracking number."""
    return {"trackingNumber": f"TRK-{_suffix(ctx, 8)}", "shipped": True}
