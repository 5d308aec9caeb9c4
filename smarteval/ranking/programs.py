"""How each reference program orders a query's documents: one table, and rankings put so.

A measure's number is its reference program's number only if the documents stand in the
order that program puts them in. The programs differ in three ways:

- **what they sort by**: the score, or nothing at all (cwl_eval reads a run in the order
  of its lines);
- **the score's precision**: trec_eval 9.0.8 and pytrec_eval keep a score as a C
  ``float`` (32 bits), so 0.1 and 0.10000000001, or 1e39 and 5e39 (both infinite in 32
  bits), tie; trec_eval 10.0, gdeval (perl), ndeval, and the Python programs compare
  doubles;
- **the order of equal scores**: docno descending (trec_eval, pytrec_eval, gdeval,
  ndeval ``-traditional``), docno ascending (ir_measures' msmarco, judged and compat
  providers, pyndeval), or the run's own line order (a stable sort: ir_measures'
  accuracy and cwl_eval providers).

:data:`PROGRAMS` says it once per program; every measure's registry entry names its
program, and an ir_measures name the provider that computes it, so that ``-m AP``
(pytrec_eval) and ``-m map`` (trec_eval) may rank one run two ways. The ranking stage
(:func:`~smarteval.ranking.join.rank`) orders every query as trec_eval does under
``--trec-version`` (32-bit scores under 9, doubles under 10, docno descending), and
:func:`ordered_as` puts that ranking in another program's order, moving only the rows of
groups whose scores tie in the coarser of the two precisions.

``--ties random`` and ``--ties average`` are smarteval's own policies for tied documents:
they replace every program's order of ties; the program's precision still says which
scores tie.
``-M`` and ``-J`` act on trec_eval's ranking before it is put in another order.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from smarteval.columns import Ranked, tie_groups, tied_pairs
from smarteval.ranking.checks import as_float32
from smarteval.read.keys import descending_keys, sort_key_words
from smarteval.records import record


@record(frozen=True)
class Program:
    """How one reference program orders the documents of a query.

    ``by`` is "score" or "file" (the run's lines as written, no sort); ``precision`` is
    "float32", "double" or "trec" (as ``--trec-version`` says: trec_eval's own);
    ``ties`` orders equal scores: "docno-desc", "docno-asc" or "file" (a stable sort).
    """

    by: str
    precision: str
    ties: str
    help: str

    @property
    def describe(self) -> str:
        """The order in words, for a measure's help."""
        if self.by == "file":
            return "the run's lines in file order (no sort by score)"
        precision = {"float32": "as 32-bit floats", "double": "as doubles",
                     "trec": "as --trec-version says (32-bit floats under 9, doubles under 10)"
                     }[self.precision]
        ties = {"docno-desc": "docno descending", "docno-asc": "docno ascending",
                "file": "the run's line order"}[self.ties]
        return f"score descending, compared {precision}; equal scores by {ties}"


#: Every reference program a measure's number comes from, and how it orders documents.
PROGRAMS: dict[str, Program] = {
    "trec_eval": Program("score", "trec", "docno-desc",
                         "trec_eval 9.0.8 or 10.0, as --trec-version says"),
    "smarteval": Program("score", "trec", "docno-desc",
                         "smarteval's own measures (SMART's): trec_eval's order"),
    "pytrec_eval": Program("score", "float32", "docno-desc",
                           "pytrec_eval (trec_eval 9's code): ir_measures' default provider"),
    "gdeval": Program("score", "double", "docno-desc", "gdeval.pl, the TREC Web track's"),
    "ndeval": Program("score", "double", "docno-desc",
                      "ndeval -traditional (under --order-by rank: the rank column)"),
    "pyndeval": Program("score", "double", "docno-asc",
                        "pyndeval, ir_measures' diversity provider"),
    "msmarco": Program("score", "double", "docno-asc", "ir_measures' msmarco provider"),
    "judged": Program("score", "double", "docno-asc", "ir_measures' judged provider"),
    "compat": Program("score", "double", "docno-asc", "ir_measures' compat provider"),
    "accuracy": Program("score", "double", "file", "ir_measures' accuracy provider"),
    "ir_measures.cwl_eval": Program("score", "double", "file",
                                    "ir_measures' cwl_eval provider"),
    "cwl_eval": Program("file", "double", "file", "cwl_eval, the command"),
    "sample_eval": Program("score", "double", "docno-desc",
                           "sample_eval.pl, NIST's evaluation of sampled judgements"),
    "ntcireval": Program("file", "double", "file",
                         "NTCIREVAL and pyNTCIREVAL: each topic's ranked list as its "
                         "TRECsplitruns cuts it from a run, the lines in file order"),
    "ranx": Program("score", "double", "docno-desc",
                    "ranx (its own order of equal scores comes from an unstable sort and "
                    "is not reproducible: smarteval puts them docno descending)"),
}


def needs_file_order(programs) -> bool:
    """Whether any of ``programs`` reads the run's line order: the ranking then keeps it
    (``Ranked.file_row``; a ranking without it, made by hand, is taken as that order)."""
    return any(PROGRAMS[p].by == "file" or PROGRAMS[p].ties == "file" for p in programs)


def ordered_as(r: Ranked, program: str) -> Ranked:
    """``r`` (trec_eval's order under ``--trec-version``) in ``program``'s order.

    Rows move only within groups whose scores tie in the coarser of the two precisions:
    rounding to 32 bits keeps the order of doubles (never reverses two), so every other
    row already stands where the program puts it. By example, a query scored a
    0.10000000001, b 0.1 is b, a under trec_eval 9 (equal as 32-bit floats, docno
    descending) and a, b under any program comparing doubles. Under ``--ties random``
    and ``--ties average`` the program's precision still says which scores tie (the
    groups a tie average is taken over), and the policy replaces its order of them; a
    program reading the run's lines in order then sorts by score as a double. Under
    ``--order-by rank`` (ndeval's rank column) nothing moves. The result is kept on
    ``r`` for the next measure of the same order.
    """
    p = PROGRAMS[program]
    s = r.settings
    if s.order_by == "rank" or len(r.rel) < 2:
        return r
    if p.by == "score" and p.ties == "docno-desc" and p.precision == "trec":
        return r                                       # trec_eval's own order: the ranking's
    base32 = r.tie_key is not None and r.tie_key.dtype == np.float32
    want32 = p.precision == "float32" or (p.precision == "trec" and s.float32_scores)
    by_file = p.by == "file" and s.ties == "docno"
    ties = p.ties if s.ties == "docno" else s.ties     # or "random", "average"
    if not by_file and want32 == base32 and ties in ("docno-desc", "random", "average"):
        return r
    name = ("program order", by_file, want32, ties)
    if name in r.memo:
        return r.memo[name]
    src = _order(r, by_file, ties, want32, base32)
    out = r
    if src is not None:
        score = r.score[src]
        out = replace(r, rel=r.rel[src], score=score, docno=r.docno[src],
                      tie_key=_key(score, want32),
                      file_row=None if r.file_row is None else r.file_row[src])
    elif ties == "average" and want32 != base32:    # the groups a tie average is over
        out = replace(r, tie_key=_key(r.score, want32))
    if out is not r:
        # what does not depend on the order of a query's rows is not computed again
        out.__dict__.update({k: r.__dict__[k] for k in _ORDER_FREE if k in r.__dict__})
    r.memo[name] = out
    return out


#: ``Ranked``'s derived columns that a new order within each query leaves as they are
_ORDER_FREE = ("qindex", "rank", "num_ret", "num_rel", "num_judged", "num_nonrel",
               "qrel_qindex")


def _key(scores: np.ndarray, as32: bool) -> np.ndarray:
    return as_float32(scores) if as32 else scores


def _order(r: Ranked, by_file: bool, ties: str, want32: bool,
           base32: bool) -> np.ndarray | None:
    """The permutation putting ``r`` in the order of the lines (``by_file``), or by score
    in ``want32``'s precision with ``ties`` ("docno-desc", "docno-asc", "file", "random"
    or "average": by score alone); None when no row moves."""
    n = len(r.rel)
    # a ranking made without the run's line order (by hand) is taken as that order
    file_row = np.arange(n) if r.file_row is None else r.file_row
    if by_file:
        if r.file_row is None or (r.file_row[1:] > r.file_row[:-1]).all():
            return None                 # the lines' order (rows number the run's lines
        return np.argsort(r.file_row, kind="stable")     # query by query, in order)
    # the groups of rows equal in the coarser precision: the only rows that may move
    coarse = _key(r.score, True) if (want32 or base32) else r.score
    tied = tied_pairs(coarse, r.offsets)
    if not tied.any():
        return None
    rows, starts = tie_groups(tied)
    del tied
    group = np.cumsum(starts)
    target = _key(r.score, want32)[rows]
    if ties == "file":
        keys: tuple = (file_row[rows],)
    elif ties == "docno-asc":
        keys = tuple(reversed(sort_key_words(r.docno[rows])))
    elif ties == "docno-desc":
        keys = descending_keys(r.docno[rows])
    elif ties == "random":
        keys = (np.random.default_rng(r.settings.seed).random(len(rows)),)
    else:                           # "average": by score, the ranking's order otherwise
        keys = (np.arange(len(rows)),)
    sub = np.lexsort(keys + (-target.astype(np.float64), group))
    if (sub == np.arange(len(rows))).all():
        return None
    src = np.arange(n)
    src[rows] = rows[sub]
    return src


__all__ = ["PROGRAMS", "Program", "needs_file_order", "ordered_as"]
