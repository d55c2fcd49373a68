"""`--record FILE` on `run`, `complete`, `activate`, `trigger`, `message` and `signal`
(bpmn_engine.testkit.record)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import click

from bpmn_engine import Engine

if TYPE_CHECKING:  # imported when --record is given: a plain `bpmn run` does not pay for it
    from bpmn_engine.testkit import Recording


def record_option(f: Callable) -> Callable:
    return click.option(
        "--record",
        metavar="FILE",
        type=click.Path(dir_okay=False),
        help="Record what the run receives (answers, handler results, messages) as a "
        "scenario file for `bpmn test`; later commands with the same FILE add to it.",
    )(f)


def begin(
    path: str | None,
    engine: Engine,
    files: tuple[str, ...],
    process: str | None,
    variables: Mapping[str, Any],
) -> Recording | None:
    if path is None:
        return None
    from bpmn_engine.testkit import Recording

    recording = Recording.begin(path, list(files), process, variables, engine.clock.now())
    _wrap(engine, recording)
    return recording


def go_on(path: str | None, engine: Engine, instance: str | None) -> Recording | None:
    """The recording in `path` (of `instance`, when the command names one), now listening."""
    if path is None:
        return None
    from bpmn_engine.testkit import Recording

    recording = Recording.resume(path, instance)
    waiting = engine.instance(recording.instance).outcome().waiting_for
    recording.advance_to(datetime.now(UTC), waiting)
    _wrap(engine, recording)
    return recording


def _wrap(engine: Engine, recording: Recording) -> None:
    engine.handlers = recording.handlers(engine.handlers)
    engine.on_user_task = recording.answers(engine.on_user_task)


@contextmanager
def recorded(recording: Recording | None, engine: Engine, instance: str) -> Iterator[None]:
    """Write the recording when the command ends as commands end (with its exit code)."""
    try:
        yield
    except SystemExit:
        if recording is not None:
            recording.finish(engine, instance)
        raise
    if recording is not None:
        recording.finish(engine, instance)
