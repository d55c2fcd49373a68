"""Where a business rule task finds its DMN decision, and how the result becomes variables.

Decisions are looked for in the DMN files this engine was given (`bpmn run p.bpmn rules.dmn`),
then in the sets of DMN files kept in the store: the deployed ones (`bpmn deploy rules.dmn`),
newest first, then those given to earlier runs, newest first. Every set given is kept in the
store, so an instance that waits and is resumed later (`bpmn complete`, a worker) finds the
same decisions without the files.

Camunda 7's `mapDecisionResult` maps the matched rules' outputs (`DecisionResult.entries`):
`singleEntry` the one output of the one rule (null when none matched), `singleResult` the one
rule's outputs as a map, `collectEntries` the one output of each rule as a list, `resultList`
(the default) every rule's outputs, a list of maps. More than one rule, or more than one
output, where the mapping expects one is an incident, as Camunda raises an exception. Zeebe
stores the decision's value as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bpmn_engine.errors import UsageError
from bpmn_engine.model import DecisionCall
from bpmn_engine.runtime import deferred
from bpmn_engine.runtime.storage import Store

if TYPE_CHECKING:
    from bpmn_engine.dmn import DecisionResult, Decisions


class DecisionRegistry:
    """The DMN decisions an engine's business rule tasks can call."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.given: list[Decisions] = []
        self._kept: dict[str, Decisions] = {}

    def add(self, decisions: Decisions, *, deployed: bool = False) -> bool:
        """Use these decisions first (and keep them in the store); True if the store did not
        have them yet (or, deploying, had them undeployed)."""
        if not deployed:
            self.given.insert(0, decisions)
        changed = self.store.save_decision_set(
            decisions.version, decisions.paths, decisions.bundle(), deployed=deployed
        )
        self._kept[decisions.version] = decisions
        return changed

    def is_given(self, decisions: Decisions) -> bool:
        """Whether these decisions come from files given to this engine, not the store."""
        return any(given is decisions for given in self.given)

    def find(self, name_or_id: str) -> Decisions | None:
        for decisions in self.given:
            if decisions.has(name_or_id):
                return decisions
        for version, source in self.store.decision_sets():
            if version not in self._kept:
                self._kept[version] = deferred.dmn_decisions.load_bundle(source, self.store.path)
            if self._kept[version].has(name_or_id):
                return self._kept[version]
        return None


def mapped(call: DecisionCall, result: DecisionResult) -> Any:
    """The value the result variable gets (engine variables: JSON), or UsageError why not."""
    if call.mapping == "value":
        return deferred.dmn_decisions.plain(result.value)
    entries = [deferred.dmn_decisions.plain(entry) for entry in result.entries]
    if call.mapping == "resultList":
        return entries
    if call.mapping in ("singleEntry", "singleResult") and len(entries) > 1:
        raise UsageError(
            f"mapDecisionResult {call.mapping}: decision {result.decision!r} has "
            f"{len(entries)} results (matched rules); expected at most one"
        )
    if call.mapping == "singleResult":
        return entries[0] if entries else None
    wide = [entry for entry in entries if len(entry) != 1]
    if wide:
        raise UsageError(
            f"mapDecisionResult {call.mapping}: decision {result.decision!r} has a result of "
            f"{len(wide[0])} outputs ({', '.join(wide[0])}); expected one"
        )
    values = [next(iter(entry.values())) for entry in entries]
    if call.mapping == "singleEntry":
        return values[0] if values else None
    return values  # collectEntries
