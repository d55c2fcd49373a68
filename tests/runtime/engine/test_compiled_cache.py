"""The compiled-definitions cache: a reopened instance never re-parses its diagram.

A definitions version is compiled once and its compiled form kept in the store, stamped with
the engine's format (`runtime/engine/compiled.py`); a fresh engine loads it instead of parsing. A
missing, stale or corrupt form is parsed again and replaced, and a cache that cannot be
written never fails a step.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

import bpmn_engine.parse.reader as reader
from bpmn_engine import Engine, load
from bpmn_engine.model import Definitions
from bpmn_engine.runtime.engine import compiled
from tests.conftest import FIXTURES, ROOT
from tests.postgresql_server import on_postgresql, shared_db
from tests.runtime.conftest import Bpmn, MakeEngine, flow, script

DIAGRAM = (
    '<startEvent id="S"/>'
    + script("Prepare", "prepared = amount * 2")
    + '<exclusiveGateway id="Big" default="Small_path"/>'
    + '<userTask id="Review" name="Review"/>'
    + '<subProcess id="Sub"><startEvent id="SubS"/>'
    + script("Inner", "inner = prepared + 1")
    + '<endEvent id="SubE"/>'
    + flow("SubS", "Inner")
    + flow("Inner", "SubE")
    + "</subProcess>"
    + '<endEvent id="E"/>'
    + flow("S", "Prepare")
    + flow("Prepare", "Big")
    + flow("Big", "Review", "Big_path", "prepared > 10")
    + flow("Big", "Sub", "Small_path")
    + flow("Review", "Sub")
    + flow("Sub", "E")
)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every parse + compile from now on, however reached (the engine imports
    `compile_definitions` by name; it and validation end in `reader.compile_tree`)."""
    calls: list[str] = []
    original = reader.compile_tree

    def counted(*args: Any, **kwargs: Any) -> Definitions:
        calls.append(str(args[2] if len(args) > 2 else kwargs.get("file")))
        return original(*args, **kwargs)

    monkeypatch.setattr(reader, "compile_tree", counted)
    return calls


@pytest.fixture
def db(tmp_path: Path) -> Path | str:
    return shared_db(tmp_path / "cache.db")


def waiting(make_engine: MakeEngine, db: Path | str, path: Path, n: int = 1) -> list[str]:
    """Start `n` instances that wait at Review, with an engine closed afterwards (the file
    is parsed once)."""
    engine = make_engine(db)
    definitions = load(path)
    ids = []
    for _ in range(n):
        instance = engine.start(definitions, variables={"amount": 7})
        assert instance.run().state == "waiting"
        ids.append(instance.id)
    engine.close()
    return ids


def finish(engine: Engine, instance_id: str) -> list[tuple[Any, ...]]:
    """Reopen, complete the review, run to the end: the history, instance id aside."""
    instance = engine.instance(instance_id)
    instance.complete_task("Review", {"ok": True})
    assert instance.run().state == "completed"
    return [(e.seq, e.event, e.element, e.track, e.data) for e in instance.history()]


def forget_forms(db: Path | str) -> None:
    """Delete every kept compiled form, as a database from before the cache holds none."""
    with Engine(db) as engine:
        engine.store.conn.execute("DELETE FROM compiled_definitions")


def test_a_fresh_engine_reopens_an_instance_without_parsing(
    bpmn: Bpmn, db: Path | str, make_engine: MakeEngine, parses: list[str]
) -> None:
    # given: two instances waiting, started by an engine that is gone
    path = bpmn(DIAGRAM)
    cached, parsed = waiting(make_engine, db, path, 2)
    assert len(parses) == 1  # the file, read by `start`
    # when: a fresh engine reopens one, from the kept compiled form
    history = finish(make_engine(db), cached)
    # then: nothing was parsed, and it ran on as one opened by parsing does
    assert len(parses) == 1
    forget_forms(db)
    assert finish(make_engine(db), parsed) == history
    assert len(parses) == 2
    assert [e[2] for e in history if e[1] == "element.completed"] == [
        "S",
        "Prepare",
        "Big",
        "Review",
        "SubS",
        "Inner",
        "SubE",
        "Sub",
        "E",
    ]


def test_one_engine_compiles_a_version_once_for_all_its_instances(
    bpmn: Bpmn, db: Path | str, make_engine: MakeEngine, parses: list[str]
) -> None:
    ids = waiting(make_engine, db, bpmn(DIAGRAM), 3)
    forget_forms(db)
    engine = make_engine(db)
    for instance_id in ids:
        finish(engine, instance_id)
    assert len(parses) == 2  # the file at start, the stored source once
    engine = make_engine(db)  # the form kept by the engine that parsed
    assert engine.definition_of(ids[0]).version == engine.definition_of(ids[1]).version
    assert len(parses) == 2


