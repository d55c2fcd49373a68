"""JavaScript conditions and scripts (Camunda 7's `language="javascript"`), in an embedded V8:
the value mapping, `execution`, the limits, no host access, and the refusal without the extra."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import (
    JavaScriptExpression,
    JavaScriptScript,
    _compile_expression,
    _compile_script,
    compile_expression,
    compile_script,
    script_is_expression,
    v8,
)


def js(text: str, **variables: object) -> object:
    return compile_expression(text, "javascript").evaluate(variables)


def run(text: str, **variables: object) -> dict:
    return compile_script(text, "javascript").run(variables)


@pytest.fixture
def short_limit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A one-second budget, so a runaway test costs one second, not five (a new host)."""
    monkeypatch.setattr(v8, "TIME_LIMIT", 1.0)
    monkeypatch.setattr(v8, "GRACE", 2.0)
    yield


@pytest.mark.parametrize(
    "language", ["javascript", "JavaScript", "js", "ecmascript", "ECMAScript", " javascript "]
)
def test_language_names(language: str) -> None:
    compiled = compile_expression("amount > 100", language)
    assert isinstance(compiled, JavaScriptExpression)
    assert compiled.evaluate({"amount": 150}) is True
    assert compiled.evaluate({"amount": 50}) is False


def test_a_condition_reads_variables_and_execution() -> None:
    assert js("execution.getVariable('amount') >= 100 && status === 'ok'", amount=100, status="ok")
    assert js("execution.getVariable('missing')") is None  # as Camunda: null, not an error
    assert js("execution.hasVariable('a') && !execution.hasVariable('b')", a=1) is True
    assert js("execution.getVariables().a + 1", a=1) == 2


def test_the_value_is_the_last_expression_statement() -> None:
    assert js("var t = a * 2;\nif (t > 5) { 'big' } else { 'small' }", a=3) == "big"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1 + 1", 2),
        ("7 / 2", 3.5),
        ("2.0", 2),  # JavaScript has one number type: a whole one comes back as an int
        ("-0", 0),
        ("1e21", 1e21),
        ("'é' + 'x'", "éx"),
        ("true", True),
        ("null", None),
        ("undefined", None),
        ("[1, 'a', null, undefined, [true]]", [1, "a", None, None, [True]]),
        ("({a: {b: [1.5]}, c: undefined})", {"a": {"b": [1.5]}, "c": None}),
        ("new Date(0)", "1970-01-01T00:00:00.000Z"),
        ("new String('boxed')", "boxed"),
        ("Object.create(null)", {}),
    ],
)
def test_values_come_back_as_json_values(text: str, value: object) -> None:
    result = js(text)
    assert result == value
    assert type(result) is type(value)


def test_variables_go_in_as_their_json_values() -> None:
    order = {"items": [{"price": 2.5, "qty": 2}], "vip": True, "note": None}
    total = "order.items.reduce((s, i) => s + i.price * i.qty, 0)"
    assert js(total, order=order) == 5
    assert js("typeof order.vip + typeof order.note + Array.isArray(order.items)", order=order) == (
        "booleanobjecttrue"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(function () {})", "the result is a function"),
        ("({f: Math.max})", 'the result (at key "f") is a function'),
        ("Symbol('s')", "is a symbol"),
        ("10n", "is a BigInt"),
        ("0 / 0", "is NaN"),
        ("[1 / 0]", "is Infinity"),
        ("new Map()", "is a Map: only plain objects"),
        ("var a = {}; a.self = a; a", "refers to itself"),
        ("var a = []; for (var i = 0; i < 300; i++) a = [a]; a", "nested more than 200 levels"),
        ("var a = []; for (var i = 0; i < 100000; i++) a = [a]; a", "nested too deeply"),
        ("'x'.repeat(10000001)", "characters long as JSON (limit 10000000)"),
    ],
)
def test_values_that_cannot_cross_are_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=re.escape(message)):
        js(text)


def test_a_runtime_error_names_its_line() -> None:
    with pytest.raises(ExpressionError, match=r"ReferenceError: nope is not defined \(line 3"):
        js("var a = 1;\n\nnope(a)")
    with pytest.raises(ExpressionError, match=r"Error: boom \(line 1"):
        js("throw new Error('boom')")
    with pytest.raises(ExpressionError, match="uncaught string: plain"):
        js("throw 'plain'")


