"""Slow, per-query reference ("oracle") implementation of trec_eval 9.0.8 measures.

Pure Python, plain loops, no numpy.  Every function works on ONE query:

* ``ranked_rels`` -- the trec_eval relevance *codes* of the retrieved documents in
  rank order (rank 1 first), exactly as trec_eval's ``te_form_res_rels`` builds
  them: the qrels value (>= 0) for a judged document, ``RELVALUE_NONPOOL = -1``
  for a document absent from the query's qrels, ``RELVALUE_UNJUDGED = -2`` for a
  document present in the qrels with a negative value.  Use :func:`rank_query`
  to build it from (docno, score) pairs and a qrels mapping.
* ``qrel_grades`` -- the qrels values of ALL judged documents of the query
  (retrieved or not).  Negative values are accepted and ignored, as trec_eval
  ignores them when counting relevance levels.

Entry points
------------
``oracle_query(ranked_rels, qrel_grades, measure, param=None, rel_level=1,
num_docs_in_coll=0)`` returns the per-query value trec_eval stores for the
measure (a float; a str for ``relstring``).  ``param`` is the single cutoff /
parameter of that value (see :data:`DEFAULT_PARAMS` and :func:`oracle_query`).

``oracle_summary(measure, values, num_queries=None)`` combines per-query values
the way trec_eval's summary ("all") line does.

``oracle_all(ranked_rels, qrel_grades, rel_level=1, measures=ALL_TREC_9)``
returns ``{printed name: value}`` (``P_5``, ``iprec_at_recall_0.10``, ``map``...)
for default parameters.

``rank_query(docs, qrels, max_docs=None, judged_only=False)`` ranks one query
like trec_eval 9 (``-M`` and ``-J`` included) and returns ``ranked_rels``.

``format_value`` / ``measure_key`` give trec_eval's printed value and name.

All arithmetic is IEEE double, in the same order as the C code wherever the order
can change the last bits (Python floats are C doubles; ``math.log``/``math.log2``
/``math.exp`` call the platform libm, as trec_eval does).  Where trec_eval divides
0.0 by 0.0 (e.g. ``iprec_at_recall`` at recall 0 for an empty ranking) the oracle
returns the NaN x86-64 produces (sign bit set, printed "-nan" by glibc), like the
C code.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Mapping, Sequence

#: The NaN an x86-64 CPU produces for 0.0/0.0 (sign bit SET); glibc prints it
#: as "-nan", so trec_eval 9.0.8 prints "  -nan" for such values.
C_NAN = -math.nan

RELVALUE_NONPOOL = -1
RELVALUE_UNJUDGED = -2
MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001

_LONG_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

#: Default parameters trec_eval uses when a measure is requested without any.
DEFAULT_PARAMS: dict[str, object] = {
    "P": _LONG_CUTOFFS,
    "recall": _LONG_CUTOFFS,
    "ndcg_cut": _LONG_CUTOFFS,
    "map_cut": _LONG_CUTOFFS,
    "relative_P": _LONG_CUTOFFS,
    "success": (1, 5, 10),
    "iprec_at_recall": _RECALL_POINTS,
    "Rprec_mult": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
    "11pt_avg": _RECALL_POINTS,  # ONE value: the list is the parameter
    "utility": (1.0, -1.0, 0.0, 0.0),  # ONE value: the 4-tuple is the parameter
    "set_F": 1.0,
    "relstring": 10,
    "rbp": 0.9,
    "rbp_resid": 0.9,
    "unj": (5, 10, 20),
    "recip_rank_cut": (10,),
    "judged": (10,),
}

#: Measures whose per-query value is one number per cutoff (param = one cutoff).
CUTOFF_MEASURES = frozenset(
    {"P", "recall", "ndcg_cut", "map_cut", "relative_P", "success",
     "iprec_at_recall", "Rprec_mult", "unj", "recip_rank_cut", "judged"}
)
#: Measures summed (not averaged) over queries in the summary line.
SUM_MEASURES = frozenset({"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"})
#: Measures averaged with the geometric mean (per-query value is already a log).
GM_MEASURES = frozenset({"gm_map", "gm_bpref"})
#: Measures whose value trec_eval 9.0.8 computes with the gain table (ndcg.c setup_gains).
GAIN_MEASURES = frozenset({"ndcg", "ndcg_rel", "Rndcg", "G", "rbp", "dcg", "ideal_dcg"})

ALL_MEASURES = (
    "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg",
    "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "yaap",
    # trec_eval 10.0 only:
    "rbp", "rbp_resid", "unj", "dcg", "ideal_dcg",
    # ir_measures names trec_eval lacks (RR@k, Judged@k):
    "recip_rank_cut", "judged",
)


# --------------------------------------------------------------------------
# Ranking (form_res_rels.c)
# --------------------------------------------------------------------------

def to_float32(x: float) -> float:
    """Round a double to the nearest IEEE float32, as a C ``double -> float``
    assignment does (trec_eval 9.x stores ``sim`` in a ``float``).  Values
    beyond the float range become +-inf, NaN stays NaN."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _docno_key(docno: str | bytes) -> bytes:
    # pytrec_eval hands docnos to C as UTF-8; strcmp compares unsigned bytes.
    return docno if isinstance(docno, bytes) else docno.encode("utf-8")


