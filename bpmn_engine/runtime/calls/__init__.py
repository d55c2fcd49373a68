"""Call activities between instances: the parent/child protocol as outbox rows
(`protocol.py`) and a call tree as one object (`tree.py`). The bottom of the runtime: it
imports records only (the tree names the engine and its instances as types)."""
