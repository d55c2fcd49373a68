"""The step: what a behaviour may do while one step runs (`context.py`: `StepContext`,
`Incident`), the storable gate every value passes (`variables.py`), joins (`joins.py`), the
elements an outside trigger moves on (`triggers.py`) and listeners, run in the step of their
moment (`listeners.py`). Below behaviours and events; imports no room but `calls/`."""
