"""Load test of issue 16: N `bpmn worker` processes on one PostgreSQL, exactly once.

    python bench/pg_load.py [--instances M] [--workers 1,2,4] [--url postgresql://...]

Starts a throwaway PostgreSQL cluster (tests/postgresql_server.py's, from the binaries found
here) unless `--url` names a server, and for each N runs N workers as separate processes
(`python -m cli worker --db postgresql://...`, this checkout's code) on a fresh schema:

- **three tasks**: the workers wait idle; this process starts M instances of start -> 3
  service tasks -> end (`Engine.start`, which commits the opening step and leaves the
  instance to the workers, whom the commit's NOTIFY wakes);
- **message**: M instances wait at a message catch event (then 3 service tasks); this
  process publishes M messages (`Engine.publish_message`, correlating without running on);
- **fault** (N = 2 only, three tasks): one worker runs on a host of its own (a UTS
  namespace with another host name, when `unshare` is allowed: no pid check across hosts)
  and is killed with SIGKILL mid-run; the other takes its work over after the lease.

Rate = M / (first start or publish -> last instance completed). Afterwards, from the rows
and from the handlers' log (one line per call, appended with O_APPEND as the call begins):
every element completed exactly once per instance, every handler called once (fault: at
most once more for the job the killed worker was running, and then that job was claimed
twice: attempt 2), no job claimed twice (`job.started` once per task), no lease lost
(the workers' summaries: no lease released, no job given up). Figures only: it prints the
table and exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import mkdtemp
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from bpmn_engine import Engine, load  # noqa: E402

HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" '
    'targetNamespace="t">\n<message id="m" name="go"/>\n'
)
TASKS = (
    '<serviceTask id="Task_1" implementation="noop"/>'
    '<serviceTask id="Task_2" implementation="noop"/>'
    '<serviceTask id="Task_3" implementation="noop"/><endEvent id="End"/>'
    '<sequenceFlow id="f1" sourceRef="Task_1" targetRef="Task_2"/>'
    '<sequenceFlow id="f2" sourceRef="Task_2" targetRef="Task_3"/>'
    '<sequenceFlow id="f3" sourceRef="Task_3" targetRef="End"/>'
)
MODELS = {
    "three tasks": '<startEvent id="Start"/>'
    '<sequenceFlow id="f0" sourceRef="Start" targetRef="Task_1"/>' + TASKS,
    "message": '<startEvent id="Start"/><sequenceFlow id="f0" sourceRef="Start" targetRef="Go"/>'
    '<intermediateCatchEvent id="Go"><messageEventDefinition messageRef="m"/>'
    '</intermediateCatchEvent><sequenceFlow id="fm" sourceRef="Go" targetRef="Task_1"/>' + TASKS,
}
ELEMENTS = {
    "three tasks": {"Start", "Task_1", "Task_2", "Task_3", "End"},
    "message": {"Start", "Go", "Task_1", "Task_2", "Task_3", "End"},
}
HANDLERS = '''"""The load test's handler: one line per call, appended as the call begins."""
import os
import time

