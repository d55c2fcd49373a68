"""Data during a step: data associations, ioSpecification and properties
(`data_associations.py`), user-task forms (`forms.py`) and the decisions a business rule task
calls (`decisions.py`). Builds on `step/`; behaviours and events use it."""
