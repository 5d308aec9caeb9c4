"""Golden corpus: seeded random cases run through the real trec_eval 9.0.8 and 10.0.

Regenerate (deterministic for a given seed and pair of binaries; about 50 minutes on two
cores, nearly all of it valgrind):

    python tools/golden.py --trec-eval-9 PATH --trec-eval-10 PATH

PATH is each version's ``trec_eval`` binary, built from its own Makefile (``-g``, no
optimisation: gdb needs the symbols). ``gdb`` and ``valgrind`` must be on PATH (see below);
``--no-memcheck`` runs without them, which keeps cases they would have discarded, so the
corpus then differs. The tool writes under ``tests/data/golden/``:

- ``trec_eval-9.0.8.jsonl`` and ``trec_eval-10.0.jsonl``: one case a line, ``{"id",
  "argv", "qrels", "run", "stdout", "status"}``. ``argv`` is trec_eval's arguments without
  the two file names (``trec_eval ARGV QRELS RUN``); ``status`` is 0 or 1, the class of
  trec_eval's exit status (0, or non-zero for bad input or usage); ``stdout`` is what it
  printed (and, when it is not 0, ``"stderr"``: the start of what it said).
- ``meta.json``: seed, counts, and how many generated cases were discarded and why.
- ``trec_eval-9.0.8.picked.jsonl`` and ``trec_eval-10.0.picked.jsonl``: the cases picked by
  hand in ``tools/golden_picked.py`` (inputs where smarteval once differed), recorded by
  ``python tools/golden.py --picked --trec-eval-9 PATH --trec-eval-10 PATH``, each with
  its ``"why"``, and ``"valgrind"`` when trec_eval reads memory it never wrote there.

``tests/test_golden.py`` runs every case through ``smarteval evaluate -f trec`` (with
``--trec-version 10`` for the 10.0 corpus) and needs no binary. ``known_differences.json``
there (id -> class label) is maintained by hand; ``python tools/golden.py --check`` runs the
corpus through the smarteval it imports (the checkout's, run from its root) and lists the
cases that differ, with the measures and flags involved; ``--prune`` drops the manifest's
entries that now pass, ``--add`` adds the differing cases it lacks as "open, not yet
diagnosed" (replace that with a class label once diagnosed).

What the cases hold: a few queries (numeric ids with leading zeros, 007 beside 7; queries on
one side only), graded and negative judgements (-2 .. 4), retrieved documents missing from
the qrels, scores equal as float32 but not as double (0.1 and 0.10000000149), exponents and
negative scores (1e-3, -2.5E+2), duplicate judgements and retrieved documents, a few lists
past 1,000 documents; random flags (-q -c -J -n, -M k, -l k, -N n) and random measures with
parameters (P.3,7, ndcg.1=0.5,2=3, 11pt_avg.0.1,0.5, set_F.0.5, utility.1,-1,0,0,
relstring.5, nicknames; rbp.p=0.5, unj, dcg and ideal_dcg for 10.0 only), a few of them
bad usage. ``--long-ids`` also makes some query ids and docnos 300 to 5,000 bytes long
(for a fuzz run into a directory of its own; the committed corpus has none).

Never generated: ``#`` lines (comments in 10.0, data in 9.0.8) and numbers that only
trec_eval's atoi/atof accept (``P.1e1``, an empty gain level ``ndcg.=2``, ``-l 1.5``,
scores like ``1.5abc``, ``0x10``, ``1e400``, grades like ``1.0``): smarteval rejects them on
purpose. Nor a query whose
judgements are all <= -2 (trec_eval indexes an array with -1), nor a negative -M (trec_eval
ranks -1 documents and crashes), nor ``dcg``/``ideal_dcg`` with parameters beside another
of dcg, ideal_dcg, ndcg (10.0 frees their shared parameters twice).

Discarded after running (counted in meta.json):

- trec_eval killed by a signal, or exit status >= 128, or a timeout;
- valgrind reports an invalid or uninitialised read (outside 10.0's rbp, next item): so
  far bpref and gm_bpref under a -l above every grade of a query, which read past the
  end of trec_eval's rel_levels array;
- 10.0's rbp reads its min/max uninitialised: the case is run again under gdb with them
  set to +/-inf (the gain table's true range) and kept only if the output is the same;
- the README's deliberate difference that random cases meet: 10.0 exits when a query of
  the qrels has no results (without -c).
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "golden"
VERSIONS = {"9": "trec_eval-9.0.8", "10": "trec_eval-10.0"}
SEED = 20261123
CASES = 600
#: every LONG_EVERY-th case (from LONG_EVERY // 2) retrieves more than 1,000 documents
LONG_EVERY = 100
TIMEOUT = 60

# --------------------------------------------------------------------------- measures

OFFICIAL = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
            "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"]
ALL_TREC = {
    "9": OFFICIAL + ["relstring", "recall", "infAP", "gm_bpref", "utility", "11pt_avg",
                     "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut",
                     "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                     "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"],
    "10": OFFICIAL + ["relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref",
                      "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
                      "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P",
                      "set_recall", "set_relative_P", "set_map", "set_F",
                      "num_nonrel_judged_ret"],
}
SET = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
       "set_recall", "set_relative_P", "set_map", "set_F"]
#: measures that never look at the documents (trec_eval's duplicate check is elsewhere)
NO_DOCS = {"runid", "num_q"}

LONG_CUT = ["P", "recall", "ndcg_cut", "map_cut", "relative_P", "success"]
FLOAT_CUT = ["iprec_at_recall", "Rprec_mult"]
PAIRS = ["ndcg", "ndcg_rel", "Rndcg", "G"]
PLAIN = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
         "bpref", "recip_rank", "infAP", "gm_bpref", "binG", "set_P", "set_recall",
         "set_relative_P", "set_map", "num_nonrel_judged_ret", "yaap"]
FLOAT_PARAMS = ["relstring", "utility", "11pt_avg", "set_F"]
V10_CUT = ["unj"]
V10_PAIRS = ["rbp", "dcg", "ideal_dcg"]
V10_PLAIN = ["rbp_resid"]
SHARED_GAINS_10 = {"dcg", "ideal_dcg", "ndcg"}


def requested(argv: list[str], version: str) -> dict[str, list[str]]:
    """Measure name -> the parameter strings asked for it ('' without), nicknames expanded."""
    out: dict[str, list[str]] = collections.defaultdict(list)
    names = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "-m"] or ["official"]
    for m in names:
        base, _, params = m.partition(".")
        group = {"official": OFFICIAL, "all_trec": ALL_TREC[version], "set": SET}.get(base)
        for b in group or [base]:
            out[b].append(params if group is None else "")
    return out


def gen_measure(rng: random.Random, version: str) -> str:
    r = rng.random()
    if r < 0.07:
        return rng.choice(["official", "all_trec", "all_trec", "set"])
    if r < 0.09:                                   # bad usage, both must refuse
        return rng.choice(["bogus", "P.", "P.5,5", "P.-1", "ndcg.1", "utility.1,2,3",
                           "Rprec_mult.", "relstring.", "map_cut.0"])
    pool = LONG_CUT * 2 + FLOAT_CUT + PAIRS + PLAIN + FLOAT_PARAMS * 2
    if version == "10":
        pool += V10_CUT * 2 + ["rbp"] * 5 + V10_PLAIN * 2 + ["dcg", "ideal_dcg"]
    name = rng.choice(pool)
    if name in PLAIN or name in V10_PLAIN or rng.random() < 0.3:
        return name
    if name in LONG_CUT or name in V10_CUT:
        ks = [rng.choice([1, 2, 3, 5, 7, 10, 15, 20, 30, 100, 1000])
              for _ in range(rng.randint(1, 3))]
        ks = list(dict.fromkeys(ks))               # duplicates are bad usage, asked above
        if name == "success" and rng.random() < 0.3:
            ks = [1, 2]
        return name + "." + ",".join(map(str, ks))
    if name in FLOAT_CUT:
        pool_f = ["0", "0.0", "0.1", "0.2", ".25", "0.33", "0.5", "0.75", "1", "1.0"]
        if name == "Rprec_mult":
            pool_f += ["1.5", "2", "0.05"]
        vals = rng.sample(pool_f, rng.randint(1, 3))
        if len({float(v) for v in vals}) < len(vals):
            vals = vals[:1]
        return name + "." + ",".join(vals)
    if name in PAIRS or name in V10_PAIRS:
        parts = []
        if name == "rbp" and rng.random() < 0.7:
            parts.append("p=" + rng.choice(["0.5", "0.8", "0.9", "0.95", "0.1", "1", "0.25"]))
        levels = rng.sample(["0", "1", "2", "3", "4", "-1"], rng.randint(0 if parts else 1, 3))
        for lvl in levels:
            gain = rng.choice(["0", "1", "2", "3", "0.5", "1.5", "2.5", "0.25", "5", "10",
                               "-1", "1.0"])
            parts.append(f"{lvl}={gain}")
        return name + "." + ",".join(parts)
    if name == "relstring":
        return name + "." + rng.choice(["1", "2", "3", "5", "10", "20"])
    if name == "utility":
        return name + "." + ",".join(rng.choice(["1", "-1", "0", "0.5", "2", "-0.25", "1.0"])
                                     for _ in range(4))
    if name == "11pt_avg":
        vals = rng.sample(["0", "0.1", "0.2", "0.3", "0.5", "0.8", "1", "0.25"],
                          rng.randint(1, 4))
        return name + "." + ",".join(vals)
    if name == "set_F":
        return name + "." + rng.choice(["0.5", "1", "1.0", "2", "0.25", "3", "0", "0.1"])
    return name


def gen_args(rng: random.Random, version: str, long: bool) -> list[str]:
    flags: list[list[str]] = []
    if rng.random() < 0.6:
        flags.append(["-q"])
    if rng.random() < 0.3:
        flags.append(["-c"])
    if rng.random() < 0.15:
        flags.append(["-J"])
    if rng.random() < 0.08:
        flags.append(["-n"])
    if rng.random() < 0.18:
        k = rng.choice([0, 1, 2, 3, 3, 5, 10] + ([1000, 1200] if long else []))
        flags.append(["-M", str(k)])
    if rng.random() < 0.3:
        flags.append(["-l", str(rng.randint(-2, 3))])
    nm = rng.choice([0, 1, 1, 1, 2, 2, 3, 4])
    ms = [gen_measure(rng, version) for _ in range(nm)]
    if long and rng.random() < 0.5:
        ms.append(rng.choice(["P.1000", "recall.1000,10", "ndcg_cut.1000", "map_cut.1000",
                              "relative_P.1000", "Rprec_mult.2"]))
    if ms and rng.random() < 0.12:                # the same measure asked twice
        base = ms[0].split(".")[0]
        ms.append(rng.choice([base, ms[0], gen_measure(rng, version).split(".")[0]]))
    if rng.random() < (0.5 if any(m.startswith("utility") for m in ms) else 0.08):
        flags.append(["-N", str(rng.choice([0, 1, 5, 10, 50, 100, 1000, 100000]))])
    flags += [["-m", m] for m in ms]
    rng.shuffle(flags)
    if rng.random() < 0.03:                       # attached values and grouped flags
        flags = [[f[0] + f[1]] if len(f) == 2 and f[0] != "-m" else f for f in flags]
        singles = [f[0] for f in flags if len(f) == 1 and len(f[0]) == 2]
        if len(singles) >= 2:
            flags = [f for f in flags if not (len(f) == 1 and f[0] in singles)]
            flags.insert(0, ["-" + "".join(s[1] for s in singles)])
    return [a for f in flags for a in f]


# --------------------------------------------------------------------------- inputs

QIDS = ["7", "007", "07", "1", "01", "10", "2", "3", "a", "Q3", "300", "45", "045"]
ODD_DOCS = ["D1", "doc-01", "x", "d1a", "e.5", "AP880212-0001", "0", "00", "Z", "d10", "d9"]
F32_BASES = ["0.1", "0.2", "0.3", "0.7", "1.1", "2.675", "0.123456789", "3.14159265", "0.05",
             "12.34", "0.9", "1e-3"]
EXPONENTS = ["1e-3", "-2.5E+2", "1E2", "5e-1", "2.5e0", "-1e-05", "3.0E-1", "1e+01", "7.5e-4",
             "2E-3", "-3e0"]


def f32(x: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


def f32_next(x: float, step: int) -> float:
    (bits,) = struct.unpack("<i", struct.pack("<f", x))
    bits += step if x >= 0 else -step
    return float(struct.unpack("<f", struct.pack("<i", bits))[0])


def f32_variants(rng: random.Random, text: str) -> list[str]:
    """``text`` and scores equal to it as float32 but not as double (and a neighbour)."""
    x = float(text)
    y = f32(x)
    out = [text]
    for cand in (repr(y), f"{y:.11g}", f"{y:.10g}", f"{(x + y) / 2!r}"):
        if float(cand) != x and f32(float(cand)) == y and cand not in out:
            out.append(cand)
    if rng.random() < 0.5:
        out.append(repr(f32_next(x, rng.choice([1, -1]))))
    return out


def gen_scores(rng: random.Random) -> list[str]:
    kind = rng.choice(["ints", "decimal", "f32", "f32", "exp", "mixed", "ties"])
    if kind == "ints":
        return [str(rng.randint(-5, 20)) for _ in range(12)]
    if kind == "decimal":
        return [f"{rng.uniform(-1, 3):.{rng.randint(1, 4)}f}" for _ in range(12)]
    if kind == "f32":
        out: list[str] = []
        for base in rng.sample(F32_BASES, 3):
            out += f32_variants(rng, base)
        return out
    if kind == "exp":
        return rng.sample(EXPONENTS, 6)
    if kind == "ties":
        return rng.sample(["1", "0.5", "2", "1.0", "-1", "0"], 2)
    return (rng.sample(EXPONENTS, 3) + f32_variants(rng, rng.choice(F32_BASES))
            + [str(rng.randint(-3, 9)), ".5", "5.", "+0.5", "-0", "0"])


def lengthen_ids(rng: random.Random, qrels: list[list[str]], run: list[list[str]]) -> None:
    """Some query ids and docnos made 300 to 5,000 bytes long, alike in both files (the
    same letter repeated, so long ids share long prefixes)."""
    longer: dict[tuple[int, str], str] = {}
    for rows in (qrels, run):
        for row in rows:
            for field in (0, 2):
                key = (field, row[field])
                if key not in longer:
                    longer[key] = row[field] + rng.choice("aZ._-9") * rng.randint(300, 5000) \
                        if rng.random() < 0.3 else row[field]
                row[field] = longer[key]


def gen_case(rng: random.Random, version: str, long: bool,
             long_ids: bool = False) -> dict[str, Any]:
    nq = rng.randint(1, 2) if long else rng.randint(1, 4)
    qids = list(QIDS)
    rng.shuffle(qids)
    if rng.random() < 0.3:                        # 7 and 007 are different queries
        pair = rng.sample(["7", "007", "07"], 2)
        qids = pair + [q for q in qids if q not in pair]
    both = qids[:nq]
    qrels_q = list(both)
    run_q = list(both)
    if rng.random() < 0.25:
        qrels_q.append(qids[nq])                  # judged, never retrieved
    if rng.random() < 0.25:
        run_q.append(qids[nq + 1])                # retrieved, never judged
    if long:
        ndocs = rng.randint(1001, 1400)
        docs = [f"d{i:05d}" for i in range(ndocs + 200)]
    else:
        n = rng.randint(3, 16)
        docs = [f"d{i}" for i in range(1, n + 1)]
        docs += rng.sample(ODD_DOCS, rng.randint(0, 3))
        docs = list(dict.fromkeys(docs))
    grades = rng.choice([
        ([0, 1], [1, 1]),
        ([0, 1, 2, 3], [3, 2, 2, 1]),
        ([-1, 0, 1, 2], [1, 3, 2, 1]),
        ([-2, -1, 0, 1, 2, 3, 4], [1, 1, 3, 2, 2, 1, 1]),
        ([0], [1]),
        ([-1, 1], [1, 2]),
    ])
    qrels: list[list[str]] = []
    for q in qrels_q:
        judged = rng.sample(docs, rng.randint(1, min(len(docs), 250 if long else len(docs))))
        gs = [rng.choices(grades[0], weights=grades[1])[0] for _ in judged]
        if max(gs) <= -2:                         # trec_eval indexes rel_levels[-1]
            gs[0] = rng.choice([-1, 0, 1, 2])
        qrels += [[q, rng.choice(["0", "0", "Q0", "1"]), d, str(g)] for d, g in zip(judged, gs)]
    run: list[list[str]] = []
    tag = rng.choice(["runA", "bm25", "R-1"])
    for q in run_q:
        k = rng.randint(1001, len(docs) - 100) if long else rng.randint(1, len(docs))
        ret = rng.sample(docs, k)
        scores = gen_scores(rng)
        for rank, d in enumerate(ret, 1):
            run.append([q, "Q0", d, str(rank if rng.random() < 0.9 else rng.randint(0, 9)),
                        rng.choice(scores), tag])
    if qrels and rng.random() < 0.025:            # the same judgement twice
        qrels.append(list(rng.choice(qrels)))
    if qrels and rng.random() < 0.03:             # the same document judged twice, apart
        row = list(rng.choice(qrels))
        row[3] = str(int(row[3]) + 1)
        qrels.append(row)
    if run and rng.random() < 0.04:               # a document retrieved twice
        row = list(rng.choice(run))
        row[4] = rng.choice(gen_scores(rng))
        run.append(row)
    if run and rng.random() < 0.05:
        run[-1][5] = "other"                      # runid is the last line's tag
    if rng.random() < 0.7:
        rng.shuffle(run)
    rng.shuffle(qrels)
    if long_ids:
        lengthen_ids(random.Random(rng.getrandbits(64)), qrels, run)
    sep = rng.choice([" ", " ", " ", "\t", "  "])
    qtext = "".join(sep.join(r) + "\n" for r in qrels)
    rtext = "".join(sep.join(r) + "\n" for r in run)
    r = rng.random()
    if r < 0.02:
        rtext = rtext.replace("\n", " extra fields\n", 1)
    elif r < 0.03:
        qtext = qtext[:-1]                        # no final newline
    elif r < 0.04 and run:
        rtext = rtext.replace("\n", f"\n{run_q[0]} Q0 short 1\n", 1)   # too few fields
    elif r < 0.05:
        qtext = qtext.replace("\n", "\n\n", 1)    # a blank line
    elif r < 0.055:
        rtext = ""
    return {"argv": gen_args(rng, version, long), "qrels": qtext, "run": rtext}


# --------------------------------------------------------------------------- other formats

#: the second corpus: cases of trec_eval's other relevance formats and of -Z
FORMATS = {"9": "trec_eval-9.0.8.formats.jsonl", "10": "trec_eval-10.0.formats.jsonl"}
FORMAT_CASES = 250
PREFS_MEASURES = ["prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                  "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
                  "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
                  "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
                  "prefs_avgjg_imp"]
LEVELS = ["0", "1", "2", "3", "0.5", "1.5", "2.5", "4", "10"]
Z_NAMES = ["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
           "recip_rank", "P_5", "P_10", "ndcg", "iprec_at_recall_0.00", "recall_5",
           "set_F", "utility", "num_q"]


def _format_run(rng: random.Random, qids: list[str], docs: list[str]) -> str:
    run = []
    tag = rng.choice(["runA", "bm25"])
    for q in qids:
        scores = gen_scores(rng)
        for rank, d in enumerate(rng.sample(docs, rng.randint(1, len(docs))), 1):
            run.append([q, "Q0", d, str(rank), rng.choice(scores), tag])
    if run and rng.random() < 0.04:               # a document retrieved twice
        run.append(list(rng.choice(run)))
    if rng.random() < 0.5:
        rng.shuffle(run)
    return "".join(" ".join(r) + "\n" for r in run)


def _prefs_lines(rng: random.Random, q: str, docs: list[str], fmt: str) -> list[list[str]]:
    """One query's judgement groups: each group a hidden order of documents, its
    sub-groups levels that follow it (so no group contradicts itself, mostly)."""
    rows = []
    for g in range(rng.randint(1, 3)):
        jg = rng.choice(["u1", "u2", "A", "0", "1"]) + str(g)
        pool = rng.sample(docs, rng.randint(2, min(len(docs), 9)))
        base = {d: rng.choice(LEVELS) for d in pool}
        nsub = 1 if fmt != "prefs" or rng.random() < 0.4 else rng.randint(2, 3)
        for s in range(nsub):
            picked = rng.sample(pool, rng.randint(2, len(pool))) if nsub > 1 else pool
            for d in picked:
                level = base[d]
                if rng.random() < 0.03:           # inconsistent: refused (or a crash)
                    level = rng.choice(LEVELS)
                if fmt == "prefs":
                    rows.append([q, jg, f"s{s}", d, level])
                else:
                    rows.append([q, jg, d, level if fmt == "qrels_prefs"
                                 else str(int(float(level)) - rng.choice([0, 0, 0, 1, 2]))])
    if rows and rng.random() < 0.05:              # the same line twice
        rows.append(list(rng.choice(rows)))
    return rows


def gen_format_case(rng: random.Random, version: str) -> dict[str, Any]:
    kind = rng.choices(["prefs", "qrels_prefs", "qrels_jg", "zscores"], [4, 2.5, 2, 2])[0]
    qids = rng.sample(QIDS, rng.randint(1, 4))
    docs = [f"d{i}" for i in range(1, rng.randint(4, 14))] + rng.sample(ODD_DOCS, 2)
    judged_q = qids[:]
    if rng.random() < 0.3:
        judged_q = judged_q[:-1] or judged_q    # retrieved, never judged
    run_q = qids[:]
    if len(run_q) > 1 and rng.random() < 0.25:
        run_q = run_q[1:]                         # judged, never retrieved
    flags: list[list[str]] = []
    for flag, p in (("-q", 0.6), ("-c", 0.25), ("-J", 0.1), ("-n", 0.05)):
        if rng.random() < p:
            flags.append([flag])
    if rng.random() < 0.15:
        flags.append(["-M", str(rng.choice([0, 1, 2, 3, 5]))])
    if kind == "zscores":
        case = gen_case(rng, version, False)
        ms = rng.choice([["official"], ["map"], ["P.5,10", "map"], ["ndcg", "num_ret"],
                         ["bpref", "recip_rank", "Rprec"], ["all_trec"], ["set_F", "utility"]])
        lines = []
        zq = sorted({ln.split()[0] for ln in case["qrels"].splitlines() if ln.split()}
                    | {ln.split()[0] for ln in case["run"].splitlines() if ln.split()})
        for q in zq:
            if rng.random() < 0.15:
                continue                          # a query without means
            for name in Z_NAMES:
                if rng.random() < 0.8:
                    mean = rng.choice(["0", "0.5", "0.25", "0.1234", "3", "10", "1"])
                    sd = rng.choice(["0.1", "0.2", "0.5", "1", "2", "0", "0.3333"])
                    lines.append(f"{q} {name} {mean} {sd}")
        rng.shuffle(lines)
        argv = [a for f in flags if f[0] != "-J" for a in f]
        argv += ["-Z", "zscores"] + [a for m in ms for a in ("-m", m)]
        return {"argv": argv, "qrels": case["qrels"], "run": case["run"],
                "zscores": "".join(ln + "\n" for ln in lines)}
    rows: list[list[str]] = []
    for q in judged_q:
        rows += _prefs_lines(rng, q, docs, kind)
    rng.shuffle(rows)
    if kind == "qrels_jg":
        ms = rng.choice([["qrels_jg"], ["map_avgjg"], ["P_avgjg.1,3,5"],
                         ["Rprec_mult_avgjg.0.5,1.0,2.0", "map_avgjg"], ["P_avgjg"]])
        if rng.random() < 0.3:
            flags.append(["-l", str(rng.choice([0, 1, 2, 3]))])
    else:
        ms = rng.choice([["all_prefs"], ["prefs"], rng.sample(PREFS_MEASURES, 2),
                         rng.sample(PREFS_MEASURES, 4)])
    argv = [a for f in flags for a in f] + ["-R", kind] + [a for m in ms for a in ("-m", m)]
    sep = rng.choice([" ", "\t"])
    return {"argv": argv, "qrels": "".join(sep.join(r) + "\n" for r in rows),
            "run": _format_run(rng, run_q, docs)}


# --------------------------------------------------------------------------- running

def run_binary(cmd: list[str], cwd: str) -> tuple[int | None, str, str]:
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT, cwd=cwd)
    except subprocess.TimeoutExpired:
        return None, "", ""
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def run_case(binary: str, case: dict[str, Any], d: str) -> tuple[int | None, str, str]:
    """``case``'s files written in ``d`` (qrels, run, -Z file), then trec_eval run on them."""
    for name in ("qrels", "run", "zscores"):
        if name in case:
            with open(os.path.join(d, name), "w") as fh:
                fh.write(case[name])
    return run_binary([binary, *case["argv"], "qrels", "run"], d)


