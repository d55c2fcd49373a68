"""`bpmn render`: the diagram as SVG or HTML, drawn from its BPMN DI as the modeller drew it,
with an instance's tokens and history, or coverage over a database, painted on."""

from __future__ import annotations

import json
from pathlib import Path

import click
from lxml import etree

from bpmn_engine import Engine, UsageError, load
from bpmn_engine.cli.common import console, db_option, errors
from bpmn_engine.diagram import (
    coverage_marks,
    instance_page,
    instance_svg,
    page,
    paint,
    picture,
)
from bpmn_engine.terminal import safe
from bpmn_engine.testkit import Coverage
from bpmn_engine.userfiles import write_user_file


@click.command()
@click.argument("file", metavar="[FILE]", required=False)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    help="Write here: OUT.svg, or OUT.html (a page with a legend; default: SVG on stdout).",
)
@click.option("--process", "process_id", help="The process to draw (default: the first diagram).")
@click.option(
    "--instance", "instance_id", help="Paint this instance: tokens, history, waits, incident."
)
@click.option(
    "--coverage",
    "with_coverage",
    is_flag=True,
    help="Paint how often every instance of FILE's processes in --db reached each element.",
)
@click.option("--json", "as_json", is_flag=True, help="With --coverage: the figures as JSON.")
@db_option
def render(
    file: str | None,
    output: str | None,
    process_id: str | None,
    instance_id: str | None,
    with_coverage: bool,
    as_json: bool,
    db: str,
) -> None:
    """Draw a BPMN diagram as SVG, from its BPMN DI (laid out automatically without one).

    With --instance ID (FILE optional: else the definitions the instance runs are drawn) the
    tokens, completed elements, taken flows, visits, waits and incident are painted on;
    with --coverage, a heat map over every instance of FILE's processes in --db.

    Example: bpmn render models/order-payment.bpmn -o order-payment.svg
    """
    if instance_id is not None and with_coverage:
        raise click.UsageError("give --instance or --coverage, not both")
    if instance_id is not None and process_id is not None:
        raise click.UsageError("--process chooses what to draw of FILE: the instance names its own")
    if as_json and not with_coverage:
        raise click.UsageError("--json gives the coverage figures: it goes with --coverage")
    html = output is not None and output.lower().endswith((".html", ".htm"))
    if instance_id is not None:
        engine = Engine(db, read_only=True)
        instance = engine.instance(instance_id)
        if html:
            _write(output, instance_page(instance, file=file))
        else:
            svg = instance_svg(instance, file)
            _write(output, etree.tostring(svg, encoding="unicode") + "\n")
        return
    if file is None:
        raise click.UsageError("give a FILE to draw (or --instance ID)")
    drawn = picture(file, process_id)
    if drawn.automatic:
        errors.print(
            f"{safe(file)}: no diagram interchange (BPMN DI) for it: laid out automatically",
            highlight=False,
        )
    if not with_coverage:
        _write(output, drawn.svg() if not html else page(Path(file).name, drawn.element()))
        return
    summary, figures, marks = _coverage(file, db)
    svg = paint(drawn.element(), marks)
    if as_json:
        click.echo(json.dumps(figures))
    else:
        console.print(safe(summary[0]), highlight=False)
    if output is None:  # the figures, never SVG after them on the terminal (or in a pipe)
        if not as_json:
            for line in summary[1:]:
                console.print(safe(line), highlight=False)
            console.print("draw it: add -o coverage.svg (or .html)", highlight=False)
        return
    if html:
        _write(output, page(f"coverage of {Path(file).name}", svg, summary=summary, legend=False))
    else:
        _write(output, etree.tostring(svg, encoding="unicode") + "\n")


def _coverage(file: str, db: str) -> tuple[list[str], dict, object]:
    """What every instance of the file's processes in the database reached."""
    definitions = load(file)
    engine = Engine(db, read_only=True)
    coverage = Coverage()
    runs = 0
    for row in engine.instances():
        if row["process"] in definitions.processes:
            instance = engine.instance(row["id"])
            coverage.add_run(definitions, instance.history())
            runs += 1
    [diagram] = coverage.diagrams.values() if coverage.diagrams else [None]
    if diagram is None:
        raise UsageError(f"no instance of {', '.join(definitions.processes)} in {db}")
    figures = {"file": file, "instances": runs, **diagram.to_json()}
    figures.pop("diagram")
    summary = [
        f"coverage: {diagram.percent:.1f}% over {runs} instance(s) "
        f"({len(diagram.reached_elements)}/{len(diagram.elements)} elements, "
        f"{len(diagram.reached_flows)}/{len(diagram.flows)} flows)"
    ]
    if diagram.missed_elements:
        summary.append("not reached: " + ", ".join(diagram.missed_elements))
    return summary, figures, coverage_marks(dict(diagram.element_hits), dict(diagram.flow_hits))


def _write(output: str | None, text: str) -> None:
    if output is None:
        click.echo(text, nl=False)
        return
    write_user_file(output, text)
    console.print(f"wrote {safe(output)}", highlight=False)
