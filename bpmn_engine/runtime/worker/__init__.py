"""Running instances from the store with no one at the keyboard: `bpmn worker`'s loop
(`worker.py`) and the leases and heartbeats that keep two workers off one job
(`leases.py`). Above the instance; the engine uses the heartbeat."""
