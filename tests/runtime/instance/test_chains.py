"""A chain of automatic nodes is taken as one step (`runtime/instance/chain.py`): one
transaction, the same history as a step per node, a failure and a handler as without it,
and a checkpoint at Camunda's asyncBefore / asyncAfter markers."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import Engine, Instance, ServiceTaskContext
from bpmn_engine.records.lifecycle import TrackState
from tests.runtime.conftest import Bpmn, activations, crash_with, flow, script

ACTIVITI = 'xmlns:activiti="http://activiti.org/bpmn"'


def sequence(*tasks: str, end: str = "E") -> str:
    """Start, the script tasks given as (id, code) pairs' XML, the end, flows in order."""
    return "".join(flow(a, b) for a, b in zip(["S", *tasks], [*tasks, end], strict=True))


SEQUENCE = (
    '<startEvent id="S"/><endEvent id="E"/>'
    + script("A", "n = n + 1")
    + '<exclusiveGateway id="X"/>'
    + script("B", "n = n * 10")
    + '<intermediateThrowEvent id="T"/>'
    + sequence("A", "X", "B", "T")
)

FORK = (
    '<startEvent id="S"/><parallelGateway id="Fork"/><parallelGateway id="Join"/>'
    + "".join(script(t, f"{t.lower()} = 1") for t in ("A1", "A2", "A3", "B1", "B2"))
    + '<endEvent id="E"/>'
    + flow("S", "Fork")
    + flow("Fork", "A1")
    + flow("A1", "A2")
    + flow("A2", "A3")
    + flow("A3", "Join")
    + flow("Fork", "B1")
    + flow("B1", "B2")
    + flow("B2", "Join")
    + flow("Join", "E")
)

LOOP = (
    '<startEvent id="S"/>'
    + script("Inc", "n = n + 1")
    + '<exclusiveGateway id="More" default="Done"/><endEvent id="E"/>'
    + flow("S", "Inc")
    + flow("Inc", "More")
    + flow("More", "Inc", "Again", "n < 5")
    + flow("More", "E", "Done")
)

SUBPROCESS = (
    '<startEvent id="S"/>'
    + script("A", "n = 1")
    + '<subProcess id="Sub"><startEvent id="SS"/>'
    + script("B", "n = n + 1")
    + script("C", "n = n + 1")
    + '<endEvent id="SE"/>'
    + flow("SS", "B")
    + flow("B", "C")
    + flow("C", "SE")
    + "</subProcess>"
    + script("D", "n = n * 2")
    + '<endEvent id="E"/>'
    + sequence("A", "Sub", "D")
)

# a condition waits on one branch while the other branch's chain changes what it reads
CONDITION = (
    '<startEvent id="S"/><parallelGateway id="Fork"/><parallelGateway id="Join"/>'
    '<intermediateCatchEvent id="Enough"><conditionalEventDefinition>'
    '<condition xsi:type="tFormalExpression">n &gt;= 2</condition>'
    "</conditionalEventDefinition></intermediateCatchEvent>"
    + script("Noted", "seen = n")
    + "".join(script(t, "n = n + 1") for t in ("I1", "I2", "I3"))
    + '<endEvent id="E"/>'
    + flow("S", "Fork")
    + flow("Fork", "Enough")
    + flow("Enough", "Noted")
    + flow("Noted", "Join")
    + flow("Fork", "I1")
    + flow("I1", "I2")
    + flow("I2", "I3")
    + flow("I3", "Join")
    + flow("Join", "E")
)


def history(instance: Instance) -> list[tuple[Any, ...]]:
    return [(e.seq, e.event, e.element, e.track, e.data) for e in instance.history()]


def stepped(engine: Engine, path: Path, variables: dict[str, Any]) -> Instance:
    """The instance run one node per step (`step_once` never chains)."""
    instance = engine.start(path, variables=variables)
    while instance.step_once():
        pass
    return instance


@pytest.mark.parametrize(
    "body",
    [SEQUENCE, FORK, LOOP, SUBPROCESS, CONDITION],
    ids=["seq", "fork", "loop", "sub", "cond"],
)
def test_a_run_in_chains_has_the_history_and_variables_of_a_step_per_node(
    bpmn: Bpmn, engine: Engine, body: str
):
    # given
    path = bpmn(body)
    one_by_one = stepped(engine, path, {"n": 0})
    # when
    chained = engine.start(path, variables={"n": 0})
    outcome = chained.run()
    # then
    assert outcome.state == one_by_one.outcome().state == "completed"
    assert history(chained) == history(one_by_one)
    assert outcome.variables == one_by_one.outcome().variables


def test_a_chain_of_automatic_nodes_is_committed_as_one_transaction(
    bpmn: Bpmn, engine: Engine, monkeypatch: pytest.MonkeyPatch
):
    # given: start, five script tasks, end
    tasks = [f"T{i}" for i in range(5)]
    path = bpmn(
        '<startEvent id="S"/><endEvent id="E"/>'
        + "".join(script(t, "n = n + 1") for t in tasks)
        + sequence(*tasks)
    )
    instance = engine.start(path, variables={"n": 0})
    commits: list[int] = []
    real = engine.store.commit
    monkeypatch.setattr(
        engine.store,
        "commit",
        lambda step, **kw: (commits.append(len(step.events)), real(step, **kw)),
    )
    # when
    outcome = instance.run()
    # then: one commit holds every node's events, and each node has its own rows
    assert outcome.state == "completed"
    assert commits == [len(instance.history()) - 1]  # all but the start's `instance.created`
    assert activations(instance) == ["S", *tasks, "E"]


