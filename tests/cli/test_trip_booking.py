"""models/trip-booking.bpmn as its README entry runs it: the car fails, so the transaction is
cancelled and the hotel, then the flight, are cancelled (last booked first)."""

from __future__ import annotations

import json

from tests.cli.conftest import MODELS, Bpmn

MODEL = str(MODELS / "trip-booking.bpmn")
HANDLERS = ("--handlers", str(MODELS / "trip_booking_handlers.py"))


def test_no_car_cancels_the_hotel_then_the_flight(bpmn: Bpmn) -> None:
    code, lines = bpmn.json_lines("run", MODEL, *HANDLERS, "--var", 'city="Rome"')
    assert code == 0, lines
    end = lines[-1]
    assert end["event"] == "instance.completed"
    assert end["end_event"] == "EndEvent_TripCancelled"
    assert end["variables"]["cancellations"] == ["hotel", "flight"]
    assert end["variables"]["hotelCancelled"] == end["variables"]["hotelBooking"]
    handlers = [line["handler"] for line in lines if line["event"] == "compensation.started"]
    assert handlers == ["Task_CancelHotel", "Task_CancelFlight"]  # the car never completed
    events = [line["event"] for line in lines]
    assert events.index("transaction.cancelled") > events.index("compensation.completed")
    shown = json.loads(bpmn("show", end["instance"], "--json").stdout)
    assert shown["transactions"][0]["outcome"] == "cancelled"
    assert "transaction Transaction_BookTrip: cancelled" in bpmn("show", end["instance"]).stdout


def test_a_free_car_confirms_the_trip_and_cancels_nothing(bpmn: Bpmn) -> None:
    args = ("--var", 'city="Rome"', "--var", "carAvailable=true")
    code, lines = bpmn.json_lines("run", MODEL, *HANDLERS, *args)
    assert code == 0, lines
    assert lines[-1]["end_event"] == "EndEvent_TripConfirmed"
    assert "cancellations" not in lines[-1]["variables"]
    assert not any(line["event"] == "compensation.started" for line in lines)
    shown = json.loads(bpmn("show", lines[-1]["instance"], "--json").stdout)
    assert shown["transactions"][0]["outcome"] == "completed"


def test_validate_accepts_the_model(bpmn: Bpmn) -> None:
    done = bpmn("validate", MODEL)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 problems" in done.stdout
