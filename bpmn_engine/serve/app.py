"""The Starlette application of `bpmn serve`: the JSON API's routes, `/openapi.json`, and
what keeps a local server safe (a token for changes, cross-site requests refused)."""

from __future__ import annotations

import contextlib
import hmac
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bpmn_engine import UsageError, __version__
from bpmn_engine.serve.api import OPERATIONS, Settings, endpoint, error_response
from bpmn_engine.serve.cockpit import TOKEN_COOKIE, cockpit_routes
from bpmn_engine.serve.openapi import document
from bpmn_engine.serve.simulation import Simulations

_SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
NEEDS_TOKEN = (
    "this server needs its token for changes: Authorization: Bearer TOKEN (printed at start)"
)
_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "same-origin",  # with no-referrer, a form would post Origin: null
    "Cache-Control": "no-store",
}


class Guard(BaseHTTPMiddleware):
    """Changes need the token when one is set (a server bound beyond loopback): a program
    sends it as `Authorization: Bearer`, the cockpit's pages as the cookie `/login` sets.
    They come from this server's own pages or from a program, never from another site's."""

    def __init__(self, app: Any, token: str | None) -> None:
        super().__init__(app)
        self.token = token

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        refused = self.refused(request) if request.method not in _SAFE_METHODS else None
        response = refused if refused is not None else await call_next(request)
        for name, value in _HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    def refused(self, request: Request) -> Response | None:
        """Why a change may not be made, or None."""
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
            return error_response(403, f"a request from {origin!r} may not change anything")
        if self.token is None or request.url.path == "/login":
            return None
        given = request.headers.get("authorization", "")
        cookie = request.cookies.get(TOKEN_COOKIE, "")
        if same(given, f"Bearer {self.token}") or same(cookie, self.token):
            return None
        return error_response(401, NEEDS_TOKEN)


def same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    return error_response(error.status_code, str(error.detail))


def create_app(
    db: str, *, handlers: dict[str, Any] | None = None, token: str | None = None
) -> Starlette:
    """The HTTP application over the database `db` (a SQLite file or a PostgreSQL URL);
    `handlers` serve service tasks; with `token`, every change must carry it."""
    if db == ":memory:":
        raise UsageError("bpmn serve needs a database that outlives a request: a file or a URL")
    settings = Settings(db, dict(handlers or {}))
    spec = document(__version__)

    async def openapi(request: Request) -> Response:
        return JSONResponse(spec)

    simulations = Simulations()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:  # the scratch databases of the simulations go with the server
            simulations.close()

    routes = [Route("/openapi.json", openapi, methods=["GET"])]
    routes += cockpit_routes(settings, token, simulations)
    routes += [
        Route(op.path, endpoint(op, settings), methods=[op.method], name=op.handler.__name__)
        for op in OPERATIONS
    ]
    return Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(Guard, token=token)],
        exception_handlers={HTTPException: _http_error},
    )
