"""How much one evaluation of a compiled expression costs, per language: prints figures.

    PYTHONPATH=. python bench/expressions.py [--number N]

Every expression is compiled once (as the engine does at load); the figure is the best,
over several runs, of the time per `evaluate()` call with a small variable set (the best, as
`timeit` advises: other load on the machine only ever adds time). Not a test: wall-clock
figures depend on the machine.
"""

from __future__ import annotations

import argparse
import timeit

from bpmn_engine.expressions import compile_expression

VARIABLES = {
    "amount": 150,
    "status": "ok",
    "order": {"amount": 150, "items": [{"price": 2}, {"price": 3}]},
    "xs": [1, 2, 3, 4, 5],
}
CASES = [
    ("simple condition", "amount > 100", "${amount > 100}", "=amount > 100"),
    ("string equality", "status == 'ok'", "${status == 'ok'}", '=status = "ok"'),
    ("path", "order['amount'] > 100", "${order.amount > 100}", "=order.amount > 100"),
    ("and / or", "amount > 100 and status == 'ok'", "${amount > 100 && status == 'ok'}",
     '=amount > 100 and status = "ok"'),
    ("quantifier", "any(x > 4 for x in xs)", None, "=some x in xs satisfies x > 4"),
    ("sum of a path", "sum(i['price'] for i in order['items'])", None,
     "=sum(order.items.price)"),
]  # fmt: skip


def per_call(text: str, number: int, repeat: int) -> float:
    compiled = compile_expression(text)
    compiled.evaluate(VARIABLES)  # warm up, and fail early if it does not run
    timer = timeit.Timer(lambda: compiled.evaluate(VARIABLES))
    return min(timer.repeat(repeat=repeat, number=number)) / number


def compile_cost(text: str, number: int) -> float:
    from bpmn_engine.expressions import _compile_expression

    def compile_fresh() -> None:
        _compile_expression.cache_clear()
        compile_expression(text)

    return timeit.timeit(compile_fresh, number=number) / number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20_000, help="calls per run")
    parser.add_argument("--repeat", type=int, default=7, help="runs (the best is shown)")
    args = parser.parse_args()
    print(f"{'case':<18}{'python':>12}{'juel':>12}{'feel':>12}   (microseconds per evaluate)")
    for name, python, juel, feel in CASES:
        figures = [
            f"{per_call(text, args.number, args.repeat) * 1e6:12.2f}" if text else f"{'-':>12}"
            for text in (python, juel, feel)
        ]
        print(f"{name:<18}{''.join(figures)}")
    print()
    print("compiling once (microseconds, parse + build, cache cleared):")
    for name, python, juel, feel in CASES[:1]:
        for language, text in (("python", python), ("juel", juel), ("feel", feel)):
            print(f"  {name} / {language:<7}{compile_cost(text, 200) * 1e6:10.1f}")


if __name__ == "__main__":
    main()
