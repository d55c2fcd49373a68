"""The cockpit's simulation view: a deployed process stepped through its token flow, one
action at a time, as `bpmn step` does (choose at gateways, complete tasks, go back).

A simulation runs on a scratch database of its own (a SQLite file in the server's temporary
folder, never the served database), with `simulate` on (a service task with no handler is a
no-op) and `undo` on (each step keeps its before-images, so `back` rewinds it). The server
keeps at most `MAX_SIMULATIONS`; the oldest goes when another starts.
"""

from __future__ import annotations

import json
import secrets
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lxml import etree

from bpmn_engine import Action, ActionKind, Engine, Instance
from bpmn_engine.diagram import instance_svg
from bpmn_engine.serve.api import ApiError, Settings, engine
from bpmn_engine.serve.pages import e, form, layout

MAX_SIMULATIONS = 32


@dataclass
class Simulation:
    path: Path  # its scratch database
    instance: str
    process: str
    steps: int = 0  # how many `back` can take back
    # choices made for gateways' next decisions (`Instance.choose` holds one in memory only:
    # each is made again on the instance that steps into its gateway)
    choices: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Simulations:
    """The server's running simulations, by id (a lock guards the table, not the steps)."""

    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="bpmn-sim-")))
    running: dict[str, Simulation] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, simulation_id: str) -> Simulation:
        with self.lock:
            found = self.running.get(simulation_id)
        if found is None:
            raise ApiError(404, f"no simulation {simulation_id!r} (they end with the server)")
        return found

    def add(self, simulation: Simulation) -> str:
        simulation_id = secrets.token_hex(6)
        with self.lock:
            while len(self.running) >= MAX_SIMULATIONS:
                oldest = next(iter(self.running))
                self.running.pop(oldest).path.unlink(missing_ok=True)
            self.running[simulation_id] = simulation
        return simulation_id

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _scratch(path: Path) -> Engine:
    """An engine on a simulation's database: service tasks with no handler do nothing, and
    each step keeps its before-images for `back`."""
    return Engine(str(path), simulate=True, undo=True)


def start(settings: Settings, simulations: Simulations, process: str) -> str:
    """A new simulation of the deployed `process`, its instance created and not yet run."""
    with engine(settings) as served:
        definitions = served.deployed_definitions(process)
    path = simulations.folder / f"{secrets.token_hex(8)}.db"
    scratch = _scratch(path)
    try:
        instance = scratch.start(definitions, process)
    finally:
        scratch.close()
    return simulations.add(Simulation(path, instance.id, process))


def _label(instance: Instance, action: Action) -> str:
    verbs = {
        ActionKind.ENTER: "enter",
        ActionKind.JOIN: "join at",
        ActionKind.TIMER: "fire the timer of",
        ActionKind.CONDITION: "the condition holds at",
        ActionKind.COMPLETE_TASK: "complete the task",
        ActionKind.TRIGGER: "trigger",
        ActionKind.SERVE_JOB: "run the job",
        ActionKind.RESUME_JOB: "resume the job",
    }
    spec = (
        instance.graph.nodes[action.element].get("spec")
        if action.element in instance.graph
        else None
    )
    name = getattr(spec, "name", None)
    shown = f"{action.element} ({name})" if name else action.element
    return f"{verbs.get(action.kind, str(action.kind))} {shown} (token {action.track})"


def step(
    simulations: Simulations,
    simulation_id: str,
    number: int,
    element: str,
    variables: dict[str, Any],
) -> None:
    """Do action `number` of what can happen next, if it is still about `element` (the page
    it was chosen on may be older than another tab's step: then 409, nothing done)."""
    simulation = simulations.get(simulation_id)
    scratch = _scratch(simulation.path)
    try:
        instance = scratch.instance(simulation.instance)
        actions = instance.enabled()
        if not 1 <= number <= len(actions):
            raise ApiError(400, f"no action {number}: there are {len(actions)}")
        action = actions[number - 1]
        if element and action.element != element:
            raise ApiError(409, "the simulation moved on meanwhile: look at it again")
        chosen = simulation.choices.get(action.element)
        if chosen is not None:
            instance.choose(action.element, chosen)
        instance.step(action, variables or None)
        simulation.steps += 1
        if chosen is not None:  # the gateway decided: the choice is spent
            del simulation.choices[action.element]
    finally:
        scratch.close()


def choose(simulations: Simulations, simulation_id: str, gateway: str, flows: list[str]) -> None:
    simulation = simulations.get(simulation_id)
    scratch = _scratch(simulation.path)
    try:
        scratch.instance(simulation.instance).choose(gateway, flows)  # refuses a wrong one
    finally:
        scratch.close()
    simulation.choices[gateway] = list(flows)


