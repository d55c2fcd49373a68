"""The records of an instance, shared by the runtime and every store.

Rows (tracks, scopes, user tasks, timers, subscriptions, history events), their lifecycles,
an instance's rows in memory (`InstanceData`) and the unit of work that changes them
(`Step`). The runtime changes records; a store reads and writes them. Neither imports the
other: this package is what they agree on.
"""
