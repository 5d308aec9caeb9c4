"""Test helpers: Ranked objects straight from lists of grades (no files), and the oracle table.

ORACLES (below) maps every registered measure to the slow oracle its values are checked
against; tests/test_registry.py fails when a measure has no entry.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import cwl_oracle as C
import diversity_oracle as D
import ntcir_oracle as N
import numpy as np
import oracle as T
import prefs_oracle as PO
import sample_oracle as SO
import smart_oracle as S
import web_oracle as W

from smarteval.columns import Ranked
from smarteval.settings import Settings


def make_ranked(lists: Sequence[Sequence[int]], qrels: Sequence[Sequence[int]] | None = None,
                scores: Sequence[Sequence[float]] | None = None, *, rel_level: int = 1,
                qids: Sequence[str] | None = None, **settings) -> Ranked:
    """A Ranked from each query's retrieved grades in rank order.

    ``lists[q]`` holds the grade of each retrieved document (-1: not in the qrels).
    ``qrels[q]`` holds every judged grade of the query; by default the judged grades of
    its retrieved documents. ``scores[q]`` sets the scores (ties for --ties average and
    esl); by default every document has its own score. ``settings`` go to Settings
    (num_docs, unranked, target_generality, ties).
    """
    nq = len(lists)
    if qrels is None:
        qrels = [[g for g in lst if g >= 0] for lst in lists]
    if scores is None:
        scores = [[float(len(lst) - i) for i in range(len(lst))] for lst in lists]
    counts = [len(x) for x in lists]
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    rel = np.array([g for lst in lists for g in lst], dtype=np.int64)
    score = np.array([s for lst in scores for s in lst], dtype=np.float64)
    grades = [sorted((g for g in qr if g >= 0), reverse=True) for qr in qrels]
    qrel_offsets = np.concatenate(([0], np.cumsum([len(g) for g in grades]))).astype(np.int64)
    qrel_grades = np.array([g for gs in grades for g in gs], dtype=np.int64)
    docno = np.array([f"D{i}".encode() for i in range(len(rel))], dtype="S")
    if qids is None:
        qids = [f"q{i:03d}" for i in range(nq)]
    return Ranked(qids=np.array(qids), offsets=offsets, rel=rel, score=score, docno=docno,
                  qrel_offsets=qrel_offsets, qrel_grades=qrel_grades,
                  in_run=np.ones(nq, dtype=bool), rel_level=rel_level, run_tag="test",
                  tie_key=score, settings=Settings(**settings))


def from_ranks(ranks: Sequence[Sequence[int]], *, R: Sequence[int] | None = None,
               L: Sequence[int] | None = None, grades: Sequence[Sequence[int]] | None = None,
               **settings) -> Ranked:
    """A Ranked where query q has relevant documents at ``ranks[q]`` (1-based).

    The list is ``L[q]`` long (default: the last relevant rank), the other documents
    judged non-relevant; ``R[q]`` relevant documents in all (default: those ranked),
    the extra ones unretrieved with grade 1 (or the remaining ``grades``). ``grades[q]``
    gives the grade of each ranked relevant document, in the order of ``ranks[q]``,
    followed by the grades of the unretrieved ones.
    """
    lists, qrels = [], []
    for q, rk in enumerate(ranks):
        n = L[q] if L is not None else (max(rk) if rk else 0)
        total = R[q] if R is not None else len(rk)
        g = list(grades[q]) if grades is not None else [1] * total
        lst = [0] * n
        for i, p in enumerate(rk):
            lst[p - 1] = g[i]
        lists.append(lst)
        qrels.append([0] * (n - len(rk)) + g[:total])
    return make_ranked(lists, qrels, **settings)


# =========================================================================== the oracle table
#
# Every registered measure has an entry here (tests/test_registry.py fails otherwise): the
# slow oracle its values are checked against, the -m parameter variants checked beside its
# defaults, whether pytrec_eval computes it too, and, for a measure with a micro average,
# the counts it pools. test_vs_oracle checks the "trec" entries through files and
# smarteval.evaluate (-l, -J, -M, -c, both trec_eval versions); test_smart_oracle checks the
# "smart" entries on Ranked columns (shared N, tied scores, --unranked); test_vs_pytrec
# checks the entries marked pytrec against trec_eval's own C code.


@dataclass(frozen=True)
class Query:
    """One query as the oracles see it."""

    codes: list      # relevance code of each retrieved document in rank order: the grade,
    #                  -1 for a document the qrels lack, -2 for a negative grade
    grades: list     # every qrels grade of the query (negative ones included)
    keys: list       # each retrieved document's score as the ranking compared it
    in_run: bool = True   # False for a query -c adds, which trec_eval 9 does not evaluate
    #: the retrieved documents' docnos and scores as read, in rank order, and the query's
    #: qrels in line order (docno -> grade), for the measures that read docnos (compat)
    docs: dict | None = None
    judgements: dict | None = None

    def level_rel(self, level):
        return sum(1 for g in self.grades if g >= level)


def program_query(docs: dict, qrels: dict, program: str, *, max_docs=None,
                  judged_only: bool = False, version: int = 9) -> Query:
    """One query (``docs``: docno -> score in the run's line order) as ``program`` orders
    it (smarteval.ranking.programs.PROGRAMS says how), plainly: trec_eval's ranking is cut
    at -M first, then sorted again by the program's rule, then -J drops the unjudged.
    """
    from smarteval.ranking.programs import PROGRAMS
    p = PROGRAMS[program]
    line = {d: i for i, d in enumerate(docs)}
    order = T.rank_docnos(list(docs.items()), float32=version == 9)
    if max_docs is not None:
        order = order[:max(max_docs, 0)]
    as32 = p.precision == "float32" or (p.precision == "trec" and version == 9)

    def key(d):
        return T.to_float32(float(docs[d])) if as32 else float(docs[d])
    if p.by == "file":
        order = sorted(order, key=line.__getitem__)
    else:
        if p.ties == "file":
            order = sorted(order, key=line.__getitem__)
        else:
            order = sorted(order, key=lambda d: d.encode(), reverse=p.ties == "docno-desc")
        order = sorted(order, key=key, reverse=True)        # stable: ties stay as put
    if judged_only:
        order = [d for d in order if qrels.get(d, -1) >= 0]
    codes = [T.relevance_code(d, qrels) for d in order]
    return Query(codes, list(qrels.values()), [key(d) for d in order], True,
                 {d: docs[d] for d in order}, qrels)


@dataclass(frozen=True)
class Context:
    """The settings an oracle value depends on."""

    level: int = 1
    num_docs: int | None = None
    unranked: str = "expected"
    v10: bool = False
    generality: float | None = None
    tag: str = ""


@dataclass(frozen=True)
class Oracle:
    source: str                                    # "trec" or "smart" (see above)
    value: Callable                                # (Query, output param, Context) -> value
    variants: tuple = ()                           # -m specs checked beside the default
    pytrec: bool = False                           # pytrec_eval computes it too
    counts: Callable | None = None                 # (Query, param, Context) -> (num, den)
    rtol: float = 1e-9


SOURCES = ("trec", "smart")


def _trec_param(measure: str, p):
    """An Output's parameter as tests/oracle.py's oracle_query takes it."""
    if not isinstance(p, tuple):
        return p                                   # None, one cut-off or one level
    if not p:
        return None                                # gains measures without pairs
    if isinstance(p[0], tuple):
        return {k: v for k, v in p}                # rel=gain pairs (rbp: p=...)
    if measure in ("set_F", "relstring"):
        return p[0]
    return p                                       # utility's coefficients, 11pt_avg's levels


def _compat(q: Query, p) -> float:
    """ir_measures' compatibility of one query (0 without documents, which it never sees)."""
    if not q.codes:
        return 0.0
    from ir_measures.providers.compat_provider import compatibility
    assert q.docs is not None and q.judgements is not None, "compat reads docnos"
    return compatibility(q.judgements, q.docs, p[0], bool(p[1]) if len(p) > 1 else True)


def trec(measure: str, variants=(), *, pytrec=True, counts=None, as_name=None) -> Oracle:
    """An entry checked against tests/oracle.py's ``oracle_query(as_name or measure)``."""
    name = as_name or measure

    def value(q: Query, p, c: Context):
        # trec_eval 10.0 kept 9's +0.9 cut-off for Rprec_mult (its own golden output)
        v10 = c.v10 and name != "Rprec_mult"
        return T.oracle_query(q.codes, q.grades, name, _trec_param(name, p), c.level,
                              c.num_docs or 0, v10)
    return Oracle("trec", value, tuple(variants), pytrec, counts)


def _a(q: Query, k, c: Context) -> int:
    """Relevant documents among the first k (all retrieved when k is None)."""
    return sum(1 for g in q.codes[:k] if g >= c.level)


def _R(q: Query, c: Context) -> int:
    return q.level_rel(c.level)


def smart(value, variants=(), *, counts=None, rtol=1e-9) -> Oracle:
    return Oracle("smart", value, tuple(variants), False, counts, rtol)


def _f(q: Query, p, c: Context) -> float:
    return S.f_measure(q.codes, q.grades, p[0], int(p[1]) if len(p) > 1 else None, c.level)


def _f_counts(q: Query, p, c: Context):
    """F's pooled counts: (1+β²)a and β²R + t, t the documents examined."""
    k = int(p[1]) if len(p) > 1 else None
    b2 = p[0] * p[0]
    return (1 + b2) * _a(q, k, c), b2 * _R(q, c) + (k if k is not None else len(q.codes))


def _sliding_counts(q, k, c):
    actual = sum(g for g in q.codes[:k] if g >= c.level)
    ideal = sum(sorted(S.qrels_rel(q.grades, c.level), reverse=True)[:k])
    return actual, ideal


def _fallout_counts(q, k, c):
    N, R = c.num_docs, _R(q, c)
    return min(min(k, N) - _a(q, k, c), N - R), N - R


def _accuracy_counts(q, k, c):
    N, R, a = c.num_docs, _R(q, c), _a(q, k, c)
    fp = min(min(k, N) - a, N - R)
    return a + (N - R - fp), N


#: "smart" entries that are not SMART measures: they order tied scores as doubles (gdeval's
#: order, smarteval.measures.web.gdeval_order)
DOUBLE_ORDER = ("gd_ndcg", "gd_err", "sdcg", "pair_accuracy")

#: measure name -> its oracle
ORACLES: dict[str, Oracle] = {
    # ---- trec_eval's measures (tests/oracle.py)
    # runid's per-query value is the run tag; pytrec_eval returns no value for it
    "runid": Oracle("trec", lambda q, p, c: c.tag),
    "num_q": Oracle("trec", lambda q, p, c: 1, pytrec=True),
    "num_ret": trec("num_ret"),
    "num_rel": trec("num_rel"),
    "num_rel_ret": trec("num_rel_ret"),
    "map": trec("map"),
    # gm_map and gm_bpref: smarteval's per-query value is AP (bpref); the summary is the
    # geometric mean, checked separately
    "gm_map": trec("gm_map", as_name="map"),
    "Rprec": trec("Rprec", counts=lambda q, p, c: (_a(q, _R(q, c), c), _R(q, c))),
    "bpref": trec("bpref"),
    "recip_rank": trec("recip_rank"),
    "iprec_at_recall": trec("iprec_at_recall", ["iprec_at_recall.0,0.05,0.25,0.33,0.4,0.7,1",
                                                "iprec_at_recall..1,.75"]),
    "P": trec("P", ["P.1,2,3,7"], counts=lambda q, k, c: (_a(q, k, c), k)),
    # relstring: pytrec_eval returns no meaningful value for it
    "relstring": trec("relstring", ["relstring.6", "relstring.1"], pytrec=False),
    "recall": trec("recall", ["recall.1,2,5"], counts=lambda q, k, c: (_a(q, k, c), _R(q, c))),
    "infAP": trec("infAP"),
    "gm_bpref": trec("gm_bpref", as_name="bpref"),
    "Rprec_mult": trec("Rprec_mult", ["Rprec_mult.0.4,0.7,1.5,3"]),
    "utility": trec("utility", ["utility.2,-1,0.5,0.25"]),
    "11pt_avg": trec("11pt_avg", ["11pt_avg..2,.5,.8", "11pt_avg.0.25,0.5,1"]),
    "binG": trec("binG"),
    "G": trec("G", ["G.3=0.25", "G.1=2,2=0.5", "G.-1=1.5,1=-2"]),
    "dcg": trec("dcg", ["dcg.1=3,2=0.5,4=7", "dcg.1=0.5"], pytrec=False),
    "ideal_dcg": trec("ideal_dcg", ["ideal_dcg.1=3,2=0.5,4=7", "ideal_dcg.1=0.5"],
                      pytrec=False),
    "ndcg": trec("ndcg", ["ndcg.1=3,2=0.5,4=7", "ndcg.1=0.5", "ndcg.0=2,2=1.5"]),
    "ndcg_rel": trec("ndcg_rel", ["ndcg_rel.1=0.5", "ndcg_rel.2=2.7,0=1.5"]),
    "Rndcg": trec("Rndcg", ["Rndcg.2=5,0=1", "Rndcg.1=0.5", "Rndcg.1=0,2=0"]),
    "ndcg_cut": trec("ndcg_cut", ["ndcg_cut.1,3,6"]),
    "map_cut": trec("map_cut", ["map_cut.2,4"]),
    "relative_P": trec("relative_P", ["relative_P.1,3"],
                       counts=lambda q, k, c: (_a(q, k, c), min(k, _R(q, c)))),
    "success": trec("success", ["success.2,3"]),
    "set_P": trec("set_P", counts=lambda q, p, c: (_a(q, None, c), len(q.codes))),
    "set_relative_P": trec("set_relative_P",
                           counts=lambda q, p, c: (_a(q, None, c), min(len(q.codes), _R(q, c)))),
    "set_recall": trec("set_recall", counts=lambda q, p, c: (_a(q, None, c), _R(q, c))),
    "set_map": trec("set_map"),
    "set_F": trec("set_F", ["set_F.0.5", "set_F.3"]),
    "num_nonrel_judged_ret": trec("num_nonrel_judged_ret"),
    "yaap": trec("yaap", pytrec=False),
    "rbp": trec("rbp", ["rbp.1=0.5,2=3"], pytrec=False),
    "rbp_resid": trec("rbp_resid", pytrec=False),
    "unj": trec("unj", ["unj.1,3"], pytrec=False,
                counts=lambda q, k, c: (sum(1 for g in q.codes[:k] if g < 0), k)),
    # ---- ir_measures names trec_eval lacks (tests/smart_oracle.py's ir_measures section)
    "recip_rank_cut": Oracle("trec", lambda q, k, c: S.rr_at_k(q.codes, k, c.level),
                             ("recip_rank_cut.1,3",)),
    "judged": Oracle("trec", lambda q, k, c: S.judged_ir(q.codes, k),
                     ("judged.1,3,5",)),
    "num_q_ret": Oracle("trec", lambda q, p, c: 1 if q.codes else 0),
    "rbp_bin": Oracle("trec", lambda q, p, c: S.rbp_binary(q.codes, p[0], c.level),
                      ("rbp_bin.0.5", "rbp_bin.0.95", "rbp_bin.1", "rbp_bin.0")),
    # ---- ir_measures' Compat: its compat provider's own function
    "compat": Oracle("trec", lambda q, p, c: _compat(q, p),
                     ("compat.0.5,0", "compat.0,1", "compat.1", "compat.0.8,0")),
    # ---- gdeval, ranx and ir_measures' SDCG and Accuracy (tests/web_oracle.py); those of
    # DOUBLE_ORDER rank scores as doubles, not as the oracle files' float32 under trec_eval
    # 9, so they are checked on Ranked columns
    "gd_ndcg": smart(lambda q, k, c: W.gd_ndcg(q.codes, q.grades, k), ["gd_ndcg.1,3,10"]),
    "gd_err": smart(lambda q, k, c: W.gd_err(q.codes, q.grades, k), ["gd_err.1,3,10"]),
    "ranx_dcg": Oracle("trec", lambda q, k, c: W.ranx_dcg(q.codes, k, c.level, False),
                       ("ranx_dcg.1,3",)),
    "ranx_dcg_burges": Oracle("trec", lambda q, k, c: W.ranx_dcg(q.codes, k, c.level, True),
                              ("ranx_dcg_burges.1,3",)),
    "ranx_ndcg_burges": Oracle("trec", lambda q, k, c: W.ranx_ndcg(q.codes, q.grades, k,
                                                                   c.level, True),
                               ("ranx_ndcg_burges.1,3",)),
    "ranx_hits": Oracle("trec", lambda q, k, c: W.ranx_hits(q.codes, k, c.level),
                        ("ranx_hits.1,3",)),
    "ranx_hit_rate": Oracle("trec", lambda q, k, c: min(W.ranx_hits(q.codes, k, c.level), 1.0),
                            ("ranx_hit_rate.1,3",)),
    "sdcg": smart(lambda q, p, c: W.sdcg(q.codes, p), ["sdcg.3,2", "sdcg.5,3,1", "sdcg.2,1,-1"]),
    "pair_accuracy": smart(lambda q, k, c: W.pair_accuracy(q.codes, k, c.level),
                           ["pair_accuracy.1,3,20"]),
    # ---- ndeval's diversity measures (tests/diversity_oracle.py: pyndeval, ndeval's C code);
    # plain qrels are one subtopic per query here, tests/test_diversity.py gives subtopics
    **{name: Oracle("trec", (lambda m: lambda q, p, c: D.plain_query(q.codes, q.grades, m, p,
                                                                   c.level))(name),
                    variants)
       for name, variants in (
           ("alpha-DCG", ("alpha-DCG.1,2,7,20",)), ("alpha-nDCG", ("alpha-nDCG.1,3,20",)),
           ("ERR-IA", ("ERR-IA.1,2,7",)), ("nERR-IA", ("nERR-IA.1,3,20",)),
           ("P-IA", ("P-IA.1,3",)), ("strec", ("strec.1,2",)),
           ("NRBP", ("NRBP.0.3,0.8", "NRBP.1", "NRBP.0,1")),
           ("nNRBP", ("nNRBP.0.7", "nNRBP.0.2,1")), ("MAP-IA", ()))},
    # ---- cwl_eval's C/W/L measures (tests/cwl_oracle.py: cwl_eval's own classes)
    # ---- trec_eval's preference measures: the qrels as one judgement group per query
    # (tests/prefs_oracle.py; tests/test_prefs.py gives preference files)
    **{name: Oracle("trec", (lambda m: lambda q, p, c: PO.from_qrels(q.codes, q.grades)[m])(name))
       for name in PO.MEASURES},
    # ---- judgement-group measures: against one group, the measure itself
    "map_avgjg": Oracle("trec", lambda q, p, c: ORACLES["map"].value(q, p, c)),
    "P_avgjg": Oracle("trec", lambda q, k, c: ORACLES["P"].value(q, k, c),
                      ["P_avgjg.1,7,20"]),
    "Rprec_mult_avgjg": Oracle("trec", lambda q, p, c: ORACLES["Rprec_mult"].value(q, p, c),
                               ["Rprec_mult_avgjg.0.5,1.0,3.0"]),
    **{name: Oracle("trec", (lambda m: lambda q, p, c: C.cwl_query(q.codes, m, p))(name),
                    variants)
       for name, variants in (
           ("INST", ("INST.2", "INST.0.5,0,3", "INST.1,1,2")), ("INSQ", ("INSQ.2,0,4",)),
           ("TBG", ("TBG.3", "TBG.10,0,2")), ("U-measure", ("U-measure.5", "U-measure.3,0,2")),
           ("BPM", ("BPM.2,3", "BPM.0.5,2,0,3")), ("NERR8", ("NERR8.1", "NERR8.3,0,3")),
           ("NERR9", ("NERR9.2,1,3",)), ("NERR10", ("NERR10.0.5", "NERR10.1,0,2")),
           ("NERR11", ("NERR11.2,0,4",)), ("BPM-Dynamic", ("BPM-Dynamic.1.2,4,0.5,2,0.25",)),
           ("IFT-C1", ("IFT-C1.1,0.5,1,0,3",)), ("IFT-C2", ("IFT-C2.0.5,0.5,2",)),
           ("IFT-C1-C2", ("IFT-C1-C2.1,0.5,2,0.3,0.8,1",)))},
    **{name: Oracle("trec", (lambda m: lambda q, p, c: C.cwl_query(q.codes, m, p))(kind),
                    variants)
       for name, kind, variants in (
           ("cwl_RBP", "RBP", ("cwl_RBP.0.5", "cwl_RBP.0.8,0,3")),
           ("cwl_P", "P", ("cwl_P.3", "cwl_P.1,0,2")), ("cwl_NDCG", "NDCG", ("cwl_NDCG.4,0,3",)),
           ("cwl_RR", "RR", ("cwl_RR.0,3",)), ("cwl_AP", "AP", ("cwl_AP.1,3",)))},
    # ---- sample_eval's measures (tests/sample_oracle.py): plain qrels are one stratum,
    # every judged document sampled; tests/test_sample_golden.py checks sample_eval itself
    "xinfAP": Oracle("trec", lambda q, p, c: SO.from_query(q.codes, q.grades)["infAP"]),
    "infNDCG": Oracle("trec", lambda q, p, c: SO.from_query(q.codes, q.grades, p)["infNDCG"],
                      ("infNDCG.1=2,2=5", "infNDCG.2=0.5,3=10", "infNDCG.1=0,3=1")),
    "iprec_at_rec": Oracle("trec", lambda q, p, c: SO.iprec(
        lambda levels: SO.from_query(q.codes, q.grades, levels=levels), p),
        ("iprec_at_rec.0.25,0.5,1",)),
    "iP": Oracle("trec", lambda q, k, c: SO.precision(SO.from_query(q.codes, q.grades), k),
                 ("iP.1,3,7",)),
    "inum_rel_ret": Oracle("trec", lambda q, p, c: (SO.from_query(q.codes, q.grades)["E"]
                                                    or [0.0])[-1]),
    "inum_rel": Oracle("trec", lambda q, p, c: SO.from_query(q.codes, q.grades)["R"]),
    "sample_num_ret": Oracle("trec", lambda q, p, c: len(q.codes)),
    "int11ptAP": Oracle("trec", lambda q, p, c: SO.from_query(q.codes, q.grades)["int11ptAP"]),
    # ---- NTCIREVAL's measures (tests/ntcir_oracle.py: pyNTCIREVAL itself), the run's
    # lines in order; grade=gain pairs and NTCIREVAL's options as variants
    **{name: Oracle("trec", (lambda m: lambda q, p, c: N.query(q.codes, q.grades, m, p))(name),
                    variants)
       for name, variants in (
           ("ntcir_RR", ("ntcir_RR.j=1",)),
           ("ntcir_O", ("ntcir_O.L1=1,L2=3,beta=0.5", "ntcir_O.j=1")),
           ("ntcir_P", ("ntcir_P.L1=2,L3=10,beta=3", "ntcir_P.j=1")),
           ("ntcir_Pplus", ("ntcir_Pplus.L2=5,beta=0", "ntcir_Pplus.j=1")),
           ("ntcir_AP", ("ntcir_AP.k=3", "ntcir_AP.k=1,j=1")),
           ("ntcir_Q", ("ntcir_Q.beta=0.5", "ntcir_Q.L1=1,L2=3,L3=7,k=3", "ntcir_Q.beta=10,j=1")),
           ("ntcir_NCUguP", ("ntcir_NCUguP.L1=1,L2=4",)),
           ("ntcir_NCUguBR", ("ntcir_NCUguBR.beta=0.5,L2=3",)),
           ("ntcir_NCUrbP", ("ntcir_NCUrbP.gamma=0.5",)),
           ("ntcir_NCUrbBR", ("ntcir_NCUrbBR.gamma=0.8,beta=2",)),
           ("ntcir_RBP", ("ntcir_RBP.p=0.5", "ntcir_RBP.L1=1,L4=8,k=3")),
           ("ntcir_ERR", ("ntcir_ERR.k=2", "ntcir_ERR.L1=1,L2=3")),
           ("ntcir_nDCG", ("ntcir_nDCG.k=3", "ntcir_nDCG.logb=0,k=5",
                           "ntcir_nDCG.logb=10,L2=3,j=1")),
           ("ntcir_MSnDCG", ("ntcir_MSnDCG.k=2", "ntcir_MSnDCG.L1=3,L2=1")),
           ("ntcir_nERR", ("ntcir_nERR.k=3", "ntcir_nERR.L2=0.5")),
           ("ntcir_Prec", ("ntcir_Prec.k=3",)),
           ("ntcir_Hit", ("ntcir_Hit.k=1", "ntcir_Hit.k=2,j=1")),
           ("ntcir_Recall", ("ntcir_Recall.k=2",)))},
    # ---- the share of judged documents --unjudged range prints beside each measure
    "judged_share": smart(lambda q, k, c: (sum(1 for g in q.codes[:k] if g >= 0)
                                           / min(k, len(q.codes)) if q.codes and k else 0.0),
                          ["judged_share.1,3,20"]),
    # ---- the SMART measures (tests/smart_oracle.py)
    "norm_recall": smart(lambda q, p, c: S.norm_recall(q.codes, q.grades, c.num_docs,
                                                       c.unranked, c.level)),
    "norm_prec": smart(lambda q, p, c: S.norm_prec(q.codes, q.grades, c.num_docs,
                                                   c.unranked, c.level)),
    "rank_recall": smart(
        lambda q, p, c: S.rank_recall(q.codes, q.grades, c.num_docs, c.unranked, c.level),
        counts=lambda q, p, c: (_R(q, c) * (_R(q, c) + 1) / 2,
                                S.rank_sum(q.codes, _R(q, c), c.num_docs, c.unranked, c.level))),
    "log_prec": smart(
        lambda q, p, c: S.log_prec(q.codes, q.grades, c.num_docs, c.unranked, c.level),
        counts=lambda q, p, c: (sum(math.log(i) for i in range(1, _R(q, c) + 1)),
                                S.log_rank_sum(q.codes, _R(q, c), c.num_docs, c.unranked,
                                               c.level))),
    "wnorm_recall": smart(lambda q, p, c: S.wnorm_recall(q.codes, q.grades, c.num_docs,
                                                         c.unranked, c.level, p),
                          ["wnorm_recall.1=1,2=5", "wnorm_recall.3=0.5"]),
    "fallout": smart(lambda q, k, c: S.fallout(q.codes, q.grades, c.num_docs, k, c.level),
                     ["fallout.3,7,14"], counts=_fallout_counts),
    "generality": smart(lambda q, p, c: S.generality(q.grades, c.num_docs, c.level),
                        counts=lambda q, p, c: (1000 * _R(q, c), c.num_docs)),
    "cutoff": smart(lambda q, k, c: S.cutoff(c.num_docs, k), ["cutoff.1,3,14"],
                    counts=lambda q, k, c: (min(k, c.num_docs), c.num_docs)),
    "adj_prec": smart(lambda q, k, c: S.adj_prec(q.codes, q.grades, c.num_docs, k,
                                                 c.generality, c.level),
                      ["adj_prec.1,3,14"]),
    "sliding_ratio": smart(lambda q, k, c: S.sliding_ratio(q.codes, q.grades, k, c.level),
                           ["sliding_ratio.1,3,14"], counts=_sliding_counts),
    "relpoints_recall": smart(
        lambda q, k, c: S.relpoints_recall(q.codes, q.grades, k, c.level),
        ["relpoints_recall.1,3,14"],
        counts=lambda q, k, c: (sum(g for g in q.codes[:k] if g >= c.level),
                                sum(S.qrels_rel(q.grades, c.level)))),
    "rel_recall": smart(lambda q, u, c: S.rel_recall(q.codes, q.grades, u, c.level),
                        ["rel_recall.1,2,5"],
                        counts=lambda q, u, c: (min(_a(q, None, c), u), u)),
    "rank_first": smart(lambda q, p, c: S.rank_j(q.codes, q.grades, c.num_docs, 1,
                                                 c.unranked, c.level)),
    "rank_second": smart(lambda q, p, c: S.rank_j(q.codes, q.grades, c.num_docs, 2,
                                                  c.unranked, c.level)),
    "rank_last": smart(lambda q, p, c: S.rank_j(q.codes, q.grades, c.num_docs, _R(q, c),
                                                c.unranked, c.level)),
    "F": smart(_f, ["F.0", "F.0.5", "F.3", "F.1,3", "F.0.5,7", "F.3,14", "F.0,2"],
               counts=_f_counts),
    "E": smart(lambda q, p, c: 1 - _f(q, p, c), ["E.0.5,4", "E.2", "E.3,11"],
               counts=lambda q, p, c: (_f_counts(q, p, c)[1] - _f_counts(q, p, c)[0],
                                       _f_counts(q, p, c)[1])),
    "F_alpha": smart(lambda q, p, c: S.f_alpha(q.codes, q.grades, p[0],
                                                int(p[1]) if len(p) > 1 else None, c.level),
                     ["F_alpha.0", "F_alpha.1", "F_alpha.0.2", "F_alpha.0.9,3",
                      "F_alpha.0.5,7"],
                     counts=lambda q, p, c: (_a(q, int(p[1]) if len(p) > 1 else None, c),
                                             p[0] * (int(p[1]) if len(p) > 1 else len(q.codes))
                                             + (1 - p[0]) * _R(q, c))),
    "accuracy": smart(lambda q, k, c: S.accuracy(q.codes, q.grades, c.num_docs, k, c.level),
                      ["accuracy.1,3,14"], counts=_accuracy_counts),
    "jw_prob": smart(lambda q, k, c: S.jw_prob(q.codes, q.grades, c.num_docs, k, c.level),
                     ["jw_prob.2,7,14"]),
    "jw_avg": smart(lambda q, p, c: S.jw_avg(q.codes, q.grades, c.num_docs, int(p[0]),
                                             c.level),
                    ["jw_avg.5", "jw_avg.1"]),
    "esl": smart(lambda q, k, c: S.esl(q.codes, q.grades, q.keys, c.num_docs, k, c.unranked,
                                       c.level), ["esl.3,4,14"]),
    "cnr_recall": smart(lambda q, n, c: S.cnr_recall(q.codes, q.grades, n, c.level),
                        ["cnr_recall.4,7"],
                        counts=lambda q, n, c: (S.cnr(q.codes, q.grades, n, c.level)[0],
                                                _R(q, c))),
    "cnr_prec": smart(lambda q, n, c: S.cnr_prec(q.codes, q.grades, n, c.level),
                      ["cnr_prec.4,7"],
                      counts=lambda q, n, c: S.cnr(q.codes, q.grades, n, c.level)),
    # normal deviates from statistics.NormalDist against scipy's ndtri, through a regression
    "swets_E": smart(lambda q, p, c: S.swets_E(q.codes, q.grades, c.num_docs, c.level),
                     rtol=1e-7),
    "swets_slope": smart(lambda q, p, c: S.swets_slope(q.codes, q.grades, c.num_docs,
                                                       c.level), rtol=1e-7),
}


#: -m arguments whose values are known to differ from the oracle because of a library bug:
#: left out of the property tests, each checked by a strict xfail test of its own (which
#: fails once the bug is fixed, so the entry is removed)
KNOWN_BUGS: dict[str, str] = {}


def specs(name: str, *, known_bugs: bool = False) -> list[str]:
    """The -m arguments checked for a measure: its default, then its variants.

    Those in :data:`KNOWN_BUGS` are left out unless ``known_bugs``.
    """
    return [s for s in (name, *ORACLES[name].variants) if known_bugs or s not in KNOWN_BUGS]


def outputs(spec: str, version: int = 10):
    """The outputs of one -m argument."""
    from smarteval.measures import parse_measures
    return [o for rq in parse_measures([spec], version) for o in rq.outputs()]


def expected(out, q: Query, c: Context):
    """The oracle's value of one output for one query.

    trec_eval's NaN for an empty ranking (0/0 in iprec_at_recall and 11pt_avg, under -M 0
    or -J) is NaN; a query -c adds without results is not evaluated by trec_eval 9, so
    its NaN is the 0 it adds.
    """
    v = ORACLES[out.measure.name].value(q, out.param, c)
    if isinstance(v, float) and math.isnan(v) and not q.codes and not q.in_run and not c.v10:
        return 0.0
    return v


def close(got, want, rtol=1e-9) -> bool:
    """Equal strings, or numbers within ``rtol`` (1e-12 absolute)."""
    if isinstance(want, str) or isinstance(got, str):
        return got == want
    got, want = float(got), float(want)
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    return math.isclose(got, want, rel_tol=rtol, abs_tol=1e-12)


# =========================================================================== plugins

def _plugin_oracle(f: Callable) -> Oracle:
    return Oracle("trec", lambda q, p, c: f(q.codes, q.grades, p, c.level))


@contextmanager
def registered(*plugins) -> Iterator[list[str]]:
    """The registry with ``plugins`` (module names or .py paths) loaded, and the oracle of
    each of their measures in :data:`ORACLES`; all as before on exit.

    A plugin gives its oracles in a dict ``ORACLES``: measure name -> ``f(codes, grades,
    param, level)``, ``codes`` the relevance code of each retrieved document in rank
    order (as :class:`Query`), ``grades`` every qrels grade of the query, ``param`` the
    output's parameter. Yields the names of the measures the plugins registered.
    """
    from smarteval.measures import load_plugin
    from smarteval.measures.registry import PLUGINS, REGISTRY, load_modules
    load_modules()             # a family loaded meanwhile would lose its measures
    saved = dict(REGISTRY), dict(PLUGINS), dict(ORACLES)
    names: list[str] = []
    try:
        for plugin in plugins:
            names += load_plugin(str(plugin))
        for name in names:
            module = sys.modules[REGISTRY[name].func.__module__]
            ORACLES[name] = _plugin_oracle(module.ORACLES[name])
        yield names
    finally:
        for name in names:
            sys.modules.pop(REGISTRY[name].func.__module__, None)
        for table, old in zip((REGISTRY, PLUGINS, ORACLES), saved):
            table.clear()
            table.update(old)       # type: ignore[attr-defined]
