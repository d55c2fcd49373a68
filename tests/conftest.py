"""Shared fixtures: paths to the MIWG reference diagrams and a helper to write inline BPMN."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgresql_server import drop_pool, drop_schemas

# The test kit's fixtures (`bpmn_runner`, `bpmn_engine`) as a user of the package gets them,
# whether or not this checkout is installed; pytester runs pytest on the kit's scenario files.
pytest_plugins = ["bpmn_engine.testkit.pytest_plugin", "pytester"]

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
MIWG = FIXTURES / "miwg"  # the MIWG reference diagrams (CC BY 3.0: see its README.md)

# Subprocesses the tests start (crash scripts, `bpmn` itself) import this checkout's package,
# never whichever copy happens to be installed: a stale install must not pass or fail for us.
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p
)


# folders whose tests mostly start `bpmn` or a crash script as a subprocess (a second or more
# each): run last, so that `-q`'s percentage follows the time spent, where the command-line
# tests, first in alphabetical order, kept it at 2 % for minutes. Under pytest-xdist (`-n`)
# this is the order tests are handed to the workers: the slow ones, a few seconds at most
# each, are shared out last in small batches, and the percentage still follows the time.
SLOW_FOLDERS = ("cli", "worker")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` (the default: pyproject.toml) on a single test file runs it in this process:
    starting the workers (each imports the package and collects) costs more than one file's
    tests gain. Anything larger (a folder, several files, the whole suite) gets one worker
    per core (None: xdist counts them)."""
    files = set()
    for arg in config.args:
        path = config.invocation_params.dir / arg.split("::")[0]
        if not path.is_file():
            return None
        files.add(path.resolve())
    return 0 if len(files) == 1 else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def slow(item: pytest.Item) -> int:
        parts = item.path.relative_to(ROOT / "tests").parts
        return SLOW_FOLDERS.index(parts[0]) + 1 if parts[0] in SLOW_FOLDERS else 0

    items.sort(key=slow)  # stable: each folder keeps its own order


@pytest.fixture(autouse=True)
def _drop_postgresql_schemas() -> Iterator[None]:
    """The schemas a test made on the PostgreSQL server go when it ends (none: no cost)."""
    yield
    drop_schemas()


@pytest.fixture(autouse=True, scope="session")
def _drop_postgresql_pool() -> Iterator[None]:
    yield
    drop_pool()


@pytest.fixture
def miwg_dir() -> Path:
    return MIWG
