"""The JSON API of `bpmn serve`: one function per operation, over the public Python API.

Each request opens its own `Engine` on the database (a store is one connection, and the
server answers requests side by side), does what the command line's command of the same name
does, runs the instances it moved on until they wait, and closes the engine. Errors are the
command line's messages: 404 for what is not there (`NotFound`), 409 when another process
moved the instance first (`ConcurrentModification`), 400 for any other bad input.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from bpmn_engine import (
    BpmnEngineError,
    ConcurrentModification,
    Engine,
    Instance,
    NotFound,
    loads,
)

MAX_BODY_BYTES = 10 << 20  # a diagram or a payload larger than this is refused (413)


@dataclass(frozen=True)
class Settings:
    """What every request's engine is opened with."""

    db: str
    handlers: dict[str, Any] = field(default_factory=dict)


class ApiError(Exception):
    """An answer other than 2xx, with the message the command line would print."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def status_of(error: BpmnEngineError) -> int:
    if isinstance(error, NotFound):
        return 404
    if isinstance(error, ConcurrentModification):
        return 409
    return 400


def error_response(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message, "status": status}, status_code=status)


@contextmanager
def engine(settings: Settings) -> Iterator[Engine]:
    opened = Engine(settings.db, handlers=settings.handlers)
    try:
        yield opened
    finally:
        opened.close()


# --- reading a request ----------------------------------------------------------------------
async def body_bytes(request: Request) -> bytes:
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY_BYTES:
            raise ApiError(413, f"the request body is larger than {MAX_BODY_BYTES >> 20} MiB")
    return data


async def json_body(request: Request) -> dict[str, Any]:
    data = await body_bytes(request)
    if not data.strip():
        return {}
    try:
        found = json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise ApiError(400, f"the request body is not JSON: {error}") from None
    if not isinstance(found, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return found


def text_field(body: dict[str, Any], name: str, *, required: bool = False) -> str | None:
    value = body.get(name)
    if value is None:
        if required:
            raise ApiError(400, f"the request body needs {name!r}")
        return None
    if not isinstance(value, str) or not value:
        raise ApiError(400, f"{name!r} must be a non-empty string")
    return value


def object_field(body: dict[str, Any], name: str) -> dict[str, Any]:
    value = body.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ApiError(400, f"{name!r} must be a JSON object")
    return value


def int_query(request: Request, name: str, default: int = 0) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isdigit():
        raise ApiError(400, f"the query parameter {name!r} must be a whole number >= 0")
    return int(raw)


# --- operations (each runs in a worker thread: the engine is synchronous) ---------------------
def _after(engine: Engine, instance: Instance) -> dict[str, Any]:
    """Run the instance on until it waits; its state as `bpmn show --json` gives it."""
    with suppress(ConcurrentModification):  # another process (a worker) moved it on meanwhile
        instance.run()
    return engine.instance(instance.id).to_json()


def list_instances(settings: Settings, query: dict[str, str]) -> Any:
    with engine(settings) as e:
        return e.instances(
            state=query.get("state"),
            process=query.get("process"),
            business_key=query.get("business_key"),
        )


def show_instance(settings: Settings, instance_id: str, last: int) -> Any:
    with engine(settings) as e:
        return e.instance(instance_id).to_json(last)


def call_tree(settings: Settings, instance_id: str) -> Any:
    with engine(settings) as e:
        tree = e.tree(e.instance(instance_id))
        return [
            {
                "instance": member.id,
                "process": member.process_id,
                "parent": member.parent,
                "state": member.outcome().state,
            }
            for member in tree.members()
        ]


def start_instance(settings: Settings, body: dict[str, Any]) -> Any:
    process = text_field(body, "process", required=True)
    assert process is not None
    with engine(settings) as e:
        instance = e.start_deployed(
            process,
            object_field(body, "variables"),
            start_event=text_field(body, "start_event"),
            business_key=text_field(body, "business_key"),
        )
        return _after(e, instance)


def complete_task(settings: Settings, instance_id: str, task: str, body: dict[str, Any]) -> Any:
    variables = object_field(body, "variables")
    with engine(settings) as e:
        instance = e.instance(instance_id)
        holder = e.tree(instance).task_holder(task)
        holder.complete_task(task, variables)
        if holder is not instance:  # a called instance's task: it runs on first
            holder.run()
        return _after(e, e.instance(instance.id))


def trigger(settings: Settings, instance_id: str, body: dict[str, Any]) -> Any:
    element = text_field(body, "element", required=True)
    assert element is not None
    with engine(settings) as e:
        instance = e.instance(instance_id)
        holder = instance.trigger_holder(element)
        holder.trigger(element, object_field(body, "variables"))
        if holder is not instance:
            holder.run()
        return _after(e, e.instance(instance.id))


def retry(settings: Settings, given: str, body: dict[str, Any]) -> Any:
    with engine(settings) as e:
        instance = e.instance(e.incident_instance(given))
        instance.retry(variables=object_field(body, "variables"))
        return _after(e, e.instance(instance.id))


def _names(body: dict[str, Any], name: str) -> list[str]:
    value = body.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ApiError(400, f"{name!r} must be a list of element ids")
    return value


def modify(settings: Settings, instance_id: str, body: dict[str, Any]) -> Any:
    tokens = body.get("cancel_tokens", [])
    if not isinstance(tokens, list) or not all(
        isinstance(t, int) and not isinstance(t, bool) for t in tokens
    ):
        raise ApiError(400, "'cancel_tokens' must be a list of token (track) numbers")
    dry_run = body.get("dry_run", False)
    if not isinstance(dry_run, bool):
        raise ApiError(400, "'dry_run' must be true or false")
    with engine(settings) as e:
        instance = e.instance(instance_id)
        tokens_after = instance.modify(
            cancel=_names(body, "cancel"),
            cancel_tokens=tokens,
            start_before=_names(body, "start_before"),
            start_after=_names(body, "start_after"),
            variables=object_field(body, "variables"),
            dry_run=dry_run,
        )
        if dry_run:
            return {"dry_run": True, "tokens": tokens_after}
        return _after(e, e.instance(instance.id))


def cancel(settings: Settings, instance_id: str) -> Any:
    with engine(settings) as e:
        e.instance(instance_id).cancel()
        return e.instance(instance_id).to_json()


def publish_message(settings: Settings, body: dict[str, Any]) -> Any:
    name = text_field(body, "name", required=True)
    assert name is not None
    ttl = body.get("ttl", 0)
    if not isinstance(ttl, (int, float)) or isinstance(ttl, bool) or ttl < 0:
        raise ApiError(400, "'ttl' must be a number of seconds >= 0")
    with engine(settings) as e:
        woken = e.publish_message(
            name,
            text_field(body, "correlation_key"),
            object_field(body, "variables"),
            message_id=text_field(body, "id"),
            ttl=float(ttl),
        )
        return {"correlated": [_after(e, instance) for instance in woken]}


def broadcast_signal(settings: Settings, body: dict[str, Any]) -> Any:
    name = text_field(body, "name", required=True)
    assert name is not None
    with engine(settings) as e:
        woken = e.broadcast_signal(name, object_field(body, "variables"))
        return {"woken": [_after(e, instance) for instance in woken]}


def list_tasks(settings: Settings, query: dict[str, str]) -> Any:
    with engine(settings) as e:
        found = e.tasks(
            process=query.get("process"), assignee=query.get("assignee"), group=query.get("group")
        )
        return [task.to_json() for task in found]


def list_incidents(settings: Settings, query: dict[str, str]) -> Any:
    resolved = query.get("resolved", "false")
    if resolved not in ("true", "false"):
        raise ApiError(400, "the query parameter 'resolved' is true or false")
    with engine(settings) as e:
        found = e.incidents(query.get("instance"), resolved=resolved == "true")
        return [incident.to_json() for incident in found]


def list_deployments(settings: Settings, query: dict[str, str]) -> Any:
    with engine(settings) as e:
        return e.deployments(active_only=query.get("all") != "true")


def deploy(settings: Settings, source: bytes, name: str) -> Any:
    definitions = loads(source, name)
    with engine(settings) as e:
        return [dataclasses.asdict(d) for d in e.deploy_processes(definitions)]


def decide(settings: Settings, decision: str, body: dict[str, Any]) -> Any:
    with engine(settings) as e:
        return e.decide(decision, object_field(body, "inputs")).to_json()


# --- the routes ---------------------------------------------------------------------------
Handler = Callable[[Request, Settings], Awaitable[tuple[int, Any]]]


@dataclass(frozen=True)
class Operation:
    """One route: what it does and takes, for the router and the OpenAPI document alike."""

    method: str
    path: str
    summary: str
    handler: Handler
    query: tuple[str, ...] = ()
    body: tuple[str, ...] = ()  # the JSON body's fields ("xml" for a diagram)
    created: bool = False  # answers 201


async def _list_instances(request: Request, s: Settings) -> tuple[int, Any]:
    return 200, await run_in_threadpool(list_instances, s, dict(request.query_params))


async def _start(request: Request, s: Settings) -> tuple[int, Any]:
    return 201, await run_in_threadpool(start_instance, s, await json_body(request))


async def _show(request: Request, s: Settings) -> tuple[int, Any]:
    last = int_query(request, "last")
    return 200, await run_in_threadpool(show_instance, s, request.path_params["id"], last)


async def _tree(request: Request, s: Settings) -> tuple[int, Any]:
    return 200, await run_in_threadpool(call_tree, s, request.path_params["id"])


async def _complete(request: Request, s: Settings) -> tuple[int, Any]:
    params, body = request.path_params, await json_body(request)
    return 200, await run_in_threadpool(complete_task, s, params["id"], params["task"], body)


async def _trigger(request: Request, s: Settings) -> tuple[int, Any]:
    body = await json_body(request)
    return 200, await run_in_threadpool(trigger, s, request.path_params["id"], body)


async def _retry(request: Request, s: Settings) -> tuple[int, Any]:
    body = await json_body(request)
    return 200, await run_in_threadpool(retry, s, request.path_params["id"], body)


async def _modify(request: Request, s: Settings) -> tuple[int, Any]:
    body = await json_body(request)
    return 200, await run_in_threadpool(modify, s, request.path_params["id"], body)


async def _cancel(request: Request, s: Settings) -> tuple[int, Any]:
    return 200, await run_in_threadpool(cancel, s, request.path_params["id"])


async def _message(request: Request, s: Settings) -> tuple[int, Any]:
    return 200, await run_in_threadpool(publish_message, s, await json_body(request))


async def _signal(request: Request, s: Settings) -> tuple[int, Any]:
    return 200, await run_in_threadpool(broadcast_signal, s, await json_body(request))


async def _tasks(request: Request, s: Settings) -> tuple[int, Any]:
    return 200, await run_in_threadpool(list_tasks, s, dict(request.query_params))


async def _incidents(request: Request, s: Settings) -> tuple[int, Any]:
    return 200, await run_in_threadpool(list_incidents, s, dict(request.query_params))


async def _deployments(request: Request, s: Settings) -> tuple[int, Any]:
    return 200, await run_in_threadpool(list_deployments, s, dict(request.query_params))


async def _deploy(request: Request, s: Settings) -> tuple[int, Any]:
    name = request.query_params.get("name") or "upload.bpmn"
    source = await body_bytes(request)
    if not source.strip():
        raise ApiError(400, "the request body must be the BPMN XML to deploy")
    return 201, await run_in_threadpool(deploy, s, source, name)


async def _decide(request: Request, s: Settings) -> tuple[int, Any]:
    body = await json_body(request)
    return 200, await run_in_threadpool(decide, s, request.path_params["decision"], body)


OPERATIONS = (
    Operation("GET", "/api/instances", "List instances", _list_instances,
              query=("state", "process", "business_key")),
    Operation("POST", "/api/instances", "Start an instance of a deployed process and run it "
              "until it waits", _start, body=("process", "variables", "business_key",
                                             "start_event"), created=True),
    Operation("GET", "/api/instances/{id}", "One instance: state, variables, tokens, what it "
              "waits for, history", _show, query=("last",)),
    Operation("GET", "/api/instances/{id}/tree", "The instance and the instances its call "
              "activities started", _tree),
    Operation("POST", "/api/instances/{id}/tasks/{task}/complete", "Complete a waiting user "
              "task (its element id, name or number) and run on", _complete, body=("variables",)),
    Operation("POST", "/api/instances/{id}/trigger", "Move on a token waiting for a trigger",
              _trigger, body=("element", "variables")),
    Operation("POST", "/api/instances/{id}/retry", "Retry a failed instance (or an incident "
              "id INSTANCE#N)", _retry, body=("variables",)),
    Operation("POST", "/api/instances/{id}/modify", "Move an instance's tokens: cancel some, "
              "start some before or after elements, set variables; then run on", _modify,
              body=("cancel", "cancel_tokens", "start_before", "start_after", "variables",
                    "dry_run")),
    Operation("POST", "/api/instances/{id}/cancel", "Cancel an instance", _cancel),
    Operation("POST", "/api/messages", "Publish a message", _message,
              body=("name", "correlation_key", "id", "variables", "ttl")),
    Operation("POST", "/api/signals", "Broadcast a signal", _signal, body=("name", "variables")),
    Operation("GET", "/api/tasks", "Open user tasks", _tasks, query=("process", "assignee",
                                                                    "group")),
    Operation("GET", "/api/incidents", "Incidents", _incidents, query=("instance", "resolved")),
    Operation("GET", "/api/deployments", "Deployed processes", _deployments, query=("all",)),
    Operation("POST", "/api/deployments", "Deploy the BPMN XML of the request body",
              _deploy, query=("name",), body=("xml",), created=True),
    Operation("POST", "/api/decisions/{decision}", "Evaluate a given or deployed DMN decision",
              _decide, body=("inputs",)),
)  # fmt: skip


def endpoint(operation: Operation, settings: Settings) -> Callable[[Request], Awaitable[Response]]:
    async def answer(request: Request) -> Response:
        try:
            status, payload = await operation.handler(request, settings)
        except ApiError as error:
            return error_response(error.status, str(error))
        except BpmnEngineError as error:
            return error_response(status_of(error), str(error))
        return JSONResponse(payload, status_code=status)

    return answer
