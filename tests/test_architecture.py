"""The stages of ARCHITECTURE.md hold: imports flow one way and never in a circle.

Every module under smarteval/ is parsed with ``ast``; each ``import`` and ``from ...
import`` at any depth (inside functions and ``if TYPE_CHECKING`` blocks too), and each
``importlib.import_module("...")`` of a literal name, is an edge of the module graph. The
stage of a module is read from the block of stages in ARCHITECTURE.md, so the page and
the tree cannot drift apart.
"""

from __future__ import annotations

import ast
import functools
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


# =========================================================================== the rules
#
# ARCHITECTURE.md's rules that a reader of the source can check: no Python loop over
# queries or documents in a measure, no module state but the registry, a first line
# that says the module's job.

@functools.cache
def parsed(package: Path = PACKAGE) -> dict[str, ast.Module]:
    """Each module of ``package`` parsed (once: the rules' tests read the same trees)."""
    return {name: ast.parse(path.read_text(encoding="utf-8"), str(path))
            for name, (path, _) in modules(package).items()}


#: The modules of the measure families and their shared pieces (not the registry, the
#: grammar of -m or the loading of plugins, which compute no measure).
MEASURE_MODULES = {f"smarteval.measures.{m}" for m in (
    "trec", "prefs", "closure", "smart", "swets", "extra", "diversity", "cwl", "web",
    "segments", "tied", "gains", "collection")}

#: Names that stand for the queries or documents of a ranking: a loop over them is a
#: Python loop over queries or documents.
PER_QUERY_OR_DOCUMENT = {"qids", "offsets", "starts", "ends", "num_queries", "Q", "nq",
                         "docno", "docnos", "rel", "score", "rows", "num_ret"}

#: Loops over queries that measures keep, and why.
QUERY_LOOPS = {
    ("smarteval.measures.trec", "relstring"):
        "its value is a string per query (the grades of the first documents), text that "
        "numpy does not build",
    ("smarteval.measures.cwl", "cwl_values"):
        "blocks of queries, each computed at once: the blocks bound the memory of the "
        "(query, rank) matrices",
}


def query_loops(tree: ast.Module) -> list[tuple[str, int, str]]:
    """(function, line, iterable) of each loop of a function over queries or documents."""
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                over = node.iter
            elif isinstance(node, ast.While):
                over = node.test
            else:
                continue
            names = {n.id for n in ast.walk(over) if isinstance(n, ast.Name)} | \
                {n.attr for n in ast.walk(over) if isinstance(n, ast.Attribute)}
            if names & PER_QUERY_OR_DOCUMENT:
                found.append((fn.name, over.lineno, ast.unparse(over)))
    return found


def test_no_python_loop_over_queries_in_a_measure():
    trees = parsed()
    assert set(trees) >= MEASURE_MODULES
    loops = [f"{module}.{fn} (line {line}): for ... in {over}"
             for module in sorted(MEASURE_MODULES)
             for fn, line, over in query_loops(trees[module])
             if (module, fn) not in QUERY_LOOPS]
    assert not loops, "a Python loop over queries or documents in a measure (use numpy " \
        "segment operations, or name it in QUERY_LOOPS with the reason):\n" + "\n".join(loops)
    for module, fn in QUERY_LOOPS:
        assert any(f == fn for f, _, _ in query_loops(trees[module])), \
            f"{module}.{fn} loops over queries no more: drop it from QUERY_LOOPS"


def test_a_loop_over_queries_is_seen():
    tree = ast.parse("def m(r):\n    return [v for v in range(r.num_queries)]\n"
                     "def n(r):\n    for s, e in zip(starts, ends):\n        pass\n"
                     "def ok(r, levels):\n    for x in levels:\n        pass\n")
    assert [(f, line) for f, line, _ in query_loops(tree)] == [("m", 2), ("n", 4)]


