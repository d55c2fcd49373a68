"""Scenario files are checked as they are read: every complaint names the file and the line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bpmn_engine import LoadError
from bpmn_engine.testkit import load_scenarios

LOAN = 'diagram = "loan-approval.bpmn"\n'


def refusal(write: Callable[[str], Path], text: str) -> str:
    path = write(text)
    with pytest.raises(LoadError) as caught:
        load_scenarios(path)
    message = str(caught.value)
    assert message.startswith(str(path)), message
    return message.removeprefix(str(path))


def test_a_full_scenario_is_read_with_the_files_defaults(scenario_file) -> None:
    path = scenario_file(
        LOAN
        + "variables = { income = 4200 }\n"
        + "answers = { Task_ManualReview = { reviewOk = true } }\n"
        + '[[scenario]]\nname = "one"\nvariables = { amount = 5000 }\n'
        + '[[scenario.steps]]\nmessage = "go"\nkey = "k-1"\nvariables = { n = 1 }\n'
        + '[[scenario.steps]]\nadvance = "PT5M"\nexpect = { state = "waiting" }\n'
        + "[scenario.mocks.charge]\n"
        + 'calls = [{ returns = { ok = true } }, { error = "E", message = "m" }]\n'
        + '[scenario.expect]\nstate = "completed"\npassed = "Task_Decide"\n'
    )
    [scenario] = load_scenarios(path)
    assert scenario.name == "one"
    assert scenario.diagrams == (path.parent / "loan-approval.bpmn",)
    assert scenario.variables == {"amount": 5000}  # the scenario's own replace the file's
    assert scenario.answers == {"Task_ManualReview": {"reviewOk": True}}
    message, advance = scenario.steps
    assert (message.kind, message.target, message.key, message.variables) == (
        "message",
        "go",
        "k-1",
        {"n": 1},
    )
    assert (advance.kind, advance.target, advance.number) == ("advance", "PT5M", 2)
    assert advance.expect is not None and advance.expect.state == "waiting"
    calls = scenario.mocks["charge"].calls
    assert calls[0].returns == {"ok": True} and (calls[1].error, calls[1].message) == ("E", "m")
    assert scenario.expect.passed == ("Task_Decide",)


def test_an_unknown_key_is_refused_with_its_line(scenario_file) -> None:
    text = LOAN + '[[scenario]]\nname = "x"\nexpct = { state = "completed" }\n'
    assert refusal(scenario_file, text).startswith(":4: [[scenario]]: unknown key 'expct'")


def test_an_unknown_expectation_is_refused_with_its_line(scenario_file) -> None:
    text = LOAN + '[[scenario]]\nname = "x"\n[scenario.expect]\nstate = "completed"\npasses = []\n'
    assert refusal(scenario_file, text).startswith(":6: `expect`: unknown key 'passes'")


def test_toml_syntax_errors_keep_their_line(scenario_file) -> None:
    text = LOAN + '[[scenario]]\nname = "x"\n[scenario.expect]\nstate = \n'
    assert refusal(scenario_file, text).startswith(":5: not valid TOML")


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        (LOAN + "x = " + "[" * 500 + "]" * 500 + "\n", ":2: arrays and tables nested 500 deep"),
        (LOAN + "a." * 50_000 + "b = 1\n", ":2: a key of 50001 dotted parts: at most 64"),
        # dots in a string are no key: read, and refused for what it is
        (LOAN + '[[scenario]]\nname = "' + "a." * 100 + '"\n[scenario.expect]\n', ":2: scenario"),
    ],
    ids=["nested", "dotted", "dots-in-a-string"],
)
def test_a_hostile_scenario_file_is_refused_before_it_is_read(
    scenario_file, text: str, complaint: str
) -> None:
    """Arrays 500 deep raised RecursionError; 50,000 dotted parts in 100 KB took 4 GB."""
    message = refusal(scenario_file, text)
    assert message.startswith(complaint), message


def test_a_scenario_that_expects_nothing_is_refused(scenario_file) -> None:
    message = refusal(scenario_file, LOAN + '[[scenario]]\nname = "x"\nvariables = { a = 1 }\n')
    assert message.startswith(":2: scenario 'x' expects nothing")


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ('[[scenario]]\nname = "x"\nexpect = { state = "done" }\n', "`state` must be one of"),
        ('[[scenario]]\nname = "x"\nexpect = { times = { A = -1 } }\n', "maps names to counts"),
        (
            '[[scenario]]\nname = "x"\nexpect = { state = "completed" }\n'
            '[[scenario.steps]]\ncomplete = "A"\nadvance = "PT1M"\n',
            "give one of complete, message, signal, activate, trigger, resume, advance, not "
            "several",
        ),
        (
            '[[scenario]]\nname = "x"\nexpect = { state = "completed" }\n'
            '[[scenario.steps]]\nresume = "Task"\n',
            "write `resume = true`",
        ),
        (
            '[[scenario]]\nname = "x"\nexpect = { state = "completed" }\n'
            '[[scenario.steps]]\nkey = "k"\n',
            "does nothing",
        ),
        (
            '[[scenario]]\nname = "x"\nexpect = { state = "completed" }\n'
            '[[scenario.steps]]\nsignal = "s"\nkey = "k"\n',
            "`key` goes with `message` only",
        ),
        (
            '[[scenario]]\nname = "x"\nexpect = { state = "completed" }\n'
            '[scenario.mocks.m]\nreturns = {}\nfail = "boom"\n',
            "give one of `returns`, `error` and `fail`",
        ),
        (
            '[[scenario]]\nname = "x"\nexpect = { state = "completed" }\n'
            '[[scenario]]\nname = "x"\nexpect = { state = "completed" }\n',
            "two scenarios are named 'x'",
        ),
        ('clock = "soon"\n[[scenario]]\nname = "x"\nexpect = { state = "completed" }\n', "`clock`"),
    ],
)
def test_malformed_scenarios_are_refused(scenario_file, text: str, complaint: str) -> None:
    assert complaint in refusal(scenario_file, LOAN + text)


def test_a_file_without_a_diagram_or_scenarios_is_refused(scenario_file) -> None:
    assert "names no diagram" in refusal(scenario_file, '[[scenario]]\nname = "x"\n')
    assert "no [[scenario]] tables" in refusal(scenario_file, LOAN)


def test_a_scenario_file_that_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "x.bpmntest.toml"
    folder.mkdir()
    with pytest.raises(LoadError, match="not a regular file"):
        load_scenarios(folder)


def test_deploy_and_instances_are_read(scenario_file) -> None:
    path = scenario_file(
        'diagram = "subscription-renewal.bpmn"\ndeploy = true\n'
        '[[scenario]]\nname = "x"\nexpect = { instances = 2 }\n'
    )
    [scenario] = load_scenarios(path)
    assert scenario.deploy and scenario.expect.instances == 2
    bad = LOAN + '[[scenario]]\nname = "x"\nexpect = { instances = -1 }\n'
    assert "`instances` is a count" in refusal(scenario_file, bad)


def test_a_scenario_may_name_its_own_diagram_as_the_docs_say(scenario_file) -> None:
    """The schema refused `diagram` in a [[scenario]] though docs/testing.md offered it."""
    text = (
        '[[scenario]]\nname = "own"\ndiagram = "loan-approval.bpmn"\n'
        '[scenario.expect]\nstate = "completed"\n'
    )
    [scenario] = load_scenarios(scenario_file(text))
    assert [d.name for d in scenario.diagrams] == ["loan-approval.bpmn"]
    nameless = '[[scenario]]\nname = "none"\n[scenario.expect]\nstate = "completed"\n'
    assert refusal(scenario_file, nameless).startswith(":1: scenario 'none' names no diagram")


def test_a_scenarios_own_answers_win_whole_even_empty(scenario_file) -> None:
    """`answers = {}` in a scenario left the file's answers in force."""
    text = (
        LOAN + "answers = { Task_Review = { ok = true } }\n"
        '[[scenario]]\nname = "shared"\n[scenario.expect]\nstate = "completed"\n'
        '[[scenario]]\nname = "none"\nanswers = {}\n[scenario.expect]\nstate = "waiting"\n'
    )
    shared, none = load_scenarios(scenario_file(text))
    assert shared.answers == {"Task_Review": {"ok": True}}
    assert none.answers == {}
