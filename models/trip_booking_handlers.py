"""Handlers for models/trip-booking.bpmn: one function per service task topic.

The car cannot be had (the default): the transaction is cancelled, the hotel and then the
flight are cancelled, last booked first (EndEvent_TripCancelled, cancellations=["hotel",
"flight"]):
  bpmn run models/trip-booking.bpmn --handlers models/trip_booking_handlers.py --var 'city="Rome"'

A car is free (--var carAvailable=true): the trip is confirmed (EndEvent_TripConfirmed):
  bpmn run models/trip-booking.bpmn --handlers models/trip_booking_handlers.py --var 'city="Rome"' --var carAvailable=true

Variables: `city` (string) and `carAvailable` (boolean, false when not given) come in with
--var. Each reservation sets its booking number; each cancellation appends what it cancelled
to `cancellations`, so the list shows the order of compensation.

Every handler is deterministic: numbers are derived from ctx.idempotency_key, which stays the
same when a task is retried.
"""

from bpmn_engine import BpmnError


def _number(ctx, prefix):
    return f"{prefix}-{ctx.idempotency_key[-6:].upper()}"


def reserve_flight(ctx):
    return {"flightBooking": _number(ctx, "FL")}


def reserve_hotel(ctx):
    return {"hotelBooking": _number(ctx, "HT")}


def reserve_car(ctx):
    """No car is free unless `carAvailable`: a business error, caught inside the transaction."""
    if not ctx.variables.get("carAvailable", False):
        city = ctx.variables.get("city", "?")
        raise BpmnError("CAR_UNAVAILABLE", f"no car is free in {city}")
    return {"carBooking": _number(ctx, "CR")}


def _cancelled(ctx, what, booking):
    done = list(ctx.variables.get("cancellations") or [])
    return {"cancellations": [*done, what], f"{what}Cancelled": ctx.variables.get(booking)}


def cancel_flight(ctx):
    return _cancelled(ctx, "flight", "flightBooking")


def cancel_hotel(ctx):
    return _cancelled(ctx, "hotel", "hotelBooking")


def cancel_car(ctx):
    return _cancelled(ctx, "car", "carBooking")


def notify_customer(ctx):
    return {"customerNotified": True}