#: What the registry is: module state every other module may change.
REGISTRY_MODULE = "smarteval.measures.registry"
#: Module state outside the registry, and why it cannot be passed along instead.
MODULE_STATE = {
    ("smarteval.evaluation", "_WORKER_JOB"):
        "a process started afresh (-j off Linux) gets the job once, from the pool's "
        "initializer, which can hand it to the work only through the module",
    ("smarteval.measures.plugins", "_loading"):
        "the plugin being imported: its module's @measure decorators, called by the "
        "import, learn from it whose measures they register",
    ("smarteval.stats.tukey", "studentized_range_ppf"):
        "a cache of scipy's studentized range quantile (0.1 to 0.2 s a call), which every "
        "measure of a table or of discpower over the same runs and queries asks again, "
        "deep inside tukey_hsd; a pure function of its arguments",
}
#: Methods that change a list, dict or set.
_MUTATORS = {"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update",
             "setdefault", "add", "discard", "sort", "reverse"}
_CACHES = {"lru_cache", "cache"}


def _module_containers(tree: ast.Module) -> set[str]:
    """Names a module binds, at its top level, to a list, dict or set it may change."""
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp,
                              ast.SetComp)) or (isinstance(value, ast.Call)
                                                and isinstance(value.func, ast.Name)
                                                and value.func.id in ("list", "dict", "set")):
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def module_state(trees: dict[str, ast.Module]) -> set[tuple[str, str]]:
    """(module, name) of the state each module keeps: a name a function rebinds with
    ``global``, a module's list, dict or set a function changes (its own, or one it
    imported from another module of the tree), a cached function."""
    containers = {m: _module_containers(t) for m, t in trees.items()}
    found = set()
    for module, tree in trees.items():
        home = {n: (module, n) for n in containers[module]}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module in containers:
                for alias in node.names:
                    if alias.name in containers[node.module]:
                        home[alias.asname or alias.name] = (node.module, alias.name)
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for d in fn.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                if (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)) \
                        in _CACHES:
                    found.add((module, fn.name))
            for node in ast.walk(fn):
                if isinstance(node, ast.Global):
                    found |= {(module, n) for n in node.names}
                changed = []
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr in _MUTATORS:
                    changed.append(node.func.value)
                elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
                    targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) \
                        else [node.target]
                    changed += [t.value for t in targets if isinstance(t, ast.Subscript)]
                found |= {home[c.id] for c in changed if isinstance(c, ast.Name)
                          and c.id in home}
    return found


def test_no_module_state_but_the_registry():
    state = module_state(parsed())
    unnamed = sorted(f"{m}.{n}" for m, n in state
                     if m != REGISTRY_MODULE and (m, n) not in MODULE_STATE)
    assert not unnamed, "module state outside the registry (pass it along instead, or " \
        "name it in MODULE_STATE with the reason):\n" + "\n".join(unnamed)
    gone = sorted(f"{m}.{n}" for m, n in MODULE_STATE if (m, n) not in state)
    assert not gone, f"no longer module state: drop from MODULE_STATE {gone}"
    assert any(m == REGISTRY_MODULE for m, _ in state)