def test_an_unknown_variable_is_an_error() -> None:
    with pytest.raises(ExpressionError, match="ReferenceError: missing is not defined"):
        js("missing > 1")


@pytest.mark.parametrize(
    ("text", "where"),
    [("amount >* 100", "line 1"), ("var a = 1;\nvar b = ;", "line 2"), ("if (a) {", "line 1")],
)
def test_a_syntax_error_is_found_at_compile_time(text: str, where: str) -> None:
    with pytest.raises(ExpressionError, match=rf"SyntaxError: .*\({where} of the expression\)"):
        compile_expression(text, "javascript")
    with pytest.raises(ExpressionError, match=rf"SyntaxError: .*\({where} of the script\)"):
        compile_script(text, "javascript")


def test_compiling_runs_nothing() -> None:
    # a script that would loop forever compiles at once: only its syntax is checked
    assert isinstance(compile_script("while (true) {}", "javascript"), JavaScriptScript)


def test_a_script_sets_variables_with_execution_set_variable() -> None:
    changes = run(
        "var total = 0;\n"
        "for (var i = 0; i < items.length; i++) { total += items[i]; }\n"
        "execution.setVariable('total', total);\n"
        "execution.setVariable('summary', {count: items.length, first: items[0]});\n"
        "leftover = 'not a variable';",
        items=[1, 2, 3.5],
    )
    assert changes == {"total": 6.5, "summary": {"count": 3, "first": 1}}


def test_a_set_variable_is_read_back_at_once() -> None:
    assert run(
        "execution.setVariable('n', n + 1);\n"
        "execution.setVariable('seen', [n, execution.getVariable('n')]);",
        n=1,
    ) == {"n": 2, "seen": [2, 2]}


def test_assigning_a_variable_by_name_changes_nothing() -> None:
    # Camunda 7 without autoStoreScriptVariables: only execution.setVariable writes
    assert run("n = n + 1; var m = 5;", n=1) == {}


def test_the_result_and_the_changes_of_a_script() -> None:
    script = compile_script("execution.setVariable('a', 1);\nvar b = x * 2;\nb + 1", "javascript")
    assert isinstance(script, JavaScriptScript)
    assert script.run_with_result({"x": 3}) == (7, {"a": 1})


def test_a_variable_that_cannot_cross_names_itself() -> None:
    with pytest.raises(ExpressionError, match='variable "f" is a function'):
        run("execution.setVariable('f', function () {})")


def test_a_condition_cannot_set_variables() -> None:
    with pytest.raises(ExpressionError, match="a condition cannot set variables"):
        js("execution.setVariable('x', 1)")


def test_a_javascript_script_runs_whole_even_with_a_result_variable() -> None:
    assert not script_is_expression("javascript", "out")
    assert script_is_expression("python", "out")
    assert script_is_expression("feel", None)
    assert not script_is_expression("python", None)


def test_no_host_access() -> None:
    names = ["require", "process", "module", "fetch", "XMLHttpRequest", "Java", "load"]
    names += ["setTimeout", "WebAssembly", "SharedArrayBuffer", "Atomics", "importScripts"]
    found = js("[" + ", ".join(f"typeof {name}" for name in names) + "]")
    assert found == ["undefined"] * len(names)
    with pytest.raises(ExpressionError, match="ReferenceError: require is not defined"):
        js("require('fs').readFileSync('/etc/passwd')")


# ECMAScript's own globals (2025, with Temporal and Intl), plus V8's `console`, which only
# writes to an inspector (there is none)
STANDARD = set(
    [
        "Object",
        "Function",
        "Array",
        "Number",
        "parseFloat",
        "parseInt",
        "Infinity",
        "NaN",
        "Boolean",
        "String",
        "Symbol",
        "Date",
        "Promise",
        "RegExp",
        "Error",
        "AggregateError",
        "EvalError",
        "RangeError",
        "ReferenceError",
        "SyntaxError",
        "TypeError",
        "URIError",
        "globalThis",
        "JSON",
        "Math",
        "Intl",
        "ArrayBuffer",
        "Uint8Array",
        "Int8Array",
        "Uint16Array",
        "Int16Array",
        "Uint32Array",
        "Int32Array",
        "BigUint64Array",
        "BigInt64Array",
        "Uint8ClampedArray",
        "Float16Array",
        "Float32Array",
        "Float64Array",
        "DataView",
        "Map",
        "BigInt",
        "Set",
        "Iterator",
        "WeakMap",
        "WeakSet",
        "Proxy",
        "Reflect",
        "decodeURI",
        "decodeURIComponent",
        "encodeURI",
        "encodeURIComponent",
        "escape",
        "unescape",
        "eval",
        "isFinite",
        "isNaN",
        "console",
        "Temporal",
        "SuppressedError",
        "DisposableStack",
        "AsyncDisposableStack",
        "undefined",
    ]
)


