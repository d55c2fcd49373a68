"""The layout holds: no import cycles, and the runtime reaches stores only through a protocol.

Imports are read from the source (every `import` the interpreter can execute: at module level
or inside a function), and so are the modules a `_LAZY` table names: imported on first use
(`bpmn_engine/lazy.py`, `bpmn_engine/__init__.py`), they are imports all the same. Imports
under `if TYPE_CHECKING:` only name types for annotations and never run; they are left out of
the run-time graph, and checked in a graph of their own: no circle either, even as types (a
part knows the whole that imports it by a protocol).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "bpmn_engine"


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules_of(package: Path) -> dict[str, Path]:
    """Every module of a source tree, by dotted name."""
    return {module_name(p, package): p for p in sorted(package.rglob("*.py"))}


MODULES = modules_of(PACKAGE)


def type_checking_nodes(tree: ast.Module) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            found.update(id(n) for n in ast.walk(node))
    return found


def imports(
    name: str, modules: dict[str, Path] = MODULES, *, types: bool = False
) -> list[tuple[str, bool]]:
    """(imported module of ours, whether the import is inside a function) of one module;
    with `types`, the imports under `if TYPE_CHECKING:` too."""
    path = modules[name]
    tree = ast.parse(path.read_text())
    skip = set() if types else type_checking_nodes(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    in_function = {
        id(n)
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
        for n in ast.walk(f)
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [
                f"{module}.{a.name}" if f"{module}.{a.name}" in modules else module
                for a in node.names
            ]
        else:
            continue
        found += [(t, id(node) in in_function) for t in targets if t in modules and t != name]
    return found + [(t, False) for t in lazy_table(tree) if t in modules and t != name]


def lazy_table(tree: ast.Module) -> list[str]:
    """The modules a module-level `_LAZY` table names: {attribute: module} (`lazy.py`), or
    {name: (module, attribute)} (the package's public names)."""
    found = []
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if not (isinstance(target, ast.Name) and target.id == "_LAZY"):
            continue
        assert isinstance(node.value, ast.Dict), "a _LAZY table is a dict literal"
        for value in node.value.values:
            first = value.elts[0] if isinstance(value, ast.Tuple) else value
            assert isinstance(first, ast.Constant) and isinstance(first.value, str)
            found.append(first.value)
    return found


def graph(modules: dict[str, Path] = MODULES, *, types: bool = False) -> nx.DiGraph:
    edges = nx.DiGraph()
    edges.add_nodes_from(modules)
    for name in modules:
        edges.add_edges_from((name, t) for t, _ in imports(name, modules, types=types))
    return edges


def package_cycles(
    modules: dict[str, Path] = MODULES, *, types: bool = False
) -> dict[str, list[list[str]]]:
    """The import cycles between the parts of each package, at every depth.

    Inside a package, each direct child is one node: a module, or a subpackage with all the
    modules below it collapsed into it (the package's own `__init__` is a node too). A cycle
    between two children (`a/x.py` imports `b/y.py`, `b/z.py` imports `a/w.py`) is a cycle
    even when no module imports in a circle: neither room can be understood without the other.
    """
    modules_graph = graph(modules, types=types)
    packages = [name for name, path in modules.items() if path.name == "__init__.py"]
    found: dict[str, list[list[str]]] = {}
    for package in packages:

        def child(name: str, package: str = package) -> str | None:
            if name == package:
                return name
            if not name.startswith(package + "."):
                return None
            return f"{package}.{name[len(package) + 1 :].split('.')[0]}"

        parts = nx.DiGraph()
        for a, b in modules_graph.edges:
            ca, cb = child(a), child(b)
            if ca is not None and cb is not None and ca != cb:
                parts.add_edge(ca, cb)
        cycles = sorted(sorted(c) for c in nx.strongly_connected_components(parts) if len(c) > 1)
        if cycles:
            found[package] = cycles
    return found


def module_cycles(modules: dict[str, Path] = MODULES, *, types: bool = False) -> list[list[str]]:
    """The modules that import each other in a circle, each circle sorted."""
    found = nx.strongly_connected_components(graph(modules, types=types))
    return sorted(sorted(c) for c in found if len(c) > 1)


def test_no_module_imports_in_a_circle() -> None:
    assert module_cycles() == []


def test_no_module_imports_in_a_circle_even_as_types() -> None:
    """Counting `if TYPE_CHECKING:` imports too: a part that the whole it belongs to imports
    knows the whole by a protocol or a type parameter (`runtime/engine/services.py`,
    `runtime/step/parts.py`, FEEL's `properties.Warns`), so each module reads without the
    ones above it."""
    assert module_cycles(types=True) == []


def test_no_package_imports_in_a_circle_at_any_depth() -> None:
    assert package_cycles() == {}


def test_no_package_imports_in_a_circle_even_as_types() -> None:
    """A lower room knows a higher one by a protocol of its own (`Services`,
    `InstanceServices`, `WorkerServices`, the call tree's `Member` and `Family`), not by an
    `if TYPE_CHECKING:` import of it, so each room reads without the ones above it."""
    assert package_cycles(types=True) == {}


def test_a_package_cycle_planted_on_purpose_is_reported(tmp_path: Path) -> None:
    """The check above can fail: two rooms one level down whose modules import each other
    (`a.one` -> `b.two`, `b.three` -> `a.four`) with no module cycle are reported."""
    files = {
        "__init__.py": "",
        "top.py": "from pkg.inner.a import one\n",
        "inner/__init__.py": "",
        "inner/a/__init__.py": "",
        "inner/a/one.py": "from pkg.inner.b import two\n",
        "inner/a/four.py": "X = 4\n",
        "inner/b/__init__.py": "",
        "inner/b/two.py": "Y = 2\n",
        # an import inside a function runs all the same
        "inner/b/three.py": "def f() -> None:\n    from pkg.inner.a import four\n",
        # a type-only import never runs: no cycle through pkg.top
        "inner/c/__init__.py": "",
        "inner/c/five.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from pkg import top\n",
        "inner/c/six.py": "from pkg.inner.c import five\n",
    }
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    planted = modules_of(tmp_path / "pkg")
    assert nx.is_directed_acyclic_graph(graph(planted))  # no module cycle gives it away
    assert package_cycles(planted) == {"pkg.inner": [["pkg.inner.a", "pkg.inner.b"]]}
    (tmp_path / "pkg" / "inner" / "b" / "three.py").write_text("Z = 3\n")
    assert package_cycles(modules_of(tmp_path / "pkg")) == {}
    # counted as types, c's import of pkg.top closes a cycle: pkg.top -> pkg.inner -> pkg.top
    assert package_cycles(modules_of(tmp_path / "pkg"), types=True) == {
        "pkg": [["pkg.inner", "pkg.top"]]
    }
    # pkg.top importing five back: a module cycle, seen only when types count
    (tmp_path / "pkg" / "top.py").write_text("from pkg.inner.c import five\n")
    assert module_cycles(modules_of(tmp_path / "pkg")) == []
    assert module_cycles(modules_of(tmp_path / "pkg"), types=True) == [
        ["pkg.inner.c.five", "pkg.top"]
    ]


def test_the_runtime_imports_no_concrete_store_and_no_import_hides_in_a_function() -> None:
    for name in MODULES:
        if not name.startswith("bpmn_engine.runtime"):
            continue
        for target, inside in imports(name):
            assert not target.startswith("bpmn_engine.store"), f"{name} imports {target}"
            assert not inside, f"{name} imports {target} inside a function"


def test_the_runtime_defers_an_import_only_through_a_lazy_table() -> None:
    """No importlib or __import__ in the runtime: what it imports on first use is listed in
    `runtime/deferred.py`'s `_LAZY` table, which the graph above reads."""
    for name, path in MODULES.items():
        if not name.startswith("bpmn_engine.runtime"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            elif isinstance(node, ast.Name):
                modules = ["__import__"] if node.id == "__import__" else []
            else:
                continue
            assert not any(m.split(".")[0] in ("importlib", "__import__") for m in modules), name
    deferred = dict(imports("bpmn_engine.runtime.deferred"))
    assert deferred.get("bpmn_engine.dmn.decisions") is False  # the table is read


def test_a_store_knows_the_records_and_the_store_protocol_only() -> None:
    for name in MODULES:
        if name.startswith("bpmn_engine.store"):
            for target, _ in imports(name):
                if target.startswith("bpmn_engine.runtime"):
                    assert target == "bpmn_engine.runtime.storage", f"{name} imports {target}"


@pytest.mark.parametrize("chunk", range(4))
def test_every_module_imports_alone(chunk: int) -> None:
    """Each module in a clean interpreter state: an import order that hides a cycle fails."""
    names = sorted(MODULES)[chunk::4]
    script = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    for loaded in [m for m in sys.modules if m.startswith('bpmn_engine')]:\n"
        "        del sys.modules[loaded]\n"
        "    importlib.import_module(name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr


# What the front end may import besides itself: the package's public API and the helpers made
# for the edges (terminal safety, exit codes, reading a file a user names, the validate
# report formats, naming a database without its password).
FRONT_END_MAY_IMPORT = {
    "bpmn_engine",
    "bpmn_engine.diagram",
    "bpmn_engine.dsn",
    "bpmn_engine.errors",
    "bpmn_engine.exit_codes",
    "bpmn_engine.serve",
    "bpmn_engine.terminal",
    "bpmn_engine.testkit",
    "bpmn_engine.userfiles",
    "bpmn_engine.validate",
    "bpmn_engine.validate.output",
}
# Attributes that reach past the public API: the store behind an engine, an instance's rows,
# the model's index of scopes.
FRONT_END_MAY_NOT_READ = {"store", "node_scopes", "scheduler", "postman"}


def front_end_modules() -> list[str]:
    """The command line and the HTTP server (`bpmn serve`): thin layers over the API."""
    return [name for name in MODULES if name.split(".")[:2] in (["bpmn_engine", "cli"], SERVE)]


SERVE = ["bpmn_engine", "serve"]


def test_the_front_end_imports_the_public_api_only() -> None:
    import bpmn_engine

    assert len(front_end_modules()) >= 8
    for name in front_end_modules():
        for target, _ in imports(name):
            assert not target.startswith("bpmn_engine.store"), f"{name} imports {target}"
            assert not target.startswith("bpmn_engine.records"), f"{name} imports {target}"
            own = ".".join(name.split(".")[:2])  # each front end imports its own modules
            assert target.startswith(own) or target in FRONT_END_MAY_IMPORT, (
                f"{name} imports {target}"
            )
        tree = ast.parse(MODULES[name].read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "bpmn_engine":
                hidden = [a.name for a in node.names if a.name not in bpmn_engine.__all__]
                assert not hidden, f"{name} imports {hidden} from bpmn_engine (not in __all__)"


def test_the_front_end_reads_no_private_or_internal_attribute() -> None:
    for name in front_end_modules():
        tree = ast.parse(MODULES[name].read_text())
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            owner = ast.unparse(node.value)
            where = f"{name}:{node.lineno}: {ast.unparse(node)}"
            private = node.attr.startswith("_") and not node.attr.startswith("__")
            assert not (private and owner != "self"), where
            assert node.attr not in FRONT_END_MAY_NOT_READ, where
            # an instance's rows (`instance.data`), as opposed to an event's data
            assert not (node.attr == "data" and "instance" in owner), where
