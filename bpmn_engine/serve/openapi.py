"""The OpenAPI 3.1 document of the JSON API, made from the same table the router reads
(`api.OPERATIONS`), so the two cannot disagree."""

from __future__ import annotations

import re
from typing import Any

from bpmn_engine.serve.api import OPERATIONS, Operation

_ERROR = {
    "description": "the command line's message for the error",
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "properties": {"error": {"type": "string"}, "status": {"type": "integer"}},
            }
        }
    },
}
_FIELDS: dict[str, dict[str, Any]] = {
    "variables": {"type": "object", "description": "variables, by name"},
    "inputs": {"type": "object", "description": "the decision's inputs, by name"},
    "ttl": {"type": "number", "description": "seconds to keep a message nobody takes yet"},
    "dry_run": {"type": "boolean", "description": "only say what the tokens would be"},
    "cancel_tokens": {"type": "array", "items": {"type": "integer"}},
    **{
        name: {"type": "array", "items": {"type": "string"}, "description": "element ids"}
        for name in ("cancel", "start_before", "start_after")
    },
}


def _operation(operation: Operation) -> dict[str, Any]:
    found: dict[str, Any] = {
        "summary": operation.summary,
        "operationId": operation.handler.__name__.strip("_"),
        "responses": {
            "201" if operation.created else "200": {
                "description": "done",
                "content": {"application/json": {"schema": {}}},
            },
            "400": _ERROR,
            "404": _ERROR,
            "409": _ERROR,
        },
    }
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in re.findall(r"\{(\w+)\}", operation.path)
    ] + [
        {"name": name, "in": "query", "required": False, "schema": {"type": "string"}}
        for name in operation.query
    ]
    if parameters:
        found["parameters"] = parameters
    if operation.body == ("xml",):
        found["requestBody"] = {
            "required": True,
            "content": {"application/xml": {"schema": {"type": "string"}}},
        }
    elif operation.body:
        properties = {name: _FIELDS.get(name, {"type": "string"}) for name in operation.body}
        found["requestBody"] = {
            "content": {
                "application/json": {"schema": {"type": "object", "properties": properties}}
            }
        }
    return found


def document(version: str) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for operation in OPERATIONS:
        paths.setdefault(operation.path, {})[operation.method.lower()] = _operation(operation)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "bpmn-engine",
            "version": version,
            "description": "Deploy, start and drive BPMN process instances (docs/api.md).",
        },
        "paths": paths,
    }