def rank_docnos(docs: Mapping[str, float] | Iterable[tuple[str, float]],
                float32: bool = True) -> list[str]:
    """Order one query's retrieved docnos like trec_eval 9 (``comp_sim_docno``).

    Score descending, the scores compared as C ``float`` (float32) when
    ``float32`` is true (trec_eval 9.0.8) or as doubles (trec_eval >= 10);
    ties broken by docno DESCENDING in byte (strcmp) order.  The rank column of
    a run file plays no role.  Duplicate docnos raise ``ValueError`` (trec_eval:
    "duplicate docs" fatal error)."""
    items = list(docs.items()) if isinstance(docs, Mapping) else list(docs)
    seen: set[bytes] = set()
    keyed = []
    for docno, score in items:
        key = _docno_key(docno)
        if key in seen:
            raise ValueError(f"duplicate docno {docno!r}")
        seen.add(key)
        s = to_float32(float(score)) if float32 else float(score)
        keyed.append((s, key, docno))
    # sort descending by (score, docno bytes); NaN scores are not supported
    keyed.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return [t[2] for t in keyed]


def relevance_code(docno: str, qrels: Mapping[str, int]) -> int:
    """trec_eval's relevance code of one retrieved doc: its qrels value if >= 0,
    ``RELVALUE_UNJUDGED`` (-2) if it is in the qrels with a negative value (a
    ``-1`` in a qrels FILE becomes -2 here), ``RELVALUE_NONPOOL`` (-1) if absent."""
    if docno not in qrels:
        return RELVALUE_NONPOOL
    value = int(qrels[docno])
    return value if value >= 0 else RELVALUE_UNJUDGED


def rank_query(docs: Mapping[str, float] | Iterable[tuple[str, float]],
               qrels: Mapping[str, int], max_docs: int | None = None,
               judged_only: bool = False, float32: bool = True) -> list[int]:
    """``ranked_rels`` of one query as trec_eval 9.0.8 builds it.

    Steps, in trec_eval's order: sort (see :func:`rank_docnos`); ``-M max_docs``
    keeps the first ``max_docs`` docs; relevance codes (see
    :func:`relevance_code`); ``-J`` (``judged_only``) then drops every doc whose
    code is negative, keeping the order (ranks are renumbered).  Note -M is
    applied BEFORE -J."""
    return rank_query_keys(docs, qrels, max_docs, judged_only, float32)[0]


def rank_query_keys(docs: Mapping[str, float] | Iterable[tuple[str, float]],
                    qrels: Mapping[str, int], max_docs: int | None = None,
                    judged_only: bool = False,
                    float32: bool = True) -> tuple[list[int], list[float]]:
    """:func:`rank_query`'s codes and, beside them, each document's score as the
    ranking compared it (float32 under trec_eval 9): equal keys are tied."""
    items = list(docs.items()) if isinstance(docs, Mapping) else list(docs)
    order = rank_docnos(items, float32=float32)
    score = dict(items)
    if max_docs is not None:
        order = order[:max(max_docs, 0)]
    codes = [relevance_code(d, qrels) for d in order]
    keys = [to_float32(float(score[d])) if float32 else float(score[d]) for d in order]
    if judged_only:
        keys = [k for c, k in zip(codes, keys) if c >= 0]
        codes = [c for c in codes if c >= 0]
    return codes, keys


# --------------------------------------------------------------------------
# Per-query counts (the RES_RELS fields)
# --------------------------------------------------------------------------

class _Counts:
    """The RES_RELS counters trec_eval derives for one query."""

    def __init__(self, ranked_rels: Sequence[int], qrel_grades: Iterable[int],
                 rel_level: int):
        self.rels = [int(r) for r in ranked_rels]
        self.L = int(rel_level)
        self.n = len(self.rels)
        grades = [int(g) for g in qrel_grades if int(g) >= 0]
        top = max(grades) if grades else -1
        self.rel_levels = [0] * (top + 1)
        for g in grades:
            self.rel_levels[g] += 1
        # 1 + largest level present (trec_eval leaves it stale when there is
        # none; every measure using it is 0 in that case anyway).
        self.num_rel_levels = top + 1
        self.R = sum(c for k, c in enumerate(self.rel_levels) if k >= self.L)
        self.num_rel_ret = sum(1 for r in self.rels if r >= 0 and r >= self.L)
        self.num_nonpool = sum(1 for r in self.rels if r == RELVALUE_NONPOOL)
        self.num_unjudged = sum(1 for r in self.rels if r == RELVALUE_UNJUDGED)
        # judged non-relevant docs in the qrels: 0 <= value < L
        self.num_nonrel = sum(c for k, c in enumerate(self.rel_levels) if k < self.L)

    def rel_in_top(self, k: int) -> int:
        """Number of relevant docs among ranks 1..min(k, n)."""
        return sum(1 for r in self.rels[:max(k, 0)] if r >= self.L)

    def precisions(self) -> list[float]:
        """P@j for j = 1..n (double division rel_so_far / j)."""
        out, so_far = [], 0
        for j, r in enumerate(self.rels, start=1):
            if r >= self.L:
                so_far += 1
            out.append(so_far / j)
        return out


def _div(a: float, b: float) -> float:
    """IEEE double division (C semantics: x/0 -> +-inf, 0/0 -> the x86 NaN)."""
    if b == 0.0:
        if math.isnan(a):
            return a
        if a == 0.0:
            return C_NAN
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


# --------------------------------------------------------------------------
# Individual measures
# --------------------------------------------------------------------------

def _avg_prec_sum(q: _Counts, cutoff: int | None = None) -> float:
    """Sum over relevant retrieved docs (rank <= cutoff) of rel_so_far / rank."""
    total, so_far = 0.0, 0
    for i, r in enumerate(q.rels):
        if cutoff is not None and i >= cutoff:
            break
        if r >= q.L:
            so_far += 1
            total += so_far / (i + 1)
    return total


def m_map(q: _Counts) -> float:
    """map: sum of precisions at relevant retrieved docs / num_rel; 0 if no
    relevant doc retrieved (m_map.c)."""
    total, so_far = 0.0, 0
    for i, r in enumerate(q.rels):
        if r >= q.L:
            so_far += 1
            total += so_far / (i + 1)
    return _div(total, float(q.R)) if so_far else 0.0