_LOG = os.open(os.environ["BENCH_HANDLER_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
_PAUSE = float(os.environ.get("BENCH_HANDLER_PAUSE", "0"))


def noop(ctx):
    os.write(_LOG, f"{ctx.instance_id} {ctx.element_id} {ctx.attempt} {os.getpid()}\\n".encode())
    if _PAUSE:
        time.sleep(_PAUSE)
'''


@dataclass
class Run:
    """One scenario with N workers: what happened, and what the checks found."""

    scenario: str
    workers: int
    instances: int
    seconds: float = 0.0
    completed: int = 0
    summaries: list[dict[str, Any]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.completed / self.seconds if self.seconds else 0.0

    def total(self, key: str) -> int:
        return sum(int(s.get(key, 0)) for s in self.summaries)


def schema_url(server: str, schema: str) -> str:
    joiner = "&" if "?" in server else "?"
    return f"{server}{joiner}options={quote(f'-csearch_path={schema}', safe='')}"


def fresh_schema(server: str) -> str:
    schema = f"load_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    return schema_url(server, schema)


def can_unshare() -> bool:
    """Whether a worker can be put on a host of its own (a UTS namespace: root, Linux)."""
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "--uts", "sh", "-c", "hostname bench-other-host"], capture_output=True
    )
    return probe.returncode == 0


def start_worker(
    url: str, work: Path, index: int, env: dict[str, str], lease: float, other_host: bool
) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "cli", "worker", "--db", url, "--json"]
    command += ["--handlers", str(work / "handlers.py"), "--poll", "1", "--lease", str(lease)]
    if other_host:  # the same code on a host named otherwise: leases, not pids, decide
        inner = " ".join(f"'{c}'" for c in command)
        command = ["unshare", "--uts", "sh", "-c", f"hostname bench-host-{index} && exec {inner}"]
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=(work / f"worker-{index}.out").open("wb"),
        stderr=(work / f"worker-{index}.err").open("wb"),
    )


def listening(conn: psycopg.Connection, workers: int) -> None:
    """Wait until every worker has looked for work once and waits, listening (its last
    statement on its listening connection is the LISTEN)."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN bpmn_work'"
        ).fetchone()
        if row and row[0] >= workers:
            return
        time.sleep(0.05)
    raise RuntimeError("the workers did not start listening within 5 minutes")


def in_handler(log: Path, process: subprocess.Popen[bytes]) -> bool:
    """Whether the process has begun a handler call (its 2-second pause) in the last second."""
    if not log.exists() or time.time() - log.stat().st_mtime > 1.0:
        return False
    lines = log.read_text().splitlines()
    return bool(lines) and lines[-1].endswith(f" {process.pid}")


def completed(conn: psycopg.Connection) -> int:
    row = conn.execute("SELECT count(*) FROM instances WHERE state = 'completed'").fetchone()
    return int(row[0]) if row else 0


def run_scenario(
    server: str, scenario: str, workers: int, instances: int, work: Path, fault: bool = False
) -> Run:
    run = Run(scenario + (" + SIGKILL" if fault else ""), workers, instances)
    url = fresh_schema(server)
    log = work / "calls.log"
    log.unlink(missing_ok=True)
    model = work / "model.bpmn"
    body = MODELS[scenario]
    model.write_text(
        f'{HEADER}<process id="p" isExecutable="true">{body}</process>\n</definitions>'
    )
    (work / "handlers.py").write_text(HANDLERS)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BENCH_HANDLER_LOG": str(log)}
    lease = 60.0
    if fault:
        lease = 3.0
    definitions = load(model)
    engine = Engine(url)
    engine.deploy(definitions)
    if scenario == "message":  # the instances wait for their messages before the clock runs
        for _ in range(instances):
            engine.start(definitions).run()
    other_host = fault and can_unshare()
    if fault:
        run.notes.append(
            "the killed worker ran on a host of its own (UTS namespace): taken over after the lease"
            if other_host
            else "unshare not allowed: the killed worker was on this host (taken over at "
            "once: its pid is gone)"
        )
    processes = [
        start_worker(
            url,
            work,
            i,
            # the worker to be killed spends its time in handlers: the kill lands in one
            {**env, "BENCH_HANDLER_PAUSE": "2"} if fault and i == 0 else env,
            lease,
            other_host and i == 0,
        )
        for i in range(workers)
    ]
    watcher = psycopg.connect(url, autocommit=True)
    try:
        listening(watcher, workers)  # their start-up is not part of the rate
        began = time.monotonic()
        for _ in range(instances):
            if scenario == "message":
                engine.publish_message("go")
            else:
                engine.start(definitions)
        killed = False
        deadline = time.monotonic() + max(120.0, instances * 0.5)
        while (done := completed(watcher)) < instances and time.monotonic() < deadline:
            if fault and not killed and done >= instances // 3 and in_handler(log, processes[0]):
                processes[0].send_signal(signal.SIGKILL)
                processes[0].wait()
                killed = True
            time.sleep(0.02)
        run.seconds = time.monotonic() - began
        run.completed = done
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            process.wait(timeout=60)
    for index in range(workers):
        lines = (work / f"worker-{index}.out").read_text().splitlines()
        summary = [json.loads(x) for x in lines if '"worker.stopped"' in x]
        run.summaries += summary
        errors = (work / f"worker-{index}.err").read_text().strip()
        if errors:
            run.failures.append(f"worker {index} stderr: {errors.splitlines()[-1]}")
    check(run, watcher, log, scenario, fault)
    watcher.close()
    engine.close()
    return run


def check(run: Run, conn: psycopg.Connection, log: Path, scenario: str, fault: bool) -> None:
    """The exactly-once checks, from the rows and the handlers' log."""
    ids = [r[0] for r in conn.execute("SELECT id FROM instances")]
    if run.completed != run.instances or len(ids) != run.instances:
        run.failures.append(f"{run.completed} of {run.instances} instances completed")
    elements = Counter(
        (r[0], r[1])
        for r in conn.execute(
            "SELECT instance, element FROM history WHERE event = 'element.completed'"
        )
    )
    wrong = [
        (i, e, elements[(i, e)]) for i in ids for e in ELEMENTS[scenario] if elements[(i, e)] != 1
    ]
    if wrong or len(elements) != len(ids) * len(ELEMENTS[scenario]):
        run.failures.append(f"elements not completed exactly once: {wrong[:3]}")
    claims = Counter(
        (r[0], r[1])
        for r in conn.execute("SELECT instance, element FROM history WHERE event = 'job.started'")
    )
    calls = (
        Counter(tuple(line.split()[:2]) for line in log.read_text().splitlines())
        if log.exists()
        else Counter()
    )
    jobs = {(i, f"Task_{k}") for i in ids for k in (1, 2, 3)}
    if set(calls) != jobs:
        run.failures.append(f"handlers not called for {len(jobs - set(calls))} jobs")
    twice = {job for job, n in claims.items() if n > 1}
    doubled = {job for job, n in calls.items() if n > 1}
    if not fault:
        if twice:
            run.failures.append(f"{len(twice)} jobs claimed twice")
        if doubled:
            run.failures.append(f"{len(doubled)} handlers called twice")
        if run.total("leases_released") or run.total("jobs_given_up"):
            run.failures.append("a lease was lost")
        return
    # a kill mid-handler: that one job is claimed again (attempt 2) and its handler called
    # again, and nothing else is
    if len(twice) > 1 or not doubled <= twice:
        run.failures.append(
            f"after the kill: {len(twice)} jobs claimed again, {len(doubled)} doubled"
        )
    run.notes.append(
        f"jobs taken over from the killed worker: {len(twice)}, handler calls repeated: "
        f"{len(doubled)}, leases released by the survivor: {run.total('leases_released')}"
    )


def server_or_reason(url: str | None) -> tuple[str | None, str]:
    """A PostgreSQL server: `url`, else a throwaway cluster from the binaries found here;
    or None and why not."""
    if url is not None:
        return url, ""
    sys.path.insert(0, str(ROOT))
    from tests.postgresql_server import binaries, start_cluster

    found = binaries()
    if found is None:
        return None, "no PostgreSQL binaries here (initdb, pg_ctl): give --url"
    return start_cluster(found), ""


def measure(
    server: str,
    instances: int,
    counts: list[int],
    scenarios: tuple[str, ...] = tuple(MODELS),
    fault: bool = True,
) -> list[Run]:
    """Each scenario with each number of workers (and the fault run), printed as it ends."""
    work = Path(mkdtemp(prefix="bpmn-pg-load-"))
    runs: list[Run] = []
    try:
        for scenario in scenarios:
            for n in counts:
                runs.append(run_scenario(server, scenario, n, instances, work))
                print_run(runs[-1])
        if fault:
            runs.append(run_scenario(server, "three tasks", 2, instances, work, fault=True))
            print_run(runs[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return runs


def print_table(runs: list[Run]) -> None:
    print("| scenario | workers | instances | seconds | instances/s | conflicts | woken | checks |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in runs:
        verdict = "exactly once" if not r.failures else "FAILED: " + "; ".join(r.failures)
        print(
            f"| {r.scenario} | {r.workers} | {r.instances} | {r.seconds:.2f} | {r.rate:.1f} "
            f"| {r.total('conflicts')} | {r.total('woken')} | {verdict} |"
        )
    for r in runs:
        for note in r.notes:
            print(f"- {r.scenario}, {r.workers} workers: {note}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=200)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--url", help="a PostgreSQL server to use instead of a throwaway one")
    parser.add_argument("--no-fault", action="store_true")
    args = parser.parse_args()
    server, why = server_or_reason(args.url)
    if server is None:
        print(why, file=sys.stderr)
        return 2
    counts = [int(n) for n in args.workers.split(",")]
    runs = measure(server, args.instances, counts, fault=not args.no_fault)
    print()
    print(f"machine: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} at the end")
    print_table(runs)
    return 1 if any(r.failures for r in runs) else 0


def print_run(run: Run) -> None:
    status = "ok" if not run.failures else "FAILED " + "; ".join(run.failures)
    print(
        f"{run.scenario:>22} N={run.workers}: {run.completed}/{run.instances} in "
        f"{run.seconds:.2f} s = {run.rate:.1f}/s ({status})",
        file=sys.stderr,
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