def test_module_state_is_seen(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text(
        "import functools\nSEEN = []\nCONSTANT = (1, 2)\nPID = 0\n"
        "def f(x):\n    SEEN.append(x)\n    return CONSTANT[0]\n"
        "def g():\n    global PID\n    PID = 1\n"
        "@functools.lru_cache\ndef h(x):\n    return x\n")
    (tmp_path / "pkg" / "b.py").write_text(
        "from pkg.a import SEEN\ndef k():\n    SEEN[0] = 1\n"
        "def local():\n    seen = []\n    seen.append(1)\n")
    assert module_state(parsed(tmp_path / "pkg")) == {("pkg.a", "SEEN"), ("pkg.a", "PID"),
                                                      ("pkg.a", "h")}


def job_line(tree: ast.Module) -> str | None:
    """What is wrong with a module's first line, if anything: it is a docstring whose
    first line starts to say the module's job, a sentence ended by its first paragraph."""
    doc = ast.get_docstring(tree, clean=False)
    if doc is None or tree.body[0].lineno != 1:
        return "the first line is not the module's docstring"
    first = doc.split("\n", 1)[0]
    if len(first.split()) < 3 or first != first.strip():
        return f"the docstring's first line does not say the job: {first!r}"
    if not doc.split("\n\n", 1)[0].rstrip().endswith("."):
        return "the docstring's first paragraph is not a sentence ending in a period"
    return None


def test_every_module_first_line_says_its_job():
    wrong = [f"{m}: {why}" for m, tree in sorted(parsed().items())
             if (why := job_line(tree)) is not None]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("source", [
    "import os\n",
    '\n"""Late."""\n',
    '"""Utils."""\n',
    '"""Reads the run files\n\nand more"""\n',
])
def test_a_module_without_its_job_is_seen(source):
    assert job_line(ast.parse(source)) is not None
    assert job_line(ast.parse('"""Reads the run files into columns."""\n')) is None


# --------------------------------------------------------------------------- C's math

#: numpy's functions whose value follows the SIMD kernel or the BLAS/LAPACK kernel chosen
#: for the CPU: their last bit, a NaN's sign (smarteval.libm has C's versions).
KERNEL_DEPENDENT = {
    "log", "log2", "log10", "log1p", "exp", "exp2", "expm1", "power", "float_power",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh",
    "arcsinh", "arccosh", "arctanh", "hypot", "cbrt", "logaddexp", "logaddexp2",
    "dot", "matmul", "inner", "outer", "tensordot", "vdot", "linalg", "polyfit",
    "leggauss", "chebfit", "lstsq", "solve", "eigvals", "eig", "svd", "inv",
}
#: Exponents numpy computes by arithmetic (square, sqrt, reciprocal), the same everywhere.
EXACT_EXPONENTS = {2, 0.5, -1, -1.0}
#: ``**`` whose operands are Python numbers or whole numbers (computed by Python, or as
#: integer powers), and why.
SCALAR_POWERS = {
    ("smarteval.stats.selection", "at_x ** r"): "a Python float to a Python int",
    ("smarteval.stats.tukey", "f ** topics"): "whole numbers: an integer power",
    ("smarteval.stats.significance", "2.0 ** n"): "a Python float to a Python int",
    ("smarteval.stats.significance", "tied ** 3"): "counts: an integer power",
}


def const(node: ast.AST) -> bool:
    """A number written in the source (a sign allowed)."""
    return isinstance(node, ast.Constant) or (isinstance(node, ast.UnaryOp)
                                              and isinstance(node.operand, ast.Constant))


def kernel_dependent(name: str, tree: ast.Module) -> list[str]:
    """The calls of ``tree`` whose value may follow the CPU's kernel: numpy's
    transcendental functions and BLAS, ``@``, and ``**`` of arrays to other exponents."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in KERNEL_DEPENDENT:
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in ("np", "numpy"):
                out.append(f"line {node.lineno}: np...{node.attr}")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            out.append(f"line {node.lineno}: @")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            left, right = node.left, node.right
            if (const(right) and ast.literal_eval(right) in EXACT_EXPONENTS) \
                    or (const(left) and const(right)) \
                    or (isinstance(left, ast.Constant) and type(left.value) is int) \
                    or (name, ast.unparse(node)) in SCALAR_POWERS:
                continue
            out.append(f"line {node.lineno}: {ast.unparse(node)}")
    return out


def test_no_value_follows_the_cpus_kernel():
    found = [f"{name} {where}" for name, tree in sorted(parsed().items())
             if name != "smarteval.libm" for where in kernel_dependent(name, tree)]
    assert not found, "a value taken from a kernel chosen for the CPU (use smarteval.libm, " \
        "or name a scalar power in SCALAR_POWERS with the reason):\n" + "\n".join(found)
    trees = parsed()
    for name, text in SCALAR_POWERS:
        assert any(ast.unparse(n) == text for n in ast.walk(trees[name])
                   if isinstance(n, ast.BinOp)), f"{name}: no {text} any more"


@pytest.mark.parametrize("source", [
    "x = np.log(a)\n", "x = np.polynomial.legendre.leggauss(3)\n", "x = a @ b\n",
    "x = a ** 3.0\n", "x = 2.0 ** a\n", "x = np.linalg.solve(a, b)\n"])
def test_a_kernel_dependent_value_is_seen(source):
    assert kernel_dependent("m", ast.parse(source))
    assert not kernel_dependent("m", ast.parse("x = a ** 2 + 2 ** n + 10.0 ** 3 + a ** 0.5\n"))