def m_gm_map(q: _Counts) -> float:
    """gm_map per-query stored value: log(max(AP, 1e-5)) (m_gm_map.c)."""
    return math.log(max(m_map(q), MIN_GEO_MEAN))


def m_Rprec(q: _Counts) -> float:
    """Rprec: rel in top min(R, n) / R; 0 if min(R, n) == 0 (m_Rprec.c)."""
    if min(q.n, q.R) == 0:
        return 0.0
    return q.rel_in_top(min(q.n, q.R)) / q.R


def m_bpref(q: _Counts) -> float:
    """bpref (m_bpref.c): -1 and -2 docs are skipped; judged docs with
    0 <= code < L are nonrelevant; each relevant retrieved doc adds
    1 - min(nonrel_above, R) / min(num_nonrel_judged, R) (1 if no nonrel above);
    divided by R (0 if R == 0)."""
    total, nonrel_so_far = 0.0, 0
    for r in q.rels:
        if r in (RELVALUE_NONPOOL, RELVALUE_UNJUDGED):
            continue
        if 0 <= r < q.L:
            nonrel_so_far += 1
        else:
            if nonrel_so_far > 0:
                total += 1.0 - (float(min(nonrel_so_far, q.R)) / float(min(q.num_nonrel, q.R)))
            else:
                total += 1.0
    if q.R:
        total /= q.R
    return total


def m_gm_bpref(q: _Counts) -> float:
    """gm_bpref per-query stored value: log(max(bpref, 1e-5))."""
    return math.log(max(m_bpref(q), MIN_GEO_MEAN))


def m_recip_rank(q: _Counts) -> float:
    """recip_rank: 1 / rank of the first relevant doc; 0 if none."""
    for i, r in enumerate(q.rels):
        if r >= q.L:
            return 1.0 / (i + 1)
    return 0.0


def _rel_cutoff_9(x: float, R: int) -> int:
    """trec_eval 9: a recall fraction / R multiple x becomes a doc count by
    ``(long)(x * R + 0.9)`` in double (truncation toward zero)."""
    return int(x * R + 0.9)


def _rel_cutoff_10(x: float, R: int) -> int:
    """trec_eval 10: ``lround(x * R)`` (round half away from zero)."""
    v = x * R
    return int(math.floor(v + 0.5)) if v >= 0 else -int(math.floor(-v + 0.5))


def m_iprec_at_recall(q: _Counts, x: float, v10: bool = False) -> float:
    """iprec_at_recall_x (m_iprec_at_recall.c), a port of the C loop.  c =
    (long)(x*R + 0.9) relevant docs (10.0: lround(x*R)); 0 if c > num_rel_ret.
    Walking up from the last rank while rel_so_far > 0, rel_so_far starting at
    num_rel_ret (judged relevant only) and dropping at every code >= -l: the
    interpolated precision (max of rel_so_far / rank, starting from num_rel_ret /
    num_ret) when rel_so_far reaches c, or after the walk for c <= 0.  Under -l <= -1
    the unjudged codes pass the test but are not in num_rel_ret, so rel_so_far
    reaches 0 before the top.  An empty ranking gives 0.0 / 0.0 (NaN) for c <= 0."""
    c = _rel_cutoff_10(x, q.R) if v10 else _rel_cutoff_9(x, q.R)
    if c > q.num_rel_ret:
        return 0.0
    int_precis = _div(float(q.num_rel_ret), float(q.n))
    rel_so_far = q.num_rel_ret
    i = q.n
    while i > 0 and rel_so_far > 0:
        precis = rel_so_far / i
        if int_precis < precis:
            int_precis = precis
        if q.rels[i - 1] >= q.L:
            if rel_so_far == c:
                return int_precis
            rel_so_far -= 1
        i -= 1
    return int_precis


def m_11pt_avg(q: _Counts, points: Sequence[float], v10: bool = False) -> float:
    """11pt_avg (m_11pt_avg.c): port of the C loop.  For each parameter (kept in
    the given order; trec_eval assumes ascending) the interpolated precision at
    c = (long)(x*R+0.9) is added if c <= num_rel_ret, walking the cutoffs from the
    last to the first; the sum is divided by the number of parameters.  NaN when
    n == 0 and some c == 0."""
    pts = list(points)
    if not pts:
        raise ValueError("11pt_avg needs at least one point")
    conv = _rel_cutoff_10 if v10 else _rel_cutoff_9
    cutoffs = [conv(x, q.R) for x in pts]
    cur = len(cutoffs) - 1
    while cur >= 0 and cutoffs[cur] > q.num_rel_ret:
        cur -= 1
    precis = _div(float(q.num_rel_ret), float(q.n))
    int_precis = precis
    total = 0.0
    rel_so_far = q.num_rel_ret
    i = q.n
    while i > 0 and rel_so_far > 0:
        precis = rel_so_far / i
        if int_precis < precis:
            int_precis = precis
        if q.rels[i - 1] >= q.L:
            while cur >= 0 and rel_so_far == cutoffs[cur]:
                total += int_precis
                cur -= 1
            rel_so_far -= 1
        i -= 1
    while cur >= 0:
        total += int_precis
        cur -= 1
    return total / len(pts)


def m_P(q: _Counts, k: int) -> float:
    """P_k: relevant in top k / k (missing ranks count as nonrelevant)."""
    return q.rel_in_top(k) / k


def m_recall(q: _Counts, k: int) -> float:
    """recall_k: relevant in top k / R; 0 if R == 0."""
    return q.rel_in_top(k) / q.R if q.R else 0.0


