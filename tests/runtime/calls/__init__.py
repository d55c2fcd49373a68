"""Tests of call activities between instances (`runtime/calls/`,
`instance/call_replies.py`, `engine/calling.py`)."""
