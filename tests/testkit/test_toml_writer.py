"""What `--record` writes is read back by tomllib as the same values (None left out)."""

from __future__ import annotations

import math
import tomllib
from decimal import Decimal
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bpmn_engine.testkit import toml_writer

scalars = (
    st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False)
    | st.text()
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isinf(a) and a == b)
    return a == b


@given(st.dictionaries(st.text(), values, max_size=5))
def test_written_tables_read_back_the_same(mapping: dict[str, Any]) -> None:
    dropped: list[str] = []
    text = "x = " + toml_writer.table(mapping, "", dropped) + "\n"
    assert tomllib.loads(text)["x"] == mapping
    assert dropped == []


def test_none_is_left_out_and_listed() -> None:
    dropped: list[str] = []
    text = "x = " + toml_writer.table({"a": None, "b": [1, None], "c": {"d": None}}, "", dropped)
    assert tomllib.loads(text)["x"] == {"b": [1], "c": {}}
    assert dropped == ["a", "b[1]", "c.d"]


def test_feel_decimals_are_numbers() -> None:
    text = "x = " + toml_writer.table({"a": Decimal("3"), "b": Decimal("2.5")}, "", [])
    assert tomllib.loads(text)["x"] == {"a": 3, "b": 2.5}


@given(st.dictionaries(st.text(), values | st.none(), max_size=5))
def test_the_comment_listing_what_was_left_out_stays_one_comment(mapping: dict[str, Any]) -> None:
    """The places are written as TOML keys: no name can end the comment and add a line."""
    dropped: list[str] = []
    text = "x = " + toml_writer.table(mapping, "", dropped) + "\n"
    comment = "# left out, TOML cannot hold null: " + ", ".join(dropped) + "\n"
    assert tomllib.loads(comment + text).keys() == {"x"}


def test_a_name_with_a_line_break_cannot_write_a_line_of_the_file() -> None:
    dropped: list[str] = []
    toml_writer.table({'a\nhandlers = "evil.py"\n#': None, "b": {"c\r\nd": None}}, "", dropped)
    assert dropped == ['"a\\nhandlers = \\"evil.py\\"\\n#"', 'b."c\\r\\nd"']
    assert "handlers" not in tomllib.loads("# " + ", ".join(dropped) + "\nx = 1\n")