def test_the_global_object_holds_only_the_language() -> None:
    names = js("Object.getOwnPropertyNames(globalThis).filter(n => globalThis[n] !== undefined)")
    assert isinstance(names, list)
    assert set(names) - STANDARD == {"__bpmn"}  # the engine's own runner, frozen


def test_nothing_one_evaluation_does_reaches_the_next() -> None:
    run(
        "leak = 1; globalThis.other = 2; var local = 3;\n"
        "Array.prototype.polluted = 4; JSON.parse = null; Math = null;\n"
        "Promise.resolve().then(() => { globalThis.late = 5 });"
    )
    assert js("[typeof leak, typeof other, typeof local, typeof late]") == ["undefined"] * 4
    assert js("[[].polluted, typeof JSON.parse, typeof Math.max]") == [None, "function", "function"]


def test_promise_jobs_run_before_the_next_evaluation_and_leave_nothing() -> None:
    for _ in range(5):  # whatever the timing of the host's promise jobs
        run(
            "(async function () { for (let i = 0; i < 100; i++) await i;"
            " globalThis.late = 1; })();"
            "Promise.resolve().then(() => Promise.resolve()).then(() => { lateToo = 2 });"
        )
        assert js("[typeof late, typeof lateToo]") == ["undefined", "undefined"]


def test_an_undeletable_global_does_not_survive_either() -> None:
    run("Object.defineProperty(globalThis, 'stuck', {value: 1, configurable: false})")
    assert js("typeof stuck") == "undefined"


def test_a_runaway_loop_is_stopped_by_the_time_limit(short_limit: None) -> None:
    with pytest.raises(ExpressionError, match="evaluation exceeded the time limit of 1 seconds"):
        run("while (true) {}")
    assert js("1 + 1") == 2  # and the next evaluation runs as usual


def test_runaway_promise_jobs_never_outlive_their_evaluation(short_limit: None) -> None:
    """A promise chain that queues itself forever either runs into the time limit or is
    dropped with its isolate's turn (which of the two depends on when V8's platform runs the
    settle task): never a hang, and never a job still running when the next evaluation does."""
    try:
        run("(async function spin() { await 0; return spin(); })(); 1")
    except ExpressionError as error:
        # each turn keeps a promise alive: the heap may fill before the time runs out
        assert re.search("exceeded the (time|memory) limit", str(error))
    assert js("2 + 2") == 4
    assert js("typeof spin") == "undefined"


def test_a_memory_bomb_is_stopped_by_the_memory_limit() -> None:
    # the full time budget: the heap fills long before it runs out, even on a loaded machine
    with pytest.raises(ExpressionError, match="evaluation exceeded the memory limit of 64 MiB"):
        run("var a = []; while (true) { a.push(new Array(100000).fill(1.5)); }")
    assert js("3") == 3


def test_a_memory_bomb_in_a_promise_job_fails_its_own_evaluation_not_the_next() -> None:
    """V8 ends the job at the limit and goes on; the host asks afterwards (it answered the
    culprit's value, and the next evaluation, of another task or instance, failed)."""
    with pytest.raises(ExpressionError, match="evaluation exceeded the memory limit of 64 MiB"):
        js("Promise.resolve().then(() => { const a = []; for (;;) a.push(new Array(1e6)); }); 1")
    assert js("2") == 2


def test_the_last_regular_expression_match_does_not_reach_the_next_evaluation() -> None:
    """V8 keeps the isolate's last match in RegExp.$1..$9, input, lastMatch, leftContext and
    rightContext: another instance read the card number a condition had tested."""
    assert js("/^(\\d{4})\\d{12}$/.test(card)", card="4111111111111111") is True
    run("Promise.resolve().then(() => /(s)(e)cret/.exec('a secret b'))")
    legacy = "[RegExp.$1, RegExp.$2, RegExp.input, RegExp.lastMatch, RegExp.leftContext,"
    assert js(legacy + " RegExp.rightContext, RegExp['$_'], RegExp['$&']]") == [""] * 8


