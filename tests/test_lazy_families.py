"""Measure modules are imported when needed: trec_eval's with the package, the others when
a name is not found among those loaded or every measure is listed; the registry keeps
the order of FAMILIES whatever the order they were imported in."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
import smarteval.measures as m
from smarteval.measures.registry import FAMILIES, REGISTRY
def loaded():
    return [f for f in FAMILIES if f"smarteval.measures.{f}" in sys.modules]
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
                                 "diversity", "cwl"))


def test_registry_order_does_not_depend_on_import_order():
    body = ('import smarteval.measures.cwl, smarteval.measures.swets\n'
            'out["early"] = list(REGISTRY)\n'
            'out["all"] = list(m.all_measures())\n'
            'rank = {f: i for i, f in enumerate(FAMILIES)}\n'
            'out["ranks"] = [rank[v.func.__module__.rpartition(".")[2]]\n'
            '                for v in m.all_measures().values()]')
    out = probe(body)
    assert out["ranks"] == sorted(out["ranks"])
    assert out["early"] == [n for n in out["all"] if n in set(out["early"])]
