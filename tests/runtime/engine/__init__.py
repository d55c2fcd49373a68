"""Tests of the engine: starts, deployments, the outbox, the compiled cache, dialects
(`runtime/engine/`)."""