def m_relstring(q: _Counts, length: int = 10) -> str:
    """relstring_N: one char per code of the first min(N, n) docs: '>' if > 9,
    the digit for 0..9, '-' for -1 (not in pool), '.' for -2 (pooled,
    unjudged), '<' for other negatives.  (Printed per query as '...' in quotes.)"""
    out = []
    for r in q.rels[:max(min(int(length), q.n), 0)]:
        if r > 9:
            out.append(">")
        elif r >= 0:
            out.append(chr(ord("0") + r))
        elif r == RELVALUE_NONPOOL:
            out.append("-")
        elif r == RELVALUE_UNJUDGED:
            out.append(".")
        else:
            out.append("<")
    return "".join(out)


def m_infAP(q: _Counts) -> float:
    """infAP (m_infap.c, Yilmaz & Aslam): -1 docs are skipped but keep their
    index; -2 docs count as pooled-unjudged; for a relevant doc at 0-based index
    j > 0 add 1/(j+1) + (j/(j+1)) * (A/j) * ((rel_above + eps) /
    (rel_above + nonrel_above + 2 eps)) with A = rel_above + nonrel_above +
    unjudged_above, eps = 1e-5; j == 0 adds 1.  Divided by R if R > 0."""
    total = 0.0
    nonrel = rel = unj = 0
    for j, r in enumerate(q.rels):
        if r == RELVALUE_NONPOOL:
            continue
        if r == RELVALUE_UNJUDGED:
            unj += 1
            continue
        if 0 <= r < q.L:
            nonrel += 1
            continue
        rel += 1
        if j == 0:
            total += 1.0
        else:
            fj = float(j)
            a = float(rel - 1 + nonrel + unj)
            b = (rel - 1) + INFAP_EPSILON
            c = (rel - 1 + nonrel) + 2 * INFAP_EPSILON
            total += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (a / fj) * (b / c)
    if q.R:
        total /= q.R
    return total


def m_Rprec_mult(q: _Counts, x: float, v10: bool = False) -> float:
    """Rprec_mult_x (m_Rprec_mult.c), a port of the C loop: c = (long)(x*R + 0.9)
    (lround(x*R) when ``v10``; 10.0 itself keeps +0.9).  c > n: num_rel_ret / c.
    Otherwise, walking up from the last rank while rel_so_far > 0 (rel_so_far from
    num_rel_ret, judged relevant only, dropping at every code >= -l): rel_so_far / c
    at rank c; 0 if the walk stops first (or c == 0)."""
    c = _rel_cutoff_10(x, q.R) if v10 else _rel_cutoff_9(x, q.R)
    if c > q.n:
        return q.num_rel_ret / c
    rel_so_far = q.num_rel_ret
    i = q.n
    while i > 0 and rel_so_far > 0:
        if i == c:
            return rel_so_far / i
        if q.rels[i - 1] >= q.L:
            rel_so_far -= 1
        i -= 1
    return 0.0


def m_utility(q: _Counts, params: Sequence[float] = (1.0, -1.0, 0.0, 0.0),
              num_docs_in_coll: int = 0) -> float:
    """utility: p1*a + p2*b + p3*c + p4*d, a = rel retrieved, b = retrieved
    non-rel (incl. unjudged), c = rel not retrieved, d = N - a - b - c with N
    from -N (default 0).  Left-to-right double arithmetic."""
    if len(params) != 4:
        raise ValueError("utility needs exactly 4 coefficients")
    p = [float(v) for v in params]
    a = q.num_rel_ret
    return (p[0] * a + p[1] * (q.n - a) + p[2] * (q.R - a)
            + p[3] * (num_docs_in_coll + a - q.n - q.R))


def m_binG(q: _Counts) -> float:
    """binG: sum over relevant docs of 1/log2(2 + nonrelevant docs above it),
    divided by R; 0 if no relevant doc retrieved."""
    total, so_far = 0.0, 0
    for i, r in enumerate(q.rels):
        if r >= q.L:
            so_far += 1
            total += 1.0 / math.log2(float(3 + i - so_far))
    return _div(total, float(q.R)) if so_far else 0.0


# ---- gain table (setup_gains in m_ndcg.c) -------------------------------

def _atol(s: str) -> int:
    """C atol: optional spaces and sign, then leading digits; 0 if none."""
    s = s.lstrip(" \t\n\v\f\r")
    sign, i = 1, 0
    if i < len(s) and s[i] in "+-":
        sign = -1 if s[i] == "-" else 1
        i += 1
    j = i
    while j < len(s) and s[j].isdigit():
        j += 1
    return sign * int(s[i:j]) if j > i else 0


def _valid_int(s: str) -> bool:
    """trec_eval 10.0's valid_int: an optional sign, then one or more digits."""
    if s[:1] in ("-", "+"):
        s = s[1:]
    return s != "" and all(ch in "0123456789" for ch in s)


def _c_int(x: float) -> int:
    """A double converted to a C int as x86-64 does (cvttsd2si): truncated toward
    zero; NaN and values outside the int range give INT_MIN."""
    if math.isnan(x) or not (-2.0 ** 31 - 1 < x < 2.0 ** 31):
        return -(2 ** 31)
    return int(x)


def _glibc_msort(items: list, cmp) -> list:
    """glibc's qsort for small arrays (msort.c): a top-down merge sort, the first
    half n // 2 elements, taking from the left run while cmp(left, right) <= 0.
    With a comparator that is not a total order the result is what this exact
    algorithm makes of it."""
    n = len(items)
    if n <= 1:
        return list(items)
    n1 = n // 2
    left, right = _glibc_msort(items[:n1], cmp), _glibc_msort(items[n1:], cmp)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def _gain_table(q: _Counts, gains: Mapping[object, float] | None, v10: bool = False):
    """List of [level, gain, num_at_level] in trec_eval's order (setup_gains).
    Parameter pairs come first (level from atol of the name; 10.0 skips a name that
    is not an integer, as rbp's ``p``), then every level 0..num_rel_levels-1 not
    given, with gain = level; a level's count goes to its first entry.  trec_eval
    then qsorts with a comparator returning (int)(g1 - g2): gains less than 1.0
    apart compare equal (the comparator is not even transitive), so the order is
    whatever glibc's merge sort makes of it, reproduced by :func:`_glibc_msort`."""
    table: list[list] = []
    for name, value in (gains or {}).items():
        if isinstance(name, int):
            level = name
        elif v10 and not _valid_int(str(name)):
            continue
        else:
            level = _atol(str(name))
        table.append([level, float(value), 0])
    for level in range(q.num_rel_levels):
        for entry in table:
            if entry[0] == level:
                entry[2] = q.rel_levels[level]
                break
        else:
            table.append([level, float(level), q.rel_levels[level]])
    return _glibc_msort(table, lambda e1, e2: _c_int(e1[1] - e2[1]))


