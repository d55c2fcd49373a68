"""The targets of issue 15 (Performance II): what bench/run.py adds to its own measurements.

Run through bench/run.py (one command for every figure): python bench/run.py [--quick]

Measured here: the command line's start-up as a whole process (wall and CPU time of the
child), parse + compile time per element and whether a reopened instance re-parses, the
throughput of one `bpmn worker` fed by a driver in another process, and the heap a worker
needs per waiting instance. Steps per second and SpiffWorkflow ratios come from run.py's rows;
`table` puts everything against the issue's targets, met or NOT met. Figures only: nothing
here passes or fails a build.

Processes started by this module run the worktree's code: `python -m cli` with this
repository first on PYTHONPATH (the installed `bpmn` script may point at another checkout).
"""

from __future__ import annotations

import gc
import os
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import generate  # noqa: E402

HEADER = generate.HEADER
FOOTER = generate.FOOTER


@dataclass(frozen=True)
class Sizes:
    """How much one invocation measures: --quick keeps each part to seconds."""

    startup_runs: int
    evaluations: int  # calls per timing of a condition
    load_sizes: tuple[int, ...]
    throughput: int  # instances the driver starts per checkpoint policy
    waiting: int  # waiting instances held by the worker in the memory measurement


FULL = Sizes(
    startup_runs=15,
    evaluations=20_000,
    load_sizes=(100, 1000, 10000),
    throughput=3000,
    waiting=10000,
)
QUICK = Sizes(
    startup_runs=5, evaluations=2_000, load_sizes=(100, 1000), throughput=300, waiting=1000
)


@dataclass
class Result:
    """One target: what it asks, what was measured, and whether it holds (None: no target)."""

    target: str
    measured: str
    met: bool | None
    beside: str = ""  # the same figure for SpiffWorkflow, where it was measured


@dataclass
class Extra:
    """What this module measured, for run.py's report."""

    startup: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    load: list[tuple[str, int, float]] = field(default_factory=list)  # name, elements, seconds
    reopen: dict[str, float] = field(default_factory=dict)
    throughput: dict[str, dict[str, float]] = field(default_factory=dict)
    memory: dict[str, float] = field(default_factory=dict)
    conditions: list[tuple[str, str, float]] = field(default_factory=list)  # case, language, s
    notes: list[str] = field(default_factory=list)


# Where child processes keep the bytecode of what they import (PYTHONPYCACHEPREFIX).
PYCACHE = Path(tempfile.gettempdir()) / "bpmn-engine-bench-pycache"


def child_env() -> dict[str, str]:
    """The environment of child processes: this worktree's packages first, and bytecode kept.

    An installed package has its `.pyc` files written when it is installed. A checkout run
    under PYTHONDONTWRITEBYTECODE (the development machine sets it) would compile each of the
    engine's modules from source in every process: a cost no user pays, and a third of the
    CPU time of `bpmn run`'s start-up. So children may write bytecode, under a directory of
    their own (the checkout stays clean); the untimed first round of start-up fills it.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


def run_child(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Run one process to its end: (wall seconds, CPU seconds user+sys of that child)."""
    began = time.perf_counter()
    child = subprocess.Popen(
        argv, cwd=cwd, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _pid, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - began
    child.returncode = os.waitstatus_to_exitcode(status)
    stderr = child.stderr.read().decode(errors="replace") if child.stderr else ""
    if child.stderr:
        child.stderr.close()
    if child.returncode not in (0, 2):  # `bpmn run` exits 2 when the instance waits
        raise RuntimeError(f"{' '.join(argv)} exited {child.returncode}: {stderr[-300:]}")
    return wall, usage.ru_utime + usage.ru_stime


# --- start-up -----------------------------------------------------------------------------------
def measure_startup(runs: int, work: Path) -> dict[str, tuple[float, float, float, float]]:
    """label -> (wall min, wall median, cpu min, cpu median) over `runs` processes each.

    The commands take turns (one of each, then again) so a burst of load on the shared
    machine hits them alike; one untimed warm-up round fills the OS file cache first.
    """
    model = generate.write("seq_8", work)  # start + 8 tasks + end: 10 elements
    db = work / "startup.db"
    cli = [sys.executable, "-m", "cli"]
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "bpmn --version": [*cli, "--version"],
        "bpmn --help": [*cli, "--help"],
        "bpmn run (10 elements)": [*cli, "run", str(model), "--db", str(db)],
    }
    walls: dict[str, list[float]] = {label: [] for label in commands}
    cpus: dict[str, list[float]] = {label: [] for label in commands}
    for round_ in range(runs + 1):
        for label, argv in commands.items():
            wall, cpu = run_child(argv, ROOT)
            if round_:
                walls[label].append(wall)
                cpus[label].append(cpu)
    return {
        label: (
            min(walls[label]),
            statistics.median(walls[label]),
            min(cpus[label]),
            statistics.median(cpus[label]),
        )
        for label in commands
    }


