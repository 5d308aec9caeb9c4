"""The measure grammar: ``-m`` arguments (trec_eval, nicknames, ir_measures) into requests.

trec_eval's names (``map``, ``P.5,10``, ``ndcg.1=3,2=9``, ``official``) follow trec_eval's
rules, checked against 9.0.8 and 10.0:

* Each measure is printed once, in trec_eval's order, whatever the order of ``-m``.
* A measure named twice takes the parameters of the first ``NAME.params`` in the
  argument list; later parameters and a plain ``-m NAME`` change nothing
  (``-m P.5 -m P.10`` prints P_5 alone). Nicknames never carry parameters: ``-m all_trec
  -m P.7`` and ``-m P.7 -m all_trec`` both print P_7 among the others. Each ignored
  request becomes a note on the result (:attr:`Requests.notes`), with how to write it.
* Cut-offs (``P.10,5``) are sorted; a duplicate cut-off or level is refused, as
  trec_eval refuses it. Numeric parameters (``11pt_avg.1,0.5``, ``utility``) keep their
  order and may repeat. ``NAME.`` with nothing after the dot is refused.
* ``rbp`` and ``rbp_resid`` (10.0) read ``p=<number>`` among their ``rel=gain`` pairs
  (``rbp.p=0.95``); the other pairs' names are grades. A measure's entry names the keys
  its pairs may hold (``Measure.keys``).

The SMART measures that take one set of parameters (``F``, ``E``, ``F_alpha``,
``wnorm_recall``, ``jw_avg``: :func:`each_set`) and the C/W/L measures (``INST``,
``TBG``..., and their quantities ``INST_ETU``...) are not trec_eval's: each distinct set
asked for is printed, in the order of ``-m`` (``-m F -m F.0.5 -m F.2,10`` prints ``F``,
``F_0.5`` and ``F_2,10``; ``-m INST.1 -m INST.2`` prints ``INST_1`` and ``INST_2``, as
cwl_eval prints every metric of its list); the same set asked for twice is printed once,
under its first name.

ir_measures names (``AP``, ``P@10``, ``nDCG(gains={0:0,1:1,2:3})@10``, ``RBP(rel=1,p=0.5)``)
are read with ir_measures' own syntax and compute what ir_measures 0.4.3 computes for
them (:data:`IR_NAMES`, the provider each maps onto noted there). Such a measure is
printed, and keyed in :class:`~smarteval.evaluation.Evaluation`, under the name as
written (spaces removed), after the trec_eval names, in the order of ``-m``. Its
``rel=`` (default 1, as ir_measures) and ``judged_only=`` belong to the name; ``-l`` does
not change it. A name or parameter ir_measures cannot compute, or smarteval cannot
compute exactly as it does, is refused with the reason (:data:`IR_REFUSED` and the
checks in :func:`_ir_request`); it never falls back on a nearby measure. Each name reads
the run in the order of the provider that computes it, whatever ``--trec-version`` says
(:data:`~smarteval.ranking.programs.PROGRAMS`): pytrec_eval's names compare scores as
32-bit floats, ties docno descending; RR@k, Judged and Compat compare doubles, ties docno
ascending; the diversity names (pyndeval) likewise (``NRBP`` and ``nNRBP`` written bare
are ndeval's own names, in ndeval's order: ir_measures' are ``NRBP()``,
``NRBP(alpha=0.5)``...); the C/W/L names, RBP, SDCG and
Accuracy compare doubles, ties in the run's line order; ERR@k and nDCG(dcg='exp-log2')@k
(gdeval) compare doubles, ties docno descending.

ranx's metric names (``ndcg_burges@10``, ``dcg@10``, ``dcg_burges@10``, ``hits@10``,
``hit_rate@10``; without @k the whole list, except ``dcg``, which is trec_eval's) are
read the same way (:data:`RANX_NAMES`) and give ranx 0.3's numbers at relevance level 1.

The query set stays a global choice. ir_measures averages every measure over every
query of the qrels, a query without results counting 0 (and NumQ, NumRel, NumRet
counting nothing for it): that is smarteval's ``-c`` (``complete=True``), under which an
ir_measures name gives ir_measures' value and per-query values. Without ``-c`` the
average is over the queries the run and the qrels share, as trec_eval's. ``-J`` and
``-M`` act on the run for every measure (ir_measures has no such options; ``-J`` is
``judged_only=True`` for all). ir_measures' pytrec_eval is trec_eval 9.0.8's code, which
is smarteval's default ``--trec-version 9``; under 10 the names keep pytrec_eval's order
of documents and follow 10.0's other rules.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import field, replace
from typing import Any

import numpy as np

from smarteval.columns import UNJUDGED, Ranked
from smarteval.errors import RefusedMeasure, UsageError
from smarteval.measures.bounds import BOUNDED, bounded
from smarteval.measures.registry import (
    REGISTRY,
    Measure,
    load_installed_plugins,
    load_modules,
    quantity_entry,
)
from smarteval.numerals import decimal
from smarteval.ranking.programs import ordered_as
from smarteval.records import record
from smarteval.settings import LONG_MAX


@record(frozen=True)
class Output:
    """One printed measure: its output name and how to compute it.

    ``rel_level``, ``judged_only`` and ``gains`` are an ir_measures name's own ``rel=``,
    ``judged_only=`` and ``gains=`` (:meth:`view`); ``ir`` marks an ir_measures name,
    whose value for a query without results is 0 (none for a measure averaged over the
    queries it reports, ``average="reported"``).
    """

    name: str
    measure: Measure
    param: object = None           # the single cutoff/level, or the whole parameter tuple
    rel_level: int | None = None   # per-measure relevance level (ir_measures' rel=)
    judged_only: bool = False      # ir_measures' judged_only=True: -J for this output
    gains: tuple = ()              # ir_measures' nDCG gains={grade: gain}, as pairs
    ir: bool = False               # an ir_measures name
    #: the program whose order of documents the value follows (its provider for an
    #: ir_measures name, else the measure's own: :data:`~smarteval.ranking.programs.PROGRAMS`)
    program: str = ""
    #: "relevant": computed with the unjudged documents counted relevant (a second reading
    #: under ``--unjudged range``, :func:`unjudged_range`); "min", "max": the least and
    #: greatest value over every grading of them (:mod:`smarteval.measures.bounds`); ""
    #: on the ranking as it is
    unjudged: str = ""
    #: where its request stands among the -m arguments (:attr:`Request.asked`)
    asked: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        if not self.program:
            object.__setattr__(self, "program", self.measure.program)

    def view(self, ranked: Ranked) -> Ranked:
        """``ranked`` as this output's measure sees it: in its program's order, grades
        mapped, -J, its level."""
        r = ordered_as(ranked, self.program)
        if self.gains:
            r = regraded(r, self.gains)
        if self.judged_only:
            r = r.subset(r.rel >= 0)
        if self.rel_level is not None:
            r = r.at_level(self.rel_level)
        return r

    def compute(self, ranked) -> np.ndarray:
        """(Q,) values of every query of ``ranked``, under its settings' ``--ties`` policy."""
        r = self.view(ranked)
        func = self.measure.function(ranked.settings.ties)
        values = func(r) if self.measure.params == "none" else func(r, self.param)
        if self.ir and self.measure.average != "reported":    # that one reports none
            values = np.where(np.asarray(ranked.in_run, dtype=bool), values,
                              0).astype(values.dtype)
        return values


