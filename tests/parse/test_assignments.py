"""A user task's assignee and candidates, as each dialect writes them (`parse/assignments.py`)."""

from __future__ import annotations

from bpmn_engine.model import Assignment, Expression, Task
from bpmn_engine.parse import compile_definitions
from bpmn_engine.parse.assignments import entries_of

NAMESPACES = (
    'xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" '
    'xmlns:drools="http://www.jboss.org/drools" id="d" targetNamespace="t"'
)


def assignment(task: str, *, definitions: str = "") -> Assignment | None:
    source = (
        f'<definitions {NAMESPACES} {definitions}><process id="p" isExecutable="true">'
        f"{task}</process></definitions>"
    )
    node = compile_definitions(source.encode()).node("T")
    assert isinstance(node, Task)
    return node.assignment


def texts(entries: tuple[str | Expression, ...] | list[str | Expression]) -> list[str]:
    return [e.text if isinstance(e, Expression) else f"name:{e}" for e in entries]


def test_a_comma_inside_an_expression_does_not_split_the_list() -> None:
    entries = entries_of("${fn(a, b)}, sales ,#{x}-team,, ops")
    assert texts(entries) == ["${fn(a, b)}", "name:sales", "#{x}-team", "name:ops"]


def test_a_feel_expression_is_the_whole_attribute() -> None:
    assert texts(entries_of('=["a", "b"]')) == ['=["a", "b"]']


def test_a_camunda_assignee_is_one_entry_and_candidates_a_list() -> None:
    found = assignment(
        '<userTask id="T" camunda:assignee="${owner}" camunda:candidateGroups="a, b"/>'
    )
    assert found is not None
    assert isinstance(found.assignee, Expression) and found.assignee.text == "${owner}"
    assert found.candidate_groups == ("a", "b") and found.candidate_users == ()


def test_a_task_that_names_nobody_has_no_assignment() -> None:
    assert assignment('<userTask id="T" camunda:formKey="f"/>') is None
    # a performer given only by a resource reference is not read
    assert (
        assignment(
            '<userTask id="T"><potentialOwner><resourceRef>R</resourceRef>'
            "</potentialOwner></userTask>"
        )
        is None
    )


def test_a_bare_potential_owner_is_a_group_for_camunda_and_a_user_for_jbpm() -> None:
    owner = (
        '<userTask id="T"><potentialOwner><resourceAssignmentExpression><formalExpression>'
        "john</formalExpression></resourceAssignmentExpression></potentialOwner></userTask>"
    )
    camunda = assignment(owner)
    jbpm = assignment(owner, definitions='expressionLanguage="http://www.mvel.org/2.0"')
    assert camunda == Assignment(candidate_groups=("john",))
    assert jbpm == Assignment(candidate_users=("john",))


def test_only_user_tasks_are_assigned() -> None:
    assert assignment('<manualTask id="T" camunda:assignee="x"/>') is None
