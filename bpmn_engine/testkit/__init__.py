"""The test kit: scenario files run against diagrams, with path coverage (`bpmn test`), and
the same for pytest (`Runner`, `assert_that`, and the plugin's fixtures).

`load_scenarios(path)` reads a `*.bpmntest.toml` file, `run_scenario(scenario)` runs one in
a fresh in-memory engine on a clock that moves only when the scenario advances it.
"""

from bpmn_engine.testkit.assertions import InstanceAssert, assert_that
from bpmn_engine.testkit.coverage import Coverage, DiagramCoverage
from bpmn_engine.testkit.record import Recording
from bpmn_engine.testkit.runner import (
    Runner,
    ScenarioClock,
    ScenarioResult,
    TaskNotWaiting,
    run_scenario,
)
from bpmn_engine.testkit.scenario import (
    SUFFIX,
    Action,
    Expectation,
    Mock,
    MockCall,
    Scenario,
    find_scenario_files,
    load_scenarios,
)

__all__ = [
    "SUFFIX",
    "Action",
    "Coverage",
    "DiagramCoverage",
    "Expectation",
    "InstanceAssert",
    "Mock",
    "MockCall",
    "Recording",
    "Runner",
    "Scenario",
    "ScenarioClock",
    "ScenarioResult",
    "TaskNotWaiting",
    "assert_that",
    "find_scenario_files",
    "load_scenarios",
    "run_scenario",
]
