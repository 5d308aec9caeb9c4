#!/usr/bin/env python3
"""Large preference files for timing -R prefs and -R qrels_prefs (seeded, deterministic).

Writes, under ``--out`` (default ``benchmarks/data/prefs``):

* ``chain-N.prefs`` and ``chain-N.run``: one query, one judgement group whose sub-group
  ``s<i>`` prefers document ``d<i>`` (level 2) to ``d<i+1>`` (level 1), so the group
  prefers each document to every later one (a closure of N(N-1)/2 preferences); the run
  retrieves every other document, in a shuffled order.
* ``groups-GxD.qrels`` and ``groups-GxD.run`` (``-R qrels_prefs``): one query judged by
  G judgement groups (users), each grading the same D documents 0 to 3 at random; the
  run retrieves half of them and as many unjudged ones.

    python benchmarks/prefs_cases.py --chain 4000,10000 --groups 50x1000,2000x200
    /usr/bin/time -f "%e s %M KB" python -m smarteval evaluate -f trec -R prefs \\
        -m all_prefs benchmarks/data/prefs/chain-4000.prefs benchmarks/data/prefs/chain-4000.run
"""

from __future__ import annotations

import argparse
import os

import numpy as np


def _run(qid: str, docs: list[str], rng: np.random.Generator) -> str:
    scores = rng.permutation(len(docs))
    return "".join(f"{qid} Q0 {d} {i + 1} {s} bench\n"
                   for i, (d, s) in enumerate(zip(docs, scores)))


def chain(out: str, n: int, rng: np.random.Generator) -> None:
    lines = [f"1 g s{i} d{i} 2\n1 g s{i} d{i + 1} 1\n" for i in range(n - 1)]
    with open(os.path.join(out, f"chain-{n}.prefs"), "w") as f:
        f.write("".join(lines))
    docs = [f"d{i}" for i in rng.permutation(n)[: n // 2]]
    with open(os.path.join(out, f"chain-{n}.run"), "w") as f:
        f.write(_run("1", docs, rng))


def groups(out: str, g: int, d: int, rng: np.random.Generator) -> None:
    grades = rng.integers(0, 4, size=(g, d))
    with open(os.path.join(out, f"groups-{g}x{d}.qrels"), "w") as f:
        f.write("".join(f"1 u{j} d{i} {grades[j, i]}\n" for j in range(g) for i in range(d)))
    docs = [f"d{i}" for i in rng.permutation(d)[: d // 2]] + [f"x{i}" for i in range(d // 2)]
    with open(os.path.join(out, f"groups-{g}x{d}.run"), "w") as f:
        f.write(_run("1", [docs[i] for i in rng.permutation(len(docs))], rng))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join("benchmarks", "data", "prefs"))
    ap.add_argument("--chain", default="4000,10000", help="chain lengths, comma-separated")
    ap.add_argument("--groups", default="50x1000,2000x200",
                    help="GROUPSxDOCUMENTS, comma-separated")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(26)
    for n in filter(None, args.chain.split(",")):
        chain(args.out, int(n), rng)
    for gd in filter(None, args.groups.split(",")):
        g, d = gd.split("x")
        groups(args.out, int(g), int(d), rng)


if __name__ == "__main__":
    main()