def regraded(r: Ranked, gains: tuple) -> Ranked:
    """``r`` with every judged grade g replaced by ``dict(gains).get(g, g)``.

    What ir_measures does to the qrels for ``nDCG(gains=...)`` before pytrec_eval sees
    them; a grade mapped below 0 becomes a negative judgement.
    """
    table = dict(gains)
    top = max(table.values(), default=0)        # a narrow column widened to hold it

    def widened(a: np.ndarray) -> np.ndarray:
        return a.astype(np.int64 if top > np.iinfo(a.dtype).max else a.dtype)
    rel = widened(r.rel)
    grades = widened(r.qrel_grades)
    for level, gain in table.items():
        rel[r.rel == level] = gain
        grades[r.qrel_grades == level] = gain
    rel[(r.rel >= 0) & (rel < 0)] = UNJUDGED
    keep = grades >= 0
    qindex = r.qrel_qindex[keep]
    grades = grades[keep]
    order = np.lexsort((-grades, qindex))          # each query's grades, descending
    offsets = np.zeros(r.num_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(qindex, minlength=r.num_queries), out=offsets[1:])
    lines, docnos = (None if a is None else a[keep][order] for a in (r.qrel_lines,
                                                                      r.qrel_docnos))
    return replace(r, rel=rel, qrel_grades=grades[order], qrel_offsets=offsets,
                   qrel_lines=lines, qrel_docnos=docnos)


@record
class Request:
    """A measure asked for, with its parameters (``raw`` is None for the defaults).

    ``label`` is set for an ir_measures name: the name as asked for, which is its one
    output's name.
    """

    measure: Measure
    params: tuple
    raw: str | None = None
    rel_level: int | None = None
    label: str | None = None
    judged_only: bool = False
    gains: tuple = ()
    #: the program computing an ir_measures or ranx name (its provider), when it is not
    #: the measure's own (:data:`~smarteval.ranking.programs.PROGRAMS`)
    program: str = ""
    #: outputs named as the measure's program prints them (its entry's ``label``), under
    #: its own -R format (:func:`printed_as`)
    printed: bool = False
    #: the position among the -m arguments of the first that asks for it (a nickname's
    #: members share the nickname's): every format but trec_eval's prints the outputs in
    #: this order (:func:`in_asked_order`); 0 for every default measure, which keep
    #: trec_eval's order
    asked: int = 0

    def outputs(self) -> list[Output]:
        m = self.measure
        if self.label is not None:
            param: object = (self.params[0] if m.params in ("cutoffs", "levels")
                             else None if m.params == "none" else self.params)
            return [Output(self.label, m, param, self.rel_level, self.judged_only,
                           self.gains, ir=True, program=self.program, asked=self.asked)]
        if m.params in ("cutoffs", "levels"):
            outs = []
            for k in self.params:
                suffix = str(k) if m.params == "cutoffs" else f"{k:3.2f}"
                name = m.label.format(suffix) if self.printed and m.label \
                    else f"{m.name}_{suffix}"
                outs.append(Output(name, m, k, self.rel_level, asked=self.asked))
            return outs
        if self.printed:                # one set of parameters, named as the program does
            name = m.label or m.name
        else:
            name = m.name if self.raw is None else f"{m.name}_{self.raw}"
        return [Output(name, m, None if m.params == "none" else self.params, self.rel_level,
                       asked=self.asked)]


def in_asked_order(items: Iterable) -> list:
    """Outputs (or requests) in the order the -m arguments asked for them; those asked
    for by one argument (a nickname's members, a measure's cut-offs) keep trec_eval's
    order among themselves. What every format but trec_eval's prints."""
    return sorted(items, key=lambda item: item.asked)


class Requests(list):
    """What :func:`parse_measures` returns: the requests in print order, and ``notes``.

    ``notes`` says which ``-m`` requests trec_eval's rules left without effect and how
    to write what was meant (for standard error; see :func:`parse_measures`).
    """

    def __init__(self, requests: Iterable[Request] = (), notes: Iterable[str] = ()):
        super().__init__(requests)
        self.notes: list[str] = list(notes)


NICKNAMES_9 = {
    "official": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"],
    "all_trec": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
                 "recall", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg",
                 "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
                 "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                 "set_F", "num_nonrel_judged_ret"],
    "set": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"],
    "all_prefs": ["runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
                  "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
                  "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
                  "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
                  "prefs_avgjg_imp"],
    "prefs": ["runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
              "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"],
    "qrels_jg": ["runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"],
    # what sample_eval.pl prints, in its order (smarteval.measures.sample)
    "sample_eval": ["xinfAP", "infNDCG", "iprec_at_rec", "iP", "inum_rel_ret", "inum_rel",
                    "sample_num_ret"],
    # what NTCIREVAL prints for a ranked list, its cut-off measures at k=1000
    # (smarteval.measures.ntcir)
    "ntcireval": ["ntcir_RR", "ntcir_O", "ntcir_P", "ntcir_Pplus", "ntcir_AP", "ntcir_Q",
                  "ntcir_NCUguP", "ntcir_NCUguBR", "ntcir_NCUrbP", "ntcir_NCUrbBR", "ntcir_RBP",
                  "ntcir_ERR", "ntcir_nDCG", "ntcir_MSnDCG", "ntcir_nERR", "ntcir_Prec",
                  "ntcir_Hit"],
}


#: The measure module of each nickname whose measures, runid and num_q aside, are all of
#: one module: imported alone when the nickname is asked for, not every module
NICKNAME_MODULES = {"all_prefs": "prefs", "prefs": "prefs", "qrels_jg": "prefs",
                    "sample_eval": "sample", "ntcireval": "ntcir"}


def nicknames(version: int = 9) -> dict[str, list[str]]:
    """The measure nicknames of trec_eval ``version`` (data, not code)."""
    out = {k: list(v) for k, v in NICKNAMES_9.items()}
    if version >= 10:
        out["all_trec"] += ["rbp", "rbp_resid", "unj"]
    return out


# =========================================================================== ir_measures names

@record(frozen=True)
class IrName:
    """How smarteval computes one ir_measures name.

    ``plain`` and ``cut`` are the smarteval measures without and with a cut-off
    (``NAME@k``); ``params`` the keyword parameters ir_measures computes for the name;
    ``fixed`` the parameters the name itself sets (NumRelRet is ``NumRet(rel=1)``).
    """

    measure: str                  # ir_measures' measure (AP for MAP too)
    plain: str | None
    cut: str | None
    params: tuple[str, ...] = ()
    fixed: tuple = ()
    provider: str = "pytrec_eval"   # ir_measures 0.4.3's provider whose values these are
    cut_provider: str | None = None  # NAME@k's, when another one computes it


