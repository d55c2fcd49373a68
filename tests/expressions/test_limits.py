"""What sandboxed code may build: bounded so that no single C operation on it can be slow.

Each attack here once crashed the process, ran for seconds inside one uninterruptible C call,
or built a value the store cannot write. The tests assert the refusal and its message, never a
duration: `weigh` bounds the items a C comparison or hash can visit, whatever the machine.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import compile_expression, compile_script, guards

ROOT = Path(__file__).resolve().parents[2]
DEEP_TUPLE = "[len({a}) for a in [()] for i in range(200000) for a in [(a,)] if i == 199999] == [1]"


def evaluate(text: str, variables: dict | None = None) -> object:
    return compile_expression(text).evaluate(variables or {})


def run(script: str, variables: dict | None = None) -> dict:
    return compile_script(textwrap.dedent(script)).run(variables or {})


# --- the weight: every path C can follow -----------------------------------------------------
def _doubled(times: int) -> list:
    value: list = [0]
    for _ in range(times):
        value = [value, value]
    return value


def _deep(levels: int) -> list:
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("value", "weight"),
    [
        ([], 1),
        ([1, "ab", None], 4),
        ({"a": [1], "b": (2, 3)}, 1 + 2 + 2 + 3),  # keys count too
        ([{"id": i, "v": [i]} for i in range(20)], 1 + 20 * 6),
        ([{"id": i, "v": [i]} for i in range(5000)], 1 + 5000 * 6),
        (_doubled(10), 2**11 - 1 + 2**10),  # shared halves counted each time
        ([_doubled(3)] * 3, 1 + 3 * 23),
        (_deep(200), 200),
    ],
)
def test_weight_counts_every_path(value: object, weight: int) -> None:
    token = guards.CURRENT.set(guards.Budget())
    try:
        assert guards.weigh(value) == weight
    finally:
        guards.CURRENT.reset(token)


# --- depth: C hashes a tuple recursively, with no depth check --------------------------------
def test_hashing_a_deeply_nested_tuple_is_refused_not_a_crash() -> None:
    """Run apart: before the bound this killed the interpreter with a segmentation fault."""
    code = (
        "from bpmn_engine.expressions import compile_expression\n"
        "from bpmn_engine.errors import ExpressionError\n"
        "try:\n"
        f"    compile_expression({DEEP_TUPLE!r}).evaluate({{}})\n"
        "except ExpressionError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "nested more than 200 levels deep" in done.stdout


@pytest.mark.parametrize(
    "script",
    [
        "t = ()\nfor i in range(300):\n    t = (t,)",
        "t = []\nfor i in range(300):\n    t = [t]",
        "t = {}\nfor i in range(300):\n    t = {'k': t}",
        "t = []\nfor i in range(300):\n    u = []\n    u.append(t)\n    t = u\nok = t == [t]",
    ],
)
def test_nesting_is_refused_where_it_is_built(script: str) -> None:
    with pytest.raises(ExpressionError, match="nested more than 200 levels deep"):
        run(script)


def test_nesting_up_to_the_limit_is_fine() -> None:
    assert run("t = ()\nfor i in range(150):\n    t = (t,)\nok = len({t})")["ok"] == 1


def test_a_cycle_made_in_place_is_refused_before_comparing() -> None:
    with pytest.raises(ExpressionError, match="nested more than 200 levels deep"):
        run("a = [1]\na.append(a)\nb = [1]\nb.append(b)\nsame = a == b")


# --- sharing: tiny in memory, huge to compare ------------------------------------------------
DAG = "[a == b for a, b in [([0], [0])] for i in range(22) for a, b in [([a, a], [b, b])]]"


def test_comparing_shared_structures_is_refused() -> None:
    """22 doublings are 45 lists in memory but 2**23 items to compare; 40 once ran for hours."""
    with pytest.raises(ExpressionError, match="more than 1,000,000 items"):
        evaluate(DAG)


def test_sharing_within_the_limit_is_fine() -> None:
    assert evaluate(DAG.replace("22", "15"))[-1] is True
    assert evaluate("[[0] * 10] * 100 == [[0] * 10] * 100") is True


@pytest.mark.parametrize(
    "text",
    [
        "[big] * 4",
        "[big] + [big] + [big] + [big]",
        "[x for x in [big] * 3]",
        "(big, big, big)",
        "{'a': big, 'b': big, 'c': big}",
        "list(x for x in (big, big, big))",
        "[len(t) for t in zip(pair, pair)]",
    ],
)
def test_every_way_to_build_counts_shared_items(text: str) -> None:
    variables = {"big": [0] * 400_000, "pair": [[0] * 600_000]}
    with pytest.raises(ExpressionError, match="more than 1,000,000 items"):
        evaluate(text, variables)


def test_a_container_grown_in_place_is_weighed_before_it_is_compared() -> None:
    """`b` holds `a` 1,000 times; appending to `a` grows `b` where no constructor sees it."""
    script = """
        a = []
        b = [a] * 1000
        c = []
        d = [c] * 1000
        for i in range(2000):
            a.append(i)
            c.append(i)
        same = b == d
        b = d = 0
    """
    with pytest.raises(ExpressionError, match="more than 1,000,000 items"):
        run(script)


def test_scripts_that_grow_lists_in_place_still_work() -> None:
    script = """
        rows = []
        seen = []
        for i in range(3000):
            row = {'id': i % 50, 'tags': [i]}
            rows.append(row)
            if row['id'] not in seen:
                seen.append(row['id'])
        grid = [[0] * 3 for _ in range(3)]
        grid[1][1] = 5
        total = {'n': len(rows), 'distinct': len(seen), 'grid': grid}
    """
    result = run(script)["total"]
    assert result == {"n": 3000, "distinct": 50, "grid": [[0, 0, 0], [0, 5, 0], [0, 0, 0]]}


# --- hash collisions: n values with one hash cost n * n in one C call --------------------------
COLLIDING = "[i * (2**61 - 1) for i in range(3000)]"  # hash(i * (2**61 - 1)) == 0 for all i


@pytest.mark.parametrize(
    "text",
    [
        f"len(set({COLLIDING}))",
        f"len({{x for x in {COLLIDING}}})",
        f"len({{*{COLLIDING}}})",
        f"len({{x: 1 for x in {COLLIDING}}})",
        f"len(dict(zip({COLLIDING}, range(3000))))",
        f"len(dict([(x, 1) for x in {COLLIDING}]))",
        f"len(set().union({COLLIDING}))",
        "len(set(range(0, 3000 * (2**61 - 1), 2**61 - 1)))",
    ],
)
def test_hash_collision_attacks_are_refused(text: str) -> None:
    with pytest.raises(ExpressionError, match="different values with the same hash"):
        evaluate(text)


def test_hash_collisions_made_in_place_are_refused_before_use() -> None:
    script = f"""
        s = set()
        for x in {COLLIDING}:
            s.add(x)
        same = s == set(s)
    """
    with pytest.raises(ExpressionError, match="different values with the same hash"):
        run(script)


def test_a_set_grown_in_place_is_checked_before_c_hashes_it_again() -> None:
    script = f"""
        s = set()
        for x in {COLLIDING}:
            s.add(x)
        n = {{1, 2}}.isdisjoint(s)
        s = 0
    """
    with pytest.raises(ExpressionError, match="different values with the same hash"):
        run(script)


def test_duplicates_are_not_collisions() -> None:
    assert evaluate("len(set([7] * 5000)), len(set(range(5000)))") == (1, 5000)
    assert evaluate("len(set([-1, -2] * 3000))") == 2  # hash(-1) == hash(-2)
    assert evaluate("len({(i, str(i)) for i in range(5000)})") == 5000


# --- integers: the store writes them as text, which Python limits to 4,300 digits --------------
@pytest.mark.parametrize(
    "text",
    [
        "2 ** 20000",
        pytest.param("${" + " * ".join(["1" + "0" * 1000] * 5) + "}", id="juel-product"),
        "1 << 14001",
        "int('1' * 20000, 2)",
        "sum([2 ** 13999] * 4)",
        "[x - -x for x in [2 ** 13999]]",
    ],
)
def test_integers_too_big_to_store_are_refused(text: str) -> None:
    with pytest.raises(ExpressionError, match="bits"):
        evaluate(text)


def test_a_script_cannot_build_an_integer_too_big_to_store() -> None:
    with pytest.raises(ExpressionError, match="bits"):
        run("x = 2**20000")
    with pytest.raises(ExpressionError, match="bits"):
        run("x = 3\nwhile True:\n    x = x - -x")


def test_an_integer_constant_too_big_to_store_is_refused_at_compile_time() -> None:
    with pytest.raises(ExpressionError, match="integer constant of 20,000 bits"):
        compile_expression("0x" + "f" * 5000)


def test_integers_up_to_the_limit_are_fine() -> None:
    value = evaluate("2 ** 13998 + (1 << 13997)")
    assert isinstance(value, int)
    assert value.bit_length() <= guards.MAX_INT_BITS
    assert len(str(value)) < 4300  # the store can write it


def test_feel_numbers_are_bounded_by_decimal128() -> None:
    """FEEL numbers are decimal128: too large for a variable is refused, beyond it null."""
    with pytest.raises(ExpressionError, match="too large to store"):
        compile_expression("=2 ** 20000").evaluate({})
    assert compile_expression("=2 ** 1000000").evaluate({}) is None


@pytest.mark.parametrize(
    "text",
    [
        # shared structure: 2**40 paths through 41 small lists
        "=string({a0: [1], "
        + ", ".join(f"a{i}: [a{i - 1}, a{i - 1}]" for i in range(1, 41))
        + "})",
        "={a0: [1], " + ", ".join(f"a{i}: [a{i - 1}, a{i - 1}]" for i in range(1, 41)) + "}",
        # one long string many times over
        "=string(for i in 1..1000 return s)",
        "=count(for i in 1..1000 return s + s)",
        "=sort(for i in 1..1000000 return -i)",
    ],
)
def test_feel_cannot_build_or_walk_past_the_bounds(text: str) -> None:
    with pytest.raises(ExpressionError, match="work limit"):
        compile_expression(text).evaluate({"s": "x" * 1_000_000})


def test_feel_unary_tests_nested_too_deep_are_an_error_not_a_crash() -> None:
    """A decision table cell is compiled when the DMN file loads: RecursionError escaped."""
    from bpmn_engine.expressions.feel import compile_unary_tests

    for text in ("not(" * 1000 + "1" + ")" * 1000, "[" * 1000 + "1" + "]" * 1000, "-" * 1000 + "1"):
        with pytest.raises(ExpressionError, match="too deeply nested"):
            compile_unary_tests(text)


def test_a_years_and_months_duration_stays_within_what_one_may_be_written_as() -> None:
    """`duration("P1Y") * 10^5000` made a 5,000-digit month count no text could show."""
    warnings: list[str] = []
    product = compile_expression('=duration("P1Y") * 1' + "0" * 5000).evaluate({}, warnings.append)
    assert product is None
    assert "the duration is out of range" in warnings[0]
    assert compile_expression('=duration("P2Y") * 3').evaluate({}) == "P6Y"


def test_replace_cannot_build_past_the_string_limit_one_reference_at_a_time() -> None:
    """Each `$0` is counted as it is made: a thousand of them over a long input built
    gigabytes inside the C call before the result was measured."""
    text = '=replace(s, ".", "' + "$0" * 1000 + '")'
    with pytest.raises(ExpressionError, match="work limit: a string of more than"):
        compile_expression(text).evaluate({"s": "a" * 1_000_000})
    assert compile_expression('=replace("abc", "(b)", "[$1]")').evaluate({}) == "a[b]c"


@pytest.mark.parametrize(
    ("pattern", "weight"),
    [
        ("abc", 3),
        ("a{3}", 3),
        ("(ab){3}", 6),
        (r"\d{16}", 16),
        ("[a-z]{2,5}", 5),
        ("[]{]{4}", 4),
        (r"\p{L}{4}", 4),
        ("(((a{300}){300}){100})", 9_000_000),
    ],
)
def test_a_patterns_weight_is_its_items_with_counted_repeats_unrolled(pattern: str, weight: int):
    from bpmn_engine.expressions.feel.functions.strings import _weight

    assert _weight(pattern) == weight


def test_nested_counted_repeats_are_refused_before_they_are_compiled() -> None:
    """`regex` unrolls counted repeats when it compiles, before the match timeout starts."""
    with pytest.raises(ExpressionError, match="unroll to more than 100,000 items"):
        compile_expression('=matches("a", "(((a{300}){300}){100})")').evaluate({})
    assert compile_expression(r'=matches("4111111111111111", "^\d{16}$")').evaluate({}) is True