def back(simulations: Simulations, simulation_id: str) -> None:
    simulation = simulations.get(simulation_id)
    if simulation.steps == 0:
        raise ApiError(400, "nothing to take back: this is where the simulation started")
    scratch = _scratch(simulation.path)
    try:
        scratch.rewind(simulation.instance, 1)
        simulation.steps -= 1
    finally:
        scratch.close()


_CHOOSING = ("exclusiveGateway", "inclusiveGateway", "complexGateway")


def _gateways(instance: Instance) -> list[tuple[str, list[str]]]:
    """The process's gateways that choose among several outgoing flows: (id, the flows)."""
    found = []
    for node, data in instance.graph.nodes(data=True):
        spec = data.get("spec")
        outgoing = list(getattr(spec, "outgoing", ()))
        if getattr(spec, "kind", None) in _CHOOSING and len(outgoing) > 1:
            found.append((node, outgoing))
    return found


def processes_page(settings: Settings, csrf: str) -> str:
    with engine(settings) as served:
        deployed = sorted({d["process"] for d in served.deployments()})
    rows = [
        f"<li>{e(process)} "
        + form(
            "/ui/simulations",
            csrf,
            f'<input type="hidden" name="process" value="{e(process)}">',
            "Simulate",
            inline=True,
        )
        + "</li>"
        for process in deployed
    ]
    body = (
        "<p>Step a deployed process through its token flow on a scratch database (the served "
        "one is never touched): service tasks with no handler do nothing, you choose what "
        "happens next, and can go back.</p>"
        + (f"<ul>{''.join(rows)}</ul>" if rows else "<p>No process is deployed yet.</p>")
    )
    return layout("Simulate", body, poll=False)


def simulation_page(simulations: Simulations, simulation_id: str, csrf: str) -> str:
    simulation = simulations.get(simulation_id)
    scratch = _scratch(simulation.path)
    try:
        instance = scratch.instance(simulation.instance)
        outcome = instance.outcome()
        svg = etree.tostring(instance_svg(instance), encoding="unicode")
        actions = instance.enabled() if outcome.state not in ("completed", "terminated") else []
        labels = [_label(instance, action) for action in actions]
        kinds = [action.kind for action in actions]
        elements = [action.element for action in actions]
        gateways = _gateways(instance)
        variables = outcome.variables
    finally:
        scratch.close()
    here = f"/ui/simulations/{quote(simulation_id, safe='')}"
    body = [
        f"<p>process <b>{e(simulation.process)}</b>: {e(outcome.state)}, "
        f"{simulation.steps} step{'s' if simulation.steps != 1 else ''} taken</p>",
        f'<div class="diagram">{svg}</div>',
        "<h2>What can happen next</h2><ol>",
    ]
    for number, (label, kind, element) in enumerate(
        zip(labels, kinds, elements, strict=True), start=1
    ):
        extra = ""
        if kind is ActionKind.COMPLETE_TASK:
            extra = '<input name="json" placeholder="variables as JSON, optional" size="30"> '
        inner = (
            f'<input type="hidden" name="number" value="{number}">'
            f'<input type="hidden" name="element" value="{e(element)}">{extra}'
        )
        body.append(f"<li>{form(here + '/step', csrf, inner, label, inline=True)}</li>")
    body.append("</ol>")
    if not actions:
        body.append("<p>Nothing can happen any more.</p>")
    if simulation.steps:
        body.append(form(here + "/back", csrf, "", "Back one step", inline=True))
    for gateway, flows in gateways:
        boxes = "".join(
            f'<label><input type="checkbox" name="flow" value="{e(flow)}"> {e(flow)}</label>'
            for flow in flows
        )
        inner = f'<input type="hidden" name="gateway" value="{e(gateway)}">{boxes}'
        chosen = simulation.choices.get(gateway)
        if chosen:
            body.append(f"<p>at {e(gateway)}, next: {e(', '.join(chosen))}</p>")
        body.append(
            f"<fieldset><legend>At {e(gateway)}, take next</legend>"
            + form(here + "/choose", csrf, inner, "Choose")
            + "</fieldset>"
        )
    body.append("<h2>Variables</h2><table><tr><th>name</th><th>value</th></tr>")
    for name, value in sorted(variables.items()):
        shown = e(json.dumps(value, ensure_ascii=False, default=str))
        body.append(f"<tr><td><code>{e(name)}</code></td><td><code>{shown}</code></td></tr>")
    body.append("</table>")
    return layout(f"Simulation of {simulation.process}", "".join(body), poll=False)
