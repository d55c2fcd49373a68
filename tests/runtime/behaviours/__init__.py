"""Tests of element behaviours (`runtime/behaviours/`)."""
