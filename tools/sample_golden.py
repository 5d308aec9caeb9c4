"""Golden corpus of sample_eval: seeded random cases run through NIST's sample_eval.pl.

Regenerate (deterministic for a given seed and script; a minute or so):

    python tools/sample_golden.py --sample-eval PATH

PATH is a copy of ``sample_eval.pl`` (the version whose change log ends on 10 Oct 11),
run with ``perl`` (on PATH) and Perl's hash order fixed (``PERL_HASH_SEED=0``). The
script is never fetched nor kept here. The tool writes ``tests/data/golden/
sample_eval.jsonl``: one case a line, ``{"id", "sample_eval", "argv", "qrels", "run",
"stdout", "status"}``, where ``sample_eval`` is the script's arguments without the two
file names (``-q`` goes first: ``sample_eval.pl -q QRELS RUN``; ``-G`` after:
``sample_eval.pl QRELS RUN -G 1=1 2=5``), ``argv`` smarteval's
(``smarteval evaluate -f trec ARGV QRELS RUN``), ``status`` 0 or 1 (the script died: no
topic of the run is judged), ``stdout`` what the script printed. ``tests/
test_sample_golden.py`` runs every case through smarteval and needs no script;
``--check`` does the same here and lists the cases that differ.

What the cases hold: one to six topics with numeric ids, some only in the run or only in
the qrels, run ids with leading zeros (``007`` for qrels topic ``7``, ``07`` beside
``7`` in one run, the empty id ``0``); one to four strata a topic named to sort
differently as strings and as numbers (``10`` before ``2``), each sampled at its own rate
(all, half, a tenth...), unsampled pooled documents (-1), a stratum without any sampled
document, graded judgements (0 .. 3) or binary ones; retrieved documents outside the pool,
tied scores (docno descending breaks them), integer, decimal, negative and exponent
scores; every 25th case a list past 1,000 documents, every 80th a stratum large enough
that a grade's estimated count passes 1,000 (the ideal DCG's cut); ``-q`` in most cases,
``-G`` gain mappings (positive gains for grades 1 .. 3; the script reads no ``-q`` then)
in some; a few cases whose run and qrels share no topic (the script dies). Then
FRACTIONAL cases (ids ``f0001``...) drawn alike from their own seed, with fractional
grades (0.5, 1.5, 2.25, 0.125 beside whole ones), each written in its shortest form.

Never generated: a document twice in a topic of the run or the qrels (smarteval refuses
it; sample_eval keeps the last line), run topics that merge into one with a document in
both, a gain of 0 or below in ``-G`` (sample_eval applies -G to every measure, smarteval
to infNDCG alone), topic ids that are not numbers under ``-q`` or ``-G`` (sample_eval
prints them in Perl's hash order; a few cases without either have one: q5, 12abc), and
fields running over lines (the script reads the file as one stream of fields; smarteval
reads lines).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "golden" / "sample_eval.jsonl"
SEED = 20261201
CASES = 400
#: cases with fractional grades (0.5, 1.5...), from their own seed (SEED + 1), after CASES
FRACTIONAL = 40
LONG_EVERY = 25
HUGE_EVERY = 80
TIMEOUT = 120

TOPICS = ["1", "2", "3", "7", "10", "12", "30", "101", "256"]
STRATA = ["1", "2", "3", "10", "a", "b", "s1", "S2"]
RATES = [1.0, 1.0, 0.5, 0.3, 0.1]
GAINS = ["1", "2", "3", "5", "10", "0.5", "1.5"]
#: the grades of the fractional cases (each written in its shortest form, as smarteval
#: keys a grade; sample_eval keys it by its text)
FRACTIONS = ["0", "0.5", "1", "1.5", "2", "2.25", "0.125", "3"]


def gen_score(rng: random.Random, pool: list[str]) -> str:
    if rng.random() < 0.5:
        return rng.choice(pool)                  # ties
    kind = rng.random()
    if kind < 0.3:
        return str(rng.randint(-5, 50))
    if kind < 0.8:
        return f"{rng.uniform(-3, 30):.{rng.randint(1, 6)}f}"
    return f"{rng.uniform(0.1, 9):.2f}e{rng.choice(['-3', '-1', '+2', '2'])}"


def gen_topic_qrels(rng: random.Random, topic: str, huge: bool, graded: bool,
                    names: list[str], fractional: bool = False) -> list[list[str]]:
    """One topic's sampled judgements: strata of pooled documents, each sampled at a rate."""
    lines = []
    n_strata = rng.randint(1, 4)
    strata = rng.sample(STRATA, n_strata)
    weights = [0.45, 0.35, 0.13, 0.07] if graded else [0.55, 0.45, 0, 0]
    for i, s in enumerate(strata):
        size = rng.randint(1, 30)
        rate = rng.choice(RATES)
        if huge and i == 0:
            size, rate = rng.randint(2500, 3500), 0.04
        if rng.random() < 0.08:
            rate = 0.0                            # no document of the stratum sampled
        for _ in range(size):
            doc = names.pop()
            if rng.random() < rate:
                rel = rng.choice(FRACTIONS) if fractional else \
                    rng.choices(["0", "1", "2", "3"], weights)[0]
                if huge and i == 0:
                    rel = rng.choice(["1", "2", "2", "0"])
            else:
                rel = "-1"
            lines.append([topic, "0", doc, s, rel])
    return lines