# --- load ---------------------------------------------------------------------------------------
_FLOW_NODE = re.compile(r"<bpmn:(?!sequenceFlow|conditionExpression|process|definitions)\w+ id=")


def element_count(path: Path) -> int:
    """Flow nodes in a generated file (everything with an id but flows, process, definitions)."""
    return len(_FLOW_NODE.findall(path.read_text()))


def measure_load(
    sizes: tuple[int, ...], work: Path, repeat: int = 3
) -> list[tuple[str, int, float]]:
    """(diagram, elements, best seconds of `load`) for seq_N and par_N: parse + compile."""
    from bpmn_engine import load

    out = []
    for kind in ("seq", "par"):
        for size in sizes:
            name = f"{kind}_{size}"
            path = generate.write(name, work)
            best = float("inf")
            for _ in range(repeat if size < 10000 else 1):
                gc.collect()
                began = time.perf_counter()
                load(path)
                best = min(best, time.perf_counter() - began)
            out.append((name, element_count(path), best))
    return out


@contextmanager
def counting(function_name: str, module_prefix: str = "bpmn_engine") -> Iterator[list[int]]:
    """Count calls of a function however it was imported: every module-level binding of it
    under `module_prefix` is wrapped for the duration (runtime.engine imports it by name)."""
    import bpmn_engine.parse.reader as reader

    original = getattr(reader, function_name)
    calls = [0]

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    patched = []
    for name, module in list(sys.modules.items()):
        if name.startswith(module_prefix) and getattr(module, function_name, None) is original:
            setattr(module, function_name, wrapper)
            patched.append(module)
    try:
        yield calls
    finally:
        for module in patched:
            setattr(module, function_name, original)


def measure_reopen(size: int, work: Path) -> dict[str, float]:
    """Reopen a waiting instance of wait_N with a fresh Engine on the same file (what every
    `bpmn complete`, `resume` and worker process does): time, and parse/compile calls."""
    import bpmn_engine.runtime.engine.engine  # noqa: F401  (so its binding of the function is patched)
    from bpmn_engine import Engine, load

    path = generate.write(f"wait_{size}", work)
    db = work / "reopen.db"
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        p.unlink(missing_ok=True)
    with Engine(db) as engine:
        ids = []
        for _ in range(2):
            instance = engine.start(load(path))
            instance.run()
            ids.append(instance.id)
    out: dict[str, float] = {"elements": float(element_count(path))}
    with (
        counting("compile_definitions") as compiled,
        counting("compile_tree") as trees,
        Engine(db) as engine,
    ):
        gc.collect()
        began = time.perf_counter()
        engine.instance(ids[0])
        out["cold_s"] = time.perf_counter() - began
        out["cold_compiles"] = float(compiled[0])
        out["cold_trees"] = float(trees[0])
        began = time.perf_counter()
        engine.instance(ids[1])
        out["warm_s"] = time.perf_counter() - began
        out["warm_compiles"] = (
            float(compiled[0] + trees[0]) - out["cold_compiles"] - out["cold_trees"]
        )
    return out


