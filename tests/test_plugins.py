"""Measures of one's own: --plugin, the smarteval.measures entry points, README's example.

Every test leaves the registry as it found it (the ``clean`` fixture), so that the other
tests see smarteval's own measures only.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fixtures import invoke as run

import smarteval
from smarteval.errors import UsageError
from smarteval.measures import all_measures, load_plugin
from smarteval.measures.registry import ENTRY_POINTS, PLUGINS, REGISTRY, load_modules

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "example_plugin.py"
PLUGIN = ["--plugin", str(EXAMPLE)]

QRELS = "1 0 a 2\n1 0 b 1\n1 0 c 0\n1 0 z 2\n2 0 d 1\n2 0 e 0\n3 0 f 0\n"
RUN = "1 Q0 a 1 3.0 r\n1 Q0 c 2 2.0 r\n1 Q0 b 3 1.0 r\n2 Q0 e 1 2.0 r\n2 Q0 d 2 1.0 r\n" \
      "3 Q0 f 1 1.0 r\n"
OTHER = "1 Q0 z 1 3.0 o\n1 Q0 a 2 2.0 o\n2 Q0 d 1 2.0 o\n3 Q0 f 1 1.0 o\n"


@pytest.fixture(autouse=True)
def clean(tmp_path_factory):
    """The registry, the loaded plugins and the plugins' modules as before the test (every
    family loaded first: one loaded during the test would otherwise lose its measures)."""
    load_modules()
    saved, loaded, modules = dict(REGISTRY), dict(PLUGINS), set(sys.modules)
    yield
    places = (str(EXAMPLE.parent), str(tmp_path_factory.getbasetemp()))
    for name in set(sys.modules) - modules:
        if str(getattr(sys.modules[name], "__file__", None) or "").startswith(places):
            del sys.modules[name]
    for table, old in ((REGISTRY, saved), (PLUGINS, loaded)):
        table.clear()
        table.update(old)       # type: ignore[attr-defined]


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    (tmp_path / "other").write_text(OTHER)
    return tmp_path


def oracle(codes, grades, k, level=1):
    sys.path.insert(0, str(EXAMPLE.parent))
    try:
        import example_plugin
    finally:
        sys.path.pop(0)
    return example_plugin.graded_precision_oracle(codes, grades, k, level)


# per query of RUN: retrieved grades in rank order and every qrels grade
WANT = {"1": ([2, 0, 1], [2, 1, 0, 2]), "2": ([0, 1], [1, 0]), "3": ([0], [0])}


def test_evaluate_trec_output(files):
    res = run("evaluate", *PLUGIN, "-m", "graded_P.2,3", "-q", "-f", "trec",
              files / "qrels", files / "run")
    assert res.exit_code == 0, res.output
    lines = [ln.split() for ln in res.output.splitlines()]
    got = {(m, q): float(v) for m, q, v in lines}
    for k in (2, 3):
        values = []
        for q, (codes, grades) in WANT.items():
            values.append(oracle(codes, grades, k))
            assert got[(f"graded_P_{k}", q)] == pytest.approx(values[-1], abs=1e-4)
        assert got[(f"graded_P_{k}", "all")] == pytest.approx(sum(values) / 3, abs=1e-4)


def test_evaluate_tsv_json_and_defaults(files):
    res = run("evaluate", *PLUGIN, "-m", "graded_P", "-m", "P.5", "-f", "tsv",
              files / "qrels", files / "run")
    assert res.exit_code == 0, res.output
    names = [ln.split("\t")[2] for ln in res.output.splitlines()[1:]]
    assert names == ["graded_P_5", "graded_P_10", "graded_P_20", "P_5"]     # as asked
    res = run("evaluate", *PLUGIN, "-m", "graded_P.1", "-q", "-f", "json",
              files / "qrels", files / "run")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)[0]
    assert data["queries"] == {"1": {"graded_P_1": 1.0}, "2": {"graded_P_1": 0.0},
                               "3": {"graded_P_1": 0.0}}
    assert data["summary"]["graded_P_1"] == pytest.approx(1 / 3)


def test_smart_table_ties_and_plugin_given_twice(files):
    res = run("evaluate", *PLUGIN, *PLUGIN, "-m", "graded_P.2", files / "qrels", files / "run")
    assert res.exit_code == 0, res.output
    assert re.search(r"graded_P_2\s+0\.3333", res.output)     # (2/4 + 1/2 + 0) / 3
    res = run("evaluate", *PLUGIN, "-m", "graded_P.2", "--ties", "average",
              files / "qrels", files / "run")
    assert res.exit_code == 2
    assert "--ties average: graded_P has no exact average" in res.output


def test_compare(files):
    res = run("compare", *PLUGIN, "-m", "graded_P.2", files / "qrels", files / "run",
              files / "other")
    assert res.exit_code == 0, res.output
    assert "graded_P_2" in res.output


def test_measures_lists_the_plugin():
    res = run("measures", *PLUGIN, "-f", "tsv")
    assert res.exit_code == 0, res.output
    assert ("graded_P\t5,10,20\tGraded precision after k documents: their grades over k "
            "times the query's top grade.") in res.output.splitlines()


def test_python_api(files):
    assert smarteval.measure is smarteval.measures.measure
    names = load_plugin(str(EXAMPLE))
    assert names == ("graded_P",)
    assert load_plugin(str(EXAMPLE)) == names            # a second load changes nothing
    ev = smarteval.evaluate(str(files / "qrels"), str(files / "run"), ["graded_P.3"])[0]
    assert ev.summary["graded_P_3"] == pytest.approx((3 / 6 + 1 / 3 + 0) / 3)


def test_readme_shows_the_example_plugin():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Your own measures"):]
    block = re.search(r"(?ms)^```python\n(.*?)^```$", section)
    assert block and block.group(1) == EXAMPLE.read_text(encoding="utf-8")
    assert "$ smarteval evaluate --plugin docs/example_plugin.py" in section


def test_worker_processes_load_the_plugin(files):
    """A plugin measure is pickled with its plugin: a process that has not loaded it loads
    it (what -j does where workers start afresh)."""
    load_plugin(str(EXAMPLE))
    data = pickle.dumps(all_measures()["graded_P"])
    code = ("import pickle, sys; m = pickle.loads(sys.stdin.buffer.read()); "
            "print(m.name, m.plugin, m.func.__name__)")
    out = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True,
                         check=True).stdout.decode()
    assert out.split() == ["graded_P", str(EXAMPLE), "graded_precision"]
    res = run("evaluate", *PLUGIN, "-j", "2", "-m", "graded_P.2", "-f", "tsv",
              files / "qrels", files / "run", files / "other")
    assert res.exit_code == 0, res.output
    assert sum("graded_P_2" in ln for ln in res.output.splitlines()) == 2


# =========================================================================== failures

def plugin_file(tmp_path: Path, text: str, name: str = "mine.py") -> Path:
    path = tmp_path / name
    path.write_text("from smarteval.measures import measure\n" + text)
    return path


def refused(*args) -> str:
    res = run("measures", *args)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    return res.output


def test_missing_module_and_file(tmp_path):
    assert refused("--plugin", "no_such_module_here") == (
        "Error: plugin no_such_module_here: no module named 'no_such_module_here' (give an "
        "importable module's name, or the path of a .py file)\n")
    assert refused("--plugin", tmp_path / "none.py") == \
        f"Error: plugin {tmp_path / 'none.py'}: no such file\n"


def test_error_inside_the_plugin(tmp_path):
    path = plugin_file(tmp_path, "x = 1\ny = 1 / 0\n")
    assert refused("--plugin", path) == (
        f"Error: plugin {path}: importing it failed: ZeroDivisionError: division by zero "
        f"({path}, line 3)\n")
    path = plugin_file(tmp_path, "import no_such_dependency\n", "dep.py")
    assert "importing it failed: ModuleNotFoundError: No module named " \
           "'no_such_dependency'" in refused("--plugin", path)
    path = plugin_file(tmp_path, "def (\n", "syntax.py")
    assert f"importing it failed: SyntaxError: invalid syntax ({path}, line 2)" \
        in refused("--plugin", path)


@pytest.mark.parametrize("name, why", [
    ("map", "'map' is one of smarteval's measures: give yours another name"),
    ("official", "'official' is a nickname of trec_eval's measures"),
    ("nDCG", "'nDCG' is an ir_measures name -m reads"),
    ("P.5", "'P.5' cannot name a measure"),
])
def test_names_a_plugin_may_not_take(tmp_path, name, why):
    path = plugin_file(tmp_path, f"@measure({name!r})\ndef f(r):\n    return r.num_ret\n")
    out = refused("--plugin", path)
    assert out.startswith(f"Error: plugin {path}: {why}"), out
    assert all_measures()["map"].plugin is None


def test_two_plugins_with_one_name_and_a_plugin_without_measures(tmp_path):
    text = "@measure('mine')\ndef f(r):\n    return r.num_ret * 1.0\n"
    a, b = plugin_file(tmp_path, text, "a.py"), plugin_file(tmp_path, text, "b.py")
    assert f"'mine' is already a measure of plugin {a}" in refused("--plugin", a, "--plugin", b)
    empty = plugin_file(tmp_path, "", "empty.py")
    assert "it registers no measure" in refused("--plugin", empty)


def test_a_plugin_that_fails_registers_nothing(tmp_path):
    path = plugin_file(tmp_path, "@measure('half')\ndef f(r):\n    return r.num_ret\n"
                                 "raise RuntimeError('late')\n")
    with pytest.raises(UsageError, match="RuntimeError: late"):
        load_plugin(str(path))
    assert "half" not in all_measures()


def test_aggregation_and_values_of_a_plugin(tmp_path, files):
    path = plugin_file(tmp_path, "@measure('ret_total', average='sum', value='int')\n"
                                 "def f(r):\n    '''Documents retrieved, summed.'''\n"
                                 "    return r.num_ret\n")
    res = run("evaluate", "--plugin", path, "-m", "ret_total", "-f", "trec",
              files / "qrels", files / "run")
    assert res.exit_code == 0, res.output
    assert res.output.split() == ["ret_total", "all", "6"]


# =========================================================================== entry points

def site(tmp_path: Path, module_text: str) -> Path:
    """A directory holding an installed package's metadata naming a smarteval.measures
    entry point, and its module."""
    root = tmp_path / "site"
    info = root / "mymeasures-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mymeasures\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[smarteval.measures]\nmine = mymeasures_mod\n")
    (root / "mymeasures_mod.py").write_text("from smarteval.measures import measure\n"
                                            + module_text)
    return root


def test_entry_point_is_loaded(tmp_path, monkeypatch, files):
    root = site(tmp_path, "@measure('ep_ret')\ndef f(r):\n    '''Retrieved.'''\n"
                          "    return r.num_ret * 1.0\n")
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setitem(ENTRY_POINTS, "loaded", False)     # looked up again, as at start
    assert all_measures()["ep_ret"].plugin == "mymeasures_mod"
    res = run("evaluate", "-m", "ep_ret", "-f", "trec", files / "qrels", files / "run")
    assert res.output.split() == ["ep_ret", "all", "2.0000"]


def test_broken_entry_point_is_one_message(tmp_path):
    root = site(tmp_path, "raise ImportError('needs a library')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(ROOT)])}
    res = subprocess.run([sys.executable, "-m", "smarteval", "measures"], env=env,
                         capture_output=True, text=True)
    assert res.returncode == 2
    assert res.stderr.startswith(
        "Error: plugin mymeasures_mod (entry point 'mine' of mymeasures): importing it "
        "failed: ImportError: needs a library"), res.stderr
    assert "Traceback" not in res.stderr


def test_built_in_measures_never_look_up_entry_points():
    # the scan of every installed distribution is paid only for a name not found
    code = ("import sys; from smarteval.measures import parse_measures; "
            "parse_measures(['official', 'nDCG@10', 'ndcg_cut.5']); "
            "print('importlib.metadata' in sys.modules)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.stdout.strip() == "False", res.stderr