VALGRIND_ERROR = re.compile(r"Invalid (read|write|free)|uninitialised|Mismatched free|overlap"
                            r"|Syscall param|Process terminating|unaddressable")


def valgrind_errors(binary: str, argv: list[str], d: str, rbp: bool) -> list[str]:
    log = os.path.join(d, "vg.log")
    cmd = ["valgrind", "-q", "--read-inline-info=no", "--log-file=" + log, binary, *argv,
           "qrels", "run"]
    rc, _, _ = run_binary(cmd, d)
    if rc is None:
        return ["timeout under valgrind"]
    with open(log) as fh:
        text = fh.read()
    blocks = [b for b in re.split(r"==\d+== \n", text) if VALGRIND_ERROR.search(b)]
    out = []
    for b in blocks:
        if rbp and ("te_calc_rbp" in b or ("printf" in b and "te_print_" in b)):
            continue                              # rbp's min/max: checked under gdb
        out.append(b)
    return out


GDB_RBP = """set pagination off
set confirm off
break te_calc_rbp
commands
silent
set var min = 1.0e308 * 10
set var max = -1.0e308 * 10
continue
end
run {args} > gdb.out
"""


def rbp_initialised(binary: str, argv: list[str], d: str) -> str:
    """trec_eval's stdout with rbp's min and max set to +inf and -inf on entry."""
    args = " ".join("'" + a.replace("'", "'\\''") + "'" for a in [*argv, "qrels", "run"])
    with open(os.path.join(d, "rbp.gdb"), "w") as fh:
        fh.write(GDB_RBP.format(args=args))
    p = subprocess.run(["gdb", "-q", "-batch", "-x", "rbp.gdb", binary], cwd=d,
                       capture_output=True, timeout=TIMEOUT, text=True)
    if "Breakpoint 1 at" not in p.stdout + p.stderr or "No symbol" in p.stdout + p.stderr:
        raise SystemExit(f"gdb cannot break in te_calc_rbp of {binary}: build it with -g\n"
                         + p.stderr)
    with open(os.path.join(d, "gdb.out")) as fh:
        return fh.read()


