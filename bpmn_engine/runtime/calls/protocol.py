"""The parent/child protocol of call activities, as outbox rows.

A call activity never starts its child inside its own step: the parent's step sends a
`call` row, and the Postman delivers it as the child's opening step (recording the row as
received, unique in the store). The child's id is derived from the parent's id, track and
activation, so a call delivered twice after a crash finds the child already there. The
child's end goes back the same way: `completion` (its variables), `error` or `escalation`
(thrown at the call activity in the parent), `incident` and `resolved` (the child failed, or
was resumed: the call activity's token fails or waits again), and the parent's interruption
goes down as `cancel`. Every row names the parent's track and the child, so a reply meant for an
activation that ended meanwhile (the call activity was interrupted) changes nothing.

The rows' `variables` column carries the payload: `{"variables": ..., "track": ...}`.
"""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

from bpmn_engine.records.data import InstanceHead
from bpmn_engine.records.rows import Sent, Track
from bpmn_engine.records.variables import ENGINE_SCOPE

CALL = "call"  # parent -> child: start the called process
COMPLETION = "completion"  # child -> parent: the child completed, with its variables
ERROR = "error"  # child -> parent: an error nobody in the child caught
ESCALATION = "escalation"  # child -> parent: an escalation nobody in the child caught
CANCEL = "cancel"  # parent -> child: the call activity was ended from outside
INCIDENT = "incident"  # child -> parent: the child failed (an incident, not a BPMN error)
RESOLVED = "resolved"  # child -> parent: the failed child was resumed
KINDS = frozenset({CALL, COMPLETION, ERROR, ESCALATION, CANCEL, INCIDENT, RESOLVED})
UPWARD = frozenset({COMPLETION, ERROR, ESCALATION, INCIDENT, RESOLVED})

MAX_DEPTH = 100  # a process calling itself must not start children without end
MAX_TREE_SIZE = 10_000  # instances of one call tree, the root included (docs/sandbox.md):
# the depth cap does not bound width (a process calling itself twice doubles at each level)


def is_expression(text: str) -> bool:
    """A `calledElement` computed per call (`${...}`, `#{...}`, FEEL `=...`), not an id."""
    text = text.strip()
    return text.startswith("=") or "${" in text or "#{" in text


def child_id(parent: str, track: Track) -> str:
    """The id of the child a track's activation of a call activity starts: the same on
    every repeat of the delivery, new for each activation (each entry has a new `seq`, each
    retry after an incident a new `attempt`)."""
    key = f"{parent}/{track.id}/{track.seq}/{track.attempt}"
    digest = hashlib.sha256(key.encode()).hexdigest()
    return digest[:10]


class CallRow(NamedTuple):
    """One protocol row as the Postman reads it."""

    id: int  # the outbox row
    source: str  # the instance that sent it
    kind: str
    name: str  # the called process (call), the error or escalation code, or the child
    receiver: str  # the instance it goes to
    child: str
    track: int  # the parent's track waiting at the call activity
    variables: dict[str, Any]
    definition: str | None = None  # call: the definitions version holding the process
    depth: int = 0  # call: the child's depth in the call tree
    root: str = ""  # call: the call tree's root (a row sent before schema v12 has none)
    business_key: str | None = None  # call: the child's (`<camunda:in businessKey>`)
    message: str = ""  # error: its message
    # completion: the called process's data outputs (id, name) when it has an ioSpecification
    outputs: tuple[tuple[str, str | None], ...] | None = None
    element: str = ""  # incident: the child's failing element
    origin: str = ""  # incident: where it is, when deeper than the child (else "")
    deleted: tuple[str, ...] = ()  # completion: variables the caller passed, the child deleted


def call(
    head: InstanceHead,
    track: Track,
    process: str,
    definition: str,
    variables: dict[str, Any],
    business_key: str | None = None,
) -> Sent:
    """The parent's request to start `process` (of `definition`) as its child."""
    child = child_id(head.id, track)
    payload = {
        "variables": variables,
        "track": track.id,
        "child": child,
        "definition": definition,
        "depth": head.call_depth + 1,
        "root": head.root,
    }
    if business_key is not None:
        payload["business_key"] = business_key
    return Sent(CALL, process, child, payload)


def cancel(head: InstanceHead, track: Track) -> Sent:
    """The parent ended the call activity: the child ends too (it may not exist yet: the
    cancel row comes after the call row, so the child is started, then cancelled)."""
    child = child_id(head.id, track)
    return Sent(CANCEL, child, child, {"variables": {}, "track": track.id, "child": child})


def upward(
    head: InstanceHead,
    kind: str,
    name: str,
    variables: dict[str, Any],
    message: str = "",
    outputs: tuple[tuple[str, str | None], ...] | None = None,
    deleted: list[str] | None = None,
) -> Sent:
    """A child's end, error or escalation, to its parent; a completion names the called
    process's data outputs when it declares an interface (`ioSpecification`), and the
    variables the caller passed in that the child deleted."""
    assert head.parent_instance is not None and head.parent_track is not None
    payload: dict[str, Any] = {
        "variables": variables,
        "track": head.parent_track,
        "child": head.id,
        "message": message,
    }
    if outputs is not None:
        payload["outputs"] = [list(item) for item in outputs]
    if deleted:
        payload["deleted"] = deleted
    return Sent(kind, name, head.parent_instance, payload)


PASSED = "passed"
"""The row of a called instance's engine scope naming the variables its caller passed in: at
its end, those it deleted are deleted in the caller too (when everything comes back), as
SpiffWorkflow gives the caller the child's data as it ends."""


def passed_names(values: dict[int, dict[str, Any]]) -> list[str]:
    return list(values.get(ENGINE_SCOPE, {}).get(PASSED) or ())


def incident(head: InstanceHead, element: str, message: str, origin: str) -> Sent:
    """A called instance failed at `element`: with `message` when the incident is its own,
    else with `origin`, the instance deeper down whose incident it is, as text."""
    assert head.parent_instance is not None and head.parent_track is not None
    payload = {
        "variables": {},
        "track": head.parent_track,
        "child": head.id,
        "message": message,
        "element": element,
        "origin": origin,
    }
    return Sent(INCIDENT, head.process, head.parent_instance, payload)


def read(row: dict[str, Any]) -> CallRow:
    payload = row["variables"]
    return CallRow(
        id=row["id"],
        source=row["source"],
        kind=row["kind"],
        name=row["name"],
        receiver=row["key"],
        child=payload["child"],
        track=payload["track"],
        variables=payload.get("variables") or {},
        definition=payload.get("definition"),
        depth=payload.get("depth", 0),
        root=payload.get("root", ""),
        business_key=payload.get("business_key"),
        message=payload.get("message", ""),
        outputs=_outputs(payload.get("outputs")),
        element=payload.get("element", ""),
        origin=payload.get("origin", ""),
        deleted=tuple(payload.get("deleted") or ()),
    )


def _outputs(stored: Any) -> tuple[tuple[str, str | None], ...] | None:
    if stored is None:
        return None
    return tuple((str(item[0]), item[1]) for item in stored)
