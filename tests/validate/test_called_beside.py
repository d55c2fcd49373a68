"""`bpmn validate` finds a called process as `bpmn run` does: in the files validated, then in
the BPMN files beside the calling file, then in the folders of the search path (`--path`)."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine.validate import validate
from bpmn_engine.validate.findings import Finding, Severity

HEAD = (
    '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" '
    'id="Defs" targetNamespace="http://example.com/beside">\n'
)
CALL = '<bpmn:callActivity id="C" calledElement="Other"/>'
ZEEBE_CALL = (
    '<bpmn:callActivity id="C"><bpmn:extensionElements><zeebe:calledElement processId="Other"/>'
    "</bpmn:extensionElements></bpmn:callActivity>"
)


def write(path: Path, process: str, body: str = "", executable: str = "true") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'{HEAD}<bpmn:process id="{process}" isExecutable="{executable}">{body}</bpmn:process>\n'
        "</bpmn:definitions>\n"
    )
    return path


def calls(*paths: Path, search_path: tuple[Path, ...] = ()) -> list[Finding]:
    """The `references` and `executable` findings about the call activity `C`."""
    report = validate(list(paths), search_path=search_path)
    rules = ("references", "executable")
    return [f for f in report.findings if f.element == "C" and f.rule in rules]


def test_a_process_defined_beside_the_caller_resolves(tmp_path: Path) -> None:
    caller = write(tmp_path / "app" / "caller.bpmn", "Main", CALL)
    assert [f.rule for f in calls(caller)] == ["references"]
    write(tmp_path / "app" / "other.bpmn", "Other")
    assert calls(caller) == []


def test_a_zeebe_process_id_defined_beside_resolves(tmp_path: Path) -> None:
    caller = write(tmp_path / "caller.bpmn", "Main", ZEEBE_CALL)
    assert [f.rule for f in calls(caller)] == ["executable"]
    write(tmp_path / "other.bpmn", "Other", executable="false")
    [warning] = calls(caller)
    assert warning.severity == Severity.WARNING
    assert warning.message == (
        f"calls process 'Other' (in {tmp_path / 'other.bpmn'}), which is not executable "
        "(isExecutable=false)"
    )


def test_the_search_path_is_searched_after_the_folder(tmp_path: Path) -> None:
    caller = write(tmp_path / "app" / "caller.bpmn", "Main", CALL)
    write(tmp_path / "lib" / "other.bpmn", "Other")
    assert calls(caller, search_path=(tmp_path / "lib",)) == []


def test_two_files_defining_the_process_are_an_error_naming_both(tmp_path: Path) -> None:
    caller = write(tmp_path / "app" / "caller.bpmn", "Main", CALL)
    one = write(tmp_path / "app" / "one.bpmn", "Other")
    two = write(tmp_path / "lib" / "two.bpmn", "Other")
    [error] = calls(caller, search_path=(tmp_path / "lib",))
    assert (error.rule, error.severity) == ("references", Severity.ERROR)
    assert error.message.startswith("calls process 'Other', which 2 files define: ")
    assert str(one) in error.message and str(two) in error.message


def test_a_file_that_does_not_load_is_skipped_unless_it_is_the_one(tmp_path: Path) -> None:
    caller = write(tmp_path / "caller.bpmn", "Main", CALL)
    broken = tmp_path / "broken.bpmn"
    broken.write_text('<bpmn:definitions>\n<bpmn:process id="Other">\n</bpmn:definitions>')
    [error] = calls(caller)
    assert error.message.startswith(f"calls process 'Other', found only in {broken}, which does")
    write(tmp_path / "other.bpmn", "Other")
    assert calls(caller) == []
