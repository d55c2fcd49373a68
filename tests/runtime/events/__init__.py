"""Tests of events, subscriptions and timers (`runtime/events/`)."""
