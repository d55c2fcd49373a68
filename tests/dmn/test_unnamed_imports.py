"""DMN 1.5 imports with no name: the imported model's decisions, BKMs, input data and item
definitions are known in the importer as if they were its own, by name and by `href="#id"`;
where both have one, the importer's wins, then its imports' depth first in document order."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import dmn

NS = "https://www.omg.org/spec/DMN/20230324/MODEL/"


def model(folder: Path, name: str, body: str, imports: tuple[str, ...] = ()) -> Path:
    """A DMN 1.5 file `name`.dmn in namespace urn:`name`, importing each of `imports` with
    no name."""
    imported = "".join(
        f'<import namespace="urn:{other}" name="" importType="{NS}" locationURI="{other}.dmn"/>'
        for other in imports
    )
    path = folder / f"{name}.dmn"
    path.write_text(
        f'<definitions xmlns="{NS}" namespace="urn:{name}" name="{name}" id="{name}">'
        f"{imported}{body}</definitions>"
    )
    return path


def decision(element_id: str, text: str, *requires: str, type_ref: str = "") -> str:
    typed = f' typeRef="{type_ref}"' if type_ref else ""
    return (
        f'<decision id="{element_id}" name="{element_id}"><variable name="{element_id}"{typed}/>'
        f"{''.join(requires)}<literalExpression><text>{text}</text></literalExpression>"
        "</decision>"
    )


def needs(kind: str, href: str) -> str:
    """A requirement of a decision (`decision`), input data (`input`) or BKM (`knowledge`)."""
    outer, tag = {
        "decision": ("informationRequirement", "requiredDecision"),
        "input": ("informationRequirement", "requiredInput"),
        "knowledge": ("knowledgeRequirement", "requiredKnowledge"),
    }[kind]
    return f'<{outer}><{tag} href="{href}"/></{outer}>'


B_BODY = (
    '<itemDefinition name="tShort"><typeRef>string</typeRef></itemDefinition>'
    '<inputData id="name" name="name"><variable name="name" typeRef="tShort"/></inputData>'
    + decision("greeting", '"hello"')
    + '<businessKnowledgeModel id="shout" name="shout"><variable name="shout"/>'
    '<encapsulatedLogic><formalParameter name="s"/><literalExpression><text>upper case(s)'
    "</text></literalExpression></encapsulatedLogic></businessKnowledgeModel>"
)


def test_an_unnamed_import_is_read_as_the_importers_own(tmp_path: Path) -> None:
    model(tmp_path, "b", B_BODY)
    a = model(
        tmp_path,
        "a",
        decision(
            "own", 'greeting + " " + name', needs("decision", "#greeting"), needs("input", "#name")
        )
        + decision(
            "loud", "shout(greeting)", needs("decision", "#greeting"), needs("knowledge", "#shout")
        )
        + decision("typed", "name", needs("input", "#name"), type_ref="tShort"),
        imports=("b",),
    )
    decisions = dmn.load(a)
    assert decisions.evaluate("own", {"name": "Ada"}).value == "hello Ada"
    assert decisions.evaluate("loud").value == "HELLO"
    assert decisions.evaluate("typed", {"name": "Ada"}).value == "Ada"
    # the imported item definition is the type: a number does not conform to it
    assert decisions.evaluate("typed", {"name": 5}).value is None


def test_the_first_import_that_has_it_wins_however_deep(tmp_path: Path) -> None:
    model(tmp_path, "c", decision("x", '"from c"'))
    model(tmp_path, "d", decision("x", '"from d"'))
    model(tmp_path, "b", "", imports=("c", "d"))
    model(tmp_path, "e", decision("x", '"from e"'))
    a = model(tmp_path, "a", decision("top", "x", needs("decision", "#x")), imports=("b", "e"))
    assert dmn.load(a).evaluate("top").value == "from c"


@pytest.mark.parametrize("href", ["#x", "urn:b#x"])
def test_the_importers_own_element_wins_inside_the_import_too(tmp_path: Path, href: str) -> None:
    model(
        tmp_path,
        "b",
        decision("middle", "x", needs("decision", href)) + decision("x", '"from b"'),
    )
    a = model(
        tmp_path,
        "a",
        decision("top", "middle", needs("decision", "#middle")) + decision("x", '"from a"'),
        imports=("b",),
    )
    decisions = dmn.load(a)
    assert decisions.evaluate("top").value == "from a"
    # by name, a decision of the first file wins over an imported one of the same name
    assert decisions.evaluate("x").value == "from a"
    # loaded on its own, the imported model keeps its own
    assert dmn.load(tmp_path / "b.dmn").evaluate("middle").value == "from b"


def test_imports_in_a_loop_load_and_evaluate(tmp_path: Path) -> None:
    model(tmp_path, "b", decision("x", '"from b"'), imports=("a",))
    a = model(tmp_path, "a", decision("top", "x", needs("decision", "#x")), imports=("b",))
    assert dmn.load(a).evaluate("top").value == "from b"
    alone = model(
        tmp_path,
        "self",
        decision("top", "x", needs("decision", "#x")) + decision("x", '"mine"'),
        imports=("self",),
    )
    assert dmn.load(alone).evaluate("top").value == "mine"