def doc_names(rng: random.Random, n: int) -> list[str]:
    """``n`` distinct docnos of several shapes (their byte order breaks ties)."""
    shapes = ["d{}", "D{}", "doc-{}", "a{}", "FT9{}-0", "x{}y"]
    names = {rng.choice(shapes).format(rng.randint(0, 10 * n + 100)) for _ in range(2 * n)}
    out = sorted(names)
    rng.shuffle(out)
    return out[:n]


def gen_case(rng: random.Random, i: int, fractional: bool = False) -> dict[str, Any]:
    long = i % LONG_EVERY == LONG_EVERY // 2
    huge = i % HUGE_EVERY == 7
    disjoint = rng.random() < 0.03
    graded = rng.random() < 0.75
    flags = rng.random()
    topics = rng.sample(TOPICS, rng.randint(1, 6))
    if flags >= 0.8 and rng.random() < 0.3:       # summaries only: any id
        topics[-1] = rng.choice(["q5", "12abc", "A"])
    sides = {t: rng.choice(["both"] * 6 + ["qrels", "run"]) for t in topics}
    if disjoint:
        sides = {t: ("qrels" if k % 2 else "run") for k, t in enumerate(topics)}
    elif "both" not in sides.values():
        sides[topics[0]] = "both"
    names = doc_names(rng, 12000 if huge else 800 if not long else 4000)
    qrels, run = [], []
    for t in topics:
        judged: list[str] = []
        if sides[t] != "run":
            lines = gen_topic_qrels(rng, t, huge and t == topics[0], graded, names,
                                    fractional)
            qrels += lines
            judged = [ln[2] for ln in lines]
        if sides[t] == "qrels":
            continue
        n = rng.randint(1000, 1300) if long and t == topics[0] else rng.randint(1, 40)
        pool = [gen_score(rng, ["1", "2.5", "2.50"]) for _ in range(3)]
        docs = rng.sample(judged, min(len(judged), int(n * rng.uniform(0.3, 0.9))))
        docs += [names.pop() for _ in range(n - len(docs))]
        ids = [t]
        if rng.random() < 0.3:
            ids = ["0" * rng.randint(1, 2) + t]                  # 007 for 7
        if rng.random() < 0.08 and len(docs) > 1:
            ids = [t, "0" + t]                                   # 07 beside 7: one topic
        for k, d in enumerate(docs):
            run.append([ids[k % len(ids)], "Q0", d, str(k + 1), gen_score(rng, pool), "tag"])
    if rng.random() < 0.05:
        run.append(["0", "Q0", "d0", "1", "1", "tag"])           # the empty topic id
    rng.shuffle(qrels)
    rng.shuffle(run)
    sep = rng.choice([" ", "\t"])
    mapping: list[str] = []
    argv = ["-R", "sample_qrels"]
    if flags < 0.15:
        levels = rng.sample(["1", "2", "3"], rng.randint(1, 3))
        mapping = [f"{lv}={rng.choice(GAINS)}" for lv in levels]
        script = ["-G", *mapping]
        argv += ["-m", "sample_eval", "-m", "infNDCG." + ",".join(mapping)]
    elif flags < 0.8:
        script = ["-q"]
        argv += ["-q"]
    else:
        script = []
    return {"id": f"{'f' if fractional else 's'}{i:04d}", "sample_eval": script, "argv": argv,
            "qrels": "".join(sep.join(ln) + "\n" for ln in qrels),
            "run": "".join(sep.join(ln) + "\n" for ln in run)}


