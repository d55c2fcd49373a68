"""The `bpmn` command (`python -m cli`, or the `bpmn` script): see `bpmn_engine.cli`."""

from bpmn_engine.cli import cli, main

__all__ = ["cli", "main"]

if __name__ == "__main__":
    main()