def _log2(x: float) -> float:
    """C's log2: -inf at 0, NaN (x86's, sign bit set) below 0."""
    if x > 0:
        return math.log2(x)
    if x == 0:
        return -math.inf
    return C_NAN


def _get_gain(code: int, table) -> float:
    for level, gain, _ in table:
        if code == level:
            return gain
    return 0.0


class _Ideal:
    """The ideal ranking walker shared by ndcg, ndcg_rel, Rndcg and G: levels
    from highest gain down, each repeated num_at_level times; ``gain`` is 0.0
    once every level is used up."""

    def __init__(self, table):
        self.table = table
        self.cur = len(table) - 1
        self.gain = table[self.cur][1] if self.cur >= 0 else 0.0
        self.num_at = 0

    def step(self) -> None:
        self.num_at += 1
        while self.cur >= 0 and self.num_at > self.table[self.cur][2]:
            self.num_at = 1
            self.cur -= 1
            self.gain = self.table[self.cur][1] if self.cur >= 0 else 0.0


def _dcg_and_ideal(q: _Counts, gains: Mapping[object, float] | None = None,
                   v10: bool = False) -> tuple[float, float]:
    """(DCG, IDCG) as m_ndcg.c accumulates them: DCG = sum gain(code_r)/log2(r+1)
    over the whole ranking (the gain table's entry for the code, 0 if none), IDCG
    over the ideal gain sequence (NOT truncated at n).  The ideal walks the gain
    table from its last entry down, each entry repeated num_at_level times, and
    stops at the first entry met with a gain <= 0 (the last entry's gain decides
    before anything is counted)."""
    table = _gain_table(q, gains, v10)
    ideal = _Ideal(table)
    dcg = idcg = 0.0
    i = 0
    while i < q.n and ideal.gain > 0.0:
        g = _get_gain(q.rels[i], table)
        if g != 0:
            dcg += g / math.log2(float(i + 2))
        ideal.step()
        if ideal.gain > 0.0:
            idcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    while i < q.n:
        g = _get_gain(q.rels[i], table)
        if g != 0:
            dcg += g / math.log2(float(i + 2))
        i += 1
    while ideal.gain > 0.0:
        ideal.step()
        if ideal.gain > 0.0:
            idcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    return dcg, idcg


def m_ndcg(q: _Counts, gains: Mapping[object, float] | None = None,
           v10: bool = False) -> float:
    """ndcg (m_ndcg.c): DCG/IDCG (see :func:`_dcg_and_ideal`) if IDCG > 0, else 0.
    Gains default to the relevance value; -l has no effect."""
    dcg, idcg = _dcg_and_ideal(q, gains, v10)
    return dcg / idcg if idcg > 0.0 else 0.0


def m_dcg(q: _Counts, gains: Mapping[object, float] | None = None) -> float:
    """dcg (10.0 only; m_ndcg.c): the DCG of :func:`_dcg_and_ideal`."""
    return _dcg_and_ideal(q, gains, True)[0]


def m_ideal_dcg(q: _Counts, gains: Mapping[object, float] | None = None) -> float:
    """ideal_dcg (10.0 only; m_ndcg.c): the IDCG of :func:`_dcg_and_ideal`."""
    return _dcg_and_ideal(q, gains, True)[1]


def m_ndcg_rel(q: _Counts, gains: Mapping[object, float] | None = None,
               v10: bool = False) -> float:
    """ndcg_rel (m_ndcg_rel.c): ndcg averaged over the positive-gain docs:
    at each retrieved doc with gain > 0 add DCG/IDCG so far; every positive
    ideal doc not matched by a retrieved positive doc adds DCG_total/IDCG_total;
    divided by the number of positive ideal docs; 0 unless the sum is > 0."""
    table = _gain_table(q, gains, v10)
    ideal = _Ideal(table)
    dcg = idcg = total = 0.0
    num_rel_ret = num_rel = 0
    i = 0
    while i < q.n and ideal.gain > 0.0:
        g = _get_gain(q.rels[i], table)
        if g != 0:
            dcg += g / math.log2(float(i + 2))
        ideal.step()
        if ideal.gain > 0.0:
            num_rel += 1
            idcg += ideal.gain / math.log2(float(i + 2))
        if g > 0:
            total += _div(dcg, idcg)
            num_rel_ret += 1
        i += 1
    while i < q.n:
        g = _get_gain(q.rels[i], table)
        if g != 0:
            dcg += g / math.log2(float(i + 2))
        if g > 0:
            total += _div(dcg, idcg)
            num_rel_ret += 1
        i += 1
    while ideal.gain > 0.0:
        ideal.step()
        if ideal.gain > 0.0:
            num_rel += 1
            idcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    total += _div(float(num_rel - num_rel_ret) * dcg, idcg)
    if total > 0.0:  # NaN compares false, as in C
        return total / num_rel
    return 0.0


