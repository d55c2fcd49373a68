"""`bpmn serve`: the JSON API and the cockpit (and, with `--worker`, a worker) over one
database."""

from __future__ import annotations

import ipaddress
import secrets
import threading
from typing import Any

import click

from bpmn_engine import Engine, UsageError, Worker, load_handlers
from bpmn_engine.cli.common import console, db_option
from bpmn_engine.dsn import redact
from bpmn_engine.terminal import safe


def loopback(host: str) -> bool:
    """Whether only this machine can reach a server bound to `host`."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def start_worker(db: str, handlers: dict[str, Any]) -> tuple[Worker, threading.Thread]:
    """A worker in a thread of its own, on an engine of its own (its claims are its own)."""
    ready = threading.Event()
    made: list[Worker] = []

    def turn() -> None:
        engine = Engine(db, handlers=handlers)
        try:
            made.append(Worker(engine))
            ready.set()
            made[0].run()
        finally:
            ready.set()
            engine.close()

    thread = threading.Thread(target=turn, name="bpmn-worker", daemon=True)
    thread.start()
    ready.wait()
    if not made:
        raise UsageError("the worker could not start")
    return made[0], thread


@click.command()
@db_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--handlers",
    type=click.Path(dir_okay=False),
    help="Python file whose functions handle service tasks (by type or element id).",
)
@click.option(
    "--worker", is_flag=True, help="Also fire timers and run service tasks, in this process."
)
def serve(db: str, host: str, port: int, handlers: str | None, worker: bool) -> None:
    """Serve the JSON API and the cockpit over the database, with --worker a worker too.

    The API is under /api (docs/api.md, /openapi.json), the cockpit's pages at /
    (docs/cockpit.md). It listens on 127.0.0.1 unless --host says otherwise: bound beyond
    this machine, every change needs the token printed at start (Authorization: Bearer
    TOKEN, or the cockpit's /login).

    Example: bpmn serve --db orders.db --handlers handlers.py --worker
    """
    try:
        import uvicorn

        from bpmn_engine.serve import create_app
    except ImportError:
        raise UsageError("bpmn serve needs its extra: pip install 'bpmn-engine[serve]'") from None
    loaded = load_handlers(handlers) if handlers else {}
    token = None if loopback(host) else secrets.token_urlsafe(24)
    app = create_app(db, handlers=loaded, token=token)
    shown = f"[{host}]" if ":" in host else host
    console.print(
        f"serving {safe(redact(db))} on [bold]http://{safe(shown)}:{port}/[/] "
        "(the cockpit at /, the API under /api, described at /openapi.json)",
        highlight=False,
        soft_wrap=True,
    )
    if token is not None:
        console.print(f"changes need: Authorization: Bearer {token}", highlight=False)
    running = start_worker(db, loaded) if worker else None
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        if running is not None:
            running[0].stop()
            running[1].join(timeout=30)