def _ir(measure, plain, cut, params=(), fixed=(), provider="pytrec_eval",
        cut_provider=None) -> IrName:
    return IrName(measure, plain, cut, tuple(params), tuple(fixed), provider, cut_provider)


_RJ = ("rel", "judged_only")

#: ir_measures' providers whose order is not that of the program of the same name
#: (its cwl_eval provider sorts by score; cwl_eval itself reads the run's lines in order)
IR_PROGRAMS = {"cwl_eval": "ir_measures.cwl_eval"}

#: Every ir_measures name smarteval computes, and how (ir_measures 0.4.3: its default
#: providers, cwl_eval installed for RBP).
IR_NAMES: dict[str, IrName] = {
    "AP": _ir("AP", "map", "map_cut", _RJ),
    "MAP": _ir("AP", "map", "map_cut", _RJ),
    "P": _ir("P", None, "P", _RJ),
    "Precision": _ir("P", None, "P", _RJ),
    "R": _ir("R", None, "recall", _RJ),
    "Recall": _ir("R", None, "recall", _RJ),
    "RR": _ir("RR", "recip_rank", "recip_rank_cut", _RJ, cut_provider="msmarco"),
    "MRR": _ir("RR", "recip_rank", "recip_rank_cut", _RJ, cut_provider="msmarco"),
    "Rprec": _ir("Rprec", "Rprec", None, _RJ),
    "RPrec": _ir("Rprec", "Rprec", None, _RJ),
    "Bpref": _ir("Bpref", "bpref", None, ("rel",)),
    "BPref": _ir("Bpref", "bpref", None, ("rel",)),
    "infAP": _ir("infAP", "infAP", None, ("rel",)),
    "nDCG": _ir("nDCG", "ndcg", "ndcg_cut", ("dcg", "gains", "judged_only")),
    "NDCG": _ir("nDCG", "ndcg", "ndcg_cut", ("dcg", "gains", "judged_only")),
    "NumQ": _ir("NumQ", "num_q_ret", None),
    "NumRel": _ir("NumRel", "num_rel", None, ("rel",)),
    "NumRet": _ir("NumRet", "num_ret", None, ("rel",)),          # rel=r: num_rel_ret at r
    "NumRelRet": _ir("NumRet", "num_rel_ret", None, ("rel",), (("rel", 1),)),
    "SetP": _ir("SetP", "set_P", None, ("rel", "relative", "judged_only")),
    "SetRelP": _ir("SetP", "set_relative_P", None, ("rel", "relative", "judged_only"),
                   (("relative", True),)),
    "SetR": _ir("SetR", "set_recall", None, ("rel",)),
    "SetF": _ir("SetF", "set_F", None, ("rel", "beta", "judged_only")),
    "SetAP": _ir("SetAP", "set_map", None, _RJ),
    "Success": _ir("Success", None, "success", _RJ),
    "IPrec": _ir("IPrec", None, "iprec_at_recall", _RJ),          # @ is the recall level
    "Judged": _ir("Judged", "judged", "judged", (), provider="judged"),
    "RBP": _ir("RBP", "rbp_bin", None, ("rel", "p"), provider="cwl_eval"),
    "ERR": _ir("ERR", None, "gd_err", (), provider="gdeval"),
    "SDCG": _ir("SDCG", None, "sdcg", ("dcg", "min_rel", "max_rel"), provider="cwl_eval"),
    "Accuracy": _ir("Accuracy", "pair_accuracy", "pair_accuracy", ("rel",),
                    provider="accuracy"),
    "Compat": _ir("Compat", "compat", None, ("p", "normalize"), provider="compat"),
}

#: ir_measures' diversity names (its pyndeval provider, ndeval's C code), computed by
#: smarteval.measures.diversity in pyndeval's order of tied documents (docno ascending)
IR_NAMES.update({
    **{n: _ir(n, None, cut, params, provider="pyndeval") for n, cut, params in (
        ("ERR_IA", "ERR-IA", _RJ), ("nERR_IA", "nERR-IA", _RJ),
        ("alpha_DCG", "alpha-DCG", ("rel", "alpha", "judged_only")),
        ("α_DCG", "alpha-DCG", ("rel", "alpha", "judged_only")),
        ("alpha_nDCG", "alpha-nDCG", ("rel", "alpha", "judged_only")),
        ("α_nDCG", "alpha-nDCG", ("rel", "alpha", "judged_only")),
        ("P_IA", "P-IA", _RJ), ("StRecall", "strec", ("rel",)))},
    **{n: _ir(n, plain, None, params, provider="pyndeval") for n, plain, params in (
        ("NRBP", "NRBP", ("rel", "alpha", "beta")), ("nNRBP", "nNRBP", ("rel", "alpha", "beta")),
        ("AP_IA", "MAP-IA", _RJ), ("MAP_IA", "MAP-IA", _RJ))},
})

#: ir_measures' C/W/L names (its cwl_eval provider): smarteval.measures.cwl
_CWL_RELS = ("min_rel", "max_rel")
IR_NAMES.update({
    **{n: _ir(n, n, None, ("T", *_CWL_RELS), provider="cwl_eval")
       for n in ("INST", "INSQ", "NERR11")},
    "NERR10": _ir("NERR10", "NERR10", None, ("p", *_CWL_RELS), provider="cwl_eval"),
    **{n: _ir(n, None, n, _CWL_RELS, provider="cwl_eval") for n in ("NERR8", "NERR9")},
    "BPM": _ir("BPM", None, "BPM", ("T", *_CWL_RELS), provider="cwl_eval"),
})

#: ir_measures name -> (smarteval measure without cut-off, with cut-off): the short view of
#: :data:`IR_NAMES` that the docs, shell completion and ``compare --select-measure`` read.
ALIASES: dict[str, tuple[str | None, str | None]] = {
    name: (e.plain, e.cut) for name, e in IR_NAMES.items()}

#: ir_measures names smarteval refuses, and why (none today: every name of ir_measures
#: 0.4.3 is computed).
IR_REFUSED: dict[str, str] = {}

#: ranx's metric names (``ndcg_burges@10``; without @k the whole list) and the smarteval
#: measures computing them (ranx 0.3: smarteval.measures.web). Plain ``dcg`` is
#: trec_eval's measure; ranx's is ``dcg@k``.
RANX_NAMES: dict[str, str] = {
    "dcg": "ranx_dcg",
    "dcg_burges": "ranx_dcg_burges",
    "ndcg_burges": "ranx_ndcg_burges",
    "hits": "ranx_hits",
    "hit_rate": "ranx_hit_rate",
}

