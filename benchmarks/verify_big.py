#!/usr/bin/env python3
"""Check smarteval's -f trec summary against pytrec_eval (trec_eval 9's code) on a big run.

    python benchmarks/verify_big.py benchmarks/data/msmarco-7M.qrels benchmarks/data/msmarco-7M.run

Prints the lines that differ (none expected) and exits 1 if any do.
"""

import collections
import math
import subprocess
import sys

import pytrec_eval

MEASURES = {"map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
            "num_ret", "num_rel", "num_rel_ret"}
SUMS = {"num_ret", "num_rel", "num_rel_ret"}


def main(qrels_path: str, run_path: str) -> int:
    qrels = collections.defaultdict(dict)
    with open(qrels_path) as fh:
        for line in fh:
            q, _, d, g = line.split()[:4]
            qrels[q][d] = int(g)
    run = collections.defaultdict(dict)
    with open(run_path) as fh:
        for line in fh:
            f = line.split()
            run[f[0]][f[2]] = float(f[4])
    per_q = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    qids = sorted(per_q)                      # trec_eval accumulates in query-id order
    names = list(per_q[qids[0]])
    expected = {}
    for name in names:
        values = [per_q[q][name] for q in qids]
        if name in SUMS:
            expected[name] = str(int(sum(values)))
        elif name == "gm_map":                # pytrec_eval reports log values per query
            total = 0.0
            for v in values:
                total += v
            expected[name] = f"{math.exp(total / len(qids)):6.4f}"
        else:
            total = 0.0
            for v in values:
                total += v
            expected[name] = f"{total / len(qids):6.4f}"
    out = subprocess.run([sys.executable, "-m", "smarteval", "evaluate", "-f", "trec", "-m",
                          "official", qrels_path, run_path], capture_output=True, text=True,
                         check=True).stdout
    got = {}
    for line in out.splitlines():
        name, _, value = line.split("\t")
        got[name.strip()] = value
    bad = [(n, got.get(n), v) for n, v in expected.items() if got.get(n) != v]
    for n, g, v in bad:
        print(f"{n}: smarteval {g} pytrec_eval {v}")
    print(f"{len(expected) - len(bad)} of {len(expected)} summary values identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