def flag_values(argv: list[str]) -> dict[str, str]:
    """The -c -J -l -M -N -n -q flags of ``argv`` (attached and grouped forms too)."""
    out: dict[str, str] = {}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("-") and len(a) > 1:
            if a[1] in "lMNm":
                val = a[2:] if len(a) > 2 else (argv[i + 1] if i + 1 < len(argv) else "")
                i += 1 if len(a) > 2 else 2
                if a[1] != "m":
                    out[a[1]] = val
                continue
            for ch in a[1:]:
                out[ch] = ""
        i += 1
    return out


def skip_reason(version: str, case: dict[str, Any], rc: int | None, out: str, err: str
                ) -> str | None:
    if rc is None:
        return "timeout"
    if rc < 0 or rc >= 128:
        return "crash"
    if version == "10" and rc != 0 and "not found in qrels" in err:
        return "deliberate: 10.0 exits on a judged query without results"
    return None


def one_case(binaries: dict[str, str], seed: int, version: str, index: int,
             memcheck: bool, formats: bool = False, long_ids: bool = False
             ) -> tuple[dict[str, Any], collections.Counter[str]]:
    skipped: collections.Counter[str] = collections.Counter()
    binary = binaries[version]
    long = index % LONG_EVERY == LONG_EVERY // 2
    attempt = 0
    while True:
        rng = random.Random(f"{seed}:{version}:{index}:{attempt}" + (":f" if formats else ""))
        attempt += 1
        case = gen_format_case(rng, version) if formats else gen_case(rng, version, long,
                                                                       long_ids)
        req = requested(case["argv"], version)
        if version == "10" and len(SHARED_GAINS_10 & set(req)) > 1 and any(
                p for m in SHARED_GAINS_10 for p in req.get(m, [])):
            skipped["not generated: dcg/ideal_dcg/ndcg parameters shared (double free)"] += 1
            continue
        d = tempfile.mkdtemp(prefix="golden")
        try:
            rc, out, err = run_case(binary, case, d)
            why = skip_reason(version, case, rc, out, err)
            rbp = version == "10" and "rbp" in req
            if why is None and memcheck and valgrind_errors(binary, case["argv"], d, rbp):
                why = "valgrind: invalid or uninitialised read"
            if why is None and memcheck and rbp and rc == 0 and rbp_initialised(
                    binary, case["argv"], d) != out:
                why = "rbp reads min/max uninitialised"
        finally:
            shutil.rmtree(d, ignore_errors=True)
        if why is not None:
            skipped[why] += 1
            continue
        assert rc is not None
        record = {"id": f"{version}-{'f' if formats else ''}{index:04d}", "argv": case["argv"],
                  "qrels": case["qrels"], "run": case["run"], "stdout": out,
                  "status": 0 if rc == 0 else 1}
        if "zscores" in case:
            record["zscores"] = case["zscores"]
        if rc != 0:
            record["stderr"] = err[:300]          # for whoever reads a failure
        return record, skipped


