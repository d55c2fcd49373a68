"""`bpmn serve`: the engine over HTTP, on Starlette (a JSON API documented in docs/api.md,
with its OpenAPI document at `/openapi.json`).

`create_app(db, handlers=..., token=...)` is the ASGI application; `bpmn serve` runs it with
uvicorn. Both come with the `serve` extra: `pip install 'bpmn-engine[serve]'`.
"""

from __future__ import annotations

from bpmn_engine.serve.app import create_app

__all__ = ["create_app"]