#: ranx names smarteval refuses, and why.
RANX_REFUSED: dict[str, str] = {
    "err": "ranx 0.3 has no err metric; ir_measures' ERR@k is gdeval's expected "
           "reciprocal rank (gd_err)",
}

#: Why an ir_measures name takes no cut-off in smarteval.
_NO_CUT = {"RBP": "no provider of ir_measures 0.4.3 computes RBP with a cut-off"}


class _Refused(Exception):
    """An ir_measures name smarteval will not compute (the message says why)."""


def _ir_request(spec: str, available: dict[str, Measure]) -> Request | None:
    """The request for an ir_measures name, None when ``spec`` is not one.

    Raises :class:`_Refused` for an ir_measures name smarteval does not compute as
    ir_measures does.
    """
    import ast  # only for ir_measures names
    try:
        node = ast.parse(spec.strip(), mode="eval").body
    except SyntaxError:
        return None
    at = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        try:
            at = ast.literal_eval(node.right)
        except ValueError:
            return None
        node = node.left
    args: dict[str, object] = {}
    called = isinstance(node, ast.Call)
    if isinstance(node, ast.Call):
        if node.args or any(kw.arg is None for kw in node.keywords):
            return None
        for kw in node.keywords:
            try:
                args[str(kw.arg)] = ast.literal_eval(kw.value)
            except ValueError:
                raise _Refused(f"{kw.arg}= takes a number, True or False, a string or a "
                               "{grade: gain} dict") from None
        node = node.func
    if not isinstance(node, ast.Name):
        return None
    name = node.id
    if name in IR_REFUSED:
        raise _Refused(IR_REFUSED[name])
    if name in RANX_REFUSED:
        raise _Refused(RANX_REFUSED[name])
    if name in RANX_NAMES and not (at is None and name in REGISTRY):   # dcg: trec_eval's
        return _ranx_request(name, called, at, "".join(spec.split()), available)
    if name not in IR_NAMES:
        return None
    return _resolve(name, IR_NAMES[name], args, at, "".join(spec.split()), available)


def _resolve(name: str, e: IrName, given: dict, at, label: str,
             available: dict[str, Measure]) -> Request:
    at_param = "recall" if e.measure == "IPrec" else "cutoff"
    args = {**dict(e.fixed), **given}
    if at is not None:
        args[at_param] = at
    allowed = set(e.params) | ({at_param} if e.cut else set()) | {k for k, _ in e.fixed}
    extra = sorted(set(args) - allowed)
    if at_param in extra:
        why = _NO_CUT.get(e.measure, "it has no cut-off")
        raise _Refused(f"ir_measures' {name} takes no @k: {why}")
    if extra:
        takes = ", ".join(f"{p}=" for p in e.params) or "no parameters"
        raise _Refused(f"ir_measures' {name} takes {takes}"
                       + (f" and @{'recall' if at_param == 'recall' else 'k'}" if e.cut else "")
                       + f", not {', '.join(f'{p}=' for p in extra)}")
    rel = args.get("rel", 1)
    if isinstance(rel, bool) or not isinstance(rel, int) or rel < 0:
        raise _Refused("rel= takes a whole number, 0 or more")
    for flag in ("judged_only", "relative"):
        if not isinstance(args.get(flag, False), bool):
            raise _Refused(f"{flag}= takes True or False")
    judged_only = bool(args.get("judged_only", False))
    cut = args.get(at_param)
    if cut is None and e.plain is None:
        what, example = (("a recall level", "IPrec@0.5") if at_param == "recall"
                         else ("a cut-off", f"{name}@10"))
        raise _Refused(f"ir_measures' {name} needs {what}, e.g. {example}")
    measure_name = e.plain if cut is None else e.cut
    params: tuple = ()
    gains: tuple = ()
    rel_level: int | None = rel
    if cut is not None:
        params = (_ir_cut(name, cut, at_param),)
    provider = e.cut_provider if cut is not None and e.cut_provider else e.provider
    if provider == "pytrec_eval" and "rel" in e.params and rel < 1:
        raise _Refused(f"ir_measures computes {name} with pytrec_eval, which refuses rel=0 "
                       "(its relevance levels start at 1)")
    if e.measure == "RR" and cut is not None and judged_only:
        raise _Refused("ir_measures computes RR@k with its msmarco provider, which has no "
                       "judged_only=True (no provider of ir_measures 0.4.3 computes it)")
    if e.measure == "NumRet" and "rel" in args:
        measure_name = "num_rel_ret"
    if e.measure == "NumRel" and rel != 1:
        raise _Refused("ir_measures computes NumRel with pytrec_eval, which counts at rel=1 "
                       "only (none of its providers computes another level); use "
                       "-m num_rel with -l")
    if e.measure == "SetP":
        measure_name = "set_relative_P" if args.get("relative", False) else "set_P"
    if e.measure == "SetF":
        beta = args.get("beta", 1.0)
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0:
            raise _Refused("beta= takes a number above 0")
        params = (float(beta),)
    if e.measure == "nDCG":
        dcg = args.get("dcg", "log2")
        if dcg not in ("log2", "exp-log2"):
            raise _Refused("dcg= takes 'log2' or 'exp-log2'")
        if dcg == "exp-log2":
            if "gains" in args or judged_only:
                raise _Refused("no provider of ir_measures 0.4.3 computes nDCG(dcg='exp-log2') "
                               "with gains= or judged_only=True")
            if cut is None:
                raise _Refused("ir_measures computes nDCG(dcg='exp-log2') without @k only with "
                               "ranx, whose order of tied scores is not reproducible; write "
                               "nDCG(dcg='exp-log2')@k (gdeval's) or ndcg_burges (ranx's)")
            measure_name, provider = "gd_ndcg", "gdeval"
        gains = _ir_gains(args.get("gains"))
    if e.measure == "Judged" and cut is None:
        params = (0,)                                    # the whole list
    if e.measure == "RBP":
        if "rel" not in given:
            raise _Refused("ir_measures computes RBP only with rel= (binary gains, its "
                           "cwl_eval provider); write RBP(rel=1), or rbp for trec_eval "
                           "10.0's graded rbp")
        p = args.get("p", 0.8)
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise _Refused("p= takes a number from 0 to 1")
        params = (float(p),)
    if e.measure == "Compat":
        params = _compat_params(args)
    if e.measure == "Accuracy" and cut is None:
        params = (0,)                                    # the whole list
    if e.measure == "SDCG":
        params = _sdcg_params(args, cut)
    if e.measure in ("INST", "INSQ", "NERR8", "NERR9", "NERR10", "NERR11", "BPM"):
        params = _cwl_params(e.measure, args, cut)
    if e.provider == "pyndeval":
        params = _diversity_params(args, cut, judged_only)
        judged_only = False
    if e.measure in ("NumQ", "Judged", "Compat") or (e.measure == "NumRet" and "rel" not in args):
        rel_level = None                                 # no relevance level involved
    if measure_name not in available:
        raise _Refused(f"{measure_name} is not computed under this trec_eval version")
    m = available[measure_name]
    if m.params == "gains":
        params = ()
    return Request(m, params, None, rel_level, label, judged_only, gains,
                   IR_PROGRAMS.get(provider, provider))


