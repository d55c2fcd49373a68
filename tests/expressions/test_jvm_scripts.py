"""JVM scripts that only print and read or set variables run as the JVM would run them
(jBPM's Java and MVEL, the Groovy of Camunda 7, Activiti and Flowable); any other is refused
at compile time, naming what it uses."""

from __future__ import annotations

from typing import Any

import pytest

from bpmn_engine.errors import BpmnError, ExpressionError
from bpmn_engine.expressions import compile_script
from bpmn_engine.expressions.guards import MAX_SIZE

JAVA = "http://www.java.com/java"
MVEL = "http://www.mvel.org/2.0"


def run(text: str, fmt: str, variables: dict[str, Any] | None = None) -> tuple[dict, str]:
    printed: list[str] = []
    changes = compile_script(text, fmt).run(variables or {}, printed)
    return changes, "".join(printed)


def refusal(text: str, fmt: str) -> str:
    with pytest.raises(ExpressionError) as caught:
        compile_script(text, fmt)
    return str(caught.value)


def failure(text: str, fmt: str, variables: dict[str, Any] | None = None) -> str:
    script = compile_script(text, fmt)
    with pytest.raises(ExpressionError) as caught:
        script.run(variables or {}, [])
    return str(caught.value)


@pytest.mark.parametrize("fmt", [JAVA, "java", MVEL, "mvel"])
def test_jbpm_hello_world_prints(fmt: str) -> None:
    assert run('System.out.println("Hello World");', fmt) == ({}, "Hello World\n")


def test_string_concatenation_writes_values_as_java_does() -> None:
    script = 'System.out.println("Result " + test); System.out.print("x" + 1 + 2);'
    assert run(script, JAVA, {"test": 2.5})[1] == "Result 2.5\nx12"
    assert run(script, JAVA, {"test": None})[1] == "Result null\nx12"
    assert run(script, JAVA, {"test": True})[1] == "Result true\nx12"
    assert run(script, JAVA, {"test": 1234567.0})[1] == "Result 1234567.0\nx12"


def test_arithmetic_is_not_imitated() -> None:
    # Java adds 1 + 2 first ("3a"): the engine does not guess, it says so
    assert "arithmetic" in failure('System.out.println(1 + 2 + "a");', JAVA)
    assert "arithmetic" in failure('kcontext.setVariable("n", n + 1);', JAVA, {"n": 1})


def test_a_value_java_writes_otherwise_is_refused_in_text() -> None:
    assert "toString" in failure('System.out.println("m " + m);', JAVA, {"m": {"a": 1}})
    assert "toString" in failure('System.out.println("f " + f);', JAVA, {"f": 1e-9})


def test_kcontext_sets_and_gets_variables() -> None:
    script = """
        String greeting = "Hello " + kcontext.getVariable("name");
        kcontext.setVariable("greeting", greeting);  // a comment
        /* and another */
        kcontext.setVariable("seen", kcontext.getVariable("greeting"));
        kcontext.setVariable("missing", kcontext.getVariable("nothing"));
        kcontext.setVariable("count", 3);
        kcontext.setVariable("ok", true);
    """
    changes, printed = run(script, JAVA, {"name": "Ada"})
    assert changes == {
        "greeting": "Hello Ada",
        "seen": "Hello Ada",
        "missing": None,
        "count": 3,
        "ok": True,
    }
    assert printed == ""


def test_to_string() -> None:
    script = 'kcontext.setVariable("s", kcontext.getVariable("n").toString() + "!");'
    assert run(script, JAVA, {"n": 5})[0] == {"s": "5!"}
    assert "NullPointerException" in failure(script, JAVA)
    assert run('kcontext.setVariable("t", n.toString());', MVEL, {"n": 7})[0] == {"t": "7"}


def test_a_set_value_is_a_copy() -> None:
    items = [1, 2]
    changes, _ = run('kcontext.setVariable("copy", items);', JAVA, {"items": items})
    changes["copy"].append(3)
    assert items == [1, 2]


def test_java_reading_a_name_after_setting_it_is_refused() -> None:
    # jBPM's Java reads its variables into locals first: which value it would see is not
    # imitated
    script = 'kcontext.setVariable("x", "new"); System.out.println(x);'
    assert "after setting it" in failure(script, JAVA, {"x": "old"})


def test_an_unknown_variable_fails() -> None:
    assert "unknown variable 'who'" in failure('System.out.println("hi " + who);', JAVA)


def test_escapes() -> None:
    text = r'System.out.print("\"q\"\t\u0041\\");'
    assert run(text, JAVA)[1] == '"q"\tA\\'
    assert "escape" in refusal(r'System.out.print("\7");', JAVA)


def test_statements_end_as_in_each_language() -> None:
    assert "must end with ';'" in refusal('System.out.println("a")', JAVA)
    assert run('System.out.println("a")', MVEL)[1] == "a\n"  # the last needs none in MVEL
    two_lines = 'System.out.println("a")\nSystem.out.println("b")'
    assert "uses 'System' (line 2, column 1)" in refusal(two_lines, MVEL)  # MVEL needs ';'
    assert run('println "a"\nprint("b")\nprintln()', "groovy")[1] == "a\nb\n"


