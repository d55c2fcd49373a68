"""Parse + compile time per element of two checkouts, measured in the same run.

Run: python bench/load_compare.py OTHER_CHECKOUT [NAME ...] [--repeat N] [--rounds N]
     e.g. python bench/load_compare.py /work/main seq_1000 par_1000 seq_10000 par_10000

Times `bpmn_engine.load(path)` (best of --repeat, CPU time of the process) on the synthetic
diagrams of generate.py, in a child process per checkout: this one and OTHER_CHECKOUT, each
first on PYTHONPATH. The checkouts take turns for --rounds rounds, so a burst of load on a
shared machine hits both alike. Per element is per flow node, as targets.py counts them (the
issue's "<= 20 us per element"). Also printed: the cyclic garbage collector's collections
during one load, by generation (what made par_N grow faster than linearly).
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
from targets import element_count  # noqa: E402

# the child's measurement (shared with load_heap.py): the best of `repeat` loads by `clock`,
# and the collector's collections by generation during one more load
TIME_LOAD = """
import gc, time
from bpmn_engine import load
def time_load(path, repeat, clock):
    load(path)
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        began = clock()
        load(path)
        best = min(best, clock() - began)
    counts = [0, 0, 0]
    def count(phase, info):
        if phase == "start":
            counts[info["generation"]] += 1
    gc.collect()
    gc.callbacks.append(count)
    load(path)
    gc.callbacks.remove(count)
    return {"seconds": best, "collections": counts}
"""
# run in the child: CPU time of the process
CHILD = (
    TIME_LOAD
    + """
import json, sys
print(json.dumps(time_load(sys.argv[1], int(sys.argv[2]), time.process_time)))
"""
)


def measure(checkout: Path, path: Path, repeat: int) -> dict[str, object]:
    """One child process with `checkout` first on PYTHONPATH (run beside the diagram: `-c`
    puts the working directory before PYTHONPATH)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(checkout), env.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(repeat)],
        env=env,
        cwd=path.parent,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="the checkout to compare with, e.g. /work/main")
    parser.add_argument("names", nargs="*", default=["seq_1000", "par_1000"])
    parser.add_argument("--repeat", type=int, default=5, help="loads per timing (best counts)")
    parser.add_argument("--rounds", type=int, default=2, help="turns of each checkout")
    args = parser.parse_args(argv)
    checkouts = {"this": ROOT, "other": args.other.resolve()}
    with tempfile.TemporaryDirectory() as work:
        print(f"this: {ROOT}\nother: {checkouts['other']}")
        print(
            f"{'diagram':<11}{'elements':>9}  {'checkout':<8}{'ms':>9}{'us/element':>12}  gc 0/1/2"
        )
        for name in args.names:
            path = generate.write(name, Path(work))
            elements = element_count(path)
            best: dict[str, dict[str, object]] = {}
            for _ in range(args.rounds):
                for label, checkout in checkouts.items():
                    result = measure(checkout, path, args.repeat)
                    seconds = float(result["seconds"])  # type: ignore[arg-type]
                    if label not in best or seconds < float(best[label]["seconds"]):  # type: ignore[arg-type]
                        best[label] = result
            for label, result in best.items():
                seconds = float(result["seconds"])  # type: ignore[arg-type]
                collections = "/".join(str(n) for n in result["collections"])  # type: ignore[attr-defined]
                print(
                    f"{name:<11}{elements:>9,}  {label:<8}{seconds * 1000:>9.1f}"
                    f"{seconds / elements * 1e6:>12.1f}  {collections}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