def generate(a: argparse.Namespace) -> None:
    binaries = {"9": os.path.abspath(a.trec_eval_9), "10": os.path.abspath(a.trec_eval_10)}
    for v, b in binaries.items():
        if not os.access(b, os.X_OK):
            raise SystemExit(f"--trec-eval-{v}: {b} is not an executable")
    if a.memcheck:
        for tool in ("valgrind", "gdb"):
            if shutil.which(tool) is None:
                raise SystemExit(f"{tool} not found (or pass --no-memcheck, which changes "
                                 "the corpus)")
    out_dir = Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    meta_path = out_dir / "meta.json"
    meta: dict[str, Any] = json.loads(meta_path.read_text()) if a.formats_only else {
        "seed": a.seed, "cases": a.cases, "memcheck": a.memcheck,
        **({"long_ids": True} if a.long_ids else {}), "versions": {}}
    plan = [] if a.formats_only else [(VERSIONS, a.cases, False)]
    plan.append((FORMATS, a.format_cases, True))
    meta["format_cases"] = a.format_cases
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for files, count, formats in plan:
            for version, name in files.items():
                futures = [pool.submit(one_case, binaries, a.seed, version, i, a.memcheck,
                                       formats, a.long_ids) for i in range(1, count + 1)]
                skipped: collections.Counter[str] = collections.Counter()
                records = []
                for k, f in enumerate(futures, 1):
                    rec, sk = f.result()
                    records.append(rec)
                    skipped.update(sk)
                    if k % 50 == 0:
                        print(f"{name}: {k}/{count}", file=sys.stderr)
                with open(out_dir / (name if formats else f"{name}.jsonl"), "w") as fh:
                    for rec in records:
                        fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
                meta["versions"][name] = {
                    "cases": len(records),
                    "non_zero_status": sum(r["status"] for r in records),
                    "discarded": dict(sorted(skipped.items())),
                }
    with open(meta_path, "w") as fh:
        json.dump(meta, fh, indent=1)
        fh.write("\n")
    print(json.dumps(meta, indent=1))


