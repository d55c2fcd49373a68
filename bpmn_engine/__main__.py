"""`python -m bpmn_engine`: the `bpmn` command, wherever the package is installed."""

from bpmn_engine.cli import main

if __name__ == "__main__":
    main()