def test_an_allocation_that_ends_v8_is_an_error_not_a_crash(short_limit: None) -> None:
    # V8 aborts its process on this one (or stalls in the C++ fill); the host is replaced
    with pytest.raises(ExpressionError, match=r"time limit|memory limit|engine stopped"):
        run("new Array(2 ** 31 - 1).fill(0)")
    assert js("4") == 4


def test_recursion_is_an_error() -> None:
    with pytest.raises(ExpressionError, match="RangeError: Maximum call stack size exceeded"):
        run("function f() { return f() + 1; } f()")


def test_a_killed_host_is_replaced() -> None:
    assert js("1") == 1
    host = v8._host
    assert host is not None
    host.process.kill()
    host.process.wait()
    assert js("2") == 2


def test_compiled_javascript_is_cached() -> None:
    assert compile_expression("a > 1", "javascript") is compile_expression("a > 1", "javascript")
    assert compile_script("var a;", "javascript") is compile_script("var a;", "javascript")


@pytest.fixture
def without_the_extra(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Simulate a machine without mini-racer: importing it fails, whatever is installed."""
    monkeypatch.setitem(__import__("sys").modules, "py_mini_racer", None)
    _compile_expression.cache_clear()
    _compile_script.cache_clear()
    yield
    _compile_expression.cache_clear()
    _compile_script.cache_clear()


def test_without_the_extra_javascript_is_refused_naming_it(without_the_extra: None) -> None:
    assert not v8.available()
    with pytest.raises(ExpressionError, match=r"pip install 'bpmn-engine\[js\]'"):
        compile_expression("a > 1", "javascript")
    with pytest.raises(ExpressionError, match=r"pip install 'bpmn-engine\[js\]'"):
        compile_script("execution.setVariable('a', 1)", "javascript")


def test_without_the_extra_a_cached_compilation_is_refused_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compile_expression("b > 1", "javascript")  # cached while the engine is there
    monkeypatch.setitem(__import__("sys").modules, "py_mini_racer", None)
    with pytest.raises(ExpressionError, match=r"bpmn-engine\[js\]"):
        compile_expression("b > 1", "javascript")


def fake_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    """Replace the host by a script that says it is ready, then does `body` per request."""
    script = tmp_path / "host.py"
    script.write_text(
        "import json, sys\n"
        "print(json.dumps({'ready': True}), flush=True)\n"
        "for line in sys.stdin:\n" + "".join(f"    {row}\n" for row in body.splitlines())
    )
    monkeypatch.setattr(v8, "_HOST", script)  # a host of another script is replaced


def test_a_host_that_dies_mid_request_is_an_error_with_its_last_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_host(
        tmp_path,
        monkeypatch,
        "print('#\\n# Fatal JavaScript out of memory: invalid table size\\n#', file=sys.stderr)\n"
        "sys.stderr.flush()\n"
        "sys.exit(134)",
    )
    with pytest.raises(ExpressionError, match="stopped during the evaluation: Fatal JavaScript"):
        js("1")


def test_a_host_that_answers_garbage_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_host(tmp_path, monkeypatch, "print('not json', flush=True)")
    with pytest.raises(ExpressionError, match="gave an answer it should not: b'not json'"):
        js("1")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_forked_engine_starts_its_own_host() -> None:
    assert js("1") == 1  # the parent's host runs
    pid = os.fork()
    if pid == 0:  # the child: its own host, the parent's pipes untouched
        code = 0 if js("2") == 2 and v8._host is not None and v8._host.owner == os.getpid() else 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert js("3") == 3  # and the parent's still answers


def test_a_script_s_own_next_is_its_own() -> None:
    """bpmn-engine's `next` is there for every script, beneath the script's own names: a
    Camunda script that declares a function `next` runs as it always did."""
    code = "function next(x) { return x + 1; }\nexecution.setVariable('n', next(1));"
    assert run(code) == {"n": 2}


def test_a_variable_named_like_the_runner_s_own_does_not_disturb_it() -> None:
    assert js("1 + 1", __bpmn_value=5, __bpmn_bindings=[]) == 2
