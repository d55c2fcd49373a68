"""Modifying a running instance by hand (`bpmn modify`, Camunda's process instance
modification): cancel tokens, start tokens before or after an element, set variables.

Everything asked is one step, so the instance moves from one consistent state to the next or
not at all, and the step's history says what the operator did (`instance.modified`). A token
is cancelled as a boundary event would cancel it (its user task, timers, subscriptions and
inner scopes end with it, a called instance is cancelled); a token started before an element
enters it when the instance runs on; one started after an element leaves by its single
outgoing flow. A token is started in the element's scope: the process, or a subprocess of
which exactly one activation is running (which one would otherwise be a guess). When the
instance is left with no token, it is terminated, as Camunda does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bpmn_engine.errors import UsageError
from bpmn_engine.model import FlowNode
from bpmn_engine.records.data import Step
from bpmn_engine.records.lifecycle import InstanceState, ScopeState, TrackState
from bpmn_engine.records.rows import Track
from bpmn_engine.runtime.instance.parts import InstanceParts, Listener, checked_variables
from bpmn_engine.runtime.step.context import Incident, StepContext

_MODIFIABLE = (InstanceState.ACTIVE, InstanceState.FAILED)


class Modification(InstanceParts):
    """`Instance.modify`: the operator's hand on the tokens."""

    def modify(
        self,
        *,
        cancel: Sequence[str] = (),
        cancel_tokens: Sequence[int] = (),
        start_before: Sequence[str] = (),
        start_after: Sequence[str] = (),
        variables: dict[str, Any] | None = None,
        on_event: Listener | None = None,
        dry_run: bool = False,
    ) -> list[dict[str, Any]]:
        """Cancel every token at each element of `cancel` and each token of
        `cancel_tokens`, start one before each element of `start_before` and one after each
        of `start_after`, and set `variables` in the process scope: one step. The tokens
        after it (`dry_run`: what they would be; nothing is written). A UsageError, with
        nothing changed, for an unknown element, a token that is not there, or an instance
        that has ended."""
        head = self.data.head
        if head.state not in _MODIFIABLE:
            raise UsageError(f"instance {self.id} is {head.state}: only a running one is modified")
        values = checked_variables(variables or {})
        if not (cancel or cancel_tokens or start_before or start_after or values):
            raise UsageError("nothing to modify: give --cancel, --start-before, --start-after...")
        doomed = self._doomed(cancel, cancel_tokens)
        starts = [(e, self._node(e), "before") for e in start_before]
        starts += [(e, self._node(e), "after") for e in start_after]
        step = Step(self.data)
        anchor = StepContext(
            self.engine, self.definitions, self.data, step, doomed[0] if doomed else self._anchor()
        )
        try:
            self._set(step, values)
            for track in doomed:
                self._cancel(anchor, track)
            started = [self._start(step, element, node, where) for element, node, where in starts]
            step.emit(
                "instance.modified",
                None,
                None,
                cancelled=[t.id for t in doomed],
                started=started,
                variables=sorted(values),
            )
            self._settle(step, anchor)
        except Incident as failure:  # an end listener of a cancelled element failed
            step.rollback()
            raise UsageError(f"instance {self.id} was not modified: {failure.message}") from None
        except UsageError:
            step.rollback()
            raise
        tokens = [
            t.token() for t in sorted(self.data.tracks.values(), key=lambda t: t.id) if _token(t)
        ]
        if dry_run:
            step.rollback()
            return tokens
        self._commit(step, on_event)
        return tokens

    def _node(self, element: str) -> FlowNode:
        scope = self.definitions.node_scopes.get(element)
        if scope is None:
            raise UsageError(f"{element!r} is no element of process {self.process_id}")
        return scope.nodes[element]

    def _anchor(self) -> Track:
        return min(self.data.tracks.values(), key=lambda t: (not t.live, t.id))

    def _doomed(self, elements: Sequence[str], token_ids: Sequence[int]) -> list[Track]:
        """The tokens to cancel: each at the elements named, and each named by its track."""
        found: dict[int, Track] = {}
        for element in elements:
            self._node(element)
            at = [t for t in self.data.tracks.values() if t.element == element and _token(t)]
            if not at:
                raise UsageError(f"no token of instance {self.id} is at {element!r}")
            found.update((t.id, t) for t in at)
        for token_id in token_ids:
            track = self.data.tracks.get(token_id)
            if track is None or not _token(track):
                raise UsageError(f"instance {self.id} has no token #{token_id}")
            found[track.id] = track
        return sorted(found.values(), key=lambda t: t.id)

    def _set(self, step: Step, values: dict[str, Any]) -> None:
        if not values:
            return
        root = self.data.root_scope
        for name, value in values.items():
            step.set_value(self.data.variables.owner(root, name), name, value)
        step.emit("variables.updated", self.process_id, variables=dict(values), unset=[])

    def _cancel(self, anchor: StepContext, track: Track) -> None:
        """End one token as a cancellation ends it (`terminate_track`: the scopes it holds,
        then its element's own ending), saying that a person did."""
        anchor.terminate_track(track)
        anchor.step.emit("token.cancelled", track.element, track.id)

    def _start(self, step: Step, element: str, node: FlowNode, where: str) -> int:
        """A new token before `node` (it enters it when the instance runs on) or after it
        (on its single outgoing flow); its track's id."""
        scope_model = self.definitions.node_scopes[element]
        scope = self._running_scope(scope_model.id, element)
        target, via = element, None
        if where == "after":
            outgoing = list(scope_model.outgoing(node))
            if len(outgoing) != 1:
                raise UsageError(
                    f"{element!r} has {len(outgoing)} outgoing sequence flows: a token starts "
                    "after an element with exactly one (start before its targets instead)"
                )
            target, via = outgoing[0].target, outgoing[0].id
        track = step.new_track(element=target, scope=scope, status=TrackState.READY, via=via)
        step.emit("token.started", target, track.id, before=element if where == "before" else None,
                  after=element if where == "after" else None)  # fmt: skip
        return track.id

    def _running_scope(self, scope_element: str, element: str) -> int:
        """The one running activation of the process or subprocess `scope_element`."""
        running = [
            s.id
            for s in self.data.scopes.values()
            if s.element == scope_element and s.status is ScopeState.ACTIVE
        ]
        if len(running) == 1:
            return running[0]
        if not running:
            raise UsageError(
                f"{element!r} is inside {scope_element!r}, which is not running: start a "
                f"token before {scope_element!r} instead"
            )
        raise UsageError(
            f"{element!r} is inside {scope_element!r}, which runs {len(running)} times: "
            "which activation would be a guess (not supported)"
        )

    def _settle(self, step: Step, anchor: StepContext) -> None:
        """After the changes: a subprocess activation left with no token is cancelled with
        its activity (as Camunda cancels the ancestors left empty); the incident is resolved
        when its last failed token went; the instance is terminated when no token is left."""
        root = self.data.root_scope
        emptied = True
        while emptied:
            emptied = False
            for scope in list(self.data.scopes.values()):
                if scope.id == root or scope.status is not ScopeState.ACTIVE:
                    continue
                if any(_token(t) for t in self.data.live_tracks(scope.id)):
                    continue
                anchor.terminate_scope(scope.id)  # its listeners stop too
                step.touch_scope(scope).move(ScopeState.TERMINATED)
                host = self.data.tracks.get(scope.track) if scope.track is not None else None
                if host is not None and _token(host):
                    self._cancel(anchor, host)
                emptied = True
        head = self.data.head
        self._incidents_over(step)
        if any(_token(t) for t in self.data.tracks.values()):
            return
        if head.parent_instance is not None:  # its caller's call activity would wait on
            raise UsageError(
                f"instance {self.id} was started by a call activity of instance "
                f"{head.parent_instance} and would be left with no token: modify that one"
            )
        anchor.terminate_scope(root)  # listening event subprocesses stop too
        step.touch_scope(self.data.scopes[root]).move(ScopeState.TERMINATED)
        step.set_state(InstanceState.TERMINATING)
        step.set_state(InstanceState.TERMINATED)
        step.emit(
            "instance.terminated", variables=dict(sorted(self.data.values.get(root, {}).items()))
        )


def _token(track: Track) -> bool:
    """A token an operator can see and cancel: a live track that is no listener."""
    return track.live and not track.listening
