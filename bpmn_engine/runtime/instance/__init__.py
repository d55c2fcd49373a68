"""An instance and its steps. The public `Instance` (`instance.py`) is made of parts over
`InstanceParts` (`parts.py`): reading it and where a run stopped (`reading.py`), the run loop
(`loop.py`), one step and a handler between two steps (`steps.py`), what waits for the
outside (`waits.py`), an operator's commands (`operations.py`) and what called instances
reply (`call_replies.py`). Beside it: the one order in which work is chosen
(`scheduler.py`), when steps reach the store (`checkpoints.py`) and the garbage collector
held while a run steps (`collector.py`). Above behaviours and events."""