def m_Rndcg(q: _Counts, gains: Mapping[object, float] | None = None,
            v10: bool = False) -> float:
    """Rndcg (m_Rndcg.c): 0 if R == 0 (so it depends on -l).  ndcg sampled at
    each rank where the ideal gain changes value (DCG/IDCG over the ranks before
    it, when IDCG > 0), plus, if the ranking outlives the positive ideal sequence,
    once after the full ranking; averaged over the samples: 0 / 0 (NaN) when
    there is none, as when no grade has a positive gain."""
    table = _gain_table(q, gains, v10)
    if q.R == 0:
        return 0.0
    ideal = _Ideal(table)
    old_gain = ideal.gain
    dcg = idcg = total = 0.0
    changes = 0
    i = 0
    while i < q.n and ideal.gain > 0.0:
        g = _get_gain(q.rels[i], table)
        ideal.step()
        if old_gain != ideal.gain:
            if idcg > 0.0:
                total += dcg / idcg
                changes += 1
            old_gain = ideal.gain
        if g != 0:
            dcg += g / math.log2(float(i + 2))
        if ideal.gain > 0.0:
            idcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    if i < q.n:
        while i < q.n:
            g = _get_gain(q.rels[i], table)
            if g != 0:
                dcg += g / math.log2(float(i + 2))
            i += 1
        if idcg > 0.0:
            total += dcg / idcg
            changes += 1
    while ideal.gain > 0.0:
        ideal.step()
        if old_gain != ideal.gain:
            if idcg > 0.0:
                total += dcg / idcg
                changes += 1
            old_gain = ideal.gain
        if ideal.gain > 0.0:
            idcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    return _div(total, float(changes))


def m_G(q: _Counts, gains: Mapping[object, float] | None = None,
        v10: bool = False) -> float:
    """G (m_G.c): each doc adds gain / log2(2 + sum_cost - sum_results) where
    sum_results is the cumulated gain so far (this doc included) and sum_cost
    the cumulated ideal gain with every step costing at least 1.0; normalised by
    the total ideal gain (0 if that is 0).  log2 of 0 or less is C's (-inf, NaN),
    which gains below 0 can reach."""
    table = _gain_table(q, gains, v10)
    ideal = _Ideal(table)
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    min_cost = 1.0
    i = 0
    while i < q.n and ideal.gain > 0.0:
        g = _get_gain(q.rels[i], table)
        sum_results += g
        ideal.step()
        if ideal.gain > 0.0:
            sum_ideal += ideal.gain
        sum_cost += ideal.gain if ideal.gain >= min_cost else min_cost
        if g != 0:
            results_g += _div(g, _log2(2 + sum_cost - sum_results))
        i += 1
    while i < q.n:
        g = _get_gain(q.rels[i], table)
        sum_results += g
        sum_cost += min_cost
        if g != 0:
            results_g += _div(g, _log2(2 + sum_cost - sum_results))
        i += 1
    while ideal.gain > 0.0:
        ideal.step()
        if ideal.gain > 0.0:
            sum_ideal += ideal.gain
        i += 1
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0


def m_ndcg_cut(q: _Counts, k: int) -> float:
    """ndcg_cut_k (m_ndcg_cut.c, 9.0.x): gain = the raw code when > 0 (no gain
    table, no parameters), discount log2(rank+1); IDCG@k over the levels
    num_rel_levels-1 .. 1 each repeated rel_levels[level] times, truncated at k;
    DCG@k / IDCG@k if IDCG@k > 0 else DCG@k (then 0)."""
    dcg = 0.0
    for i, r in enumerate(q.rels[:k]):
        if r > 0:
            dcg += float(r) / math.log2(float(i + 2))
    ideal: list[int] = []
    for level in range(q.num_rel_levels - 1, 0, -1):
        ideal.extend([level] * q.rel_levels[level])
    idcg = 0.0
    for i, level in enumerate(ideal[:k]):
        idcg += float(level) / math.log2(float(i + 2))
    return dcg / idcg if idcg > 0.0 else dcg


def m_map_cut(q: _Counts, k: int) -> float:
    """map_cut_k: sum of precisions at relevant docs ranked <= k, / R; 0 if R == 0."""
    return _avg_prec_sum(q, k) / q.R if q.R else 0.0


def m_relative_P(q: _Counts, k: int) -> float:
    """relative_P_k: relevant in top k / min(k, R); 0 if R == 0."""
    return q.rel_in_top(k) / min(k, q.R) if q.R else 0.0


def m_success(q: _Counts, k: int) -> float:
    """success_k: 1.0 if a relevant doc is in the top k, else 0.0."""
    return 1.0 if q.rel_in_top(k) else 0.0


def m_set_P(q: _Counts) -> float:
    """set_P: num_rel_ret / num_ret (0 if nothing retrieved)."""
    return q.num_rel_ret / q.n if q.n else 0.0


def m_set_relative_P(q: _Counts) -> float:
    """set_relative_P: num_rel_ret / min(num_ret, R) if both > 0."""
    return q.num_rel_ret / min(q.n, q.R) if q.n and q.R else 0.0


def m_set_recall(q: _Counts) -> float:
    """set_recall: num_rel_ret / R (0 if R == 0)."""
    return q.num_rel_ret / q.R if q.R else 0.0


def m_set_map(q: _Counts) -> float:
    """set_map: num_rel_ret**2 / (num_ret * R) in doubles, if both > 0."""
    if not (q.n and q.R):
        return 0.0
    a = float(q.num_rel_ret)
    return (a * a) / (float(q.n) * float(q.R))


def m_set_F(q: _Counts, x: float = 1.0) -> float:
    """set_F (param x, default 1.0): (x+1) P R / (x P + R) if num_rel_ret > 0."""
    if not q.num_rel_ret:
        return 0.0
    P = q.num_rel_ret / q.n
    Rc = q.num_rel_ret / q.R
    x = float(x)
    return (x + 1.0) * P * Rc / (x * P + Rc)


