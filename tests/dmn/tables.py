"""Building small DMN files for tests: one decision whose logic is a decision table."""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

from bpmn_engine import dmn

NAMESPACES = {
    "1.1": "http://www.omg.org/spec/DMN/20151101/dmn.xsd",
    "1.2": "http://www.omg.org/spec/DMN/20180521/MODEL/",
    "1.3": "https://www.omg.org/spec/DMN/20191111/MODEL/",
    "1.4": "https://www.omg.org/spec/DMN/20211108/MODEL/",
    "1.5": "https://www.omg.org/spec/DMN/20230324/MODEL/",
}


def table_xml(
    hit_policy: str,
    inputs: list[str],
    outputs: list[str | tuple[str, str]],
    rules: list[tuple[list[str], list[str]]],
    *,
    aggregation: str | None = None,
    input_values: dict[int, str] | None = None,
    defaults: dict[int, str] | None = None,
) -> str:
    """A decisionTable element. An output is a name, or (name, output values)."""
    aggregated = f' aggregation="{aggregation}"' if aggregation else ""
    parts = [f'<decisionTable id="table" hitPolicy="{hit_policy}"{aggregated}>']
    for index, expression in enumerate(inputs):
        values = (input_values or {}).get(index)
        allowed = f"<inputValues><text>{escape(values)}</text></inputValues>" if values else ""
        parts.append(
            f'<input id="input{index + 1}" label="{escape(expression)}"><inputExpression>'
            f"<text>{escape(expression)}</text></inputExpression>{allowed}</input>"
        )
    for index, output in enumerate(outputs):
        name, values = (output, None) if isinstance(output, str) else output
        inner = f"<outputValues><text>{escape(values)}</text></outputValues>" if values else ""
        default = (defaults or {}).get(index)
        if default:
            inner += f"<defaultOutputEntry><text>{escape(default)}</text></defaultOutputEntry>"
        parts.append(f'<output id="output{index + 1}" name="{name}">{inner}</output>')
    for number, (tests, results) in enumerate(rules, 1):
        cells = "".join(f"<inputEntry><text>{escape(t)}</text></inputEntry>" for t in tests)
        cells += "".join(f"<outputEntry><text>{escape(r)}</text></outputEntry>" for r in results)
        parts.append(f'<rule id="rule{number}">{cells}</rule>')
    parts.append("</decisionTable>")
    return "".join(parts)


def decision_file(
    tmp_path: Path, logic: str, *, version: str = "1.3", extra: str = "", name: str = "d.dmn"
) -> Path:
    """A DMN file with decision `decision` ("Decision") holding `logic`."""
    path = tmp_path / name
    path.write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<definitions xmlns="{NAMESPACES[version]}" '
        'xmlns:camunda="http://camunda.org/schema/1.0/dmn" id="defs" name="Test" '
        'namespace="http://example.com/test">\n'
        f'<decision id="decision" name="Decision">\n{logic}\n</decision>\n{extra}\n'
        "</definitions>\n"
    )
    return path


def unparsed(path: Path) -> str:
    """The one element of the file that does not compile, as `bpmn decide --check` shows it:
    the file loads all the same, and evaluating that element fails with this."""
    [found] = dmn.load(path).unparsed()
    return f"{found.where}: {found.problem}"
