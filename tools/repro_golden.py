"""Developer tool: repro_eval's numbers on seeded random runs, recorded as golden data.

repro_eval (the ``repro-eval`` package) is the oracle of ``smarteval repro``, but it is not
in the test extra: it requires ``ir-measures[pytrec_eval]``, an extra ir_measures does
not have, and a fresh venv's pip then prints "does not provide the extra", which CI
refuses. So this tool runs repro_eval on seeded random qrels and runs (reproductions
with baselines, a run reproduced exactly, lists with ties and lines out of score order,
a query of one document, queries missing from a run, and a replication on other qrels)
and writes each case's inputs and repro_eval's numbers to ``tests/data/repro/CASE.json``;
tests/test_repro.py compares smarteval with them, to 1e-9, without importing
repro_eval. Regenerate with repro_eval installed (``pip install repro-eval``)::

    python tools/repro_golden.py            # rewrite tests/data/repro/*.json
    python tools/repro_golden.py --check    # exit 1 if repro_eval now gives other numbers

repro_eval is called as its command line and README call it: ``RpdEvaluator`` (or
``RplEvaluator`` with ``qrels_rpl_path``), ``trim()`` and ``evaluate()`` with its own
measures (its rule for p-values of 1 looks at all of them), then ``rmse``, ``nrmse``,
``er``, ``dri`` and ``ttest``, of which the measures below are recorded; for each
cut-off, largest first, ``trim(k)`` and then ``ktu`` and ``rbo`` (per topic, each
recorded ``p`` and ``depth``).

repro_eval evaluates with ir_measures, which gives every query of the qrels a value, 0
where a run has no line for it: the case ``missing_queries`` (one query of the qrels
in neither run, one missing from the original, another from the reproduction) is
smarteval's with ``-c`` (its ``options``), and has no ranking level (repro_eval's KTU
stops with an error at a query the original lacks).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "repro"

#: repro_eval's measure (ir_measures' name, computed by pytrec_eval) -> smarteval's -m
MEASURES = {"AP": "map", "P@10": "P.10", "nDCG@10": "ndcg_cut.10"}
CUTOFFS = (1000, 20, 10, 5)
RBO_PARAMETERS = ((0.95, 1000), (0.8, 30))


def _qrels(rng, qids, docs: int) -> list[str]:
    lines = []
    for q in qids:
        for d in rng.choice(docs, size=25, replace=False):
            lines.append(f"{q} 0 D{int(d):04d} {int(rng.choice([0, 0, 1, 2]))}")
    return lines


def _run(rng, qids, docs: int, tag: str, lengths, *, base=None, keep: float = 0.7,
         shuffle_lines: bool = False) -> tuple[list[str], dict]:
    """A run: random documents with scores rounded to 2 decimals (ties), or ``base`` (a
    {qid: [docnos]} of another run) with a share ``keep`` of its documents kept in a
    perturbed order; ``shuffle_lines`` writes a few lines out of score order."""
    lines, lists = [], {}
    for q, n in zip(qids, lengths):
        if base is None:
            chosen = [f"D{int(d):04d}" for d in rng.choice(docs, size=n, replace=False)]
        else:
            kept = [d for d in base[q] if rng.random() < keep]
            pool = [f"D{int(d):04d}" for d in rng.permutation(docs)]
            fresh = [d for d in pool if d not in set(base[q])][: n - len(kept)]
            chosen = kept + fresh
            noise = rng.normal(0, 3.0, size=len(chosen))
            chosen = [chosen[i] for i in np.argsort(np.arange(len(chosen)) + noise)]
        scores = np.round(np.sort(rng.random(n) * 10)[::-1], 1 if n > 20 else 2)
        rows = list(zip(chosen, scores))
        if shuffle_lines and n > 4:
            i = int(rng.integers(0, n - 3))
            rows[i], rows[i + 3] = rows[i + 3], rows[i]
        lists[q] = [d for d, _ in rows]
        lines += [f"{q} Q0 {d} {r} {s:.2f} {tag}" for r, (d, s) in enumerate(rows, 1)]
    return lines, lists


def cases() -> dict[str, dict]:
    """Each case's inputs: qrels, runs (and the replication's qrels)."""
    out = {}
    rng = np.random.default_rng(20200725)
    qids = [str(q) for q in range(301, 309)]
    lengths = [40, 40, 35, 40, 12, 40, 40, 30]
    qrels = _qrels(rng, qids, 200)
    ob, ob_l = _run(rng, qids, 200, "orig_b", lengths)
    oa, oa_l = _run(rng, qids, 200, "orig_a", lengths, shuffle_lines=True)
    rb, _ = _run(rng, qids, 200, "rpd_b", lengths, base=ob_l, keep=0.8)
    ra, _ = _run(rng, qids, 200, "rpd_a", lengths, base=oa_l, keep=0.6, shuffle_lines=True)
    both = {"orig": oa, "repro": ra, "baseline_orig": ob, "baseline_repro": rb}
    out["reproducibility"] = {"qrels": qrels, "runs": both}
    out["exact"] = {"qrels": qrels, "runs": {"orig": oa, "repro": [
        line.replace("orig_a", "copy") for line in oa]}}
    short = [1] + lengths[1:]
    one, one_l = _run(rng, qids, 200, "one", short)
    one_r, _ = _run(rng, qids, 200, "one_r", short, base=one_l, keep=0.9)
    out["one_document"] = {"qrels": qrels, "runs": {"orig": one, "repro": one_r}}
    other = [str(q) for q in range(401, 411)]
    qrels2 = _qrels(rng, other, 300)
    lengths2 = [30] * len(other)
    pb, _ = _run(rng, other, 300, "rpl_b", lengths2)
    pa, _ = _run(rng, other, 300, "rpl_a", lengths2)
    gone = {"orig": "303 ", "repro": "302 ", "baseline_orig": "304 "}
    out["missing_queries"] = {
        "qrels": qrels + [ln.replace("301 ", "999 ", 1) for ln in qrels
                          if ln.startswith("301 ")],
        "runs": {k: [ln for ln in lines if not ln.startswith(gone.get(k, "-"))]
                 for k, lines in both.items()},
        "options": {"complete": True}}
    # P@10 equal on every query, AP not: P@10's t test is undefined, its p-value not 1
    out["unchanged_elsewhere"] = {
        "qrels": ["q1 0 a 1", "q1 0 b 1", "q2 0 a 1", "q2 0 c 1"],
        "runs": {"orig": ["q1 Q0 a 1 3 o", "q1 Q0 x 2 2 o", "q1 Q0 b 3 1 o",
                          "q2 Q0 a 1 2 o", "q2 Q0 c 2 1 o"],
                 "repro": ["q1 Q0 x 1 3 r", "q1 Q0 a 2 2 r", "q1 Q0 b 3 1 r",
                           "q2 Q0 c 1 2 r", "q2 Q0 a 2 1 r"]}}
    out["replicability"] = {"qrels": qrels, "qrels_other": qrels2,
                            "runs": {"orig": oa, "repro": pa, "baseline_orig": ob,
                                     "baseline_repro": pb}}
    return out


def _plain(obj):
    """repro_eval's numbers as JSON: floats, NaN as null, keys as strings."""
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    v = float(obj)
    return None if math.isnan(v) else v