def m_num_nonrel_judged_ret(q: _Counts) -> float:
    """num_nonrel_judged_ret = num_ret - nonpool - unjudged - num_rel_ret."""
    return float(q.n - q.num_nonpool - q.num_unjudged - q.num_rel_ret)


def m_yaap(q: _Counts) -> float:
    """yaap (Robertson): log((1 + S) / (1 + R - S)), S = unnormalised AP sum; C's
    division and log (under -l -1 or below S can exceed R: NaN, or inf at R - S = -1)."""
    s = _avg_prec_sum(q)
    x = _div(1.0 + s, 1.0 + float(q.R) - s)
    if math.isnan(x) or x < 0:
        return C_NAN
    if x == 0:
        return -math.inf
    return math.log(x)


def m_rbp(q: _Counts, p: float = 0.9,
          gains: Mapping[object, float] | None = None) -> float:
    """rbp (trec_eval 10.0 only): (1-p) * sum_i gain(code_i) * p**i (p**i by
    repeated multiplication), gains from the gain table and min-max normalised
    to [0, 1] when some gain lies outside it.  The C code never initialises its
    min and max; in a trec_eval run computing rbp alone they start at 0.0 (what the
    stack holds there), so the range is that of the gains and 0.  (After other
    measures of the same run the stack may hold other values: undefined, not
    reproduced.)  A range of width 0 divides 0 by 0: NaN."""
    table = _gain_table(q, gains, True)
    lo = min([0.0] + [e[1] for e in table])
    hi = max([0.0] + [e[1] for e in table])
    if lo < 0 or hi > 1:
        for e in table:
            e[1] = _div(e[1] - lo, hi - lo)
    total, cur = 0.0, 1.0
    for r in q.rels:
        g = _get_gain(r, table)
        if g != 0:
            total += g * cur
        cur = cur * p
    return (1.0 - p) * total


def m_rbp_resid(q: _Counts, p: float = 0.9) -> float:
    """rbp_resid (10.0 only): if some retrieved code is < 0:
    p**n + (1-p) * sum over those ranks i (0-based) of p**i; else 0."""
    unj, total, cur = 0, 0.0, 1.0
    for r in q.rels:
        if r < 0:
            unj += 1
            total += cur
        cur = cur * p
    return cur + (1 - p) * total if unj else 0.0


def m_unj(q: _Counts, k: int) -> float:
    """unj_k (10.0 only): number of -1/-2 codes in the top min(k, n) / k."""
    return sum(1 for r in q.rels[:k] if r in (RELVALUE_NONPOOL, RELVALUE_UNJUDGED)) / k


def m_recip_rank_cut(q: _Counts, k: int) -> float:
    """recip_rank_cut_k (ir_measures' RR@k, not in trec_eval): 1 / rank of the first
    relevant doc if that rank is at most k, else 0."""
    for i, r in enumerate(q.rels[:k]):
        if r >= q.L:
            return 1.0 / (i + 1)
    return 0.0


def m_judged(q: _Counts, k: int) -> float:
    """judged_k (ir_measures' Judged@k, not in trec_eval): number of codes >= 0
    in the top min(k, n) / k."""
    return sum(1 for r in q.rels[:k] if r >= 0) / k


# --------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------

def oracle_query(ranked_rels: Sequence[int], qrel_grades: Iterable[int], measure: str,
                 param=None, rel_level: int = 1, num_docs_in_coll: int = 0,
                 trec_eval_10: bool = False):
    """Per-query value of one trec_eval measure.

    ``param``:
      * cutoff measures (P, recall, ndcg_cut, map_cut, relative_P, success,
        unj: int k; iprec_at_recall, Rprec_mult: float x): the single cutoff;
        required.
      * 11pt_avg: sequence of recall points (default the 11 points).
      * utility: 4 coefficients (default 1,-1,0,0); ``num_docs_in_coll`` is -N.
      * set_F: x (default 1.0).  relstring: length (default 10).
      * ndcg, ndcg_rel, Rndcg, G, dcg, ideal_dcg: optional mapping level ->
        gain (the ``-m ndcg.1=3,2=9`` pairs).  rbp: p, or a mapping with key 'p' and
        level gains.  rbp_resid: p.
    ``rel_level`` is trec_eval's -l.  ``trec_eval_10`` switches
    iprec_at_recall / 11pt_avg / Rprec_mult to 10.0's lround rule.

    gm_map / gm_bpref return the per-query value trec_eval stores (and
    pytrec_eval reports): log(max(v, 1e-5)).  num_q returns 1.0 (its summary is
    the query count).  relstring returns a str."""
    q = _Counts(ranked_rels, qrel_grades, rel_level)
    m = measure
    if m in CUTOFF_MEASURES and param is None:
        raise ValueError(f"{m} needs a cutoff param")
    simple = {
        "num_ret": lambda: float(q.n),
        "num_rel": lambda: float(q.R),
        "num_rel_ret": lambda: float(q.num_rel_ret),
        "num_q": lambda: 1.0,
        "map": lambda: m_map(q),
        "gm_map": lambda: m_gm_map(q),
        "Rprec": lambda: m_Rprec(q),
        "bpref": lambda: m_bpref(q),
        "gm_bpref": lambda: m_gm_bpref(q),
        "recip_rank": lambda: m_recip_rank(q),
        "infAP": lambda: m_infAP(q),
        "binG": lambda: m_binG(q),
        "set_P": lambda: m_set_P(q),
        "set_relative_P": lambda: m_set_relative_P(q),
        "set_recall": lambda: m_set_recall(q),
        "set_map": lambda: m_set_map(q),
        "num_nonrel_judged_ret": lambda: m_num_nonrel_judged_ret(q),
        "yaap": lambda: m_yaap(q),
    }
    if m in simple:
        return simple[m]()
    at_cutoff = {"P": m_P, "recall": m_recall, "ndcg_cut": m_ndcg_cut, "map_cut": m_map_cut,
                 "relative_P": m_relative_P, "success": m_success, "unj": m_unj,
                 "recip_rank_cut": m_recip_rank_cut, "judged": m_judged}
    if m in at_cutoff:
        return at_cutoff[m](q, int(param))
    if m == "iprec_at_recall":
        return m_iprec_at_recall(q, float(param), v10=trec_eval_10)
    if m == "Rprec_mult":
        return m_Rprec_mult(q, float(param), v10=trec_eval_10)
    if m == "11pt_avg":
        return m_11pt_avg(q, DEFAULT_PARAMS["11pt_avg"] if param is None else param,
                          v10=trec_eval_10)
    if m == "utility":
        return m_utility(q, DEFAULT_PARAMS["utility"] if param is None else param,
                         num_docs_in_coll)
    if m == "set_F":
        return m_set_F(q, 1.0 if param is None else float(param))
    if m == "relstring":
        return m_relstring(q, 10 if param is None else int(param))
    if m == "ndcg":
        return m_ndcg(q, param, trec_eval_10)
    if m == "ndcg_rel":
        return m_ndcg_rel(q, param, trec_eval_10)
    if m == "Rndcg":
        return m_Rndcg(q, param, trec_eval_10)
    if m == "G":
        return m_G(q, param, trec_eval_10)
    if m == "dcg":
        return m_dcg(q, param)
    if m == "ideal_dcg":
        return m_ideal_dcg(q, param)
    if m == "rbp":
        if isinstance(param, Mapping):
            rest = {k: v for k, v in param.items() if k != "p"}
            return m_rbp(q, float(param.get("p", 0.9)), rest)
        return m_rbp(q, 0.9 if param is None else float(param))
    if m == "rbp_resid":
        if isinstance(param, Mapping):
            param = param.get("p", 0.9)
        return m_rbp_resid(q, 0.9 if param is None else float(param))
    raise ValueError(f"unknown measure {measure!r}")


