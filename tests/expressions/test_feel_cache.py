"""The FEEL parser's table cache is read with pickle: it must never come from a file someone
else could have written (issue 26, item 1), nor be read half-written while another process
(a parallel test worker, a second `bpmn`) writes it (issue 27, item 6)."""

from __future__ import annotations

import fcntl
import os
import pickle
import tempfile
from pathlib import Path

import lark
import pytest

from bpmn_engine.expressions.feel import grammar


class Planted:
    """Unpickling this creates `marker`: the proof that a planted cache file was loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def plant(path: Path, marker: Path) -> None:
    path.write_bytes(b"0" * 64 + b"\n" + pickle.dumps(Planted(marker)))


def build() -> None:
    """A fresh parser, as a new process would build it, and a parse with it."""
    parser = grammar._parser.__wrapped__()
    assert parser.parse("1 + 2", start="start") is not None


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def test_nothing_is_read_from_or_written_to_the_shared_temp_dir(
    tmp_path: Path, cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    build()
    assert list(shared.iterdir()) == []  # lark's cache=True wrote .lark_cache_<user>_... here


def test_the_tables_are_cached_in_a_private_folder_of_the_users_cache(cache_home: Path) -> None:
    build()
    folder = cache_home / "bpmn-engine"
    assert folder.stat().st_mode & 0o777 == 0o700
    [cached] = folder.glob("*.lark")
    build()  # and read back
    assert [p.name for p in folder.glob("*.lark")] == [cached.name]


def test_a_file_planted_in_a_folder_others_may_write_is_never_loaded(
    tmp_path: Path, cache_home: Path
) -> None:
    name = grammar.cache_file(
        grammar.resources.files(grammar.__package__)
        .joinpath("feel.lark")
        .read_text(encoding="utf-8")
    )
    assert name is not None
    folder = cache_home / "bpmn-engine"
    marker = tmp_path / "pwned"
    plant(Path(name), marker)
    os.chmod(folder, 0o777)
    build()
    assert not marker.exists()


def test_a_planted_file_others_may_write_is_never_loaded(tmp_path: Path, cache_home: Path) -> None:
    text = grammar.resources.files(grammar.__package__).joinpath("feel.lark").read_text("utf-8")
    name = grammar.cache_file(text)
    assert name is not None
    marker = tmp_path / "pwned"
    plant(Path(name), marker)
    os.chmod(name, 0o666)
    build()
    assert not marker.exists()


def test_a_cache_folder_that_is_a_link_is_not_used(tmp_path: Path, cache_home: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    cache_home.mkdir()
    (cache_home / "bpmn-engine").symlink_to(elsewhere)
    assert grammar.cache_file("grammar") is None
    build()
    assert list(elsewhere.iterdir()) == []


def test_the_tables_are_written_under_a_lock_no_other_process_can_take(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held: list[bool] = []
    opened = lark.lark.FS.open

    def spy(name: str, mode: str = "r", **kwargs: object) -> object:
        if "w" in mode:  # lark writes the tables: may another process open them now?
            with open(grammar.lock_file(name), "a") as other:
                try:
                    fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    held.append(True)
                else:
                    held.append(False)
                    fcntl.flock(other, fcntl.LOCK_UN)
        return opened(name, mode, **kwargs)

    monkeypatch.setattr(lark.lark.FS, "open", spy)
    build()
    assert held == [True]
    build()  # read back under the lock, not written again
    assert held == [True]
