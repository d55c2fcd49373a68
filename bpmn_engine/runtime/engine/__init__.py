"""The engine and its front door: `Engine` (`engine.py`: handlers, options, starting and
reopening instances, publishing and broadcasting), starting at a chosen or triggered start
event and deployments (`chosen_start.py`, `starts.py`), the checks before a first step
(`precheck.py`), delivering what steps sent (`outbox.py`), collaborations
(`collaborations.py`) and the compiled-definitions cache (`compiled.py`). The top of the
runtime: nothing in it is imported by another room."""