def _cwl_params(name: str, args: dict, cut) -> tuple:
    """A C/W/L name's parameters in smarteval.measures.cwl's order (its own, then min_rel
    and max_rel), checked as ir_measures' cwl_eval provider checks them."""
    lo, hi = args.get("min_rel", 0), args.get("max_rel")
    if hi is None:
        at = "@10" if name in ("BPM", "NERR8", "NERR9") else ""
        raise _Refused(f"ir_measures' {name} needs max_rel=, the highest grade, e.g. "
                       f"{name}(max_rel=3){at}")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (hi, lo)):
        raise _Refused("min_rel= and max_rel= take whole numbers")
    if not lo < hi:
        raise _Refused("min_rel= must be below max_rel= (cwl_eval scales grades between them)")
    key, default = ("p", 0.9) if name == "NERR10" else ("T", 1.0)
    own = args.get(key, default)
    if name not in ("NERR8", "NERR9") and not isinstance(own, float):
        raise _Refused(f"{key}= takes a number with a decimal point (ir_measures refuses "
                       f"{key}=3, takes {key}=3.0)")
    values: tuple = (float(cut),) if name in ("NERR8", "NERR9") else (own,)
    if name == "BPM":
        values = (own, float(cut))
    return (*values, float(lo), float(hi))


def _diversity_params(args: dict, cut, judged_only: bool) -> tuple:
    """A diversity name's parameters as one :class:`~smarteval.measures.diversity.Cut`."""
    from smarteval.measures.diversity import ALPHA, BETA, DEPTH, Cut
    if judged_only:
        raise _Refused("ir_measures' pyndeval provider fails on judged_only=True (it reads "
                       "the run as a dict); use -J for the whole evaluation")
    if cut is not None and cut > DEPTH:
        raise _Refused(f"ndeval (pyndeval) computes cut-offs up to {DEPTH}")
    values = []
    for name, default in (("alpha", ALPHA), ("beta", BETA)):
        v = args.get(name, default)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise _Refused(f"{name}= takes a number")
        values.append(float(v))
    return (Cut(0 if cut is None else int(cut), values[0], values[1], ir=True),)


def _compat_params(args: dict) -> tuple:
    """Compat's (p, normalize), checked: p from 0 to 1, normalize True or False."""
    p, normalize = args.get("p", 0.95), args.get("normalize", True)
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise _Refused("p= takes a number from 0 to 1")
    if not isinstance(normalize, bool):
        raise _Refused("normalize= takes True or False")
    return (float(p), 1.0 if normalize else 0.0)


def _sdcg_params(args: dict, cut) -> tuple:
    """SDCG's (k, max_rel, min_rel), checked as ir_measures' cwl_eval provider checks them."""
    hi, lo = args.get("max_rel"), args.get("min_rel", 0)
    if hi is None:
        raise _Refused("ir_measures' SDCG needs max_rel=, the highest grade, e.g. "
                       "SDCG(max_rel=3)@10")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (hi, lo)):
        raise _Refused("min_rel= and max_rel= take whole numbers")
    if not lo < hi:
        raise _Refused("min_rel= must be below max_rel= (cwl_eval scales grades between them)")
    if args.get("dcg", "log2") != "log2":
        raise _Refused("SDCG takes dcg='log2' only")
    return (float(cut), float(hi), float(lo))


def _ranx_request(name: str, called: bool, at, label: str,
                  available: dict[str, Measure]) -> Request:
    """The request for a ranx metric name: ``name@k``, or ``name`` for the whole list."""
    if called:
        raise _Refused(f"ranx's {name} takes no parameters here, only @k")
    k = 0 if at is None else _ir_cut(name, at, "cutoff")
    measure_name = RANX_NAMES[name]
    if measure_name not in available:
        raise _Refused(f"{measure_name} is not computed under this trec_eval version")
    return Request(available[measure_name], (k,), None, 1, label, program="ranx")


def _ir_cut(name: str, cut, at_param: str):
    """The cut-off (or IPrec's recall level) of ``NAME@cut``, checked."""
    if at_param == "recall":
        if isinstance(cut, bool) or not isinstance(cut, (int, float)) or not 0 <= cut <= 1:
            raise _Refused("IPrec@ takes a recall level from 0 to 1, e.g. IPrec@0.5")
        if round(float(cut), 2) != float(cut):
            raise _Refused(f"ir_measures computes IPrec@{cut} at recall {float(cut):.2f} "
                           "(pytrec_eval's measure name keeps two decimals); write "
                           f"IPrec@{float(cut):.2f}")
        return float(cut)
    if isinstance(cut, bool) or not isinstance(cut, int) or cut <= 0:
        raise _Refused(f"{name}@ takes a whole number of documents above 0, e.g. {name}@10")
    if cut > LONG_MAX:
        raise _Refused(f"{name}@ takes a whole number of documents up to {LONG_MAX}")
    return cut


def _ir_gains(gains) -> tuple:
    """nDCG's ``gains={grade: gain}`` as sorted pairs; () without."""
    if gains is None:
        return ()
    if not isinstance(gains, dict) or not all(
            isinstance(k, int) and not isinstance(k, bool) and isinstance(v, int)
            and not isinstance(v, bool) for k, v in gains.items()):
        raise _Refused("gains= takes a dict of whole numbers, {grade: gain}, e.g. "
                       "gains={0:0,1:1,2:3} (ir_measures hands pytrec_eval integer grades)")
    if any(k < 0 for k in gains):
        raise _Refused("gains= maps grades of 0 or more (smarteval keeps no negative grades)")
    if any(v < 0 for v in gains.values()):
        raise _Refused("gains= maps to gains of 0 or more: a negative one makes the grade a "
                       "negative judgement, on which pytrec_eval's nDCG for ir_measures "
                       "can loop forever")
    if any(v > LONG_MAX for v in (*gains, *gains.values())):
        raise _Refused(f"gains= maps grades up to {LONG_MAX} to gains up to {LONG_MAX} "
                       "(a C long: pytrec_eval's)")
    return tuple(sorted(gains.items()))


# =========================================================================== trec_eval names

# (compiled by ``re`` on first use: a nickname needs neither)
_CUTOFF = r"[+-]?[0-9]+(\.[0-9]*)?$"
_INTEGER = r"[+-]?[0-9]+$"

_HINTS = {"cutoffs": "positive integers, e.g. P.5,10",
          "levels": "numbers, e.g. iprec_at_recall..1,.5",
          "floats": "numbers separated by commas",
          "gains": "rel=gain pairs, e.g. ndcg.1=3,2=9",
          "int": "one integer, e.g. relstring.20",
          "none": "no parameters"}


