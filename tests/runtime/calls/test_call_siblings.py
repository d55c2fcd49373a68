"""A called process no file given defines is found in a file beside the caller's, or in the
folders of the search path (`Engine(search_path=...)`, `--path DIR`), as Camunda Modeler
deploys a folder and SpiffWorkflow resolves process ids across a project's files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError
from tests.postgresql_server import shared_db

from ..conftest import HEADER, MakeEngine, events_named


def write(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + body + "</definitions>")
    return path


def caller(folder: Path, called: str = "child", before: str = "") -> Path:
    """`parent` calls `called` (after `before`, a task to wait at, if any)."""
    first = "wait" if before else "call"
    return write(
        folder / "caller.bpmn",
        f"""
  <process id="parent" isExecutable="true">
    <startEvent id="ps"/>
    <sequenceFlow id="p0" sourceRef="ps" targetRef="{first}"/>
    {before}
    {'<sequenceFlow id="p1" sourceRef="wait" targetRef="call"/>' if before else ""}
    <callActivity id="call" calledElement="{called}"/>
    <sequenceFlow id="p2" sourceRef="call" targetRef="pe"/>
    <endEvent id="pe"/>
  </process>""",
    )


def callee(path: Path, factor: int = 2, process: str = "child") -> Path:
    return write(
        path,
        f"""
  <process id="{process}" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="work"/>
    <scriptTask id="work" scriptFormat="python"><script>y = x * {factor}</script></scriptTask>
    <sequenceFlow id="c2" sourceRef="work" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>""",
    )


def test_a_process_defined_beside_the_caller_is_called(
    tmp_path: Path, make_engine: MakeEngine
) -> None:
    path = caller(tmp_path)
    callee(tmp_path / "child.bpmn", factor=3)
    outcome = make_engine().start(path, "parent", {"x": 5}).run()
    assert (outcome.state, outcome.variables["y"]) == ("completed", 15)


def test_the_run_says_which_file_it_took(tmp_path: Path, make_engine: MakeEngine) -> None:
    path = caller(tmp_path)
    called = callee(tmp_path / "child.bpmn")
    engine = make_engine()
    instance = engine.start(path, "parent", {"x": 1})
    instance.run()
    [found] = events_named(instance, "process.found")
    assert (found.element, found.data["process"], found.data["file"]) == (
        "call",
        "child",
        str(called),
    )
    assert found.data["message"] == f"calls child from {called} (found beside {path})"


def test_a_file_given_comes_before_the_file_beside(tmp_path: Path, make_engine: MakeEngine) -> None:
    path = caller(tmp_path)
    callee(tmp_path / "child.bpmn", factor=2)
    given = callee(tmp_path / "given" / "child.bpmn", factor=7)
    engine = make_engine()
    engine.deploy(given)
    instance = engine.start(path, "parent", {"x": 1})
    assert instance.run().variables["y"] == 7
    assert events_named(instance, "process.found") == []


def test_a_folder_of_the_search_path_is_searched_too(
    tmp_path: Path, make_engine: MakeEngine
) -> None:
    path = caller(tmp_path / "app")
    library = tmp_path / "lib"
    callee(library / "child.bpmn", factor=4)
    with pytest.raises(LoadError) as refused:
        make_engine().start(path, "parent", {"x": 1})
    assert "nor in the BPMN files beside" in refused.value.message
    instance = make_engine(search_path=[library]).start(path, "parent", {"x": 1})
    assert instance.run().variables["y"] == 4
    [found] = events_named(instance, "process.found")
    assert found.data["message"].endswith(f"(found in the search path {library})")


def test_a_search_path_that_is_not_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="not a folder"):
        Engine(search_path=[tmp_path / "missing"])


def test_two_files_defining_the_process_are_refused_naming_both(
    tmp_path: Path, make_engine: MakeEngine
) -> None:
    path = caller(tmp_path / "app")
    one = callee(tmp_path / "app" / "one.bpmn")
    other = callee(tmp_path / "lib" / "other.bpmn")
    engine = make_engine(search_path=[tmp_path / "lib"])
    with pytest.raises(LoadError) as refused:
        engine.start(path, "parent", {"x": 1})
    message = str(refused.value)
    assert message.startswith(f"{path}:7: call: calls process 'child', which 2 files define: ")
    assert str(one) in message and str(other) in message
    assert engine.instances() == []  # refused before the first step


def test_a_sibling_that_does_not_load_is_skipped(tmp_path: Path, make_engine: MakeEngine) -> None:
    path = caller(tmp_path)
    (tmp_path / "broken.bpmn").write_text('<definitions><process id="child">')
    (tmp_path / "notes.bpmn").write_text("not XML at all")
    callee(tmp_path / "child.bpmn")
    assert make_engine().start(path, "parent", {"x": 1}).run().variables["y"] == 2


def test_the_only_sibling_defining_the_process_that_does_not_load_is_named(
    tmp_path: Path, make_engine: MakeEngine
) -> None:
    path = caller(tmp_path)
    broken = tmp_path / "broken.bpmn"
    broken.write_text('<definitions>\n<process id="child">\n<startEvent id="cs">\n</definitions>')
    with pytest.raises(LoadError) as refused:
        make_engine().start(path, "parent", {"x": 1})
    message = refused.value.message
    assert message.startswith(f"calls process 'child', found only in {broken}, which does not")
    assert "malformed XML" in message


def test_a_computed_called_element_looks_beside_the_caller_when_the_call_comes(
    tmp_path: Path, make_engine: MakeEngine
) -> None:
    path = caller(tmp_path, called="${which}")
    callee(tmp_path / "double.bpmn", factor=2, process="double")
    callee(tmp_path / "triple.bpmn", factor=3, process="triple")
    engine = make_engine()
    assert engine.start(path, "parent", {"x": 2, "which": "triple"}).run().variables["y"] == 6
    assert engine.start(path, "parent", {"x": 2, "which": "double"}).run().variables["y"] == 4


def test_a_computed_called_element_two_files_define_is_an_incident_naming_both(
    tmp_path: Path, make_engine: MakeEngine
) -> None:
    path = caller(tmp_path, called="${which}")
    callee(tmp_path / "one.bpmn")
    callee(tmp_path / "two.bpmn")
    outcome = make_engine().start(path, "parent", {"x": 2, "which": "child"}).run()
    assert outcome.state == "failed"
    assert "which 2 files define" in str(outcome.incident)
    assert "one.bpmn" in str(outcome.incident) and "two.bpmn" in str(outcome.incident)


def test_a_call_from_a_file_beside_finds_the_files_beside_that_one(
    tmp_path: Path, make_engine: MakeEngine
) -> None:
    """The called file's own calls are looked for beside it (here: in the search path)."""
    path = caller(tmp_path / "app", called="middle")
    write(
        tmp_path / "lib" / "middle.bpmn",
        """
  <process id="middle" isExecutable="true">
    <startEvent id="ms"/>
    <sequenceFlow id="m1" sourceRef="ms" targetRef="inner"/>
    <callActivity id="inner" calledElement="child"/>
    <sequenceFlow id="m2" sourceRef="inner" targetRef="me"/>
    <endEvent id="me"/>
  </process>""",
    )
    callee(tmp_path / "lib" / "child.bpmn", factor=5)
    outcome = make_engine(search_path=[tmp_path / "lib"]).start(path, "parent", {"x": 1}).run()
    assert outcome.variables["y"] == 5