# --- throughput ---------------------------------------------------------------------------------
THREE_TASKS = """<bpmn:startEvent id="StartEvent"/>
<bpmn:serviceTask id="Task_1" implementation="noop"/>
<bpmn:serviceTask id="Task_2" implementation="noop"/>
<bpmn:serviceTask id="Task_3" implementation="noop"/>
<bpmn:endEvent id="EndEvent"/>
<bpmn:sequenceFlow id="F0" sourceRef="StartEvent" targetRef="Task_1"/>
<bpmn:sequenceFlow id="F1" sourceRef="Task_1" targetRef="Task_2"/>
<bpmn:sequenceFlow id="F2" sourceRef="Task_2" targetRef="Task_3"/>
<bpmn:sequenceFlow id="F3" sourceRef="Task_3" targetRef="EndEvent"/>
"""

HANDLERS = '''"""No-op handler for the throughput bench; logs each call once, written at exit."""
import atexit
import os

_calls = []


def noop(ctx):
    _calls.append(f"{ctx.instance_id} {ctx.element_id}")


def _write():
    with open(os.environ["BENCH_HANDLER_LOG"], "a") as out:
        out.write("".join(line + "\\n" for line in _calls))


atexit.register(_write)
'''


def write_three_tasks(work: Path) -> Path:
    path = work / "three_tasks.bpmn"
    name = "three_tasks"
    text = HEADER.format(name=name, process=generate.process_id(name)) + THREE_TASKS + FOOTER
    path.write_text(text)
    return path


def drive(db: str, model: str, count: int, announce: bool = False) -> None:
    """The driver process: start `count` instances as fast as it can, leaving them ready for
    the worker (`Engine.start` commits the opening step without running the instance)."""
    from bpmn_engine import Engine, load

    definitions = load(model)
    with Engine(db) as engine:
        if announce:  # the clock starts at the first instance, not at the driver's imports
            print(time.time(), flush=True)
        for _ in range(count):
            engine.start(definitions)