# --------------------------------------------------------------------------- picked cases

#: version -> the file of the cases picked by hand (tools/golden_picked.py)
PICKED_FILES = {"9": "trec_eval-9.0.8.picked.jsonl", "10": "trec_eval-10.0.picked.jsonl"}


def record_picked(a: argparse.Namespace) -> None:
    """Run every picked case through both binaries and write their records."""
    from golden_picked import PICKED

    binaries = {"9": os.path.abspath(a.trec_eval_9), "10": os.path.abspath(a.trec_eval_10)}
    out_dir = Path(a.out)
    for version, name in PICKED_FILES.items():
        binary = binaries[version]
        records = []
        for case in PICKED:
            d = tempfile.mkdtemp(prefix="golden")
            try:
                rc, out, err = run_case(binary, case, d)
                if rc is None or rc < 0 or rc >= 128:
                    raise SystemExit(f"{binary} crashed or hung on {case['name']}")
                record = {"id": f"{version}-p_{case['name']}", "argv": case["argv"],
                          "qrels": case["qrels"], "run": case["run"], "stdout": out,
                          "status": 0 if rc == 0 else 1, "why": case["why"]}
                if "zscores" in case:
                    record["zscores"] = case["zscores"]
                if rc != 0:
                    record["stderr"] = err[:300]
                if a.memcheck:
                    rbp = version == "10" and "rbp" in requested(case["argv"], version)
                    errors = valgrind_errors(binary, case["argv"], d, rbp)
                    if rbp and rc == 0 and rbp_initialised(binary, case["argv"], d) != out:
                        errors.insert(0, "rbp reads its min/max uninitialised")
                    if errors:
                        record["valgrind"] = next(
                            (line.split("== ", 1)[-1] for line in errors[0].splitlines()
                             if VALGRIND_ERROR.search(line)), errors[0].strip()[:200])
            finally:
                shutil.rmtree(d, ignore_errors=True)
            records.append(record)
        with open(out_dir / name, "w") as fh:
            for rec in records:
                fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
        print(f"{name}: {len(records)} cases", file=sys.stderr)


