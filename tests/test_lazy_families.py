"""Measure modules are imported when needed: trec_eval's with the package, the others when
a name is not found among those loaded or every measure is listed; the registry keeps
the order of MODULES whatever the order they were imported in."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
import smarteval.measures as m
from smarteval.measures.registry import MODULES, REGISTRY
def loaded():
    return [f for f in MODULES if f"smarteval.measures.{f}" in sys.modules]
out = {"package": loaded()}
{body}
print(json.dumps(out))
"""


def probe(body: str) -> dict:
    code = PROBE.replace("{body}", body)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def test_official_needs_trec_eval_measures_only():
    out = probe('m.parse_measures(["official"]); out["official"] = loaded()\n'
                'm.parse_measures(["all_trec"], 10); out["all_trec"] = loaded()')
    assert out["package"] == out["official"] == out["all_trec"] == ["trec"]


def test_other_names_load_every_family():
    out = probe('m.parse_measures(["map", "norm_recall"]); out["smart"] = loaded()')
    assert out["smart"] == list(("trec", "prefs", "smart", "extra", "swets", "web",
                                 "diversity", "cwl", "sample", "ntcir"))


def test_a_family_nickname_loads_its_family_alone():
    out = probe('m.parse_measures(["sample_eval"]); out["sample"] = loaded()\n'
                'm.parse_measures(["ntcireval"]); out["ntcir"] = loaded()')
    assert out["sample"] == ["trec", "sample"]
    assert out["ntcir"] == ["trec", "sample", "ntcir"]


def test_registry_order_does_not_depend_on_import_order():
    body = ('import smarteval.measures.cwl, smarteval.measures.swets\n'
            'out["early"] = list(REGISTRY)\n'
            'out["all"] = list(m.all_measures())\n'
            'rank = {f: i for i, f in enumerate(MODULES)}\n'
            'out["ranks"] = [rank[v.func.__module__.rpartition(".")[2]]\n'
            '                for v in m.all_measures().values()]')
    out = probe(body)
    assert out["ranks"] == sorted(out["ranks"])
    assert out["early"] == [n for n in out["all"] if n in set(out["early"])]


def test_one_trec_run_imports_only_what_it_needs(tmp_path):
    """One run, trec_eval's measures, -f trec: no other measure family, no process or
    z-score module, no JSON, no scipy, no numpy.char (the ids are ASCII), no statistics,
    plugin or DataFrame module; no decompressor (the files are plain text), no csv, no
    numpy.typing (type hints only)."""
    qrels = tmp_path / "q"
    run = tmp_path / "r"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n")
    run.write_text("1 Q0 d1 1 2.5 t\n1 Q0 d2 2 1.5 t\n2 Q0 d9 1 1.0 t\n")
    code = ("import sys\nfrom smarteval.cli import main\n"
            f"sys.argv = ['smarteval', 'evaluate', '-f', 'trec', '-m', 'official', "
            f"{str(qrels)!r}, {str(run)!r}]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "import json\n"     # after the work: only to report
            "mods = [m for m in ('smarteval.read.zscores', 'smarteval.workers', "
            "'multiprocessing', 'concurrent.futures.process', 'scipy', 'numpy.char', "
            "'smarteval.measures.smart', 'smarteval.measures.cwl', 'smarteval.render.table', "
            "'smarteval.stats', 'smarteval.measures.plugins', 'smarteval.read.frames', "
            "'smarteval.measures.diversity', 'gzip', 'bz2', 'lzma', 'zlib', 'csv', "
            "'numpy.typing') "
            "if m in sys.modules]\n"
            "print(json.dumps(mods), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert "map" in done.stdout
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []
