"""`bpmn test`: run scenario files (`*.bpmntest.toml`) and report like pytest does.

Exit codes: 0 every scenario passed (and coverage reached `--fail-under`), 1 a scenario
failed or could not run, or coverage fell short, 2 a scenario file could not be read or
nothing was found to run.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import click

from bpmn_engine import LoadError
from bpmn_engine.cli.common import console, path_option
from bpmn_engine.cli.render import json_line
from bpmn_engine.exit_codes import ExitCode
from bpmn_engine.terminal import safe, visible
from bpmn_engine.testkit import (
    SUFFIX,
    Coverage,
    Scenario,
    ScenarioResult,
    find_scenario_files,
    load_scenarios,
    run_scenario,
)
from bpmn_engine.userfiles import write_user_file

MARKS = {"passed": ".", "failed": "F", "error": "E"}


@click.command()
@click.argument("paths", nargs=-1, metavar="[PATH...]")
@click.option("-k", "keyword", metavar="TEXT", help="Only scenarios whose name holds TEXT.")
@click.option("-x", "--exitfirst", is_flag=True, help="Stop after the first failure.")
@click.option("--coverage", "with_coverage", is_flag=True, help="Report path coverage per diagram.")
@click.option(
    "--fail-under",
    type=click.FloatRange(0, 100),
    metavar="PERCENT",
    help="Exit 1 when less than PERCENT of elements and flows were reached (implies --coverage).",
)
@click.option(
    "--junit-xml", "junit", type=click.Path(dir_okay=False), help="Write a JUnit XML report here."
)
@click.option(
    "--json", "as_json", is_flag=True, help="JSON lines: one per scenario, then a summary."
)
@path_option
def test(
    paths: tuple[str, ...],
    keyword: str | None,
    exitfirst: bool,
    with_coverage: bool,
    fail_under: float | None,
    junit: str | None,
    as_json: bool,
    search_path: tuple[str, ...],
) -> None:
    """Run the scenario files (*.bpmntest.toml) in PATHs (default: this folder, recursively).

    Each scenario runs in a fresh in-memory engine on a clock that moves only when the
    scenario advances it; see docs/testing.md for the format.

    Example: bpmn test models/ --coverage
    """
    began = time.perf_counter()
    files = find_scenario_files([Path(p) for p in paths or ["."]])
    if not files:
        raise click.UsageError(f"no scenario files (*{SUFFIX}) in {', '.join(paths or ['.'])}")
    suite: list[tuple[Path, list[ScenarioResult]]] = []
    broken: list[LoadError] = []
    stop = False
    for file in files:
        try:
            scenarios = load_scenarios(file)
        except LoadError as error:
            broken.append(error)
            _emit_broken(error, as_json)
            continue
        chosen = [s for s in scenarios if keyword is None or keyword in s.name]
        results = []
        for scenario in chosen:
            result = run_scenario(scenario, search_path)
            results.append(result)
            if as_json:
                click.echo(json_line(_scenario_json(result)))
            if exitfirst and not result.passed:
                stop = True
                break
        if chosen and not as_json:
            marks = "".join(MARKS[r.outcome] for r in results)
            console.print(f"{safe(file)} {marks}", highlight=False)
        suite.append((file, results))
        if stop:
            break
    results = [r for _, rs in suite for r in rs]
    coverage = Coverage()
    for result in results:
        coverage.merge(result.coverage)
    seconds = time.perf_counter() - began
    if junit:
        _write_junit(Path(junit), suite, broken)
    short = fail_under is not None and coverage.percent < fail_under
    reported = coverage if with_coverage or fail_under is not None else None
    if as_json:
        for diagram in reported.diagrams.values() if reported else ():
            click.echo(json_line({"event": "coverage", **diagram.to_json()}))
        click.echo(json_line(_summary_json(results, broken, reported, seconds, fail_under)))
    else:
        _show_failures(results)
        if reported is not None:
            _show_coverage(reported, fail_under)
        _show_summary(results, broken, seconds, coverage.percent if short else None)
    if broken:
        raise SystemExit(int(ExitCode.BAD_INPUT))
    if not results:
        raise click.UsageError(f"no scenario matches -k {keyword!r}" if keyword else "no scenarios")
    failed = any(not r.passed for r in results)
    raise SystemExit(int(ExitCode.FAILED if failed or short else ExitCode.OK))


def _emit_broken(error: LoadError, as_json: bool) -> None:
    if as_json:
        click.echo(json_line({"event": "file.error", "file": error.file, "error": str(error)}))
    else:
        console.print(f"[red]error:[/] {safe(error)}", highlight=False)


def _counts(results: list[ScenarioResult]) -> dict[str, int]:
    counts = {"passed": 0, "failed": 0, "error": 0}
    for result in results:
        counts[result.outcome] += 1
    return counts


def _scenario_json(result: ScenarioResult) -> dict[str, Any]:
    scenario = result.scenario
    return {
        "event": f"scenario.{result.outcome}",
        "file": str(scenario.file),
        "line": scenario.line,
        "name": scenario.name,
        "failures": result.failures,
        "path": result.path,
        "waiting_at": result.waiting,
        "seconds": round(result.seconds, 4),
    }


def _summary_json(
    results: list[ScenarioResult],
    broken: list[LoadError],
    coverage: Coverage | None,
    seconds: float,
    fail_under: float | None,
) -> dict[str, Any]:
    summary: dict[str, Any] = {"event": "summary", **_counts(results), "files_broken": len(broken)}
    summary["seconds"] = round(seconds, 3)
    if coverage is not None:
        summary["coverage_percent"] = round(coverage.percent, 1)
    if fail_under is not None:
        summary["fail_under"] = fail_under
    return summary


def _show_failures(results: list[ScenarioResult]) -> None:
    failing = [r for r in results if not r.passed]
    if not failing:
        return
    console.print()
    console.print("[bold red]failures[/]", highlight=False)
    for result in failing:
        title = f"{result.scenario.file}:{result.scenario.line}: {result.scenario.name}"
        console.print(f"[bold]{safe(title)}[/] ({result.outcome})", highlight=False)
        for line in result.report().splitlines():
            console.print(f"  {safe(line)}", highlight=False)


def _show_coverage(coverage: Coverage, fail_under: float | None) -> None:
    console.print()
    console.print("[bold]coverage[/] (elements and sequence flows reached)", highlight=False)
    for diagram in coverage.diagrams.values():
        elements = f"{len(diagram.reached_elements)}/{len(diagram.elements)} elements"
        flows = f"{len(diagram.reached_flows)}/{len(diagram.flows)} flows"
        console.print(
            f"  {safe(diagram.path)}: {diagram.percent:.1f}% ({elements}, {flows})", highlight=False
        )
        if diagram.missed_elements:
            console.print(
                f"    not reached: {safe(', '.join(diagram.missed_elements))}", highlight=False
            )
        if diagram.missed_flows:
            console.print(
                f"    flows not taken: {safe(', '.join(diagram.missed_flows))}", highlight=False
            )
    total = f"  total: {coverage.percent:.1f}%"
    if fail_under is not None:
        verdict = "below" if coverage.percent < fail_under else "at or above"
        total += f", {verdict} --fail-under {fail_under:g}"
    console.print(total, highlight=False)


def _show_summary(
    results: list[ScenarioResult],
    broken: list[LoadError],
    seconds: float,
    short_of: float | None = None,
) -> None:
    """The last line, in red whenever the exit code is not 0 (`short_of`: the coverage
    that fell below --fail-under: "3 passed" alone read as success while the exit was 1)."""
    counts = _counts(results)
    parts = [f"{n} {word}" for word, n in counts.items() if n]
    if broken:
        parts.append(f"{len(broken)} file(s) could not be read")
    if short_of is not None:
        parts.append(f"coverage {short_of:.1f}% below --fail-under")
    passing = not broken and counts["failed"] == counts["error"] == 0 and short_of is None
    colour = "green" if passing else "red"
    text = ", ".join(parts) or "no scenarios ran"
    console.print(f"[{colour}]{text} in {seconds:.2f}s[/]", highlight=False)


def _write_junit(
    path: Path, suite: list[tuple[Path, list[ScenarioResult]]], broken: list[LoadError]
) -> None:
    """One testsuite per scenario file, as CI servers read pytest's --junit-xml."""
    root = ElementTree.Element("testsuites")
    for file, results in suite:
        counts = _counts(results)
        element = ElementTree.SubElement(
            root,
            "testsuite",
            name=str(file),
            tests=str(len(results)),
            failures=str(counts["failed"]),
            errors=str(counts["error"]),
            time=f"{sum(r.seconds for r in results):.3f}",
        )
        for result in results:
            case = ElementTree.SubElement(
                element,
                "testcase",
                classname=_classname(result.scenario),
                name=visible(result.scenario.name),  # XML 1.0 cannot hold control characters
                file=str(file),
                line=str(result.scenario.line),
                time=f"{result.seconds:.3f}",
            )
            if not result.passed:
                tag = "failure" if result.outcome == "failed" else "error"
                first = result.failures[0] if result.failures else ""
                detail = ElementTree.SubElement(case, tag, message=visible(first))
                detail.text = visible(result.report())
    for error in broken:
        element = ElementTree.SubElement(
            root, "testsuite", name=str(error.file), tests="1", failures="0", errors="1", time="0"
        )
        case = ElementTree.SubElement(
            element, "testcase", classname="bpmntest", name=str(error.file)
        )
        ElementTree.SubElement(case, "error", message=str(error)).text = str(error)
    ElementTree.indent(root)
    text = ElementTree.tostring(root, encoding="unicode", xml_declaration=True)
    write_user_file(path, text + "\n")


def _classname(scenario: Scenario) -> str:
    return scenario.file.name.removesuffix(SUFFIX)