#: The per-query measures of trec_eval 9.0.8's ``-m all_trec`` (minus runid),
#: in the order trec_eval prints them.
ALL_TREC_9 = (
    "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg",
    "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
)


def oracle_all(ranked_rels: Sequence[int], qrel_grades: Iterable[int],
               rel_level: int = 1, measures: Iterable[str] = ALL_TREC_9,
               params: Mapping[str, object] | None = None,
               num_docs_in_coll: int = 0, trec_eval_10: bool = False) -> dict:
    """{printed name: per-query value} for several measures of one query.

    Cutoff measures expand to one entry per cutoff (``P_5``,
    ``iprec_at_recall_0.10``...); ``params`` maps a measure to its cutoff list
    or parameter (default :data:`DEFAULT_PARAMS`).  Names are trec_eval's for
    default parameters; with non-default parameters trec_eval prints the param
    measures (utility, 11pt_avg, set_F, relstring, ndcg...) as
    ``name_<params as typed>``, which this function does not reproduce."""
    grades = list(qrel_grades)
    params = dict(params or {})
    out: dict = {}
    for m in measures:
        p = params.get(m, DEFAULT_PARAMS.get(m))
        if m in CUTOFF_MEASURES:
            for c in p:  # type: ignore[union-attr]
                out[measure_key(m, c)] = oracle_query(
                    ranked_rels, grades, m, c, rel_level, num_docs_in_coll, trec_eval_10)
        else:
            out[m] = oracle_query(ranked_rels, grades, m, p, rel_level,
                                  num_docs_in_coll, trec_eval_10)
    return out


def oracle_summary(measure: str, values: Sequence[float],
                   num_queries: int | None = None) -> float:
    """Summary ("all") value from the per-query values, as trec_eval 9.0.8.

    * num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret: plain sums.
    * num_q: number of evaluated queries (len(values)); with -c the number
      of queries in the qrels (``num_queries``).
    * gm_map, gm_bpref (values are the per-query logs): exp(sum / N); with -c
      (``num_queries`` > len(values)) every missing query adds log(1e-5).
    * everything else: sum / N, missing queries counting 0.
    ``num_queries`` is N with -c (number of queries in the qrels); default
    len(values).  Sums are accumulated in the given (query) order."""
    vals = list(values)
    if measure == "num_q":
        return float(len(vals) if num_queries is None else num_queries)
    total = 0.0
    for v in vals:
        total += v
    if measure in SUM_MEASURES:
        return total
    n = len(vals) if num_queries is None else int(num_queries)
    if n <= 0:
        return total
    if measure in GM_MEASURES:
        if num_queries is not None:
            total += (n - len(vals)) * math.log(MIN_GEO_MEAN)
        return math.exp(total / n)
    return total / n


def format_value(measure: str, value) -> str:
    """The value column as trec_eval 9.0.8 prints it: '%ld' of (long)value for
    the count measures, the string in single quotes for relstring, '%6.4f'
    otherwise; glibc prints NaN with its sign ('  -nan' for the 0/0 NaN,
    '   nan' otherwise) and infinities as '   inf' / '  -inf'."""
    if measure in SUM_MEASURES or measure == "num_q":
        return f"{int(value)}"
    if measure == "relstring":
        return f"'{value}'"
    if isinstance(value, float) and math.isnan(value):
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def measure_key(measure: str, param=None) -> str:
    """trec_eval's printed name of a per-cutoff value: ``P_5`` ("%s_%ld") for
    long cutoffs, ``iprec_at_recall_0.10`` ("%s_%3.2f") for double cutoffs,
    the bare name otherwise (default params; with command-line params
    trec_eval appends ``_<param string as typed>`` to the param measures)."""
    if measure in ("iprec_at_recall", "Rprec_mult"):
        return f"{measure}_{float(param):3.2f}"
    if measure in CUTOFF_MEASURES:
        return f"{measure}_{int(param)}"
    return measure
