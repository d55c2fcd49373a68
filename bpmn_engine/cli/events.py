"""`bpmn message` and `bpmn signal`: publish from outside, and run on what they wake.

A message is published with an id (`--id`, else a fresh one), so whatever happens after the
publish, the command can look up what became of it: delivered (and to which instance),
buffered, or expired. That is what makes its answer exact under concurrency: a message it
reports delivered was delivered once, and one it reports not delivered was not.
"""

from __future__ import annotations

import secrets
from typing import Any

import click

from bpmn_engine import Engine
from bpmn_engine.cli import recording
from bpmn_engine.cli.common import (
    RunSettings,
    console,
    db_option,
    elsewhere,
    event_listener,
    finish_many,
    json_option,
    parse_variables,
    run_options,
    seconds,
    var_options,
)
from bpmn_engine.cli.recording import record_option, recorded
from bpmn_engine.cli.render import json_line
from bpmn_engine.exit_codes import ExitCode
from bpmn_engine.terminal import safe


@click.command()
@click.argument("name")
@click.option(
    "--key", help="Correlation key: only a subscription with this key (or none) takes it."
)
@click.option(
    "--id",
    "message_id",
    help="Message id: publishing the same id again delivers nothing twice and says what "
    "became of the first (safe to retry).",
)
@click.option(
    "--ttl", default="PT0S", metavar="DURATION", help="Buffer it this long (PT1H) if no one waits."
)
@var_options
@db_option
@run_options
@record_option
@json_option
def message(
    name: str,
    key: str | None,
    message_id: str | None,
    ttl: str,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    db: str,
    settings: RunSettings,
    record: str | None,
    as_json: bool,
) -> None:
    """Publish a message and run the instance it wakes until it completes, fails or waits.

    Exit 0 when the message was delivered and the instance runs on elsewhere (another worker
    took it), when no one waits but --ttl buffered it, and when --id names a message
    published before (nothing happens again); exit 4 when it reached nobody (dropped).

    Example: bpmn message payment-received --key A-1 --var amount=12 --ttl PT1H
    """
    variables = parse_variables(var_pairs, vars_file)
    span = seconds(ttl, "--ttl")
    # kept for a receiver not there yet, a message may open the database; else it is for
    # what a run left there, and a mistyped --db must not become an empty database
    engine = settings.engine(db, as_json, existing=span <= 0)
    if message_id is not None and engine.message_status(message_id) is not None:
        report_status(engine, as_json, name, key, message_id, already=True)
        raise SystemExit(int(ExitCode.OK))
    message_id = message_id or f"msg-{secrets.token_hex(8)}"  # looked up after the publish
    recorder = recording.go_on(record, engine, None)
    if recorder is not None:
        recorder.step("message", name, variables, key=key)
    listener = event_listener(as_json, None, engine)
    with recorded(recorder, engine, recorder.instance if recorder else ""):
        woken = engine.publish_message(
            name, key, variables, message_id=message_id, ttl=span, on_event=listener
        )
        if not woken:
            status = report_status(engine, as_json, name, key, message_id, already=False)
            reached = status in ("correlated", "buffered")
            raise SystemExit(int(ExitCode.OK if reached else ExitCode.UNCLAIMED))
        [instance] = woken
        delivered(as_json, name, key, message_id, instance.id, already=False)
        finish_many(woken, db, listener, settings)


def report_status(
    engine: Engine, as_json: bool, name: str, key: str | None, message_id: str, *, already: bool
) -> str:
    """What became of a message no instance was handed back for: delivered all the same (the
    receiver's run went on in another process, or a publish with the same id won), buffered,
    or nobody waited. Returns that status."""
    status, receiver = engine.message_status(message_id) or ("expired", None)
    if status == "correlated" and receiver is not None:
        delivered(as_json, name, key, message_id, receiver, already=already)
        if not already:
            elsewhere(as_json, receiver)
        return status
    if already:
        payload = {"event": "message.already_published", "name": name, "key": key}
        payload |= {"message_id": message_id, "status": status}
        if as_json:
            click.echo(json_line(payload))
        else:
            console.print(f"already published: message {safe(message_id)} {status}")
        return status
    unclaimed(
        as_json,
        {"event": "message.unclaimed", "name": name, "key": key}
        | {"buffered": status == "buffered"},
    )
    return status


def delivered(
    as_json: bool, name: str, key: str | None, message_id: str, instance: str, *, already: bool
) -> None:
    if as_json:
        payload: dict[str, Any] = {"event": "message.correlated", "name": name, "key": key}
        payload |= {"message_id": message_id, "instance": instance, "already": already}
        click.echo(json_line(payload))
    elif already:
        console.print(
            f"already published: message {safe(message_id)} correlated to instance "
            f"[bold]{safe(instance)}[/]"
        )
    else:
        console.print(f"message {safe(repr(name))} delivered to instance [bold]{safe(instance)}[/]")


def unclaimed(as_json: bool, payload: dict[str, Any]) -> None:
    if as_json:
        click.echo(json_line(payload))
    else:
        console.print(
            f"no instance waits for {payload['event'].split('.')[0]} {safe(repr(payload['name']))}"
            + (" (buffered)" if payload.get("buffered") else "")
        )


@click.command()
@click.argument("name")
@var_options
@db_option
@run_options
@record_option
@json_option
def signal(
    name: str,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    db: str,
    settings: RunSettings,
    record: str | None,
    as_json: bool,
) -> None:
    """Broadcast a signal to every waiting catcher and run the instances it wakes."""
    variables = parse_variables(var_pairs, vars_file)
    engine = settings.engine(db, as_json)
    recorder = recording.go_on(record, engine, None)
    if recorder is not None:
        recorder.step("signal", name, variables)
    listener = event_listener(as_json, None, engine)
    with recorded(recorder, engine, recorder.instance if recorder else ""):
        woken = engine.broadcast_signal(name, variables, on_event=listener)
        if not woken:
            unclaimed(as_json, {"event": "signal.unclaimed", "name": name})
            raise SystemExit(int(ExitCode.UNCLAIMED))
        finish_many(woken, db, listener, settings)
