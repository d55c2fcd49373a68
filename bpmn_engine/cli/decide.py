"""`bpmn decide`: evaluate one DMN decision (or decision service) over variables, a thin layer
over `bpmn_engine.load_decisions`.

Exit codes as for the other commands: 0 the decision has a value (null included, when no
rule matched), 1 its evaluation failed (a hit policy violated, a value not allowed...), 2 a
file, the decision's name or a variable could not be used.
"""

from __future__ import annotations

import json
from typing import Any

import click
from rich.table import Table

from bpmn_engine import load_decisions
from bpmn_engine.cli.common import console, parse_variables, var_options
from bpmn_engine.cli.render import json_line
from bpmn_engine.exit_codes import ExitCode
from bpmn_engine.terminal import safe


@click.command()
@click.argument("files", nargs=-1, required=True, metavar="FILE.dmn [MORE.dmn...]")
@click.option(
    "--decision",
    "name",
    metavar="NAME",
    help="The decision or decision service to evaluate: its name or id.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Evaluate nothing: list every decision and BKM that does not compile (exit 1 if any).",
)
@var_options
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def decide(
    files: tuple[str, ...],
    name: str | None,
    check: bool,
    var_pairs: tuple[str, ...],
    vars_file: str | None,
    as_json: bool,
) -> None:
    """Evaluate a DMN decision: its required decisions first, then its table or expression.

    The other files may hold what the first imports (an import is also found by its
    locationURI beside the importing file). Inputs are given by input data name.

    Example: bpmn decide models/shipping-rules.dmn --decision "Shipping method"
    --var weight=12 --var destination=EU
    """
    if check:
        _check(files, as_json)
    if not name:
        raise click.UsageError("give --decision NAME (or --check)")
    variables = parse_variables(var_pairs, vars_file)
    decisions = load_decisions(*files)
    problem = decisions.does_not_compile(name)
    if problem is not None:  # the others may be fine: this one cannot be evaluated
        raise problem
    result = decisions.evaluate(name, variables)
    code = ExitCode.OK if result.ok else ExitCode.FAILED
    payload = result.to_json()
    if as_json:
        click.echo(json_line(payload))
        raise SystemExit(int(code))
    show(payload)
    raise SystemExit(int(code))


def _check(files: tuple[str, ...], as_json: bool) -> None:
    """Every element of the files that loads but does not compile, each on its own line."""
    unparsed = load_decisions(*files).unparsed()
    for u in unparsed:
        where = {"file": u.where.file, "line": u.where.line, "element": u.where.id}
        if as_json:
            click.echo(json_line({"event": "decision.unparsed", **where, "problem": u.problem}))
        else:
            console.print(f"{safe(str(u.where))}: {safe(u.problem)}", highlight=False)
    if not as_json:
        count = len(unparsed)
        console.print(
            "every decision and BKM compiles"
            if not count
            else f"{count} element{'s' if count > 1 else ''} do{'es' if count == 1 else ''} "
            "not compile: evaluating one fails, and so does what requires it",
            highlight=False,
        )
    raise SystemExit(int(ExitCode.FAILED if unparsed else ExitCode.OK))


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def show(payload: dict[str, Any]) -> None:
    """The decision, its value, the matched rules' outputs, the warnings and the error."""
    title = f"[bold]{safe(payload['decision'])}[/] ({safe(payload['id'])})"
    entries = payload["entries"]
    names = list(dict.fromkeys(k for entry in entries for k in entry))
    if len(entries) > 1 or len(names) > 1:
        table = Table(*(safe(n) for n in names), title=title, title_justify="left", box=None)
        for entry in entries:
            table.add_row(*(safe(_text(entry.get(n))) for n in names))
        console.print(table)
        console.print(f"value: {safe(_text(payload['value']))}", highlight=False)
    else:
        console.print(f"{title}: {safe(_text(payload['value']))}", highlight=False)
    for warning in payload["warnings"]:
        console.print(f"[yellow]warning:[/] {safe(warning)}", highlight=False)
    if payload["error"]:
        console.print(f"[red]failed:[/] {safe(payload['error'])}", highlight=False)
