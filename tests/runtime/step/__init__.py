"""Tests of the step: listeners, triggers, scripts in every language (`runtime/step/`)."""
