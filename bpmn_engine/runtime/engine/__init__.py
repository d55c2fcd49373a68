"""The engine and its front door. `Engine` (`engine.py`) is made of parts over `EngineParts`
(`parts.py`): definitions, decisions, handlers and the checks before a run
(`definitions.py`), every way an instance starts (`starting.py`), call activities
(`calling.py`), reopening, listing and rewinding instances, messages and signals
(`instances.py`). Beside it: deployments and triggered starts (`starts.py`), a start event
chosen by name (`chosen_start.py`), the checks before a first step (`precheck.py`),
delivering what steps sent (`outbox.py`), collaborations (`collaborations.py`, over the
session's records in `session.py`) and the compiled-definitions cache (`compiled.py`); what
those helpers use of the engine, as protocols (`services.py`). The top of the runtime: no
other room imports it at run time."""