@pytest.mark.parametrize(
    "form",
    [
        b"",
        b"not a pickle at all",
        b"truncated",  # replaced by the first half of a real form below
        pickle.dumps(print),  # names a function the reader refuses
        pickle.dumps({"processes": {"p": "not a process"}}),
    ],
    ids=["empty", "garbage", "truncated", "a-foreign-global", "wrong-shape"],
)
def test_a_corrupt_form_is_parsed_instead_and_replaced(
    bpmn: Bpmn, db: Path | str, make_engine: MakeEngine, parses: list[str], form: bytes
) -> None:
    path = bpmn(DIAGRAM)
    reference = waiting(make_engine, db, path)[0]
    history = finish(make_engine(db), reference)
    instance_id = waiting(make_engine, db, path)[0]
    engine = make_engine(db)
    version = engine.store.definition_of(instance_id)
    kept = engine.store.compiled_definition(version)
    assert kept is not None and kept[0] == compiled.engine_format()
    if form == b"truncated":
        form = kept[1][: len(kept[1]) // 2]
    engine.store.save_compiled_definition(version, kept[0], form)
    engine.close()
    before = len(parses)
    # when
    assert finish(make_engine(db), instance_id) == history
    # then: parsed once, and a good form is back for the next engine
    assert len(parses) == before + 1
    engine = make_engine(db)
    assert engine.store.compiled_definition(version) == kept
    engine.definition_of(instance_id)
    assert len(parses) == before + 1


def test_an_engine_of_another_format_recompiles_and_replaces_the_form(
    bpmn: Bpmn,
    db: Path | str,
    make_engine: MakeEngine,
    parses: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ids = waiting(make_engine, db, bpmn(DIAGRAM), 2)
    ours = compiled.engine_format()
    # when: an upgraded engine (another format) reopens an instance
    monkeypatch.setattr(compiled, "engine_format", lambda: "2-upgraded")
    engine = make_engine(db)
    version = engine.store.definition_of(ids[0])
    finish(engine, ids[0])
    # then: it parsed, and left its own form
    assert len(parses) == 2
    assert engine.store.compiled_format(version) == "2-upgraded"
    make_engine(db).instance(ids[1])
    assert len(parses) == 2
    # and: this engine, meeting that form, parses and puts its own back
    monkeypatch.setattr(compiled, "engine_format", lambda: ours)
    engine = make_engine(db)
    finish(engine, ids[1])
    assert len(parses) == 3
    assert engine.store.compiled_format(version) == ours


def test_a_cache_that_cannot_be_written_fails_no_step(
    bpmn: Bpmn,
    db: Path | str,
    make_engine: MakeEngine,
    parses: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*args: Any) -> None:
        raise OSError("disk full")

    path = bpmn(DIAGRAM)
    engine = make_engine(db)
    monkeypatch.setattr(engine.store, "save_compiled_definition", refuse)
    instance = engine.start(path, variables={"amount": 7})
    assert instance.run().state == "waiting"
    engine.close()
    # when: an engine that cannot write the cache either reopens it
    engine = make_engine(db)
    monkeypatch.setattr(engine.store, "save_compiled_definition", refuse)
    finish(engine, instance.id)
    # then: it parsed, and ran
    assert len(parses) == 2


@pytest.mark.skipif(on_postgresql(), reason="a read-only SQLite file")
def test_a_read_only_engine_parses_and_writes_nothing(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine, parses: list[str]
) -> None:
    db = tmp_path / "cache.db"
    instance_id = waiting(make_engine, db, bpmn(DIAGRAM))[0]
    forget_forms(db)
    with Engine(db, read_only=True) as engine:
        assert engine.instance(instance_id).outcome().state == "waiting"
        assert engine.store.compiled_definition(engine.store.definition_of(instance_id)) is None
    assert len(parses) == 2


# --- the compiled form itself ---------------------------------------------------------------
def diagrams() -> Iterator[Path]:
    yield from sorted((ROOT / "models").glob("*.bpmn"))
    yield from sorted(FIXTURES.rglob("*.bpmn"))  # the MIWG reference diagrams among them


def graph_of(scope: Any) -> tuple[list[Any], list[Any]]:
    return sorted(scope.graph.nodes(data=True), key=repr), sorted(
        scope.graph.edges(keys=True, data=True), key=repr
    )


def same(loaded: Definitions, parsed: Definitions) -> None:
    assert repr(loaded) == repr(parsed)
    assert (loaded.path, loaded.version, loaded.source) == (
        parsed.path,
        parsed.version,
        parsed.source,
    )
    assert loaded.scopes.keys() == parsed.scopes.keys()
    for scope_id, scope in loaded.scopes.items():
        assert nx.is_frozen(scope.graph)
        assert graph_of(scope) == graph_of(parsed.scopes[scope_id])
        assert all(scope.graph.nodes[n]["spec"] is node for n, node in scope.nodes.items())


@pytest.mark.parametrize("path", list(diagrams()), ids=lambda p: p.name)
def test_every_diagram_reads_back_as_compiled(path: Path) -> None:
    try:
        parsed = load(path)
    except Exception:  # a reference diagram the engine refuses: nothing to cache
        pytest.skip("not loadable")
    same(compiled.load(compiled.dump(parsed), parsed.version, parsed.path, parsed.source), parsed)


def test_the_form_holds_nothing_but_the_model() -> None:
    forms: list[Callable[[], object]] = [
        lambda: compiled.load(pickle.dumps(print), "v", "p", b""),
        lambda: compiled.load(pickle.dumps(Path("x")), "v", "p", b""),
    ]
    for read in forms:
        with pytest.raises(pickle.UnpicklingError, match="names"):
            read()
    with pytest.raises(pickle.PicklingError):
        compiled.dump(Definitions(path="p", version="v", source=b"", processes={"p": print}))  # type: ignore[dict-item]