FAILING = (
    '<startEvent id="S"/><endEvent id="E"/>'
    + script("Good1", "a = 1")
    + script("Good2", "b = 2")
    + script("Bad", "c = 1 / zero")
    + sequence("Good1", "Good2", "Bad")
)


def test_a_node_that_fails_in_a_chain_fails_as_a_step_of_its_own(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(FAILING)
    one_by_one = stepped(engine, path, {"zero": 0})
    # when
    chained = engine.start(path, variables={"zero": 0})
    outcome = chained.run()
    # then: the nodes before it are done and kept, the incident is at the failing node
    assert outcome.state == "failed"
    assert outcome.incident is not None and outcome.incident.startswith("Bad:")
    assert chained.variables == {"zero": 0, "a": 1, "b": 2}
    assert history(chained) == history(one_by_one)


def listener(event: str) -> str:
    return (
        "<extensionElements>"
        f'<camunda:executionListener event="{event}" class="audit"/>'
        "</extensionElements>"
    )


@pytest.mark.parametrize("where", ["first", "middle"])
def test_a_listener_handler_in_a_chain_runs_once_when_its_node_fails(
    bpmn: Bpmn, make_engine: Any, where: str
):
    # given: a start listener calls a handler on a node that then fails, the node first in
    # its chain or inside one (a failure in a chain replays it: the handler must not run
    # twice, so a handler inside a chain cuts it first)
    calls: list[str] = []

    def audit(context: ServiceTaskContext) -> dict[str, Any]:
        calls.append(f"{context.element_id}:{context.event}")
        return {"audited": True}

    heard = (
        f'<scriptTask id="H" scriptFormat="python">{listener("start")}'
        '<script>c = 1 / zero</script></scriptTask><endEvent id="E"/>'
    )
    if where == "first":  # no start event: H starts the process
        body = heard + flow("H", "E")
    else:
        body = '<startEvent id="S"/>' + heard + script("Good", "g = 1")
        body += flow("S", "Good") + flow("Good", "H") + flow("H", "E")
    engine = make_engine(handlers={"audit": audit})
    # when
    outcome = engine.start(bpmn(body), variables={"zero": 0}).run()
    # then
    assert outcome.state == "failed"
    assert outcome.incident is not None and outcome.incident.startswith("H:")
    assert calls == ["H:start"]


MARKED = {
    "none": "",
    "asyncBefore": 'camunda:asyncBefore="true"',
    "async": 'camunda:async="true"',
    "activiti": f'{ACTIVITI} activiti:async="true"',
}

CRASHING = textwrap.dedent(
    """
    import os, sys
    from bpmn_engine import Engine
    from bpmn_engine.runtime.behaviours.tasks import ScriptTaskBehaviour
    db, path, crash = sys.argv[1:4]
    crash, _, policy = crash.partition(":")
    real = ScriptTaskBehaviour.execute
    def execute(self, ctx):
        if ctx.node.id == crash:
            os._exit(0)
        real(self, ctx)
    ScriptTaskBehaviour.execute = execute
    Engine(db, checkpoint=policy).start(path, variables={"n": 0}).run()
    """
)


@pytest.mark.parametrize("policy", ["step", "wait"])
@pytest.mark.parametrize("marker", ["none", "asyncBefore", "async", "activiti", "asyncAfter"])
def test_a_crash_in_a_chain_resumes_from_its_start_or_from_an_async_marker(
    bpmn: Bpmn, tmp_path: Path, marker: str, policy: str
):
    # given: S -> A -> B -> C, the process dies in C; B marked asynchronous before (or A
    # after): a checkpoint there, so the crash loses only what follows it
    before = MARKED.get(marker, "")
    after = 'camunda:asyncAfter="true"' if marker == "asyncAfter" else ""
    path = bpmn(
        '<startEvent id="S"/><endEvent id="E"/>'
        f'<scriptTask id="A" {after} scriptFormat="python"><script>n = n + 1</script></scriptTask>'
        f'<scriptTask id="B" {before} scriptFormat="python"><script>n = n + 1</script></scriptTask>'
        + script("C", "n = n + 1")
        + sequence("A", "B", "C")
    )
    db = crash_with(tmp_path, CRASHING, path, f"C:{policy}")
    # when
    with Engine(db) as engine:
        [row] = engine.store.list_instances()
        instance = engine.instance(row["id"])
        left = activations(instance)
        ready = [t.element for t in instance.data.tracks.values() if t.status is TrackState.READY]
        outcome = instance.run()
        # then: the rows stop where the last chain began; the resumed run does each node once
        if marker == "none":
            assert (left, ready) == ([], ["S"])
        else:
            assert (left, ready) == (["S", "A"], ["B"])
        assert outcome.state == "completed"
        assert outcome.variables == {"n": 3}
        assert activations(instance) == ["S", "A", "B", "C", "E"]