def _parse_params(m: Measure, raw: str, spec: str) -> tuple:
    """Read a trec_eval parameter string for measure ``m`` (trec_eval's rules, stricter
    about what is not a number)."""
    try:
        return _read(m, raw)
    except _Duplicate as dup:
        why = dup.args[1] if len(dup.args) > 1 else "trec_eval refuses duplicate cut-offs"
        raise UsageError(f"bad parameters in measure {spec!r}: {dup.args[0]} given twice "
                         f"({why})") from None
    except _OutOfRange as out:
        raise UsageError(f"bad parameters in measure {spec!r}: {out.args[0]}") from None
    except ValueError:
        pass
    raise UsageError(f"bad parameters in measure {spec!r}: expected {_HINTS[m.params]}")


class _Duplicate(Exception):
    """A parameter given twice: its text, and (optionally) why that is refused."""


class _OutOfRange(Exception):
    """A parameter of the grammar past what can be honoured: what is wrong."""


def _read(m: Measure, raw: str) -> tuple:
    shape = m.params
    # trec_eval reads its numbers with atof (NaN and infinities are what it makes of them);
    # the other programs' parameters are numbers of smarteval.numerals' grammar, finite
    number = float if m.trec_eval_rules else decimal
    if shape == "cutoffs":
        items = raw.split(",")
        if not all(re.match(_CUTOFF, x) for x in items):
            raise ValueError
        # trec_eval's atol: "23.4" is 23, and a number past a C long is that long's largest
        cuts = [min(int(x.split(".")[0]), LONG_MAX) for x in items]
        if min(cuts) <= 0:
            raise ValueError
        return _distinct(cuts)
    if shape == "levels":
        return _distinct([number(x) for x in raw.split(",")])
    if shape == "floats":
        return tuple(number(x) for x in raw.split(","))   # in the order given
    if shape == "gains":
        pairs: list[tuple[object, float]] = []
        for item in raw.split(","):
            name, value = item.split("=")
            if "L" in m.keys and name[:1] == "L" and re.match(_INTEGER, name[1:]):
                name = name[1:]                 # NTCIREVAL's level L2: grade 2
            if re.match(_INTEGER, name):
                if abs(int(name)) > LONG_MAX:
                    raise _OutOfRange(f"level {name} is past the largest, {LONG_MAX}")
                pairs.append((int(name), number(value)))
            elif name in m.keys and name != "L":
                pairs.append((name, number(value)))
            else:
                raise ValueError
        names = [name for name, _ in pairs]
        twice = next((n for n in names if names.count(n) > 1), None)
        if twice is not None and not m.trec_eval_rules:
            raise _Duplicate(str(twice), "a level or a key takes one value")
        return tuple(pairs)
    if shape == "int":
        # trec_eval's atof, then a C long: past a long's range (and NaN) x86-64 gives the
        # smallest long, so relstring.1e20 is relstring of nothing, as in trec_eval
        if "_" in raw:
            raise ValueError
        v = float(raw)
        return (int(v) if -(2.0 ** 63) <= v < 2.0 ** 63 else -LONG_MAX - 1,)
    raise ValueError


def _distinct(values: list) -> tuple:
    seen = sorted(values)
    for a, b in zip(seen, seen[1:]):
        if a == b:
            raise _Duplicate(_text(a))
    return tuple(seen)


def _text(v) -> str:
    return format(v, "g") if isinstance(v, float) else str(v)


@record(frozen=True, eq=False, repr=False)   # internal: fewer generated methods
class _Asked:
    index: int            # position among every -m request
    spec: str
    raw: str | None       # the parameters, None for a plain name or a nickname's
    nickname: str | None = None


def _trec_request(m: Measure, asked: list[_Asked]) -> tuple[Request, list[tuple[int, str]]]:
    """One trec_eval measure's request: the first parameters given, as trec_eval's init
    routines take them; and a note for every request that so changed nothing."""
    first = next((a for a in asked if a.raw is not None), None)
    if first is None:
        return Request(m, m.default), []
    raw = first.raw
    assert raw is not None
    if m.params == "none":
        raise UsageError(f"measure {m.name!r} takes no parameters (got {first.spec!r})")
    params = _parse_params(m, raw, first.spec)
    request = Request(m, params, raw)
    notes = [(first.index, f"-m {first.spec}: cut-off {x} is past the largest trec_eval "
                           f"reads (a C long): taken as {LONG_MAX}, as its atol takes it")
             for x in raw.split(",") if m.params == "cutoffs"
             and int(x.split(".")[0]) > LONG_MAX]
    for a in asked:
        if a is first or a.nickname is not None or a.spec == first.spec:
            continue
        note = _ignored(m, a, first, params)
        if note:
            notes.append((a.index, note))
    return request, notes


def each_set(m: Measure) -> bool:
    """Whether every distinct parameter set of ``m`` asked for is its own request: the
    SMART and C/W/L measures that take one set of parameters (not a list of cut-offs)."""
    return m.set_per_request


def _set_requests(m: Measure, asked: list[_Asked]) -> list[Request]:
    """One request per distinct parameter set of ``m`` (:func:`each_set`), in the order
    asked; a plain name or a nickname asks for the default set."""
    requests: list[Request] = []
    seen: set[tuple] = set()
    for a in asked:
        params = m.default if a.raw is None else _parse_params(m, a.raw, a.spec)
        if tuple(params) in seen:
            continue
        seen.add(tuple(params))
        requests.append(Request(m, tuple(params), a.raw, asked=a.index))
    return requests


def _ignored(m: Measure, a: _Asked, first: _Asked, params: tuple) -> str | None:
    """The note for request ``a``, ignored in favour of ``first``; None if it loses nothing."""
    try:
        wanted = m.default if a.raw is None else _read(m, a.raw)
    except (ValueError, _Duplicate, _OutOfRange):
        wanted = None
    if wanted is not None and m.params in ("cutoffs", "levels"):
        missing = sorted(set(wanted) - set(params))
        if not missing:
            return None
        merged = ",".join(_text(v) for v in sorted(set(params) | set(wanted)))
        hint = f"; write -m {m.name}.{merged}"
    elif wanted is None:
        hint = ""                                   # parameters trec_eval never reads
    else:
        if tuple(wanted) == tuple(params):
            return None
        hint = f"; {m.name} takes one set of parameters a run"
    if a.raw is None:
        where = "also" if a.index < first.index else "already"
        return (f"-m {a.spec} ignored: {m.name} is {where} asked for as {first.spec} "
                f"(trec_eval takes its parameters){hint}")
    return (f"-m {a.spec} ignored: {m.name} is already asked for as {first.spec} "
            f"(trec_eval takes the first){hint}")


def _split_specs(group: str) -> list[str]:
    """One ``-m`` argument's specs: separated by blanks outside brackets and quotes.

    ``-m P.5,10`` is one spec; ``-m "map P.5"`` two; ``-m "P(rel=2, judged_only=True)@5"``
    one.
    """
    out: list[str] = []
    cur: list[str] = []
    depth, quote = 0, ""
    for ch in group:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch.isspace() and depth <= 0:
            if cur:
                out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out


