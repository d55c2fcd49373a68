"""Soundness of every process and subprocess scope of one file, computed once per file.

Per scope (a subprocess is one activity in its parent; its body is a scope of its own):
1. build the token net (`net.py`): the engine's semantics, data-blind;
2. graph-only checks: dead elements and loops with no exit (`structure.py`), certain; in a
   scope with a terminate end, loops are left to the searches (a concurrent terminate may
   end them), which report closed cycles of markings as livelocks;
3. cut the net into single-entry single-exit fragments, innermost first (`fragments.py`).
   A structured fragment (a split, the matching join and plain branches; an exclusive loop)
   is sound at once; any other is explored by a bounded search over markings (`search.py`)
   from one token on its entry. Either way it then becomes one activity of the enclosing
   fragment, so a structured model of thousands of nodes never meets a state search;
4. search what is left of the scope from each of its start markings.

Why fragments are judged one by one: a flaw is reported where it is, and is certain or not
*within its fragment*; the enclosing fragment assumes it fixed (one token in, one out), so a
flaw does not drown the findings after it, and each finding points at its own cause.

Severity: certain findings (the search's attractor, see `search.py`) of executable processes
take the rule's level (`severity` None); data-dependent ones are warnings, e.g. an inclusive
split into a parallel join (all conditions true lets it fire), as is everything in a process
with `isExecutable="false"`.

Bounds: `search.MAX_STATES` markings per search and `search.SCOPE_STATES` per scope. A search
that passes them reports nothing; the scope gets one `info` issue (rule `deadlock`) saying the
result is unknown, never a guess.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from bpmn_engine.model import Definitions, FlowScope, SubProcess
from bpmn_engine.validate.findings import Issue, Severity
from bpmn_engine.validate.soundness import fragments, search
from bpmn_engine.validate.soundness.net import Net, build_net, path_to
from bpmn_engine.validate.soundness.search import Problem, Search, Unknown
from bpmn_engine.validate.soundness.structure import dead_elements, livelocks

RULE_IDS = ("deadlock", "lack-of-synchronization", "dead-element", "livelock")
_UNCERTAIN = "; this needs particular decisions, which the conditions may rule out"

_cache: weakref.WeakKeyDictionary[Definitions, dict[str, list[Issue]]] = weakref.WeakKeyDictionary()


def issues_for(definitions: Definitions, rule: str) -> list[Issue]:
    """The issues of one soundness rule; the whole analysis runs once per file."""
    if definitions not in _cache:
        _cache[definitions] = analyse(definitions)
    return _cache[definitions][rule]


def analyse(definitions: Definitions) -> dict[str, list[Issue]]:
    found: dict[str, list[Issue]] = {rule: [] for rule in RULE_IDS}
    for process in definitions.processes.values():
        if process.nodes:
            _Scope(process, process.is_executable, (), found).run()
    return found


@dataclass
class _Scope:
    scope: FlowScope
    executable: bool
    prefix: tuple[str, ...]  # the path in the enclosing scopes that leads here
    found: dict[str, list[Issue]]
    ad_hoc: bool = False  # an ad-hoc body runs its activities in any order: no flow to check
    problems: dict[tuple[str, str], Problem] = field(default_factory=dict)
    budget: int = field(default_factory=lambda: search.SCOPE_STATES)
    unknown: bool = False

    def run(self) -> None:
        net = build_net(self.scope)
        reached = net.reachable(net.start_nodes())
        if self.scope.nodes and not self.ad_hoc:
            for problem in [*dead_elements(net, reached), *livelocks(net, reached)]:
                self._keep(problem)
            if net.unknown:
                self._info(f"soundness unknown: the analysis does not model {net.unknown}", None)
            else:
                self._search(net, reached)
        for problem in self.problems.values():
            self.found[problem.rule].append(self._issue(problem))
        for node in self.scope.nodes.values():
            if isinstance(node, SubProcess) and node.scope is not None:
                way = path_to(reached, node.id) if node.id in reached else [node.id]
                ad_hoc = node.kind == "adHocSubProcess"
                _Scope(node.scope, self.executable, (*self.prefix, *way), self.found, ad_hoc).run()

    def _search(self, net: Net, reached: dict[str, str | None]) -> None:
        for entry, exit_ in fragments.candidate_fragments(net):
            inside = fragments.interior(net, entry, exit_)
            if inside is None:
                continue
            if not fragments.is_structured(net, inside, entry, exit_):
                origin = net.places[entry].origin
                lead = tuple(path_to(reached, origin)) if origin in reached else ()
                where = net.nodes[net.places[entry].dst].path[0]
                for problem in self._explore(net, inside, [entry], where):
                    self._keep(problem, lead)
            fragments.collapse(net, inside, entry, exit_)
        everything = set(net.nodes)
        for entry in net.entries:
            for problem in self._explore(net, everything, entry, None):
                self._keep(problem)

    def _explore(
        self, net: Net, nodes: set[str], initial: list[str] | tuple[str, ...], where: str | None
    ) -> list[Problem]:
        """One search within the scope's budget; nothing but an `info` if it cannot end."""
        place = f"the fragment from {where!r}" if where else f"scope {self.scope.id!r}"
        if self.budget <= 0:
            self._info(f"soundness unknown: state budget used up before {place}", where)
            return []
        try:
            explorer = Search(net, nodes, min(search.MAX_STATES, self.budget), where is None)
        except Unknown as why:
            self._info(f"soundness unknown: {why}, in {place}", where)
            return []
        try:
            return explorer.run(initial)
        except Unknown as why:
            self._info(f"soundness unknown: {why}, in {place}", where)
            return []
        finally:
            self.budget -= len(explorer.states)

    def _keep(self, problem: Problem, lead: tuple[str, ...] = ()) -> None:
        key = (problem.rule, problem.element)
        known = self.problems.get(key)
        trace = (*lead, *problem.trace)
        if known is None or (problem.certain and not known.certain):
            self.problems[key] = Problem(
                problem.rule,
                problem.element,
                problem.flows,
                problem.missing,
                trace,
                problem.certain,
            )

    def _info(self, message: str, element: str | None) -> None:
        """A search could not conclude: say so once per scope, never guess (rule `deadlock`)."""
        if self.unknown:
            return
        self.unknown = True
        line = self.scope.nodes[element].line if element else self.scope.line
        issue = Issue(message, element or self.scope.id, line, severity=Severity.INFO)
        self.found["deadlock"].append(issue)

    def _issue(self, problem: Problem) -> Issue:
        node = self.scope.nodes[problem.element]
        label = node.label
        flows = ", ".join(repr(f) for f in problem.flows)
        if problem.rule == "deadlock":
            missing = ", ".join(repr(f) for f in problem.missing)
            why = f"none can arrive on {missing}" if missing else "it can never fire"
            message = f"{label} waits forever: tokens wait on {flows} but {why}"
        elif problem.rule == "lack-of-synchronization":
            message = (
                f"concurrent tokens reach {label} (on {flows}), "
                "so it runs more than once where once was meant"
            )
        elif problem.rule == "dead-element":
            message = f"{label} can never be reached: no path from a start leads to it"
        else:
            message = (
                f"{label} starts a loop with no way out "
                f"(through {', '.join(repr(n) for n in problem.flows)}): no end is reachable"
            )
        certain = problem.certain and self.executable
        if not problem.certain:
            message += _UNCERTAIN
        elif not self.executable:
            message += "; a warning only, as the process is not executable"
        return Issue(
            message,
            element=problem.element,
            line=node.line,
            severity=None if certain else Severity.WARNING,
            trace=(*self.prefix, *problem.trace),
        )


__all__ = ["RULE_IDS", "analyse", "issues_for"]
