"""The stages of ARCHITECTURE.md hold: imports flow one way and never in a circle.

Every module under smarteval/ is parsed with ``ast``; each ``import`` and ``from ...
import`` at any depth (inside functions and ``if TYPE_CHECKING`` blocks too), and each
``importlib.import_module("...")`` of a literal name, is an edge of the module graph. The
stage of a module is read from the block of stages in ARCHITECTURE.md, so the page and
the tree cannot drift apart.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "smarteval"
ARCHITECTURE = ROOT / "ARCHITECTURE.md"


# =========================================================================== the module graph

def modules(package: Path = PACKAGE) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, whether it is a package's ``__init__``)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        found[".".join(parts)] = (path, is_package)
    return found


def _known(name: str, known) -> str | None:
    """The longest prefix of ``name`` that is a module of the tree (None: not ours)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def imported(name: str, path: Path, is_package: bool, known) -> dict[str, int]:
    """The modules of the tree that module ``name`` imports -> the first line doing so."""
    here = name if is_package else name.rpartition(".")[0]
    found: dict[str, int] = {}

    def add(target: str | None, line: int) -> None:
        if target is not None and target != name:
            found.setdefault(target, line)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(_known(alias.name, known), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                # ``from package import module`` imports the module; anything else its source
                full = f"{source}.{alias.name}"
                add(full if full in known else _known(source, known), node.lineno)
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module"
                   or isinstance(node.func, ast.Name) and node.func.id == "import_module")):
            add(_known(node.args[0].value, known), node.lineno)
    return found


def graph() -> dict[str, dict[str, int]]:
    known = modules()
    return {name: imported(name, path, is_package, known)
            for name, (path, is_package) in known.items()}


def cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


# =========================================================================== the stages

def stages(text: str | None = None) -> list[list[str]]:
    """The stages of ARCHITECTURE.md's block, first to last: each a list of names
    (``settings`` a module, ``read/`` a folder, ``__init__`` the package itself)."""
    text = ARCHITECTURE.read_text(encoding="utf-8") if text is None else text
    block = re.search(r"(?ms)^## The stages\n.*?^```\n(.*?)^```$", text)
    assert block, "ARCHITECTURE.md: no ``` block of stages under '## The stages'"
    found = []
    for line in block.group(1).splitlines():
        names = re.split(r"\s{2,}", line.strip().removeprefix("->").strip())[0]
        found.append([n.strip() for n in names.split(",")])
    return found


def stage_of(module: str, stage_names: list[list[str]]) -> int | None:
    """The stage of a dotted module name (None when ARCHITECTURE.md does not place it)."""
    parts = module.split(".")
    for i, names in enumerate(stage_names):
        for name in names:
            if name == "__init__":
                hit = len(parts) == 1
            elif name.endswith("/"):
                hit = len(parts) >= 2 and parts[1] == name[:-1]
            else:
                hit = len(parts) == 2 and parts[1] == name
            if hit:
                return i
    return None


# =========================================================================== the tests

def test_the_graph_sees_every_kind_of_import(tmp_path):
    """The parser itself: relative, nested, aliased and importlib imports all count."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from pkg.sub import b\n")
    (pkg / "c.py").write_text("import importlib\nimportlib.import_module('pkg.a')\n")
    (pkg / "sub" / "__init__.py").write_text("from . import b\n")
    (pkg / "sub" / "b.py").write_text("from ..c import thing\nimport pkg.a as alias\n")
    known = modules(pkg)
    edges = {n: set(imported(n, p, is_pkg, known)) for n, (p, is_pkg) in known.items()}
    assert edges == {"pkg": set(), "pkg.a": {"pkg.sub.b"}, "pkg.c": {"pkg.a"},
                     "pkg.sub": {"pkg.sub.b"}, "pkg.sub.b": {"pkg.c", "pkg.a"}}
    assert cycles({n: dict.fromkeys(e, 0) for n, e in edges.items()}) == \
        [["pkg.a", "pkg.c", "pkg.sub.b"]]


def test_stages_are_read_from_the_page():
    text = ("## The stages\n\n```\nsettings, errors      shared\n  -> read/      files\n"
            "  -> api, __init__, cli/    calls\n```\n")
    names = stages(text)
    assert names == [["settings", "errors"], ["read/"], ["api", "__init__", "cli/"]]
    assert stage_of("smarteval.errors", names) == 0
    assert stage_of("smarteval.read", names) == 1
    assert stage_of("smarteval.read.plain", names) == 1
    assert stage_of("smarteval", names) == 2
    assert stage_of("smarteval.cli.options", names) == 2
    assert stage_of("smarteval.settings.x", names) is None     # a module is not a folder
    assert stage_of("smarteval.output", names) is None


def test_every_module_has_a_stage_and_every_stage_a_module():
    names = stages()
    known = modules()
    unplaced = sorted(m for m in known if stage_of(m, names) is None)
    assert not unplaced, f"ARCHITECTURE.md's stages do not place {unplaced}"
    for stage in names:
        for name in stage:
            assert any(stage_of(m, [[name]]) == 0 for m in known), \
                f"ARCHITECTURE.md names {name!r}, which is not under smarteval/"


def test_no_import_circle():
    found = cycles(graph())
    assert not found, "modules importing each other in a circle:\n" + "\n".join(
        " <-> ".join(c) for c in found)


def test_imports_flow_from_earlier_stages_to_later_ones():
    names = stages()
    backwards = []
    for module, targets in sorted(graph().items()):
        here = stage_of(module, names)
        for target, line in sorted(targets.items()):
            there = stage_of(target, names)
            assert here is not None and there is not None
            if there > here:
                backwards.append(f"{module} (line {line}) imports {target}, a later stage "
                                 f"({' '.join(names[there])} after {' '.join(names[here])})")
    assert not backwards, "\n".join(backwards)


@pytest.mark.parametrize("module, target", [
    ("smarteval.measures.registry", "smarteval.measures"),     # the measure package
    ("smarteval.read.plain", "smarteval.ranking.join"),         # reading and ranking
    ("smarteval.plot.draw", "smarteval.output"),                # drawing and writing
])
def test_known_back_edges_would_be_caught(module, target):
    """The checks fail on the edges they exist to forbid."""
    edges = graph()
    edges[module] = {**edges[module], target: 0}
    names = stages()
    backward = stage_of(target, names) > stage_of(module, names)
    assert backward or cycles(edges), (module, target)
