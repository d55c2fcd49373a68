"""Running instances from the store with no one at the keyboard: `bpmn worker`'s turn loop
(`worker.py`), the chores of each turn (`upkeep.py`: jobs past the cap, the outbox, start
timers), waiting and virtual time (`timing.py`), the state they share (`parts.py`), and the
leases and heartbeats that keep two workers off one job (`leases.py`). Above the instance;
the engine uses the heartbeat."""
