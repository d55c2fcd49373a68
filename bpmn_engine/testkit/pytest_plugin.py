"""The pytest plugin (registered as an entry point when bpmn-engine is installed).

Fixtures: `bpmn_engine`, an `Engine` on a temporary database with a virtual clock;
`bpmn_runner`, a `Runner` on a temporary database (mocks, answers, a clock that moves only
with `advance`); `bpmn_assert`, the `assert_that` function. Scenario files
(`*.bpmntest.toml`) in the test paths are collected as tests, one per scenario.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import Engine, LoadError, VirtualClock
from bpmn_engine.testkit.assertions import InstanceAssert, assert_that
from bpmn_engine.testkit.runner import Runner, ScenarioResult, run_scenario
from bpmn_engine.testkit.scenario import DEFAULT_CLOCK, SUFFIX, Scenario, load_scenarios


@pytest.fixture
def bpmn_engine(tmp_path: Path) -> Iterator[Engine]:
    """An engine on a database of its own, on a virtual clock starting 2026-01-01."""
    engine = Engine(tmp_path / "bpmn-engine.db", clock=VirtualClock(DEFAULT_CLOCK))
    yield engine
    engine.close()


@pytest.fixture
def bpmn_runner(tmp_path: Path) -> Iterator[Runner]:
    """A process under test on a database of its own: `mock`, `answer`, `start`, `complete`,
    `message`, `signal`, `advance`."""
    runner = Runner(tmp_path / "bpmn-runner.db")
    yield runner
    runner.close()


@pytest.fixture
def bpmn_assert() -> Callable[[Any], InstanceAssert]:
    return assert_that


class ScenarioFailed(Exception):
    def __init__(self, result: ScenarioResult) -> None:
        super().__init__(result.report())
        self.result = result


class ScenarioItem(pytest.Item):
    """One scenario of a scenario file, run like `bpmn test` runs it."""

    def __init__(self, *, scenario: Scenario, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario

    def runtest(self) -> None:
        result = run_scenario(self.scenario)
        if not result.passed:
            raise ScenarioFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailed):
            return excinfo.value.result.report()
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.scenario.line - 1, f"scenario: {self.scenario.name}"


class ScenarioFile(pytest.File):
    def collect(self) -> Iterator[ScenarioItem]:
        try:
            scenarios = load_scenarios(self.path)
        except LoadError as error:
            raise self.CollectError(str(error)) from None
        for scenario in scenarios:
            yield ScenarioItem.from_parent(self, name=scenario.name, scenario=scenario)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> ScenarioFile | None:
    if file_path.name.endswith(SUFFIX):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None