def run_script(script: str, case: dict[str, Any], workdir: str) -> tuple[int, str, str]:
    qrels, run = Path(workdir) / "qrels", Path(workdir) / "run"
    qrels.write_text(case["qrels"])
    run.write_text(case["run"])
    args = case["sample_eval"]
    files = [str(qrels), str(run)]
    argv = (args + files) if args[:1] == ["-q"] else (files + args)
    env = {**os.environ, "PERL_HASH_SEED": "0", "PERL_PERTURB_KEYS": "0"}
    p = subprocess.run(["perl", script, *argv], capture_output=True, text=True, env=env,
                       timeout=TIMEOUT)
    return p.returncode, p.stdout, p.stderr


def generate(a: argparse.Namespace) -> None:
    rng, fractions = random.Random(a.seed), random.Random(a.seed + 1)
    workdir = tempfile.mkdtemp(prefix="sample_golden")
    cases = []
    drawn = [(rng, i, False) for i in range(1, a.cases + 1)]
    drawn += [(fractions, i, True) for i in range(1, FRACTIONAL + 1)]
    try:
        for source, i, fractional in drawn:
            case = gen_case(source, i, fractional)
            status, stdout, stderr = run_script(a.sample_eval, case, workdir)
            case["stdout"] = stdout if status == 0 else ""
            case["status"] = 0 if status == 0 else 1
            if status:
                case["stderr"] = stderr.strip().splitlines()[-1][:200] if stderr.strip() else ""
            cases.append(case)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    with open(a.out, "w") as fh:
        for case in cases:
            fh.write(json.dumps(case, separators=(",", ":")) + "\n")
    print(f"{a.out}: {len(cases)} cases, {sum(c['status'] for c in cases)} where the script "
          "died", file=sys.stderr)


def check(a: argparse.Namespace) -> None:
    """Run the corpus through the smarteval this checkout imports; list what differs."""
    sys.path.insert(0, str(ROOT))
    from click.testing import CliRunner

    from smarteval.cli import main
    workdir = Path(tempfile.mkdtemp(prefix="sample_golden"))
    differ = 0
    try:
        for line in Path(a.out).read_text().splitlines():
            case = json.loads(line)
            (workdir / "qrels").write_text(case["qrels"])
            (workdir / "run").write_text(case["run"])
            res = CliRunner().invoke(main, ["evaluate", "-f", "trec", *case["argv"],
                                            str(workdir / "qrels"), str(workdir / "run")])
            same = (res.exit_code == 0) == (case["status"] == 0) and (
                case["status"] != 0 or res.stdout == case["stdout"])
            if not same:
                differ += 1
                print(case["id"], " ".join(case["argv"]), f"exit {res.exit_code}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"{differ} cases differ", file=sys.stderr)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sample-eval", help="the path of sample_eval.pl (run with perl)")
    p.add_argument("--out", default=str(OUT))
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--cases", type=int, default=CASES)
    p.add_argument("--check", action="store_true",
                   help="run the corpus through smarteval and list the cases that differ")
    a = p.parse_args()
    if a.check:
        check(a)
        return
    if not a.sample_eval:
        p.error("--sample-eval PATH is required to generate")
    generate(a)


if __name__ == "__main__":
    main()
