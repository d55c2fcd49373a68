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

SpiffWorkflow (`spiffworkflow:calledDecisionId`) has no result variable: the first matched
rule's outputs become variables by their names (nothing when none matched), and under COLLECT
each output becomes the list of its values over the matched rules (`spiff_outputs`). UNIQUE
and ANY take the first matching rule, as SpiffWorkflow reads them (`first_match`): its users
end a UNIQUE table with a catch-all rule. Where SpiffWorkflow would answer otherwise still
(PRIORITY and OUTPUT ORDER, which it reads as rule order; COLLECT's aggregation and default
output values, which it ignores; a map or list output it deep-merges into a variable that
already holds one) the task stops with an incident saying so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bpmn_engine.errors import UsageError
from bpmn_engine.model import DecisionCall
from bpmn_engine.runtime import deferred
from bpmn_engine.runtime.storage import Store

if TYPE_CHECKING:
    from bpmn_engine.dmn import DecisionResult, Decisions
    from bpmn_engine.dmn.model import DecisionTable


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
    if call.mapping in ("resultList", "spiff"):  # (SpiffWorkflow's: `spiff_outputs`)
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


# hit policies whose answer is the first matching rule in rule order, as SpiffWorkflow's is
_FIRST_IN_RULE_ORDER = frozenset({"UNIQUE", "FIRST", "ANY", "RULE ORDER"})


def spiff_outputs(
    result: DecisionResult, table: DecisionTable | None, variables: dict[str, Any]
) -> dict[str, Any]:
    """The variables a SpiffWorkflow business rule task sets, or UsageError why they would
    differ from what SpiffWorkflow sets."""
    if table is None:
        raise UsageError(
            f"decision {result.decision!r} is not a decision table: SpiffWorkflow runs decision "
            "tables only"
        )
    if any(clause.default is not None for clause in table.outputs):
        raise UsageError(
            f"decision {result.decision!r} has default output values, which SpiffWorkflow "
            "ignores when no rule matches; not imitated"
        )
    entries = [deferred.dmn_decisions.plain(entry) for entry in result.entries]
    if table.hit_policy == "COLLECT":
        if table.aggregation:
            raise UsageError(
                f"decision {result.decision!r}: SpiffWorkflow ignores COLLECT's aggregation "
                f"({table.aggregation}) and sets the list of values; not imitated"
            )
        outputs: dict[str, Any] = {}
        for entry in entries:
            for name, value in entry.items():
                outputs.setdefault(name, []).append(value)
    elif table.hit_policy in _FIRST_IN_RULE_ORDER:
        outputs = entries[0] if entries else {}
    else:
        raise UsageError(
            f"decision {result.decision!r}: hit policy {table.hit_policy}: SpiffWorkflow takes "
            "the first matching rule in rule order, DMN another; not imitated"
        )
    for name, value in outputs.items():
        if "." in name:
            raise UsageError(
                f"decision {result.decision!r}: output {name!r}: SpiffWorkflow's reading of a "
                "dotted output name is not imitated; name it without a dot"
            )
        before = variables.get(name)
        merged = isinstance(before, dict) and isinstance(value, dict)
        if (merged or (isinstance(before, list) and isinstance(value, list))) and before != value:
            raise UsageError(
                f"decision {result.decision!r}: output {name!r}: SpiffWorkflow deep-merges it "
                "into the variable's value, which is not imitated; clear the variable first"
            )
    return outputs
