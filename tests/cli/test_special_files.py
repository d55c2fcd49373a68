"""Only regular files are read, and never past the size cap, whatever `st_size` says.

A symlink to /dev/zero reports 0 bytes and never ends; a FIFO blocks its reader until a writer
comes. Both must be refused at once with a clear message and exit code 2 (bad input).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bpmn_engine.userfiles import MAX_FILE_BYTES
from tests.cli.conftest import MODELS, Bpmn

needs_dev_zero = pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def special(kind: str, folder: Path, name: str) -> Path:
    """A file system entry of the given kind that is not a regular file."""
    path = folder / name
    if kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:  # one byte over the cap, sparse so it costs no disk
        with path.open("wb") as handle:
            handle.truncate(MAX_FILE_BYTES + 1)
    return path


KINDS = [
    pytest.param("dev-zero", marks=needs_dev_zero),
    pytest.param("fifo", marks=needs_fifo),
    "directory",
    "oversize",
]


def expected(kind: str) -> str:
    return "larger than 64 MiB" if kind == "oversize" else "not a regular file"


def assert_refused(done, path: Path, kind: str) -> None:
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Traceback" not in output
    assert f"{path}: {expected(kind)}" in output.replace("\n", ""), output


@pytest.mark.parametrize("kind", KINDS)
def test_run_refuses_a_diagram_that_is_not_a_regular_file(
    bpmn: Bpmn, tmp_path: Path, kind: str
) -> None:
    path = special(kind, tmp_path, "model.bpmn")
    assert_refused(bpmn("run", str(path)), path, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_validate_refuses_a_diagram_that_is_not_a_regular_file(
    bpmn: Bpmn, tmp_path: Path, kind: str
) -> None:
    if kind == "directory":  # a folder is searched for diagrams; one named *.bpmn too
        folder = tmp_path / "models"
        folder.mkdir()
        path = special("fifo" if hasattr(os, "mkfifo") else "oversize", folder, "x.bpmn")
        done = bpmn("validate", str(folder))
        assert done.returncode == 2, done.stdout + done.stderr
        assert "not a regular file" in done.stdout or "larger than" in done.stdout
        return
    path = special(kind, tmp_path, "model.bpmn")
    done = bpmn("validate", str(path))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert expected(kind) in done.stdout, done.stdout


@pytest.mark.parametrize("option", ["--answers", "--vars"])
@pytest.mark.parametrize("kind", KINDS)
def test_json_option_files_must_be_regular_files(
    bpmn: Bpmn, tmp_path: Path, kind: str, option: str
) -> None:
    path = special(kind, tmp_path, "values.json")
    done = bpmn("run", str(MODELS / "order-fulfilment.bpmn"), option, str(path))
    if kind == "directory":  # click's own check of the option comes first
        assert done.returncode == 2 and "is a directory" in done.stderr, done.stderr
        return
    assert_refused(done, path, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_a_bpmnlintrc_that_is_not_a_regular_file(bpmn: Bpmn, tmp_path: Path, kind: str) -> None:
    special(kind, tmp_path, ".bpmnlintrc")
    done = bpmn("validate", str(MODELS / "order-fulfilment.bpmn"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert expected(kind) in done.stdout + done.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_validate_refuses_an_import_that_is_not_a_regular_file(
    bpmn: Bpmn, tmp_path: Path, kind: str
) -> None:
    """A diagram's own `<import location=...>` must not make validate read /dev/zero."""
    special(kind, tmp_path, "other.bpmn")
    bpmn_ns = "http://www.omg.org/spec/BPMN/20100524/MODEL"
    importer = tmp_path / "main.bpmn"
    importer.write_text(
        f'<?xml version="1.0"?>\n<definitions xmlns="{bpmn_ns}" id="d" targetNamespace="t">'
        f'<import importType="{bpmn_ns}" location="other.bpmn" namespace="o"/>'
        '<process id="p" isExecutable="true"><startEvent id="s"/>'
        '<sequenceFlow id="f" sourceRef="s" targetRef="e"/><endEvent id="e"/></process>'
        "</definitions>\n"
    )
    done = bpmn("validate", str(importer))
    assert "Traceback" not in done.stdout + done.stderr
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert "other.bpmn" in done.stdout and expected(kind) in done.stdout, done.stdout


@pytest.mark.parametrize("kind", [k for k in KINDS if k not in ("directory", "oversize")])
def test_a_handlers_file_that_is_not_a_regular_file(bpmn: Bpmn, tmp_path: Path, kind) -> None:
    """Handlers are Python the user runs on purpose; still, a FIFO is named for what it is."""
    path = special(kind, tmp_path, "handlers.py")
    assert_refused(
        bpmn("run", str(MODELS / "order-fulfilment.bpmn"), "--handlers", str(path)), path, kind
    )