def expected(case: dict) -> dict:
    """repro_eval's numbers for one case."""
    from repro_eval.Evaluator import RpdEvaluator, RplEvaluator

    with tempfile.TemporaryDirectory() as tmp:
        def path(name: str, lines: list[str]) -> str:
            p = Path(tmp) / name
            p.write_text("\n".join(lines) + "\n")
            return str(p)
        runs = case["runs"]
        kw = {"qrels_orig_path": path("qrels", case["qrels"]),
              "run_a_orig_path": path("orig", runs["orig"]),
              "run_a_rep_path": path("repro", runs["repro"])}
        # repro_eval's "b" run is mandatory: without baselines, the run itself stands there
        kw["run_b_orig_path"] = path("b_orig", runs.get("baseline_orig", runs["orig"]))
        kw["run_b_rep_path"] = path("b_repro", runs.get("baseline_repro", runs["repro"]))
        if "qrels_other" in case:
            ev = RplEvaluator(**kw, qrels_rpl_path=path("qrels_other", case["qrels_other"]))
        else:
            ev = RpdEvaluator(**kw)
        ev.trim()
        ev.evaluate()
        pairs = {"advanced": "run", "baseline": "baseline"}
        if "baseline_orig" not in runs:
            pairs = {"advanced": "run"}

        def ours(values: dict) -> dict:
            return {str(m): v for m, v in values.items() if str(m) in MEASURES}

        def paired(values: dict) -> dict:
            return {pairs[k]: ours(v) for k, v in values.items() if k in pairs}

        res: dict = {"ttest": paired(ev.ttest())}
        if "baseline_orig" in runs:
            res["er"] = ours(ev.er())
            res["dri"] = ours(ev.dri())
        if "qrels_other" not in case:
            res["rmse"] = paired(ev.rmse())
            res["nrmse"] = paired(ev.nrmse())
        if "qrels_other" not in case and "options" not in case:
            res["ktu"], res["rbo"] = {}, {}
            for k in CUTOFFS:
                ev.trim(k)
                ktu = ev.ktu(per_topic=True)
                res["ktu"][k] = {pairs[p]: v for p, v in ktu.items() if p in pairs}
                for p, depth in RBO_PARAMETERS:
                    rbo = ev.rbo(p=p, depth=depth, per_topic=True)
                    res["rbo"].setdefault(f"{p},{depth}", {})[k] = {
                        pairs[q]: v for q, v in rbo.items() if q in pairs}
    return _plain(res)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the files instead of writing them")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    stale = []
    for name, case in cases().items():
        data = {**case, "measures": MEASURES, "cutoffs": list(CUTOFFS),
                "rbo": [list(p) for p in RBO_PARAMETERS], "expected": expected(case)}
        text = json.dumps(data, indent=1, sort_keys=True) + "\n"
        target = OUT / f"{name}.json"
        if args.check:
            if not target.exists() or json.loads(target.read_text()) != json.loads(text):
                stale.append(name)
        else:
            target.write_text(text)
    if stale:
        print("repro_eval gives other numbers for: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