# --------------------------------------------------------------------------- checking

def load(version_file: Path) -> list[dict[str, Any]]:
    with open(version_file) as fh:
        return [json.loads(line) for line in fh]


def smarteval_run(case: dict[str, Any], d: str) -> tuple[int, str]:
    """smarteval's exit status and stdout for ``case`` (in-process)."""
    from click.testing import CliRunner

    from smarteval.cli import main

    q, r = os.path.join(d, "qrels"), os.path.join(d, "run")
    with open(q, "w") as fh:
        fh.write(case["qrels"])
    with open(r, "w") as fh:
        fh.write(case["run"])
    argv = list(case["argv"])
    if "zscores" in case:
        z = os.path.join(d, "zscores")
        with open(z, "w") as fh:
            fh.write(case["zscores"])
        argv = [z if a == "zscores" else a for a in argv]
    version = case["id"].split("-")[0]
    res = CliRunner().invoke(main, ["evaluate", "-f", "trec", "--trec-version", version,
                                    *argv, q, r])
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        return -1, res.stdout
    return res.exit_code, res.stdout


def measure_of(line: str) -> str:
    name = line.split("\t")[0].strip()
    for base in sorted(set(ALL_TREC["10"]) | {"yaap", "dcg", "ideal_dcg"}, key=len,
                       reverse=True):
        if name == base or name.startswith(base + "_"):
            return base
    return name


