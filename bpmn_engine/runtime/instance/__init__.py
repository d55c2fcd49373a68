"""An instance and its steps: the public `Instance` (`instance.py`), the one order in which
work is chosen (`scheduler.py`), when steps reach the store (`checkpoints.py`) and the
garbage collector held while a run steps (`collector.py`). Above behaviours and events."""
