"""`bpmn render`: the diagram as SVG, drawn from its BPMN DI as the modeller drew it."""

from __future__ import annotations

from pathlib import Path

import click

from bpmn_engine.cli.common import errors
from bpmn_engine.diagram import picture
from bpmn_engine.errors import LoadError
from bpmn_engine.terminal import safe


@click.command()
@click.argument("file", metavar="FILE")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    help="Write the SVG here (default: standard output).",
)
@click.option("--process", "process_id", help="The process to draw (default: the first diagram).")
def render(file: str, output: str | None, process_id: str | None) -> None:
    """Draw a BPMN diagram as SVG, from its BPMN DI (laid out automatically without one).

    Example: bpmn render models/order-payment.bpmn -o order-payment.svg
    """
    drawn = picture(file, process_id)
    svg = drawn.svg()
    if drawn.automatic:
        errors.print(
            f"{safe(file)}: no diagram interchange (BPMN DI) for it: laid out automatically",
            highlight=False,
        )
    if output is None:
        click.echo(svg, nl=False)
        return
    try:
        Path(output).write_text(svg, encoding="utf-8")
    except OSError as error:
        raise LoadError(f"cannot write: {error.strerror or error}", file=output) from None
    click.echo(f"wrote {output}")