def completed_count(db: Path) -> tuple[int, int]:
    """(instances, instances completed), read with plain SQLite so as not to disturb."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        total, done = connection.execute(
            "SELECT count(*), coalesce(sum(state = 'completed'), 0) FROM instances"
        ).fetchone()
    finally:
        connection.close()
    return int(total), int(done)


def measure_throughput(count: int, policy: str, work: Path) -> dict[str, float]:
    """One `bpmn worker --checkpoint POLICY` on a SQLite file; a driver process starts `count`
    instances meanwhile. Rate = count / (first start → last completion)."""
    model = write_three_tasks(work)
    handlers = work / "noop_handlers.py"
    handlers.write_text(HANDLERS)
    db = work / f"throughput-{policy}.db"
    log = work / f"handler-calls-{policy}.log"
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), log):
        p.unlink(missing_ok=True)
    env = child_env()
    env["BENCH_HANDLER_LOG"] = str(log)
    # create the schema and deploy before timing, so that the worker and driver start on a file
    drive(str(db), str(model), 0)
    from bpmn_engine import Engine, load

    with Engine(db) as engine:
        engine.deploy(load(model))
    cli_worker = [sys.executable, "-m", "cli", "worker", "--poll", "0.005"]
    errors = work / f"worker-{policy}.err"
    with errors.open("w") as stderr:  # a file, not a pipe: nobody reads it while it runs
        worker = subprocess.Popen(
            [*cli_worker, "--db", str(db), "--handlers", str(handlers), "--checkpoint", policy],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        time.sleep(1.0)  # the worker's own start-up is not part of the throughput
        driver = subprocess.Popen(
            [sys.executable, str(Path(__file__)), "--drive", str(db), str(model), str(count)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert driver.stdout is not None
        began = float(driver.stdout.readline())  # time.time() at the driver's first start
        driver.stdout.close()
        _pid, status, driver_usage = os.wait4(driver.pid, 0)
        if status:
            raise RuntimeError(f"the driver process failed (wait status {status})")
        driven = time.time() - began
        deadline = time.time() + max(60.0, count / 20)
        done = 0
        while time.time() < deadline and worker.poll() is None:
            _total, done = completed_count(db)
            if done >= count:
                break
            time.sleep(0.01)
        elapsed = time.time() - began
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            _pid, _status, worker_usage = os.wait4(worker.pid, 0)
        except ChildProcessError:
            worker_usage = None
    total, done = completed_count(db)
    calls = log.read_text().splitlines() if log.exists() else []
    expected = {f"{i} Task_{k}" for i in _instance_ids(db) for k in (1, 2, 3)}
    once = len(calls) == len(set(calls)) and set(calls) == expected
    worker_cpu = worker_usage.ru_utime + worker_usage.ru_stime if worker_usage else 0.0
    return {
        "instances": float(total),
        "completed": float(done),
        "seconds": elapsed,
        "rate": done / elapsed,
        "driver_rate": count / driven,
        "handler_calls": float(len(calls)),
        "handlers_once": float(once),
        "worker_cpu_s": worker_cpu,
        "driver_cpu_s": driver_usage.ru_utime + driver_usage.ru_stime,
        "worker_errors": float(len(errors.read_text().splitlines())),
    }


def _instance_ids(db: Path) -> list[str]:
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [row[0] for row in connection.execute("SELECT id FROM instances")]
    finally:
        connection.close()


# --- memory -------------------------------------------------------------------------------------
def hold_waiting(db: str) -> None:
    """The memory worker process: a `Worker` (the code `bpmn worker` runs) takes every ready
    instance to its user task, under tracemalloc; prints baseline, peak, after and max RSS."""
    import resource

    from bpmn_engine import Engine, Worker

    with Engine(db, checkpoint="wait") as engine:
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        Worker(engine, poll=0, once=True).run()
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    print(base, peak, current, rss)


def measure_memory(count: int, work: Path) -> dict[str, float]:
    """Start `count` instances of wait_1 (ready, not run), then one worker process runs them
    all until each waits at its user task: peak heap per waiting instance."""
    from bpmn_engine import Engine, load

    path = generate.write("wait_1", work)
    db = work / "memory.db"
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        p.unlink(missing_ok=True)
    definitions = load(path)
    with Engine(db) as engine:
        for _ in range(count):
            engine.start(definitions)
    output = subprocess.run(
        [sys.executable, str(Path(__file__)), "--hold", str(db)],
        cwd=ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    base, peak, current, rss = (float(x) for x in output[-4:])
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        waiting = connection.execute(
            "SELECT count(DISTINCT instance) FROM tracks WHERE status = 'waiting'"
        ).fetchone()[0]
    finally:
        connection.close()
    return {
        "count": float(count),
        "waiting": float(waiting),
        "peak_per": (peak - base) / count,
        "kept_per": (current - base) / count,
        "rss": rss,
    }


# --- conditions -----------------------------------------------------------------------------
def measure_conditions(number: int) -> list[tuple[str, str, float]]:
    """Seconds per evaluation of a compiled condition, per language (bench/expressions.py's
    cases: the simple one and the and/or one)."""
    import expressions

    out = []
    for name, python, juel, feel in (expressions.CASES[0], expressions.CASES[3]):
        for language, text in (("Python", python), ("JUEL", juel), ("FEEL", feel)):
            if text:
                out.append((name, language, expressions.per_call(text, number, 3)))
    return out


# --- everything, and the table --------------------------------------------------------------
def measure_all(sizes: Sizes, work: Path, say: Callable[[str], None]) -> Extra:
    extra = Extra()
    say("timing the command line's start-up ...")
    extra.startup = measure_startup(sizes.startup_runs, work)
    say("timing parse + compile ...")
    extra.load = measure_load(sizes.load_sizes, work)
    extra.reopen = measure_reopen(max(sizes.load_sizes), work)
    for policy in ("wait", "step"):
        say(f"throughput, one worker, --checkpoint {policy}, {sizes.throughput:,} instances ...")
        extra.throughput[policy] = measure_throughput(sizes.throughput, policy, work)
    say(f"memory of a worker holding {sizes.waiting:,} waiting instances ...")
    extra.memory = measure_memory(sizes.waiting, work)
    say("condition cost per language ...")
    extra.conditions = measure_conditions(sizes.evaluations)
    return extra


def results(
    extra: Extra, rows: dict[tuple[str, str], Any], spiff: list[Any], node: list[Any] = ()
) -> list[Result]:
    """Every target of issues 15 and 31 against this run. `rows` are run.py's (diagram, mode)
    rows; `spiff` and `node` its SpiffWorkflow and bpmn-engine (Node) rows."""
    out: list[Result] = []
    base = extra.startup.get("python -c pass")
    for label, limit in (("bpmn --version", 3), ("bpmn --help", 3), ("bpmn run (10 elements)", 5)):
        timing = extra.startup.get(label)
        if not (timing and base):
            continue
        wall = timing[1] / base[1]
        cpu = timing[3] / base[3]
        out.append(
            Result(
                f"start-up {label} <= {limit}x python -c pass (CPU, median)",
                f"{cpu:.1f}x ({timing[3] * 1000:.0f} ms; wall {wall:.1f}x)",
                cpu <= limit,
            )
        )
    for name, elements, seconds in extra.load:
        per = seconds / elements * 1e6
        out.append(
            Result(f"load {name}: parse + compile <= 20 us/element", f"{per:.0f} us", per <= 20)
        )
    r = extra.reopen
    if r:
        out.append(
            Result(
                f"reopen wait_N ({r['elements']:.0f} el.), fresh Engine: never re-parses",
                f"parsed {r['cold_compiles']:.0f}x, {r['cold_s'] * 1000:.1f} ms",
                r["cold_compiles"] == 0 and r["cold_trees"] == 0,
            )
        )
    for kind in ("seq", "loop", "par"):
        for mode, floor, what in (
            ("memory-w", 100_000, "in memory"),
            ("file", 20_000, "checkpoint per step, file"),
        ):
            found = [
                (d, row) for (d, m), row in rows.items() if m == mode and d.startswith(kind + "_")
            ]
            if not found:
                continue
            diagram, row = max(found, key=lambda item: int(item[0].split("_")[-1]))
            rate = row.steps_per_s
            if rate:
                out.append(
                    Result(
                        f"steps/s {diagram} {what} >= {floor:,}",
                        f"{rate:,.0f}",
                        rate >= floor,
                        "; ".join(
                            x
                            for x in (spiff_rate(kind, rows, spiff), node_rate(kind, rows, node))
                            if x
                        ),
                    )
                )
    for policy, label in (("wait", "checkpoints at wait states"), ("step", "checkpoint per step")):
        t = extra.throughput.get(policy)
        if not t:
            continue
        ok = t["completed"] == t["instances"] and t["handlers_once"] == 1.0
        measured = f"{t['rate']:,.0f}/s" + ("" if ok else " (INCOMPLETE)")
        floor = 1000 if policy == "wait" else 300  # issue 31 states both
        out.append(
            Result(
                f"throughput, 1 worker, {label} >= {floor:,}/s",
                measured,
                t["rate"] >= floor and ok,
            )
        )
    m = extra.memory
    if m:
        out.append(
            Result(
                f"memory: peak heap per waiting instance ({m['count']:,.0f} in a worker)",
                f"{m['peak_per'] / 1024:.1f} KB",
                None,
            )
        )
    for name, language, seconds in extra.conditions:
        out.append(Result(f"condition cost: {name}, {language}", f"{seconds * 1e6:.2f} us", None))
    for s in spiff:
        for mode, floor in (("memory-w", 100), ("file-w", 100), ("file", 30)):
            mine = rows.get((s.diagram, mode))
            if s.run_s and mine and mine.run_s:
                ratio = s.run_s / mine.run_s
                out.append(
                    Result(
                        f"{s.diagram} {mode} >= {floor}x SpiffWorkflow",
                        f"{ratio:,.1f}x",
                        ratio >= floor,
                    )
                )
    return out


def spiff_rate(kind: str, rows: dict[tuple[str, str], Any], spiff: list[Any]) -> str:
    """SpiffWorkflow's element steps per second on this kind's diagram it ran (the steps are
    ours on the same file: both take the same path), or "" when it was not measured."""
    for s in spiff:
        mine = rows.get((s.diagram, "memory-w"))
        if s.diagram.startswith(kind + "_") and s.run_s and mine and mine.steps:
            ended = "" if s.reached_end else ", did not reach the end"
            return f"{s.diagram} {mine.steps / s.run_s:,.0f}/s{ended}"
    return ""


def node_rate(kind: str, rows: dict[tuple[str, str], Any], node: list[Any]) -> str:
    """bpmn-engine's (Node) element steps per second, parse included, on this kind's diagram."""
    for n in node:
        if not n.diagram.startswith(kind + "_"):
            continue
        mine = rows.get((n.diagram, "memory-w"))
        if n.error or not n.ms:
            return f"bpmn-engine {n.diagram} failed: {n.error}"
        if mine and mine.steps:
            return f"bpmn-engine {n.diagram} {mine.steps / n.ms:,.0f}/s (with parse)"
    return ""


def print_extra(extra: Extra) -> None:
    """The details behind the table's figures."""
    print("\n== Start-up (whole process, python -m cli from this checkout; ms)")
    print(f"  {'command':<24} {'wall min':>9} {'wall med':>9} {'cpu min':>8} {'cpu med':>8}")
    for label, (wmin, wmed, cmin, cmed) in extra.startup.items():
        print(
            f"  {label:<24} {wmin * 1000:9.0f} {wmed * 1000:9.0f} "
            f"{cmin * 1000:8.0f} {cmed * 1000:8.0f}"
        )
    print("\n== Load (parse + compile, best of 3)")
    for name, elements, seconds in extra.load:
        print(
            f"  {name:<12} {elements:>7,} elements {seconds * 1000:9.1f} ms "
            f"{seconds / elements * 1e6:6.1f} us/element"
        )
    r = extra.reopen
    if r:
        print(
            f"  reopen (fresh Engine, same db): cold {r['cold_s'] * 1000:.1f} ms with "
            f"{r['cold_compiles']:.0f} compile_definitions and {r['cold_trees']:.0f} compile_tree "
            f"call(s); the next instance {r['warm_s'] * 1000:.1f} ms "
            f"with {r['warm_compiles']:.0f}"
        )
    print("\n== Throughput (start -> 3 no-op service tasks -> end; driver in another process)")
    for policy, t in extra.throughput.items():
        print(
            f"  --checkpoint {policy}: {t['completed']:,.0f} of {t['instances']:,.0f} completed in "
            f"{t['seconds']:.2f} s = {t['rate']:,.0f}/s; driver started {t['driver_rate']:,.0f}/s; "
            f"{t['handler_calls']:,.0f} handler calls, each exactly once: "
            f"{'yes' if t['handlers_once'] else 'NO'}; stderr lines {t['worker_errors']:.0f}; "
            f"CPU worker {t['worker_cpu_s']:.1f} s, "
            f"driver {t['driver_cpu_s']:.1f} s"
        )
    m = extra.memory
    if m:
        print(
            f"\n== Memory (one worker takes {m['count']:,.0f} ready instances to their user task;"
            f" {m['waiting']:,.0f} waiting)\n"
            f"  peak heap {m['peak_per']:,.0f} B per instance, kept after the pass "
            f"{m['kept_per']:,.0f} B per instance, max RSS {m['rss'] / 1024 / 1024:,.1f} MB"
        )


def print_table(table: list[Result], quick: bool) -> None:
    print(
        "\n== Targets (issues 15 and 31)"
        + (" -- --quick: smaller sizes than stated" if quick else "")
    )
    width = max(len(r.target) for r in table)
    mwidth = max(len(r.measured) for r in table)
    print(f"  {'target':<{width}}  {'measured':>{mwidth}}  verdict   beside")
    print("  " + "-" * (width + mwidth + 26))
    for r in table:
        verdict = "reported" if r.met is None else ("met" if r.met else "NOT met")
        print(f"  {r.target:<{width}}  {r.measured:>{mwidth}}  {verdict:<8}  {r.beside}".rstrip())


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--drive":
        drive(sys.argv[2], sys.argv[3], int(sys.argv[4]), announce=True)
    elif len(sys.argv) == 3 and sys.argv[1] == "--hold":
        hold_waiting(sys.argv[2])
    else:
        sys.exit("bench/targets.py is run by bench/run.py: python bench/run.py [--quick]")