def signature(case: dict[str, Any], status: int, stdout: str) -> str:
    """A short description of how smarteval's answer differs from trec_eval's."""
    flags = " ".join("-" + k + v for k, v in sorted(flag_values(case["argv"]).items()))
    if status == -1:
        return f"smarteval crashes [{flags}]"
    if (status == 0) != (case["status"] == 0):
        return f"status trec_eval={case['status']} smarteval={int(status != 0)} [{flags}]"
    a = collections.Counter(case["stdout"].splitlines())
    b = collections.Counter(stdout.splitlines())
    diff = sorted({measure_of(x) for x in (a - b) + (b - a)})
    return ("lines: " + ",".join(diff) if diff else "line order") + f" [{flags}]"


def check(a: argparse.Namespace) -> None:
    manifest_path = Path(a.out) / "known_differences.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    differing: dict[str, str] = {}
    d = tempfile.mkdtemp(prefix="golden")
    try:
        files = ([f"{n}.jsonl" for n in VERSIONS.values()] + list(FORMATS.values())
                 + list(PICKED_FILES.values()))
        for name in files:
            if not (Path(a.out) / name).exists():
                continue
            for case in load(Path(a.out) / name):
                status, stdout = smarteval_run(case, d)
                same = (status == 0) == (case["status"] == 0) and (
                    case["status"] != 0 or stdout == case["stdout"])
                if not same:
                    differing[case["id"]] = signature(case, status, stdout)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    for cid, sig in differing.items():
        print(f"{cid}\t{manifest.get(cid, '(not in manifest)')}\t{sig}")
    fixed = sorted(set(manifest) - set(differing))
    print(f"{len(differing)} cases differ; {len(fixed)} manifest entries now pass: "
          + " ".join(fixed), file=sys.stderr)
    new = sorted(set(differing) - set(manifest))
    if (a.prune and fixed) or (a.add and new):
        kept = {k: v for k, v in manifest.items() if k in differing or not a.prune}
        if a.add:
            kept.update((k, "open, not yet diagnosed: " + differing[k]) for k in new)
        manifest_path.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n")
        print(f"{manifest_path}: {len(fixed) if a.prune else 0} entries dropped, "
              f"{len(new) if a.add else 0} added", file=sys.stderr)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trec-eval-9", metavar="PATH", help="trec_eval 9.0.8 binary")
    p.add_argument("--trec-eval-10", metavar="PATH", help="trec_eval 10.0 binary")
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--cases", type=int, default=CASES, help="cases per version")
    p.add_argument("--format-cases", type=int, default=FORMAT_CASES,
                   help="cases per version of the second corpus (prefs, qrels_prefs, "
                        "qrels_jg, -Z)")
    p.add_argument("--formats-only", action="store_true",
                   help="generate the second corpus only (the first one kept)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out", default=str(OUT), help="corpus directory")
    p.add_argument("--no-memcheck", dest="memcheck", action="store_false",
                   help="run without valgrind and gdb (keeps cases they would discard)")
    p.add_argument("--long-ids", action="store_true",
                   help="make some query ids and docnos 300 to 5,000 bytes long (not in the "
                        "committed corpus; for a fuzz run of its own --out)")
    p.add_argument("--picked", action="store_true",
                   help="record the cases picked by hand (tools/golden_picked.py) only")
    p.add_argument("--check", action="store_true",
                   help="run the corpus through smarteval and list the cases that differ")
    p.add_argument("--prune", action="store_true",
                   help="with --check: drop manifest entries that now pass")
    p.add_argument("--add", action="store_true",
                   help="with --check: add the cases that differ, labelled 'open, not yet "
                        "diagnosed' (give them a class label by hand)")
    a = p.parse_args()
    if a.check:
        check(a)
        return
    if not (a.trec_eval_9 and a.trec_eval_10):
        p.error("--trec-eval-9 and --trec-eval-10 are required to generate")
    if a.picked:
        record_picked(a)
        return
    generate(a)


if __name__ == "__main__":
    main()
