"""Tests of an instance and its steps: scheduling, checkpoints, rewinding (`runtime/instance/`)."""
