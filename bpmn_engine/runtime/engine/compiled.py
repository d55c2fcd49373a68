"""The compiled-definitions cache: a definitions version is parsed and compiled once, ever.

Parsing and compiling a diagram costs tens of microseconds per element, and a fresh `Engine`
that reopens an instance (every `bpmn complete`, `resume`, worker start) would pay it again.
So the compiled form is kept in the store beside the source, keyed by the definitions'
version (the content hash) and stamped with `engine_format()`: a fingerprint of the parser
and model code that produced it. An engine whose fingerprint differs (another release, or a
changed parser) never loads the row: it compiles the source and replaces it.

The form is a pickle of the model's frozen dataclasses, with each scope's graph left out
(rebuilt by `FlowScope.build` on load) and the source and path left out (the store has
them). The store is the engine's own database and trusted like the rows an instance runs
from, but the blob is still read by an unpickler that resolves only the model's dataclasses
and this module's three rebuild functions: a tampered row can describe a wrong diagram (as a
tampered source row can), never name a function to call. Anything unreadable raises, and the
engine then parses the source instead.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import pickle
import sys
from collections.abc import Callable, Mapping
from functools import cache
from operator import attrgetter
from pathlib import Path
from types import FunctionType, MappingProxyType
from typing import Any

from bpmn_engine.collection import collector_paused
from bpmn_engine.model import elements, process, retries
from bpmn_engine.model.process import Definitions, FlowScope, Process

FORMAT = 1  # of this module's serialisation; the fingerprint covers the model and parser
_PROTOCOL = 5
_PACKAGE = Path(__file__).resolve().parents[2]  # bpmn_engine/
_FINGERPRINTED = ("model", "parse")  # what decides the compiled form
_SCOPE_ARGS = ("id", "line", "nodes", "flows", "graph")  # FlowScope.build's own
_DEFINITIONS_OWN = ("path", "version", "source")  # given on load, never in the blob
_ATOMS = (type(None), bool, int, float, str, bytes, tuple, list, dict, set, frozenset)


@cache
def engine_format() -> str | None:
    """What a compiled form must be stamped with to be loaded by this engine: the format,
    the Python version and the source of the parser and model. None when that source cannot
    be read (an installation without `.py` files): then nothing is cached, rather than a
    form some other version of the code wrote being trusted."""
    digest = hashlib.sha256(f"{FORMAT}:{sys.version_info[:2]}".encode())
    for package in _FINGERPRINTED:
        files = sorted((_PACKAGE / package).glob("*.py"))
        if not files:
            return None
        for file in files:
            try:
                digest.update(f"{package}/{file.name}\0".encode() + file.read_bytes())
            except OSError:
                return None
    return f"{FORMAT}-{digest.hexdigest()[:32]}"


@cache
def _dataclass_fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if f.init)


@cache
def _values(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    """Reads an object's constructor arguments in one C call (a third of the dump)."""
    names = _dataclass_fields(cls)
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)


def _model_classes() -> dict[tuple[str, str], type]:
    found: dict[tuple[str, str], type] = {}
    for module in (elements, process, retries):
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and dataclasses.is_dataclass(value)
                and value.__module__ == module.__name__
            ):
                found[(value.__module__, value.__qualname__)] = value
    return found


_CLASSES = _model_classes()
_MODEL = frozenset(_CLASSES.values())


def _proxy(mapping: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(mapping)


def _make(cls: type, values: tuple[Any, ...]) -> Any:
    if cls not in _MODEL:
        raise pickle.UnpicklingError(f"not a model class: {cls!r}")
    return cls(*values)


def _scope(cls: type, args: tuple[Any, ...], details: dict[str, Any]) -> FlowScope:
    if cls not in _MODEL or not issubclass(cls, FlowScope):
        raise pickle.UnpicklingError(f"not a scope class: {cls!r}")
    return cls.build(*args, **details)


_FUNCTIONS = {(__name__, f.__name__): f for f in (_proxy, _make, _scope)}
_GLOBALS = frozenset((*_MODEL, *_FUNCTIONS.values()))


class _Pickler(pickle.Pickler):
    """Model objects by their fields (a scope without its graph); anything else that is not
    a plain value is refused, so that every form written can be read back."""

    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        if cls in _ATOMS:
            return NotImplemented
        if cls is MappingProxyType:
            return _proxy, (dict(obj),)
        if cls in _MODEL and isinstance(obj, FlowScope):
            details = {n: getattr(obj, n) for n in _dataclass_fields(cls) if n not in _SCOPE_ARGS}
            return _scope, (cls, (obj.id, obj.line, dict(obj.nodes), dict(obj.flows)), details)
        if cls in _MODEL:
            return _make, (cls, _values(cls)(obj))
        if isinstance(obj, type | FunctionType) and obj in _GLOBALS:
            return NotImplemented  # saved by name, which the reader checks
        raise pickle.PicklingError(f"a compiled form holds no {cls.__qualname__}")


class _Unpickler(pickle.Unpickler):
    """Resolves the model's dataclasses and the rebuild functions above, and nothing else."""

    def find_class(self, module: str, name: str) -> Any:
        found = _CLASSES.get((module, name)) or _FUNCTIONS.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(f"a compiled form names {module}.{name}")
        return found


def dump(definitions: Definitions) -> bytes:
    """The compiled form of `definitions`, without its source and path."""
    payload = {
        f.name: getattr(definitions, f.name)
        for f in dataclasses.fields(Definitions)
        if f.init and f.name not in _DEFINITIONS_OWN
    }
    buffer = io.BytesIO()
    with collector_paused():
        _Pickler(buffer, protocol=_PROTOCOL).dump(payload)
    return buffer.getvalue()


def load(blob: bytes, version: str, path: str, source: bytes) -> Definitions:
    """The definitions `dump` wrote, with the store's source and path; raises on anything
    that is not such a form (the caller then parses the source)."""
    with collector_paused():
        payload = _Unpickler(io.BytesIO(blob)).load()
    if not isinstance(payload, dict) or not isinstance(payload.get("processes"), Mapping):
        raise pickle.UnpicklingError("not a compiled form")
    if not all(isinstance(p, Process) for p in payload["processes"].values()):
        raise pickle.UnpicklingError("a compiled form holds something else than processes")
    return Definitions(path=path, version=version, source=source, **payload)