def test_groovy_scripts_of_camunda_activiti_and_flowable() -> None:
    script = """
        // Using def in Groovy makes the variable script-local
        def scriptVar = "test123"
        execution.setVariable("myVar", scriptVar)
        execution.setVariable("again", myVar + '!')
        println 'done: ' +
            execution.getVariable("again")
    """
    assert run(script, "groovy") == ({"myVar": "test123", "again": "test123!"}, "done: test123!\n")


def test_each_language_has_its_own_context() -> None:
    assert "calls kcontext.setVariable(...)" in refusal('kcontext.setVariable("a", 1)', "groovy")
    assert "calls execution.setVariable(...)" in refusal('execution.setVariable("a", 1);', JAVA)


@pytest.mark.parametrize(
    ("text", "fmt", "named"),
    [
        ("x = 5 / 0", "groovy", "assigns x"),
        ("def x = 5 / 0", "groovy", "uses '/'"),
        ('throw new java.lang.Exception("e");', "groovy", "throws java.lang.Exception"),
        ('if (x == null) { throw new Exception("e"); }', JAVA, "uses 'if'"),
        ('System.out.println("n " + person.getName());', MVEL, "calls person.getName(...)"),
        ('kcontext.setVariable("x", Integer.parseInt(y));', MVEL, "calls Integer.parseInt"),
        ('System.out.println("x is ${x}")', "groovy", "GString"),
        ("def d = 1.50", "groovy", "BigDecimal"),
        ("System.out.println('c');", JAVA, "char literal"),
        ("int n = 1;", JAVA, "uses 'int'"),
        ("x = 1", "groovy", "assigns x"),
        ("System.out.println(2147483648);", JAVA, "too large"),
    ],
)
def test_anything_else_is_refused_naming_it(text: str, fmt: str, named: str) -> None:
    said = refusal(text, fmt)
    assert named in said
    assert "JVM language" in said and "--handlers" in said
    assert "(line 1" in said or "line 1)" in said


def test_an_empty_or_comment_only_script_does_nothing() -> None:
    assert run("", JAVA) == ({}, "")
    assert run("  // nothing\n/* at all */ ", MVEL) == ({}, "")


def test_other_jvm_languages_stay_refused() -> None:
    assert "JVM language" in refusal('println("x")', "kotlin")


def test_hostile_scripts_are_bounded() -> None:
    deep = "System.out.println(" + "(" * 50_000 + '"x"' + ")" * 50_000 + ");"
    assert "too deeply nested" in refusal(deep, JAVA) or "longer than" in refusal(deep, JAVA)
    big = "x" * (MAX_SIZE // 2 + 1)
    assert "longer than" in failure('System.out.println(s + s + "!");', JAVA, {"s": big})
    assert run("System.out.println(s);", JAVA, {"s": "y" * 20_000})[1].startswith("y" * 9_000)


def test_a_number_too_long_to_write_is_an_error_not_a_crash() -> None:
    assert "too long to write" in failure('System.out.println("a" + n);', JAVA, {"n": 10**5000})


@pytest.mark.parametrize(
    "package",
    [
        "org.camunda.bpm.engine.delegate",
        "org.operaton.bpm.engine.delegate",
        "org.activiti.engine.delegate",
        "org.flowable.engine.delegate",
    ],
)
def test_groovy_throws_a_bpmn_error(package: str) -> None:
    script = compile_script(
        f'def code = "REJECTED"\nthrow new {package}.BpmnError(code, "no credit " + n)', "groovy"
    )
    assert script.throws
    with pytest.raises(BpmnError) as thrown:
        script.run({"n": 3}, [])
    assert (thrown.value.code, thrown.value.message) == ("REJECTED", "no credit 3")
    bare = compile_script(f'throw new {package}.BpmnError("E")', "groovy")
    with pytest.raises(BpmnError) as thrown:
        bare.run({}, [])
    assert (thrown.value.code, thrown.value.message) == ("E", "")


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('println "x"\nthrow new org.camunda.bpm.engine.delegate.BpmnError("E")', "before it"),
        (
            'execution.setVariable("a", 1)\n'
            'throw new org.camunda.bpm.engine.delegate.BpmnError("E")',
            "before it",
        ),
        ('throw new org.camunda.bpm.engine.delegate.BpmnError("E"); println "x"', "after its"),
        ('throw new RuntimeException("x")', "throws RuntimeException"),
        ('throw new BpmnError("E")', "throws BpmnError"),  # unresolved without an import
        ("throw new org.camunda.bpm.engine.delegate.BpmnError()", "gives 0 arguments"),
    ],
)
def test_other_throws_are_refused(text: str, named: str) -> None:
    assert named in refusal(text, "groovy")


def test_only_groovy_throws() -> None:
    # jBPM has no BpmnError class of these engines
    said = refusal('throw new org.camunda.bpm.engine.delegate.BpmnError("E");', JAVA)
    assert "uses 'throw'" in said


def test_a_string_local_takes_text_only() -> None:
    assert run('String s = "a"; String t = null; System.out.print(s + t);', JAVA)[1] == "anull"
    assert "String n is given int 5" in failure("String n = 5;", JAVA)
    assert run("def n = 5\nprint 'n=' + n", "groovy")[1] == "n=5"


def test_a_surrogate_pair_is_one_character_as_in_java() -> None:
    printed = run(r'System.out.print("\uD83D\uDE00");', JAVA)[1]
    assert printed == "\U0001f600"
    lone = run(r'System.out.print("\uD83D");', JAVA)[1]  # no text: shown as its escape
    assert lone == "\\ud83d"
