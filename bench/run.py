"""The runtime benchmark: how the cost of a run grows with the diagram, against the targets.

Run: python bench/run.py [--quick] [--no-spiff] [--no-pg] [--sizes KIND=N,N ...] [--keep DIR]

For each synthetic diagram (see generate.py) it prints parse+compile time, run time (start +
run to the end), element steps per second (`element.completed` events in the history), peak
Python heap (tracemalloc, in a separate untimed pass) and the database size, in four modes: the
store in memory or in a SQLite file, each with a checkpoint per step (the default) and with
checkpoints at wait states (`-w`, `--checkpoint wait`). Then: time to
start an instance of a big diagram (first and warm), time to load and resume one waiting
instance out of many, the scaling ratios, and, when SpiffWorkflow is installed, the same
diagrams through it. Then the figures of issue 15 (bench/targets.py: start-up of the command
line, load time per element and reopening, worker throughput, memory per waiting instance) and
throughput with one to four `bpmn worker` processes on PostgreSQL (bench/pg_load.py's
three-task scenario, on $BPMN_BENCH_POSTGRESQL or a throwaway cluster), and one table of
every target of issues 15 and 31, met or NOT met, with SpiffWorkflow's figure beside the
steps per second where it ran the same kind of diagram. Scaling is reported size by size
(10k/1k, 100k/10k). Figures only: nothing here passes or fails a build.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402
import targets  # noqa: E402

from bpmn_engine import Definitions, Engine, LoadError, load  # noqa: E402

# mode -> (in a file?, checkpoint policy)
MODES = {
    "memory": (False, "step"),
    "memory-w": (False, "wait"),
    "file": (True, "step"),
    "file-w": (True, "wait"),
}
BEST_MEMORY = "memory-w"  # what "in memory" is measured as: no checkpoint to make per step
LINEAR_KINDS = ("seq", "par", "loop")


@dataclass(frozen=True)
class Plan:
    """Which diagrams and how many instances one invocation measures."""

    sizes: dict[str, tuple[int, ...]]
    start_size: int  # the seq_N diagram used for the instance-start measurement
    waiting: int  # waiting instances in the database for the resume measurement
    spiff: tuple[str, ...]  # diagrams also run through SpiffWorkflow


FULL = Plan(
    sizes={
        "seq": (1000, 10000, 100000),
        "par": (1000, 10000),
        "loop": (1000, 10000, 100000),
        "nested": (100, 200, 500),
        "wide_or": (1000,),
    },
    start_size=10000,
    waiting=10000,
    spiff=("seq_1000", "par_1000", "loop_1000"),
)
QUICK = Plan(
    sizes={
        "seq": (100, 1000),
        "par": (100, 300),
        "loop": (100, 1000),
        "nested": (20,),
        "wide_or": (100,),
    },
    start_size=1000,
    waiting=1000,
    spiff=("seq_100", "par_100", "loop_100"),
)


@dataclass
class Row:
    """One diagram in one store mode."""

    diagram: str
    mode: str
    parse_s: float | None = None
    run_s: float | None = None
    steps: int = 0
    state: str = ""
    peak_bytes: int | None = None
    db_bytes: int | None = None
    error: str | None = None

    @property
    def steps_per_s(self) -> float | None:
        return self.steps / self.run_s if self.run_s else None


@dataclass
class SpiffRow:
    diagram: str
    parse_s: float | None = None
    run_s: float | None = None
    done: int = 0  # tasks (seq, par) or turns (loop) SpiffWorkflow actually ran
    expected: int = 0
    reached_end: bool = False
    error: str | None = None


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)
    spiff: list[SpiffRow] = field(default_factory=list)
    spiff_note: str | None = None
    node: list[NodeRow] = field(default_factory=list)
    node_note: str | None = None
    start: dict[str, tuple[float, float]] = field(default_factory=dict)  # mode -> first, warm
    resume: dict[str, float] = field(default_factory=dict)


# --- measuring our engine ---------------------------------------------------------------------
def start_variables(name: str) -> dict[str, Any]:
    return {"n": 0} if name.startswith("loop_") else {}


def db_size(path: Path) -> int:
    """The database file plus whatever WAL and shared-memory files are still around."""
    return sum(
        p.stat().st_size for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()
    )


def fresh(path: Path) -> Path:
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        p.unlink(missing_ok=True)
    return path


def timed_run(
    definitions: Definitions, name: str, db: str | Path, checkpoint: str
) -> tuple[float, int, str]:
    """Start and run one instance: (seconds, element steps, final state)."""
    gc.collect()
    with Engine(db, checkpoint=checkpoint) as engine:
        began = time.perf_counter()
        instance = engine.start(definitions, variables=start_variables(name))
        outcome = instance.run()
        elapsed = time.perf_counter() - began
        steps = sum(1 for e in instance.history() if e.event == "element.completed")
    return elapsed, steps, outcome.state


def peak_memory(path: Path, name: str) -> int:
    """Peak Python heap over parse, start and run in memory (tracemalloc slows it: untimed)."""
    gc.collect()
    tracemalloc.start()
    try:
        with Engine(":memory:", checkpoint="wait") as engine:
            engine.start(load(path), variables=start_variables(name)).run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def measure(name: str, work: Path) -> list[Row]:
    path = generate.write(name, work)
    began = time.perf_counter()
    try:
        definitions = load(path)
    except LoadError as error:
        where = f"line {error.line}: " if error.line else ""
        return [Row(name, mode, error=f"load failed: {where}{error.message}") for mode in MODES]
    parse_s = time.perf_counter() - began
    rows = []
    for mode, (in_file, checkpoint) in MODES.items():
        db: str | Path = fresh(work / f"{name}.db") if in_file else ":memory:"
        run_s, steps, state = timed_run(definitions, name, db, checkpoint)
        row = Row(name, mode, parse_s, run_s, steps, state)
        if isinstance(db, Path):
            row.db_bytes = db_size(db)
            fresh(db)
        rows.append(row)
    rows[0].peak_bytes = peak_memory(path, name)
    return rows


def measure_start(size: int, work: Path, repeat: int = 20) -> dict[str, tuple[float, float]]:
    """Seconds to start an instance of seq_N: the first (deploys the definitions), then warm."""
    definitions = load(generate.write(f"seq_{size}", work))
    out = {}
    for mode in ("memory", "file"):  # a start is one step: the checkpoint policy is moot
        db = ":memory:" if mode == "memory" else fresh(work / "start.db")
        with Engine(db) as engine:
            gc.collect()
            began = time.perf_counter()
            engine.start(definitions)
            first = time.perf_counter() - began
            warm = []
            for _ in range(repeat):
                began = time.perf_counter()
                engine.start(definitions)
                warm.append(time.perf_counter() - began)
        out[mode] = (first, statistics.median(warm))
    return out


def measure_resume(count: int, work: Path, repeat: int = 5) -> dict[str, float]:
    """Load and resume waiting instances out of `count` in one database file."""
    definitions = load(generate.write("wait_1", work))
    db = fresh(work / "waiting.db")
    began = time.perf_counter()
    with Engine(db) as engine:
        ids = []
        for _ in range(count):
            instance = engine.start(definitions)
            instance.run()
            ids.append(instance.id)
    out = {"fill_s": time.perf_counter() - began, "db_bytes": float(db_size(db))}
    picks = [ids[(i + 1) * count // (repeat + 2)] for i in range(repeat + 1)]
    with Engine(db) as engine:  # a fresh engine: the first load compiles the stored definitions
        loads, resumes = [], []
        for instance_id in picks:
            gc.collect()
            began = time.perf_counter()
            instance = engine.instance(instance_id)
            loaded = time.perf_counter()
            instance.complete_task("Approve")
            outcome = instance.run()
            done = time.perf_counter()
            if outcome.state != "completed":
                raise RuntimeError(f"instance {instance_id} ended {outcome.state}")
            loads.append(loaded - began)
            resumes.append(done - loaded)
    out["load_cold_s"] = loads[0]
    out["resume_cold_s"] = resumes[0]
    out["load_warm_s"] = statistics.median(loads[1:])
    out["resume_warm_s"] = statistics.median(resumes[1:])
    fresh(db)
    return out


# --- SpiffWorkflow side by side ---------------------------------------------------------------
@contextmanager
def deep_stack() -> Iterator[Callable[[Callable[[], Any]], Any]]:
    """Run a callable in a thread with a big stack and recursion limit: SpiffWorkflow's parser
    recurses once per chained element and hits the default limit near 500 tasks."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200_000)
    old_size = threading.stack_size(512 * 1024 * 1024)

    def call(work: Callable[[], Any]) -> Any:
        box: dict[str, Any] = {}

        def target() -> None:
            try:
                box["value"] = work()
            except BaseException as error:  # carried back to the caller's thread
                box["error"] = error

        thread = threading.Thread(target=target)
        thread.start()
        thread.join()
        if "error" in box:
            raise box["error"]
        return box["value"]

    try:
        yield call
    finally:
        threading.stack_size(old_size)
        sys.setrecursionlimit(limit)


