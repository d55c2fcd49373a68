"""The README's Python example runs as written (it did not: `charge` was never defined)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def test_the_python_api_example_runs_as_written(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [example] = [
        block
        for block in re.findall(r"```python\n(.*?)```", readme, re.S)
        if block.startswith("import bpmn_engine")
    ]
    shutil.copytree(ROOT / "models", tmp_path / "models")  # its paths are the checkout's
    check = '\nassert outcome.state == "completed", outcome\nprint("ran")\n'
    done = subprocess.run(
        [sys.executable, "-c", example + check],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ran"
