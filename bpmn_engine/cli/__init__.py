"""The `bpmn` command line: a thin click layer over the public API of `bpmn_engine`.

`main.py` holds the group and the error handling, `common.py` the shared options and
helpers, one module per concern the commands (`run`, `inspect`, `events`, `deploy`, `step`,
`validate`), and `render.py` how runs look in a terminal and as JSON lines.
"""

from bpmn_engine.cli.main import cli, main

__all__ = ["cli", "main"]
