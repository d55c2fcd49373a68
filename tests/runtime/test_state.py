"""Records: a track's undo snapshot is a full, independent copy."""

from __future__ import annotations

import copy
from dataclasses import fields

from bpmn_engine.records.data import InstanceHead
from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.records.rows import Track


def test_a_track_snapshot_copies_every_field() -> None:
    track = Track(7, "task", 2, TrackState.WAITING, 41, 3, 3, "flow", "join", 2, 9)
    assert {f.name for f in fields(Track)} == {
        "id", "element", "scope", "status", "seq", "parent", "fork_group", "via", "wait",
        "attempt", "version",
    }  # fmt: skip
    snapshot = track.snapshot()
    assert snapshot == copy.copy(track)
    assert snapshot is not track
    track.element = "elsewhere"
    assert snapshot.element == "task"


def test_an_instance_head_snapshot_copies_every_field() -> None:
    values = {f.name: f"{f.name}-value" for f in fields(InstanceHead)}
    head = InstanceHead(**values)
    snapshot = head.snapshot()
    assert snapshot == copy.copy(head)
    assert snapshot is not head
    assert all(getattr(snapshot, name) == value for name, value in values.items())