def spiff_available() -> str | None:
    """None when SpiffWorkflow can be imported, else why not."""
    try:
        import SpiffWorkflow  # noqa: F401
    except ImportError:
        return "SpiffWorkflow is not installed (pip install spiffworkflow): skipped"
    return None


NODE = Path(__file__).resolve().parent / "node"  # bench/node: bpmn-engine on Node


@dataclass
class NodeRow:
    """One diagram through bpmn-engine (paed01) on Node: parse + run, as it gives them."""

    diagram: str
    ms: float | None = None
    completed: int = 0
    error: str | None = None


def node_available() -> str | None:
    """None when node and bench/node's bpmn-engine are there, else why not."""
    if shutil.which("node") is None:
        return "node is not installed: skipped"
    if not (NODE / "node_modules" / "bpmn-engine").is_dir():
        return "bpmn-engine is not installed (npm install --prefix bench/node): skipped"
    return None


def node_measure(name: str, work: Path) -> NodeRow:
    """One run in a fresh `node` process (bench/node/run.mjs prints one JSON line)."""
    path = generate.write(name, work)
    try:
        done = subprocess.run(
            ["node", str(NODE / "run.mjs"), str(path)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        answer = json.loads(done.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError) as error:
        return NodeRow(name, error=f"no answer: {type(error).__name__}")
    if "error" in answer:
        return NodeRow(name, error=str(answer["error"])[:80])
    return NodeRow(name, float(answer["ms"]) / 1000, int(answer["completed"]))


def spiff_measure(name: str, work: Path) -> SpiffRow:
    """Parse and run one diagram through SpiffWorkflow in memory, checking it really finished.

    A plain `bpmn:task` is a manual task to SpiffWorkflow, so the driver runs the ready manual
    tasks between engine steps (its documented loop). SpiffWorkflow finds tasks by walking its
    task tree to depth 1000, so past ~1000 chained steps it may stop early and still call the
    workflow complete: what it ran is counted from its task table, not from what it reports.
    """
    from SpiffWorkflow.bpmn import BpmnWorkflow
    from SpiffWorkflow.bpmn.parser import BpmnParser
    from SpiffWorkflow.util.task import TaskState

    kind, size = generate.parse_name(name)
    path = generate.write(name, work)
    row = SpiffRow(name, expected=size)

    def parse() -> Any:
        parser = BpmnParser()
        parser.add_bpmn_file(str(path))
        return parser.get_spec(generate.process_id(name))

    def run(spec: Any) -> Any:
        workflow = BpmnWorkflow(spec)
        first = workflow.get_next_task(state=TaskState.READY)
        first.data.update(start_variables(name))
        workflow.do_engine_steps()
        while True:
            ready = workflow.get_tasks(state=TaskState.READY, manual=True)
            if not ready:
                return workflow
            for task in ready:
                task.run()
            workflow.do_engine_steps()

    with deep_stack() as call:
        try:
            gc.collect()
            began = time.perf_counter()
            spec = call(parse)
            row.parse_s = time.perf_counter() - began
            gc.collect()
            began = time.perf_counter()
            workflow = call(lambda: run(spec))
            row.run_s = time.perf_counter() - began
        except Exception as error:
            row.error = f"{type(error).__name__}: {str(error)[:120]}"
            return row
    completed = [t for t in workflow.tasks.values() if t.state == TaskState.COMPLETED]
    names = [t.task_spec.name for t in completed]
    row.done = names.count("Count") if kind == "loop" else sum(n.startswith("Task_") for n in names)
    row.reached_end = "EndEvent" in names
    return row


# --- output -------------------------------------------------------------------------------------
def ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:,.1f}"


def duration(seconds: float) -> str:
    return f"{seconds:,.0f} s" if seconds < 120 else f"{seconds / 60:,.0f} min"


def size_text(n: float | None) -> str:
    if n is None:
        return "-"
    return f"{n / 1024:,.0f} KB" if n < 1024 * 1024 else f"{n / 1024 / 1024:,.1f} MB"


def print_table(rows: list[Row]) -> None:
    header = (
        f"{'diagram':<14} {'mode':<8} {'parse ms':>9} {'run ms':>10} {'steps':>7} "
        f"{'steps/s':>9} {'peak heap':>10} {'db size':>9}  state"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        if r.error:
            print(f"{r.diagram:<14} {r.mode:<8} {r.error}")
            continue
        rate = f"{r.steps_per_s:,.0f}" if r.steps_per_s else "-"
        print(
            f"{r.diagram:<14} {r.mode:<8} {ms(r.parse_s):>9} {ms(r.run_s):>10} {r.steps:>7,} "
            f"{rate:>9} {size_text(r.peak_bytes):>10} {size_text(r.db_bytes):>9}  {r.state}"
        )


@dataclass(frozen=True)
class Scaling:
    """How run time grew from one size of a kind to the next, in one mode."""

    kind: str
    mode: str
    small: int
    big: int
    small_s: float
    big_s: float

    @property
    def label(self) -> str:
        return f"{self.kind}_{self.big}/{self.kind}_{self.small}"

    @property
    def ratio(self) -> float:
        return self.big_s / self.small_s

    @property
    def exponent(self) -> float:
        """1.0 is linear; time grows as size ** exponent."""
        return math.log(self.ratio) / math.log(self.big / self.small)

    def projected(self, size: int) -> float:
        return self.small_s * (size / self.small) ** self.exponent


def scaling(rows: list[Row], plan: Plan) -> list[Scaling]:
    """Each size against the next one of its kind (10k/1k, then 100k/10k: flat per-step cost
    keeps both at the size ratio)."""
    out = []
    for kind, sizes in plan.sizes.items():
        ordered = sorted(sizes)
        for mode in MODES:
            times = {r.diagram: r.run_s for r in rows if r.mode == mode and r.run_s and not r.error}
            for small, big in itertools.pairwise(ordered):
                a, b = times.get(f"{kind}_{small}"), times.get(f"{kind}_{big}")
                if a and b:
                    out.append(Scaling(kind, mode, small, big, a, b))
    return out


def print_report(report: Report, plan: Plan) -> None:
    print("\n== Runs (run = start + run to the end; steps = element.completed events)")
    print_table(report.rows)
    print("modes: memory = SQLite :memory:, file = a SQLite file (WAL); -w = checkpoints at")
    print("       wait states (--checkpoint wait), else a checkpoint per step (the default)")
    print("peak heap: Python allocations (tracemalloc) over parse+start+run, memory-w")

    print(
        "\n== Scaling (linear: time ratio = size ratio, exponent 1.0; target ratio <= 12 for 10x)"
    )
    for scale in scaling(report.rows, plan):
        projection = ""
        if scale.kind in LINEAR_KINDS and scale.big < 10000 and scale.exponent > 1.2:
            projected = duration(scale.projected(10000))
            projection = f"  ({scale.kind}_10000 projected at this exponent: ~{projected})"
        print(
            f"  {scale.label:<22} {scale.mode:<8} {scale.ratio:6.1f}x   "
            f"exponent {scale.exponent:4.2f}{projection}"
        )

    print(f"\n== Instance start (seq_{plan.start_size}, definitions already loaded)")
    for mode, (first, warm) in report.start.items():
        print(f"  {mode:<8} first (deploys): {ms(first)} ms   warm (median of 20): {ms(warm)} ms")

    r = report.resume
    if r:
        print(f"\n== Resume one of {plan.waiting:,} waiting instances (wait_1, SQLite file)")
        print(
            f"  fill: {r['fill_s']:.1f} s ({plan.waiting / r['fill_s']:,.0f} instances/s), "
            f"database {size_text(r['db_bytes'])}"
        )
        print(
            f"  load: cold {ms(r['load_cold_s'])} ms (compiles the stored definitions), "
            f"warm {ms(r['load_warm_s'])} ms"
        )
        print(
            f"  complete the user task + run to the end: cold {ms(r['resume_cold_s'])} ms, "
            f"warm {ms(r['resume_warm_s'])} ms"
        )

    print("\n== SpiffWorkflow side by side (its time / ours; both run from the same files)")
    if report.spiff_note:
        print("  " + report.spiff_note)
    ours = {(r.diagram, r.mode): r for r in report.rows}
    for s in report.spiff:
        if s.error:
            print(f"  {s.diagram:<12} {s.error}")
            continue
        assert s.run_s is not None
        ran = f"ran {s.done:,} of {s.expected:,}" + (
            "" if s.reached_end else ", never reached the end event"
        )
        line = f"  {s.diagram:<12} spiff parse {ms(s.parse_s)} ms, run {ms(s.run_s)} ms ({ran})"
        for mode in MODES:
            mine = ours.get((s.diagram, mode))
            if mine and mine.run_s:
                line += f"; vs {mode}: {s.run_s / mine.run_s:,.1f}x"
        print(line)


def print_node(report: Report) -> None:
    print("\n== bpmn-engine (paed01) on Node side by side (its parse + run / ours; same files)")
    if report.node_note:
        print("  " + report.node_note)
    ours = {(r.diagram, r.mode): r for r in report.rows}
    for n in report.node:
        if n.error or n.ms is None:
            print(f"  {n.diagram:<12} failed: {n.error}")
            continue
        line = f"  {n.diagram:<12} parse + run {ms(n.ms)} ms ({n.completed:,} activities ended)"
        mine = ours.get((n.diagram, BEST_MEMORY))
        if mine and mine.run_s and mine.parse_s:
            line += f"; vs {BEST_MEMORY} parse + run: {n.ms / (mine.parse_s + mine.run_s):,.1f}x"
        print(line)


def print_targets(report: Report, plan: Plan, quick: bool) -> None:
    """The issue's targets next to what this run measured."""
    checks: list[tuple[str, str, bool]] = []
    for scale in scaling(report.rows, plan):
        if scale.kind not in LINEAR_KINDS:
            continue
        tenfold = 10**scale.exponent
        checks.append(
            (f"linear {scale.label} {scale.mode}: 10x ratio <= 12", f"{tenfold:.1f}", tenfold <= 12)
        )
    rows = {(r.diagram, r.mode): r for r in report.rows}
    for kind in ("seq", "loop"):
        big = max(plan.sizes.get(kind, ()), default=None)
        for mode, floor in ((BEST_MEMORY, 100_000), ("file", 20_000)):
            row = rows.get((f"{kind}_{big}", mode))
            if row and row.steps_per_s:
                checks.append(
                    (
                        f"{kind}_{big} {mode}: >= {floor:,} steps/s",
                        f"{row.steps_per_s:,.0f}",
                        row.steps_per_s >= floor,
                    )
                )
    for mode, (_first, warm) in report.start.items():
        checks.append((f"start seq_{plan.start_size} {mode} warm < 1 ms", ms(warm), warm < 0.001))
    if report.resume:
        total = report.resume["load_warm_s"] + report.resume["resume_warm_s"]
        checks.append(
            (f"load + resume 1 of {plan.waiting:,} waiting < 10 ms", ms(total), total < 0.010)
        )
    for spiff in report.spiff:
        for mode, floor in ((BEST_MEMORY, 100), ("file", 30)):
            mine = rows.get((spiff.diagram, mode))
            if spiff.run_s and mine and mine.run_s:
                ratio = spiff.run_s / mine.run_s
                checks.append(
                    (
                        f"{spiff.diagram} {mode}: >= {floor}x SpiffWorkflow",
                        f"{ratio:,.1f}x",
                        ratio >= floor,
                    )
                )
    print("\n== Targets (issue 6)" + (": stated for the full sizes" if quick else ""))
    for what, measured, met in checks:
        print(f"  {'met    ' if met else 'NOT met'}  {what:<48} {measured:>10}")


# --- PostgreSQL, several workers -----------------------------------------------------------
def measure_postgresql(quick: bool) -> tuple[list[Any], str]:
    """bench/pg_load.py's three-task scenario with 1, 2 and 4 workers, on the server
    $BPMN_BENCH_POSTGRESQL names or a throwaway cluster; ([], why) when it cannot run."""
    try:
        import pg_load
    except ImportError as error:
        return [], f"not measured: {error} (pip install -e '.[postgresql]')"
    server, why = pg_load.server_or_reason(os.environ.get("BPMN_BENCH_POSTGRESQL"))
    if server is None:
        return [], f"not measured: {why}"
    instances = 100 if quick else 500
    return pg_load.measure(server, instances, [1, 2, 4], ("three tasks",), fault=False), ""


def postgresql_results(runs: list[Any]) -> list[targets.Result]:
    return [
        targets.Result(
            f"throughput, PostgreSQL, {r.workers} worker{'s' if r.workers > 1 else ''}, "
            f"checkpoint per step ({r.instances} instances)",
            f"{r.rate:,.0f}/s" + ("" if not r.failures else " (checks FAILED)"),
            None,
        )
        for r in runs
    ]


# --- main ---------------------------------------------------------------------------------------
def parse_sizes(values: list[str], plan: Plan) -> Plan:
    sizes = dict(plan.sizes)
    for value in values:
        kind, _, numbers = value.partition("=")
        if kind not in generate.BUILDERS:
            raise SystemExit(f"--sizes: unknown kind {kind!r}")
        sizes[kind] = tuple(int(n) for n in numbers.split(",") if n)
    return Plan(sizes, plan.start_size, plan.waiting, plan.spiff)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a quick look")
    parser.add_argument("--no-spiff", action="store_true", help="skip SpiffWorkflow")
    parser.add_argument("--no-pg", action="store_true", help="skip PostgreSQL with N workers")
    parser.add_argument("--sizes", action="append", default=[], metavar="KIND=N,N")
    parser.add_argument("--keep", type=Path, help="write the diagrams and databases here")
    args = parser.parse_args(argv)
    plan = parse_sizes(args.sizes, QUICK if args.quick else FULL)
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bpmn-bench-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        report = Report()
        for kind, sizes in plan.sizes.items():
            for size in sizes:
                name = f"{kind}_{size}"
                print(f"running {name} ...", file=sys.stderr, flush=True)
                report.rows += measure(name, work)
        print("measuring instance start ...", file=sys.stderr, flush=True)
        report.start = measure_start(plan.start_size, work)
        print(f"filling {plan.waiting:,} waiting instances ...", file=sys.stderr, flush=True)
        report.resume = measure_resume(plan.waiting, work)
        report.node_note = "skipped (--no-spiff)" if args.no_spiff else node_available()
        if report.node_note is None:
            for name in plan.spiff:
                print(f"running {name} through bpmn-engine on Node ...", file=sys.stderr)
                report.node.append(node_measure(name, work))
        report.spiff_note = "skipped (--no-spiff)" if args.no_spiff else spiff_available()
        if report.spiff_note is None:
            for name in plan.spiff:
                print(f"running {name} through SpiffWorkflow ...", file=sys.stderr, flush=True)
                report.spiff.append(spiff_measure(name, work))
        extra = targets.measure_all(
            targets.QUICK if args.quick else targets.FULL,
            work,
            lambda text: print(text, file=sys.stderr, flush=True),
        )
        pg_runs, pg_note = [], "skipped (--no-pg)"
        if not args.no_pg:
            print("PostgreSQL with 1, 2 and 4 workers ...", file=sys.stderr, flush=True)
            pg_runs, pg_note = measure_postgresql(args.quick)
    print(
        f"bpmn-engine benchmark, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
        + (" (--quick)" if args.quick else "")
    )
    print_report(report, plan)
    print_node(report)
    print_targets(report, plan, args.quick)
    targets.print_extra(extra)
    print("\n== PostgreSQL: one to four `bpmn worker` processes (bench/pg_load.py, three tasks)")
    if pg_runs:
        import pg_load

        pg_load.print_table(pg_runs)
    else:
        print("  " + pg_note)
    rows = {(r.diagram, r.mode): r for r in report.rows if not r.error}
    table = targets.results(extra, rows, report.spiff, report.node) + postgresql_results(pg_runs)
    targets.print_table(table, args.quick)
    print(f"\ntotal bench time: {time.perf_counter() - began:,.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
