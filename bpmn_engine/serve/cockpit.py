"""The cockpit's routes: its pages (`pages.py`) and what their forms post (`/ui/...`),
with the form token that only these pages carry, and `/login` for a server with a token."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from bpmn_engine import BpmnEngineError
from bpmn_engine.serve import pages
from bpmn_engine.serve.api import (
    ApiError,
    Settings,
    body_bytes,
    cancel,
    complete_task,
    retry,
    status_of,
)

TOKEN_COOKIE = "bpmn_token"


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(
        text, status_code=status, headers={"Content-Security-Policy": pages.PAGE_CSP}
    )


def _back(request: Request, fallback: str) -> str:
    """Where a form returns to: a path of this server only (never `//elsewhere`)."""
    back = request.query_params.get("back", "")
    return back if back.startswith("/") and not back.startswith("//") else fallback


async def _fields(request: Request) -> dict[str, str]:
    data = await body_bytes(request)
    try:
        return dict(parse_qsl(data.decode("utf-8"), keep_blank_values=True))
    except UnicodeDecodeError:
        raise ApiError(400, "the form is not UTF-8") from None


def cockpit_routes(settings: Settings, token: str | None) -> list[Route]:
    secret = secrets.token_bytes(32)
    csrf = hmac.new(secret, b"cockpit forms", hashlib.sha256).hexdigest()

    def page(make: Callable[..., str], *args: Any) -> Callable[[Request], Awaitable[Response]]:
        async def show(request: Request) -> Response:
            try:
                text = await run_in_threadpool(make, settings, *args_of(request, args))
            except ApiError as error:
                return _html(pages.error_page(error.status, str(error)), error.status)
            except BpmnEngineError as error:
                return _html(pages.error_page(status_of(error), str(error)), status_of(error))
            return _html(text)

        return show

    def args_of(request: Request, wanted: tuple[Any, ...]) -> list[Any]:
        found = []
        for arg in wanted:
            if arg == "query":
                found.append(dict(request.query_params))
            elif arg == "csrf":
                found.append(csrf)
            else:
                found.append(request.path_params[arg])
        return found

    def action(
        do: Callable[[dict[str, str], dict[str, Any]], Any],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def post(request: Request) -> Response:
            try:
                fields = await _fields(request)
                if not hmac.compare_digest(fields.get("csrf", "").encode(), csrf.encode()):
                    raise ApiError(403, "this form did not come from this server's pages")
                await run_in_threadpool(do, dict(request.path_params), fields)
            except ApiError as error:
                return _html(pages.error_page(error.status, str(error)), error.status)
            except BpmnEngineError as error:
                return _html(pages.error_page(status_of(error), str(error)), status_of(error))
            return RedirectResponse(_back(request, "/"), status_code=303)

        return post

    def completing(path: dict[str, str], fields: dict[str, Any]) -> Any:
        variables = pages.form_variables(fields)
        return complete_task(settings, path["id"], path["task"], {"variables": variables})

    async def script(request: Request) -> Response:
        return Response(pages.SCRIPT, media_type="application/javascript")

    async def login(request: Request) -> Response:
        if request.method == "GET":
            inner = '<label>token <input name="token" type="password"></label>'
            body = pages.form("/login", csrf, inner, "Sign in")
            return _html(pages.layout("Sign in", body, poll=False))
        fields = await _fields(request)
        if token is None or not hmac.compare_digest(
            fields.get("token", "").encode(), token.encode()
        ):
            return _html(pages.error_page(401, "that is not this server's token"), 401)
        answer = RedirectResponse("/", status_code=303)
        answer.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
        return answer

    return [
        Route("/", page(pages.instances_page, "query"), methods=["GET"]),
        Route("/instances/{id}", page(pages.instance_page, "id", "csrf"), methods=["GET"]),
        Route("/tasks", page(pages.tasks_page, "csrf"), methods=["GET"]),
        Route("/incidents", page(pages.incidents_page, "csrf"), methods=["GET"]),
        Route("/static/cockpit.js", script, methods=["GET"]),
        Route("/login", login, methods=["GET", "POST"]),
        Route("/ui/instances/{id}/tasks/{task}/complete", action(completing), methods=["POST"]),
        Route(
            "/ui/instances/{id}/retry",
            action(lambda path, _: retry(settings, path["id"], {})),
            methods=["POST"],
        ),
        Route(
            "/ui/instances/{id}/cancel",
            action(lambda path, _: cancel(settings, path["id"])),
            methods=["POST"],
        ),
    ]
