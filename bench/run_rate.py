"""Where a folder of diagrams stands: how many run, and what stops the others.

Run: python bench/run_rate.py FOLDER [FOLDER...] [--timeout SECONDS] [--show N] [--json]

Each `.bpmn` file (searched recursively) is run as a user would first try it, in a fresh
process: `bpmn run FILE --db :memory: --json`, nothing else given. A run that completes, or
waits where a user or the world must act (a user task, a message, a timer, a job for a
handler, a trigger), counts as running; a wait nothing can ever end (a join waiting for a
token that ended elsewhere: `"stuck": true`) does not. The others are grouped by the cause
that stopped them: the refusal before the first step (exit 2) or the incident (exit 1), with
names, numbers and quoted values blanked, so that forty files refused for one reason make
one line.
A crash (a traceback, a signal, no outcome) or a run past the timeout is a failure of the
engine and is listed by file. Figures only: nothing here passes or fails a build.

`bench/realworld-sources.tsv` lists the 200 diagrams of the sample measured for issue 25
(repository, path, commit; drawn every k-th file of each repository's listing, not by
outcome): the files themselves are not kept here (their licences are their projects'), so
a sample is rebuilt from that list.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = ("completed", "waiting")


def run_one(path: Path, timeout: float) -> tuple[str, str]:
    """(outcome, cause): outcome is completed, waiting, failed, refused, crashed or timeout."""
    paths = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "cli", "run", str(path.resolve()), "--db", ":memory:", "--json"],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=path.parent,
        )
    except subprocess.TimeoutExpired:
        return "timeout", f"still running after {timeout:g} s"
    if "Traceback" in done.stderr or done.returncode < 0:
        return "crashed", _first_line(done.stderr) or f"exit {done.returncode}"
    last = _last_json(done.stdout)
    if done.returncode == 2 or last is None:
        return "refused", _cause(_refusal(done.stderr))
    state = str(last.get("event", "")).removeprefix("instance.")
    if state == "failed":
        incident = str(last.get("incident") or "")
        return "failed", _cause(incident.partition(": ")[2] or incident)  # not the element
    if state in RUNS:
        reasons = sorted({str(w.get("reason") or "user task") for w in last.get("waiting_for", [])})
        return "stuck" if last.get("stuck") else state, ", ".join(reasons)
    return state or "unknown", ""


def _last_json(stdout: str) -> dict | None:
    """The run's outcome: its last `instance.*` line (a note about another process of the
    file, such as `process.not_started`, may follow it)."""
    for line in reversed(stdout.splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and str(value.get("event", "")).startswith("instance."):
            return value
    return None


def _first_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _refusal(stderr: str) -> str:
    """The message of `error: file:line: element: message`."""
    line = next((x for x in stderr.splitlines() if x.startswith("error:")), _first_line(stderr))
    parts = line.removeprefix("error:").strip().split(": ", 2)
    return parts[-1] if len(parts) == 3 else line


def _cause(message: str) -> str:
    """The message with what differs from file to file blanked."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", message)
    text = re.sub(r"\b_?[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b", "ID", text)
    text = re.sub(r"\(line \d+\)|line \d+", "line N", text)
    text = re.sub(r"\b\d+(\.\d+)?\b", "N", text)
    return text[:160]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--show", type=int, default=15, help="causes listed per kind")
    parser.add_argument("--json", action="store_true", help="one line per file")
    args = parser.parse_args()
    files = sorted(p for folder in args.folders for p in folder.rglob("*.bpmn") if p.is_file())
    if not files:
        sys.exit("no .bpmn files in " + ", ".join(map(str, args.folders)))
    outcomes: Counter[str] = Counter()
    causes: dict[str, Counter[str]] = defaultdict(Counter)
    engine_failures: list[tuple[Path, str, str]] = []
    began = time.perf_counter()
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:  # each run is its own process
        results = list(pool.map(lambda p: run_one(p, args.timeout), files))
    for path, (outcome, cause) in zip(files, results, strict=True):
        outcomes[outcome] += 1
        causes[outcome][cause] += 1
        if outcome in ("crashed", "timeout"):
            engine_failures.append((path, outcome, cause))
        if args.json:
            print(json.dumps({"file": str(path), "outcome": outcome, "cause": cause}))
    if args.json:
        return
    total = len(files)
    running = outcomes["completed"] + outcomes["waiting"]
    print(f"{total} diagrams in {time.perf_counter() - began:.1f} s")
    print(f"run (complete or wait as they should): {running} ({100 * running / total:.1f} %)")
    for outcome in ("completed", "waiting", "stuck", "failed", "refused", "crashed", "timeout"):
        if outcomes[outcome]:
            share = 100 * outcomes[outcome] / total
            print(f"  {outcome:<9} {outcomes[outcome]:>5}  {share:5.1f} %")
    titles = {
        "refused": "refused before the first step",
        "failed": "incidents",
        "waiting": "waiting for",
        "stuck": "stuck (waiting where no token can ever come) at",
    }
    for outcome, title in titles.items():
        if not causes[outcome]:
            continue
        print(f"\n{title}:")
        for cause, count in causes[outcome].most_common(args.show):
            print(f"  {count:>5}  {cause}")
    if engine_failures:
        print("\nthe engine's own failures (each one a bug):")
        for path, outcome, cause in engine_failures:
            print(f"  {outcome}: {path}: {cause}")


if __name__ == "__main__":
    main()