def _looks_ir(name: str) -> bool:
    """An ir_measures or ranx name (``nDCG@10``, ``P(rel=2)@5``, ``ndcg_burges``)."""
    return "@" in name or "(" in name or name.split("@")[0] in IR_NAMES \
        or name in RANX_NAMES


def measure_specs(measures: Any) -> list:
    """``measures`` as a list: one name (a string) or request, or an iterable of them;
    anything else (a number, bytes, a nested list) is a :class:`UsageError` naming it (the
    one check of every command's and call's measures)."""
    if isinstance(measures, (str, Request)):
        return [measures]
    if isinstance(measures, (bytes, bytearray)) or not isinstance(measures, Iterable):
        raise UsageError(f"measures are names (str), one or a list, not {measures!r} "
                         f"({type(measures).__name__})")
    given = list(measures)
    for m in given:
        if not isinstance(m, (str, Request)):
            raise UsageError(f"measures are names (str), not {m!r} ({type(m).__name__})")
    return given


def parse_measures(specs: Sequence[str], version: int = 9,
                   on_note: Callable[[str], None] | None = None) -> Requests:
    """Turn ``-m`` arguments into requests: trec_eval's names in trec_eval's order, then
    ir_measures names in the order given (the rules: this module's docstring).

    The result is a list of :class:`Request` whose ``notes`` name the requests
    trec_eval's rules ignore (``-m P.5 -m P.10``: "-m P.10 ignored: ..."); ``on_note``,
    when given, is called with each. Every unknown or refused name is reported at once,
    with close matches or the reason (exit 2).
    """
    specs = measure_specs(specs)
    nick = nicknames(version)
    names = {s.partition(".")[0] for group in specs for s in _split_specs(group)}
    wanted = {m for n in names for m in nick.get(n, [n])}
    for n in names & NICKNAME_MODULES.keys():
        importlib.import_module(f"smarteval.measures.{NICKNAME_MODULES[n]}")
    if any(n not in REGISTRY for n in wanted):
        load_modules()                 # a measure of a module not imported yet, perhaps
    if any(n not in REGISTRY and n not in nick and not _looks_ir(n)
           and quantity_entry(n) is None for n in names):
        load_installed_plugins()        # an installed plugin's measure, perhaps
    available = {n: m for n, m in REGISTRY.items() if version in m.versions}
    quantities: dict[str, list[str]] = {}           # measure -> its quantities asked for
    asked: dict[str, list[_Asked]] = {}
    ir: dict[str, Request] = {}
    problems: list[tuple[str, str | None]] = []
    for group in specs:
        if not group.strip():
            raise UsageError(f"measure {group!r} is empty (trec_eval refuses it too): name a "
                             "measure, e.g. -m map")
    for i, spec in enumerate(s for group in specs for s in _split_specs(group)):
        name, dot, raw = spec.partition(".")
        if dot and raw == "" and (name in available or name in nick):
            raise UsageError(f"measure {spec!r} has nothing after the dot (trec_eval refuses "
                             f"it too): write {name} or {name}.PARAMETERS")
        if spec in nick:
            for member in nick[spec]:
                if member in available:
                    asked.setdefault(member, []).append(_Asked(i, spec, None, spec))
            continue
        if name not in available and name not in REGISTRY:
            derived = quantity_entry(name)          # INST_ETU: a quantity of INST
            if derived is not None and derived.of in available:
                available[name] = derived
                quantities.setdefault(str(derived.of), []).append(name)
        if name in available:
            asked.setdefault(name, []).append(_Asked(i, spec, raw if dot else None))
            continue
        try:
            request = _ir_request(spec, available)
        except _Refused as why:
            problems.append((spec, str(why)))
            continue
        if request is None:
            problems.append((spec, None))
        elif request.label not in ir:
            request.asked = i
            ir[str(request.label)] = request
    if problems:
        raise _problems(problems, available, nick)
    requests = Requests()
    notes: list[tuple[int, str]] = []
    for name in (n for base in REGISTRY for n in (base, *quantities.get(base, ()))):
        if name in asked and each_set(available[name]):
            requests.extend(_set_requests(available[name], asked[name]))
        elif name in asked:
            request, more = _trec_request(available[name], asked[name])
            request.asked = min(a.index for a in asked[name])
            requests.append(request)
            notes += more
    requests.extend(ir.values())
    requests.notes = [text for _, text in sorted(notes)]
    if on_note is not None:
        for text in requests.notes:
            on_note(text)
    return requests


#: How messages name the trec_eval versions.
_VERSION_TEXT = {9: "9.0.8", 10: "10.0"}


def _problems(problems: list[tuple[str, str | None]], available, nick) -> UsageError:
    names = list(available) + list(nick) + list(IR_NAMES)
    lines = []
    for spec, why in problems:
        if why is not None:
            lines.append(f"  {spec}: {why}")
            continue
        base = spec.partition(".")[0].split("@")[0].split("(")[0]
        respelled = _respelled(spec, available)
        if respelled:                        # a known measure, written another way
            lines.append(f"  {spec} (did you mean {', '.join(respelled)}?)")
            continue
        if base in REGISTRY and base not in available:   # the other trec_eval version's
            other = sorted(REGISTRY[base].versions)
            lines.append(f"  {spec} (a measure of trec_eval "
                         f"{' and '.join(_VERSION_TEXT[v] for v in other)} only: give "
                         f"--trec-version {other[0]})")
            continue
        import difflib
        close = difflib.get_close_matches(base, names, n=3)
        lines.append(f"  {spec}" + (f" (did you mean {', '.join(close)}?)" if close else ""))
    unknown = sum(why is None for _, why in problems)
    if unknown == len(problems):
        head = "unknown measure" + ("s" if unknown > 1 else "")
        tail = ["  'smarteval measures' lists them all"]
    elif unknown:
        head, tail = "unknown or refused measures", ["  'smarteval measures' lists them all"]
    else:
        head = "refused measure" + ("s" if len(problems) > 1 else "")
        return RefusedMeasure(head + ":\n" + "\n".join(lines))
    return UsageError(head + ":\n" + "\n".join(lines + tail))


#: The kinds of parameter list a ``NAME@k`` or a printed ``NAME_k`` may mean.
_AT_PARAMS = ("cutoffs", "int", "levels")


