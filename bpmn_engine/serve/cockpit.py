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
from bpmn_engine.serve import pages, simulation
from bpmn_engine.serve.api import (
    ApiError,
    Settings,
    body_bytes,
    cancel,
    complete_task,
    retry,
    status_of,
)
from bpmn_engine.serve.simulation import Simulations

TOKEN_COOKIE = "bpmn_token"


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(
        text, status_code=status, headers={"Content-Security-Policy": pages.PAGE_CSP}
    )


def _back(request: Request, fallback: str) -> str:
    """Where a form returns to: a path of this server only (never `//elsewhere`)."""
    back = request.query_params.get("back", "")
    local = back.startswith("/") and not back.startswith("//") and "\\" not in back
    return back if local and back.isprintable() else fallback  # `/\\x` is `//x` to a browser


async def _pairs(request: Request) -> list[tuple[str, str]]:
    """The form's fields in order, a name repeated for each ticked box of a group."""
    data = await body_bytes(request)
    try:
        return parse_qsl(data.decode("utf-8"), keep_blank_values=True)
    except UnicodeDecodeError:
        raise ApiError(400, "the form is not UTF-8") from None


async def _fields(request: Request) -> dict[str, str]:
    return dict(await _pairs(request))


def cockpit_routes(settings: Settings, token: str | None, simulations: Simulations) -> list[Route]:
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
            elif arg == "simulations":
                found.append(simulations)
            else:
                found.append(request.path_params[arg])
        return found

    def action(
        do: Callable[[dict[str, str], dict[str, Any], list[tuple[str, str]]], Any],
    ) -> Callable[[Request], Awaitable[Response]]:
        """A form's post: checked, done, then back to the page (`do` may name another)."""

        async def post(request: Request) -> Response:
            try:
                pairs = await _pairs(request)
                fields = dict(pairs)
                if not hmac.compare_digest(fields.get("csrf", "").encode(), csrf.encode()):
                    raise ApiError(403, "this form did not come from this server's pages")
                path = dict(request.path_params)
                went = await run_in_threadpool(do, path, fields, pairs)
            except ApiError as error:
                return _html(pages.error_page(error.status, str(error)), error.status)
            except BpmnEngineError as error:
                return _html(pages.error_page(status_of(error), str(error)), status_of(error))
            to = went if isinstance(went, str) and went.startswith("/") else _back(request, "/")
            return RedirectResponse(to, status_code=303)

        return post

    def completing(path: dict[str, str], fields: dict[str, Any], _: Any) -> None:
        variables = pages.form_variables(fields)
        complete_task(settings, path["id"], path["task"], {"variables": variables})

    def simulating(path: dict[str, str], fields: dict[str, Any], _: Any) -> str:
        made = simulation.start(settings, simulations, fields.get("process", ""))
        return f"/simulations/{made}"

    def stepping(path: dict[str, str], fields: dict[str, Any], _: Any) -> str:
        number = fields.get("number", "")
        if not number.isdigit():
            raise ApiError(400, "which action: a number")
        variables = pages.form_variables({"json": fields.get("json", "")})
        element = fields.get("element", "")
        simulation.step(simulations, path["id"], int(number), element, variables)
        return f"/simulations/{path['id']}"

    def choosing(path: dict[str, str], fields: dict[str, Any], pairs: Any) -> str:
        flows = [value for name, value in pairs if name == "flow"]
        simulation.choose(simulations, path["id"], fields.get("gateway", ""), flows)
        return f"/simulations/{path['id']}"

    def going_back(path: dict[str, str], fields: dict[str, Any], _: Any) -> str:
        simulation.back(simulations, path["id"])
        return f"/simulations/{path['id']}"

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
            action(lambda path, *_: retry(settings, path["id"], {})),
            methods=["POST"],
        ),
        Route(
            "/ui/instances/{id}/cancel",
            action(lambda path, *_: cancel(settings, path["id"])),
            methods=["POST"],
        ),
        Route("/simulate", page(simulation.processes_page, "csrf"), methods=["GET"]),
        Route(
            "/simulations/{id}",
            page(
                lambda _, sims, sid, form_token: simulation.simulation_page(sims, sid, form_token),
                "simulations",
                "id",
                "csrf",
            ),
            methods=["GET"],
        ),
        Route("/ui/simulations", action(simulating), methods=["POST"]),
        Route("/ui/simulations/{id}/step", action(stepping), methods=["POST"]),
        Route("/ui/simulations/{id}/choose", action(choosing), methods=["POST"]),
        Route("/ui/simulations/{id}/back", action(going_back), methods=["POST"]),
    ]
