"""Events: one strategy per event-definition kind, and what happens when an event fires.

Layered, so that nothing imports in a circle (and `__init__` imports nothing, so importing
one module never drags in the rest):

- `definition.py`, `timer.py`, `message.py`, `signal.py`, `conditional.py`, `link.py`: one
  strategy per event-definition kind: how a catch of that kind waits (a timer or
  subscription row) and how a throw of it is sent. They only create rows: nothing fires.
  `kinds.py` is their registry; `by_api.py` arms a catch that names nothing to wait for
  as a wait the API triggers. `timers.py` parses timer values (ISO 8601, cron).
- `boundaries.py` (a boundary event interrupts its activity or branches off),
  `subprocesses.py` (event subprocesses start and listen), `trigger.py` (a wait fired: the
  catch event, boundary event or event subprocess goes on) and `errors.py` (errors and
  escalations, caught by searching outwards from the thrower): what firing does.
- `waiting_starts.py` (an instance created waiting at its start events),
  `start_timers.py` (a deployed process's start timers: their next firing and the id of the
  instance each firing starts).

Starting an instance at a triggered start event (deployments, start timers, message and
signal starts) needs the instance and the behaviours, which build on these modules: it is
the engine's (`runtime/engine/starts.py`), so that no module here imports upwards.

A new event kind adds a strategy module and one line in `kinds.py`.
"""
