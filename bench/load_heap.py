"""Parse + compile time per element, in a fresh process and on a big heap, per checkout.

Run: python bench/load_heap.py [--heap fresh,objects,bench] [--repeat N] [--rounds N]
                                [--names seq_100,...] [CHECKOUT ...]

`targets.py`'s `measure_load` times `load(path)` inside `bench/run.py`, after the step
benchmarks and SpiffWorkflow, where it was twice as slow per element as in a fresh process.
This times the same thing (wall clock, best of --repeat, per flow node) in a child process per
(checkout, heap): `fresh` loads at once; `objects` first makes three million long-lived
objects (dicts, tuples, small instances: an old heap); `bench` first runs what `run.py` runs
before `measure_load` at small sizes (step benchmarks in every mode, instance starts,
SpiffWorkflow when installed). The checkouts (default: this one) take turns for --rounds
rounds, so a burst of load on a shared machine hits each alike. Also printed: the collector's
collections by generation during the last load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from load_compare import TIME_LOAD  # noqa: E402
from targets import element_count  # noqa: E402

CHILD = (
    TIME_LOAD
    + """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[4])
heap, repeat, names = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
work = Path(sys.argv[5])
keep = []
if heap == "objects":
    class Thing:
        __slots__ = ("a", "b")
        def __init__(self, a, b):
            self.a, self.b = a, b
    for i in range(1_000_000):
        keep.append(({"i": i}, (i, str(i)), Thing(i, [i])))
elif heap == "bench":
    import run
    for name in ("seq_1000", "par_1000", "loop_1000", "nested_100", "wide_or_1000"):
        keep.append(run.measure(name, work))
    keep.append(run.measure_start(1000, work))
    keep.append(run.measure_resume(1000, work))
    if run.spiff_available() is None:
        for name in ("seq_1000", "par_1000", "loop_1000"):
            keep.append(run.spiff_measure(name, work))
out = {}
for name in names:  # wall clock, as targets.measure_load takes it
    out[name] = time_load(work / (name + ".bpmn"), repeat, time.perf_counter)
print(json.dumps(out))
"""
)


def measure(checkout: Path, heap: str, names: list[str], repeat: int, work: Path) -> dict:
    """One child with `checkout` first on the path (run.py puts its own checkout first, so
    the child imports the checkout's bench/run.py, not this one's)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(checkout)
    bench = str(checkout / "bench")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, heap, str(repeat), ",".join(names), bench, str(work)],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="*", type=Path, default=[ROOT])
    parser.add_argument("--heap", default="fresh,objects")
    parser.add_argument("--names", default="seq_100,seq_1000,seq_10000,par_100,par_1000,par_10000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    names = args.names.split(",")
    heaps = args.heap.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        counts = {name: element_count(generate.write(name, work)) for name in names}
        best: dict[tuple[str, str, str], dict] = {}
        for _ in range(args.rounds):
            for heap in heaps:
                for checkout in args.checkouts:
                    result = measure(checkout.resolve(), heap, names, args.repeat, work)
                    for name, figures in result.items():
                        key = (str(checkout), heap, name)
                        if key not in best or figures["seconds"] < best[key]["seconds"]:
                            best[key] = figures
    print(f"{'diagram':<11}{'elements':>9}  {'heap':<8}{'checkout':<24}{'ms':>8}{'us/el':>8}  gc")
    for name in names:
        for heap in heaps:
            for checkout in args.checkouts:
                figures = best[(str(checkout), heap, name)]
                seconds = figures["seconds"]
                print(
                    f"{name:<11}{counts[name]:>9,}  {heap:<8}{str(checkout)[-23:]:<24}"
                    f"{seconds * 1000:>8.1f}{seconds / counts[name] * 1e6:>8.1f}  "
                    + "/".join(str(n) for n in figures["collections"])
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