def _respelled(spec: str, available: dict[str, Measure]) -> list[str]:
    """What an unknown ``spec`` of a known measure may have meant, as trec_eval's
    ``NAME.k`` and ir_measures' ``Name@k``, only the spellings that parse: ``NAME@k``
    with NAME a trec_eval name (``ndcg@10``, ``ndcg_cut@10``, ``map@5``) or an
    ir_measures name in other letter case (``p@10``, ``mrr@10``), ``NAME(PARAMS)`` so
    (``map(rel=2)``: ``AP(rel=2)``), and a name as trec_eval prints it (``P_10``,
    ``ndcg_cut_10``)."""
    import re
    text = "".join(spec.split())
    printed = re.fullmatch(r"(\w+?)_(\d+(?:\.\d+)?)", text)
    if printed and printed[1] in available and available[printed[1]].params in _AT_PARAMS:
        return [f"{printed[1]}.{printed[2]}"]
    head, at_sign, k = text.partition("@")
    name, paren, params = head.partition("(")
    if not name or (not re.fullmatch(r"\d+(\.\d+)?", k) if at_sign else not paren):
        return []
    lower = name.lower()
    ir = [n for n, e in IR_NAMES.items() if (e.cut if at_sign else e.plain)
          and (n.lower() == lower or lower in (e.plain, e.cut))]
    trec = [] if paren else [name, *(IR_NAMES[n].cut for n in ir)]
    out = [c for c in dict.fromkeys(f"{t}.{k}" for t in trec)
           if c.partition(".")[0] in available
           and available[c.partition(".")[0]].params in _AT_PARAMS]
    for n in ir:
        c = f"{IR_NAMES[n].measure}{paren}{params}{at_sign}{k}"
        try:
            if c not in out and _ir_request(c, available) is not None:
                out.append(c)
        except _Refused:
            pass
    return out


#: What the SMART table shows by default (Keen Fig. 5), and what -N adds to it.
TABLE_DEFAULT = ("num_q", "num_ret", "num_rel", "num_rel_ret",
                 "iprec_at_recall.0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0",
                 "map", "Rprec", "P.5,10,20", "recip_rank", "bpref", "ndcg")
TABLE_WITH_N = ("rank_recall", "log_prec", "norm_recall", "norm_prec")


#: The -R formats read only for measures of their own (trec_eval computes no other measure
#: from them): the ``rel_info`` of those measures, which is also the nickname printed
#: when no measure is asked for (trec_eval prints nothing then: its default, official,
#: reads qrels; sample_eval prints its own)
OWN_MEASURES = {"prefs": "prefs", "qrels_prefs": "prefs", "qrels_jg": "qrels_jg",
                "sample_qrels": "sample_eval"}


def default_requests(*, table: bool, num_docs: int | None, ties: str,
                     version: int = 9, qrels_format: str = "qrels"
                     ) -> tuple[list[Request], list[str]]:
    """The measures printed when none is asked for, and those left out for ``ties``.

    Data formats print trec_eval's ``official``; tables print SMART's table, which gains
    the normalized measures when N is known. Under ``--ties average`` the measures with
    no exact average over tied orders are left out (and named, so the user is told).
    """
    if qrels_format in OWN_MEASURES:
        specs: tuple[str, ...] = (OWN_MEASURES[qrels_format],)
    elif not table:
        specs = ("official",)
    else:
        specs = TABLE_DEFAULT + (TABLE_WITH_N if num_docs is not None else ())
    requests = parse_measures(list(specs), version)
    for rq in requests:
        rq.asked = 0                    # no -m: trec_eval's order (the SMART table's own)
    if ties != "average":
        return requests, []
    dropped = [rq.measure.name for rq in requests if not rq.measure.tie_average]
    return [rq for rq in requests if rq.measure.name not in dropped], dropped


def printed_as(requests: Sequence[Request], rel_info: str) -> list[Request]:
    """``requests`` as asked for under the -R format whose measures read ``rel_info``
    (sample_eval's): each of those measures named as its program prints it, and a request
    for a measure of another origin named as one of them prints (trec_eval's ``infAP``
    or ``num_ret``: sample_eval's) made a request for it; in registry order, each once.
    """
    own = [m for m in REGISTRY.values() if m.rel_info == rel_info]
    if not own:
        return list(requests)
    namesakes = {m.label: m for m in own if m.label and "{" not in m.label}
    place = {name: i for i, name in enumerate(REGISTRY)}
    kept: list[Request] = []
    mine: dict[str, Request] = {}
    for rq in requests:
        m = namesakes.get(rq.measure.name, rq.measure) if rq.label is None and \
            rq.measure.rel_info != rel_info else rq.measure
        if m.rel_info != rel_info:
            kept.append(rq)
        elif m.name not in mine:
            mine[m.name] = replace(rq, printed=True) if m is rq.measure else \
                Request(m, m.default, printed=True)
    return kept + sorted(mine.values(), key=lambda rq: place[rq.measure.name])


#: the outputs ``--unjudged range`` adds to a measure's NAME (:func:`unjudged_range`)
RANGE_SUFFIXES = ("_min", "_max", "_if_relevant", "_judged")


def unjudged_range(outputs: Sequence[Output], settings) -> list[Output]:
    """``outputs`` as ``--unjudged range`` prints them: after each number (not text, not
    num_q), its least and greatest value over every grading of the unjudged documents,
    ``NAME_min`` and ``NAME_max``, where :func:`~smarteval.measures.bounds.bounded` (else
    ``NAME_if_relevant``, its value with the unjudged documents counted relevant: a second
    reading, not a bound), and ``NAME_judged``, the judged share of the documents it reads
    (the first k for a cut-off measure, else every one: ``judged_share``), in its
    program's order."""
    if "judged_share" not in REGISTRY:
        load_modules()
    share = REGISTRY["judged_share"]
    out: list[Output] = []
    for o in outputs:
        out.append(o)
        if o.measure.value == "str" or o.measure.average in ("tag", "count"):
            continue
        if has_bounds(o, settings):
            out += [replace(o, name=f"{o.name}_min", unjudged="min"),
                    replace(o, name=f"{o.name}_max", unjudged="max")]
        else:
            out.append(replace(o, name=f"{o.name}_if_relevant", unjudged="relevant"))
        k = o.param if o.measure.params == "cutoffs" and isinstance(o.param, int) else 0
        out.append(Output(f"{o.name}_judged", share, k, program=o.program, asked=o.asked))
    return out


def has_bounds(o: Output, settings) -> bool:
    """Whether ``--unjudged range`` bounds the output ``o`` (the measure as trec_eval
    computes it: no ir_measures options, its own program's order)."""
    return (not o.ir and o.rel_level is None and not o.gains and not o.judged_only
            and o.program == o.measure.program
            and bounded(o.measure.name, o.param, settings))


def readings_note(outputs: Sequence[Output]) -> str | None:
    """The note of ``--unjudged range`` naming the measures it gives two readings of, not
    bounds (None when it bounds every one)."""
    names = [o.name[:-len("_if_relevant")] for o in outputs if o.unjudged == "relevant"]
    if not names:
        return None
    return ("--unjudged range gives two readings, not bounds, of " + ", ".join(names)
            + " (NAME and NAME_if_relevant, every unjudged document relevant): another "
            "grading of the unjudged documents may give a value outside both; NAME_min and "
            "NAME_max bound " + ", ".join(BOUNDED) + " where -l is 0 or more (the man "
            "page's UNJUDGED DOCUMENTS)")