USER_TASK = '<userTask id="wait"/>'


def test_an_instance_resumes_after_the_files_are_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file found beside the caller is kept in the store like a file given: a later
    engine, in another working directory where neither file is, makes the call."""
    project = tmp_path / "project"
    caller(project, before=USER_TASK)
    callee(project / "child.bpmn", factor=6)
    db = shared_db(tmp_path / "e.db")
    monkeypatch.chdir(project)
    with Engine(db) as engine:  # the caller given by a path relative to this folder
        instance = engine.start("caller.bpmn", "parent", {"x": 2})
        assert instance.run().state == "waiting"
    shutil.rmtree(project)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    with Engine(db) as engine:
        resumed = engine.instance(instance.id)
        resumed.complete_task("wait", {})
        outcome = resumed.run()
        assert (outcome.state, outcome.variables["y"]) == ("completed", 12)


def test_a_changed_caller_file_is_not_taken_for_the_folder_of_a_stored_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stored path names the folder to search only while the file there is the same: in
    another working directory, a `caller.bpmn` that differs is someone else's."""
    project = tmp_path / "project"
    caller(project, called="${which}", before=USER_TASK)
    db = shared_db(tmp_path / "e.db")
    monkeypatch.chdir(project)
    with Engine(db) as engine:
        instance = engine.start("caller.bpmn", "parent", {"x": 2, "which": "child"})
        assert instance.run().state == "waiting"
    other = tmp_path / "other"
    caller(other, called="${which}", before='<userTask id="wait" name="changed"/>')
    callee(other / "child.bpmn")
    monkeypatch.chdir(other)
    with Engine(db) as engine:
        resumed = engine.instance(instance.id)
        resumed.complete_task("wait", {})
        outcome = resumed.run()
    assert outcome.state == "failed"
    assert "no process 'child' to call" in str(outcome.incident)
