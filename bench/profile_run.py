"""Where one run's time goes, per element step: cProfile (and pyinstrument if installed).

Run: python bench/profile_run.py NAME [--mode memory|memory-w|file|file-w] [--top N]
                                      [--pyinstrument] [--sql]
     e.g. python bench/profile_run.py seq_10000 --mode file --sql

Profiles `Instance.run()` of one synthetic diagram (see generate.py) and prints the costliest
functions by own time, in microseconds per element step (`element.completed` events), then the
same time grouped by area (SQLite, copying, JSON, the runtime, ...), so that the cost of one
step can be read off directly. Profiling slows Python code down more than the C calls into
SQLite, so the shares are a guide, not a measurement: bench/run.py has the timings, and
`--sql` times each kind of SQL statement in an unprofiled run.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402
from run import MODES, fresh, start_variables  # noqa: E402

from bpmn_engine import Engine, Instance, load  # noqa: E402

# (area, test on "file:function") in order: the first that matches names the area
AREAS = (
    ("sqlite (C calls)", lambda f: "sqlite3.Connection" in f or "sqlite3.Cursor" in f),
    ("store/sqlite/ (building rows)", lambda f: "bpmn_engine/store/" in f),
    ("copy module", lambda f: "/copy.py" in f or "__reduce_ex__" in f),
    ("json encode/decode", lambda f: "/json/" in f),
    ("expressions (conditions, scripts)", lambda f: "bpmn_engine/expressions/" in f),
    ("records/ (Step, InstanceData)", lambda f: "bpmn_engine/records/" in f),
    ("runtime/step/joins.py", lambda f: "bpmn_engine/runtime/step/joins.py" in f),
    ("runtime (other)", lambda f: "bpmn_engine/runtime/" in f),
    ("datetime (timestamps)", lambda f: "datetime" in f),
    ("contextlib", lambda f: "contextlib" in f),
)


def label(key: tuple[str, int, str]) -> str:
    filename, line, function = key
    if filename == "~":
        return function
    for marker in ("bpmn_engine/", "site-packages/", "lib/python3."):
        if marker in filename:
            filename = filename[filename.index(marker) :]
            break
    return f"{filename}:{line}:{function}"


def area(name: str) -> str:
    return next((title for title, test in AREAS if test(name)), "other (builtins, stdlib)")


def prepare(name: str, mode: str, work: Path) -> Instance:
    path = generate.write(name, work)
    in_file, checkpoint = MODES[mode]
    db = fresh(work / f"{name}.db") if in_file else ":memory:"
    engine = Engine(db, checkpoint=checkpoint)
    return engine.start(load(path), variables=start_variables(name))


def steps_of(instance: Instance) -> int:
    return sum(1 for e in instance.history() if e.event == "element.completed")


def profile(name: str, mode: str, top: int, work: Path) -> None:
    instance = prepare(name, mode, work)
    profiler = cProfile.Profile()
    began = time.perf_counter()
    profiler.enable()
    instance.run()
    profiler.disable()
    elapsed = time.perf_counter() - began
    steps = steps_of(instance)
    instance.engine.close()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in stats.values())
    print(f"{name}, store {mode}: {steps:,} element steps in {elapsed:.2f} s under cProfile")
    print(f"({elapsed / steps * 1e6:,.0f} us per step profiled; bench/run.py has unprofiled times)")
    print(f"\n{'own us/step':>11} {'cum us/step':>11} {'calls/step':>10} {'share':>6}  function")
    ranked = sorted(stats.items(), key=lambda kv: kv[1][2], reverse=True)
    for key, (_cc, calls, own, cum, _callers) in ranked[:top]:
        print(
            f"{own / steps * 1e6:11.1f} {cum / steps * 1e6:11.1f} {calls / steps:10.1f} "
            f"{own / total:6.1%}  {label(key)}"
        )
    grouped: dict[str, float] = {}
    for key, (_cc, _calls, own, _cum, _callers) in stats.items():
        grouped[area(label(key))] = grouped.get(area(label(key)), 0.0) + own
    print(f"\n{'own us/step':>11} {'share':>6}  area")
    for title, own in sorted(grouped.items(), key=lambda kv: kv[1], reverse=True):
        print(f"{own / steps * 1e6:11.1f} {own / total:6.1%}  {title}")


class TimedConnection:
    """Stands in for the store's connection and adds up the time of each statement kind."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.spent: dict[str, list[float]] = {}

    def _kind(self, sql: str) -> str:
        words = sql.split()
        verb = words[0].upper()
        if verb in ("INSERT", "DELETE", "SELECT"):
            table = next((w for w in words[1:] if w.upper() not in NOISE), "?")
            return f"{verb} {table}"
        return f"{verb} {words[1]}" if verb == "UPDATE" else verb

    def _timed(self, method: str, sql: str, *args: Any) -> Any:
        began = time.perf_counter()
        result = getattr(self.conn, method)(sql, *args)
        entry = self.spent.setdefault(self._kind(sql), [0, 0.0])
        entry[0] += 1
        entry[1] += time.perf_counter() - began
        return result

    def execute(self, sql: str, *args: Any) -> Any:
        return self._timed("execute", sql, *args)

    def executemany(self, sql: str, *args: Any) -> Any:
        return self._timed("executemany", sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


NOISE = {"OR", "IGNORE", "REPLACE", "INTO", "FROM"}


def sql_breakdown(name: str, mode: str, work: Path) -> None:
    instance = prepare(name, mode, work)
    store = instance.engine.store
    timed = TimedConnection(store.conn)
    store.conn = timed  # type: ignore[assignment]
    began = time.perf_counter()
    instance.run()
    elapsed = time.perf_counter() - began
    store.conn = timed.conn
    steps = steps_of(instance)
    instance.engine.close()
    in_sql = sum(spent for _count, spent in timed.spent.values())
    print(
        f"\n== SQL statements, unprofiled: {elapsed / steps * 1e6:,.1f} us per step in all, "
        f"{in_sql / steps * 1e6:,.1f} us of it in SQLite calls"
    )
    print(f"{'us/step':>8} {'calls/step':>10}  statement")
    for kind, (count, spent) in sorted(timed.spent.items(), key=lambda kv: -kv[1][1]):
        print(f"{spent / steps * 1e6:8.1f} {count / steps:10.2f}  {kind}")
    if MODES[mode][0]:
        wal_pages(name, mode, work)


def wal_pages(name: str, mode: str, work: Path) -> None:
    """Pages written per step: each page a commit dirties is one WAL frame (a write of the
    page), so with SQLite's automatic checkpoints off the WAL's frames are every page the run
    wrote."""
    instance = prepare(name, mode, work)
    conn = instance.engine.store.conn
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    instance.run()
    frames = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
    steps = steps_of(instance)
    instance.engine.close()
    print(f"\n== WAL pages written: {frames / steps:.2f} per step ({frames:,} in all)")


def with_pyinstrument(name: str, mode: str, work: Path) -> None:
    try:
        from pyinstrument import Profiler
    except ImportError:
        print("\npyinstrument is not installed (pip install pyinstrument): skipped")
        return
    instance = prepare(name, mode, work)
    profiler = Profiler(interval=0.0005)
    profiler.start()
    instance.run()
    profiler.stop()
    instance.engine.close()
    print("\n== pyinstrument (sampling, wall clock)")
    print(profiler.output_text(unicode=False, color=False, show_all=False))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="a synthetic diagram, e.g. seq_10000, par_1000, loop_10000")
    parser.add_argument("--mode", choices=tuple(MODES), default="file")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--pyinstrument", action="store_true")
    parser.add_argument("--sql", action="store_true", help="time each kind of SQL statement")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bpmn-profile-") as tmp:
        profile(args.name, args.mode, args.top, Path(tmp))
        if args.sql:
            sql_breakdown(args.name, args.mode, Path(tmp))
        if args.pyinstrument:
            with_pyinstrument(args.name, args.mode, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
