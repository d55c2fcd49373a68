"""Tests of data during a step: variables, data associations, forms, decisions (`runtime/data/`)."""
