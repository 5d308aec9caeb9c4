"""Whether a reproduction reproduced a run (Breuer et al., SIGIR 2020), as repro_eval measures it.

At the ranking level, Kendall's tau Union (KTU) and rank-biased overlap (RBO) compare the
original run's list of each query with the reproduction's, at each cut-off; at the
effectiveness level, the root mean square error (RMSE) of the per-query values and a
t test between original and reproduction; with baselines, the effect ratio (ER) and
the delta relative improvement (DeltaRI). A replication (another collection, other
qrels) has no ranking level and no RMSE (its queries are others); its t test is
unpaired.

Each number is repro_eval's (``repro_eval.measure``), its quirks included:

- **lists**: a query's list is the run's lines as read, not sorted by score; a stretch
  of neighbouring lines with equal scores (as doubles) is put docno descending
  (:func:`~smarteval.ranking.order.as_listed`). A cut-off k keeps each list's first k.
- **KTU** (:func:`ktu`) is scipy's Kendall tau-b between two sequences paired by rank:
  at rank i, the place of the original's i-th document and of the reproduction's i-th
  document among the union of the two lists sorted by docno. Only the docnos' byte
  order of the two documents at ranks i and j matters, not whether a document keeps its
  rank: it measures how alike the two lists are in docno order, rank by rank, rounded to
  14 decimals. A query with fewer than 2 documents has none (NaN), and the mean over
  queries is then NaN, as repro_eval's. repro_eval stops with an error where the two
  lists differ in length; here KTU compares the first documents of the longer list, as
  many as the shorter has (a note says where).
- **RBO** (:func:`rbo`) is Clarke et al.'s normalised, truncated form (repro_eval's
  own): at each depth d = 1 .. D (``depth``, default 1000) the overlap of the two
  prefixes of length d, divided by d, weighted by p^(d-1) (``p``, default 0.95), summed
  and divided by the sum of the weights. No extrapolation: a list shorter than d (cut at
  the cut-off, or short) adds nothing more to the overlap, while the weights go on to D.
- **RMSE** is the square root of the mean squared difference of the per-query values,
  queries paired by id.
- **nRMSE** (:func:`nrmse`) is the RMSE divided by the largest RMSE a reproduction
  could have against the original's values x in [0, 1]: the root mean square of
  max(x, 1 - x) over the same queries (repro_eval's ``_maxRMSE``). It takes only the
  original's values, so swapping the runs changes it; each term is at least 1/2, so
  the divisor is at least 1/2 and never 0 (nRMSE at most twice the RMSE, at most 1
  for values in [0, 1]); a value above 1 counts as itself (max(x, 1 - x) = x), and
  the divisor is then no bound.
- **ER** is the reproduction's mean per-query improvement of the run over its baseline
  divided by the original's (queries paired by id within each side); **DeltaRI** the
  original's relative improvement (mean of the run - mean of the baseline) / mean of the
  baseline, less the reproduction's; here each mean is over the run's own queries, as
  repro_eval takes them.
- **t tests**: scipy's paired ``ttest_rel`` (reproducibility, queries paired by id) or
  Student's ``ttest_ind`` (replicability), two-sided. repro_eval 0.5.0 sets every
  p-value to 1 where each of its own measures (:data:`REPRO_EVAL_MEASURES`, whatever
  else is asked) has an undefined p-value (NaN: no difference at all) and the two runs'
  values are equal on every query. Here that set is evaluated for the pair only where a
  measure's p-value is undefined, and the measure's p-value is 1 where the set's rule
  holds and the measure's own values are equal on every query; else it stays undefined.
  So a measure's p-value never depends on the other measures asked: with original q1 =
  a, x, b and reproduction q1 = x, a, b (a, b relevant), P.10 is equal on every query but
  map is not, and P.10's p-value is undefined, as repro_eval's.

Queries are paired by id; a query in one run of a pair and not the other is left out
of what pairs them, and a note says so. repro_eval evaluates with ir_measures, which
gives every query of the qrels a value, 0 where a run has none: its RMSE, nRMSE, t
tests, ER and DeltaRI are smarteval's with ``-c`` (``complete``) there. Its KTU and
RBO leave out a query the reproduction lacks, as here, and stop with an error at one the
original lacks.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from smarteval.columns import Run
from smarteval.errors import UsageError
from smarteval.ranking.join import concat_ranges
from smarteval.ranking.order import as_listed
from smarteval.read.keys import concat_ids, dictionary_codes
from smarteval.settings import LONG_MAX, Settings
from smarteval.stats.merit import align

#: repro_eval's defaults: RBO's persistence and depth, the cut-offs of its examples
RBO_P = 0.95
RBO_DEPTH = 1000
CUTOFFS = (5, 10, 20, 50, 100, 1000)
#: The deepest RBO (--rbo-depth, diff's --depth): a weight of every depth is held, and
#: each depth's share (:func:`rbo_weights`: 10M depths, 0.3 GiB for a second).
MAX_RBO_DEPTH = 10_000_000
#: The measures compared unless -m says otherwise.
DEFAULT_MEASURES = ("map", "P.10", "ndcg_cut.10")
#: repro_eval's own measures (its ``load_measures``: these trec_eval families), over which
#: it decides whether a reproduction is unchanged and every p-value 1.
REPRO_EVAL_MEASURES = ("P", "recall", "ndcg", "ndcg_cut", "map_cut", "set_map", "set_P",
                       "set_relative_P", "set_recall", "set_F", "Rprec", "infAP", "bpref",
                       "recip_rank", "map", "iprec_at_recall")
#: The two pairs of runs: the run studied, and its baseline (ER and DeltaRI).
PAIRS = ("run", "baseline")


# --------------------------------------------------------------------------- the lists

@dataclass(frozen=True)
class Lists:
    """Each query's documents in repro_eval's order (:func:`as_listed`): ``codes[offsets[q]:
    offsets[q+1]]`` are query ``qids[q]``'s docnos as numbers in the docnos' byte order,
    comparable between the lists made together (:func:`listed`)."""

    qids: np.ndarray
    offsets: np.ndarray
    codes: np.ndarray

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)


def listed(*runs: Run) -> list[Lists]:
    """The runs' lists, their docnos coded together (one code per distinct docno)."""
    orders = [as_listed(run) for run in runs]
    codes = joint_codes([run.docnos[order] for run, order in zip(runs, orders)])
    bounds = np.cumsum([0] + [len(run.docnos) for run in runs])
    return [Lists(np.asarray(run.qids).astype(str), run.offsets, codes[lo:hi])
            for run, lo, hi in zip(runs, bounds[:-1], bounds[1:])]


def joint_codes(columns: Sequence[np.ndarray]) -> np.ndarray:
    """(total,) int64 codes of the docnos of ``columns`` put one after another, one code
    per distinct docno, in the docnos' byte order."""
    return dictionary_codes(concat_ids(list(columns))).astype(np.int64)


def _heads(lst: Lists, queries: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The codes of the first ``lengths[i]`` documents of query ``queries[i]``, one query
    after another."""
    return lst.codes[concat_ranges(lst.offsets[queries], lengths)]


# --------------------------------------------------------------------------- KTU and RBO

def discordant(segment: np.ndarray, x: np.ndarray, y: np.ndarray, count: int) -> np.ndarray:
    """(count,) pairs of rows of each segment with x_i < x_j and y_i > y_j (strictly).

    Rows are sorted by (segment, x, y) and the inversions of y counted by a bottom-up
    merge sort of every segment at once: at each pass (width w = 1, 2, 4...) a row of
    the right half of a block of 2w counts the rows of the left half above it, by binary
    search among the left halves' sorted keys; then each block is sorted. log2(the
    longest segment) passes of one sort each. Pairs tied in x are never counted (their
    y ascend), nor pairs tied in y.

    By example: segment=[0,0,0,1,1], x=[1,2,3,1,2], y=[3,1,2,1,2]  ->  [2, 0]
    """
    out = np.zeros(count, dtype=np.int64)
    n = len(segment)
    if n < 2:
        return out
    order = np.lexsort((y, x, segment))
    seg = segment[order]
    v = np.unique(y, return_inverse=True)[1].reshape(-1).astype(np.int64)[order]
    top = int(v.max()) + 1
    sizes = np.bincount(seg, minlength=count)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    pos = np.arange(n, dtype=np.int64) - starts[seg]
    width = 1
    while width < int(sizes.max()):
        block = starts[seg] + (pos // (2 * width)) * (2 * width)    # first row of the block
        right = (pos // width) % 2 == 1
        key = block * top + v                  # ascending within each half (sorted before)
        left = key[~right]
        rb, rk = block[right], key[right]
        above = np.searchsorted(left, (rb + 1) * top) - np.searchsorted(left, rk, "right")
        out += np.bincount(seg[right], weights=above, minlength=count).astype(np.int64)
        v = v[np.argsort(key, kind="stable")]  # each block sorted: the next pass's halves
        width *= 2
    return out


def ktu(orig: Lists, repro: Lists, cutoff: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kendall's tau Union of the shared queries at ``cutoff``, as repro_eval computes it
    (the module's docstring): the query ids, KTU per query, and where the two lists
    differ in length after the cut (each then compared over the shorter's length)."""
    qids, oi, ri = align(orig.qids, repro.qids)
    no = np.minimum(orig.lengths[oi], cutoff)
    nr = np.minimum(repro.lengths[ri], cutoff)
    n = np.minimum(no, nr)
    segment = np.repeat(np.arange(len(qids)), n)
    d = discordant(segment, _heads(orig, oi, n), _heads(repro, ri, n), len(qids))
    pairs = (n * (n - 1) // 2).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = (pairs - 2.0 * d) / np.sqrt(pairs) / np.sqrt(pairs)
    tau = np.where(n >= 2, np.clip(tau, -1.0, 1.0), math.nan)
    return qids, np.round(tau, 14), no != nr


def rbo_weights(p: float, depth: int) -> tuple[np.ndarray, float]:
    """(depth,) ``T[m-1]``, the sum over d = m .. depth of p^(d-1) / d (what a document in
    both prefixes from depth m on adds), and the sum of the weights p^(d-1)."""
    weights = np.cumprod(np.concatenate(([1.0], np.full(depth - 1, float(p)))))
    terms = weights / np.arange(1, depth + 1)
    return np.cumsum(terms[::-1])[::-1], float(np.cumsum(weights)[-1])


def rbo(orig: Lists, repro: Lists, cutoff: int, p: float = RBO_P,
        depth: int = RBO_DEPTH) -> tuple[np.ndarray, np.ndarray]:
    """Rank-biased overlap of the shared queries' lists cut at ``cutoff``, as repro_eval
    computes it (the module's docstring): the query ids and RBO per query.

    The overlap at depth d counts the documents both prefixes hold, so a document at
    ranks a and b adds 1/d at every depth d >= max(a, b): RBO is the sum over the shared
    documents of ``T[max(a, b) - 1]`` (:func:`rbo_weights`), divided by the weights' sum.
    """
    qids, oi, ri = align(orig.qids, repro.qids)
    nq = len(qids)
    keep = min(cutoff, depth)
    no = np.minimum(orig.lengths[oi], keep)
    nr = np.minimum(repro.lengths[ri], keep)
    qo = np.repeat(np.arange(nq, dtype=np.int64), no)
    qr = np.repeat(np.arange(nq, dtype=np.int64), nr)
    co, cr = _heads(orig, oi, no), _heads(repro, ri, nr)
    width = int(max(co.max(initial=0), cr.max(initial=0))) + 1
    ko, kr = qo * width + co, qr * width + cr
    _, ao, ar = np.intersect1d(ko, kr, assume_unique=True, return_indices=True)
    rank_o = ao - np.concatenate(([0], np.cumsum(no)))[qo[ao]] + 1
    rank_r = ar - np.concatenate(([0], np.cumsum(nr)))[qr[ar]] + 1
    tail, norm = rbo_weights(p, depth)
    score = np.bincount(qo[ao], weights=tail[np.maximum(rank_o, rank_r) - 1], minlength=nq)
    return qids, score / norm


# --------------------------------------------------------------------------- effectiveness

def _root_mean_square(v: np.ndarray) -> float:
    """sqrt(mean of v^2), the squares summed in order as repro_eval sums them (Python's
    ``sum``); NaN without a value."""
    if len(v) == 0:
        return math.nan
    return math.sqrt(float(np.cumsum(np.square(v))[-1]) / len(v))


def rmse(orig: np.ndarray, repro: np.ndarray) -> float:
    """Root mean square error of paired per-query values (NaN without a query)."""
    return _root_mean_square(np.asarray(orig, dtype=np.float64)
                             - np.asarray(repro, dtype=np.float64))


def max_rmse(orig: np.ndarray) -> float:
    """The largest RMSE a reproduction could have against ``orig`` (values in [0, 1]): the
    root mean square of max(x, 1 - x), repro_eval's ``_maxRMSE`` (NaN without a query)."""
    x = np.asarray(orig, dtype=np.float64)
    return _root_mean_square(np.maximum(x, 1.0 - x))


def nrmse(orig: np.ndarray, repro: np.ndarray) -> float:
    """RMSE of paired per-query values normalised by :func:`max_rmse` of the original's,
    repro_eval's ``nRMSE``. Each max(x, 1 - x) is at least 1/2: the divisor is never 0
    and nRMSE is at most 2 * RMSE (at most 1 for values in [0, 1])."""
    return rmse(orig, repro) / max_rmse(orig) if len(orig) else math.nan


def t_test(orig: np.ndarray, repro: np.ndarray, paired: bool) -> float:
    """The two-sided p-value of scipy's paired (``ttest_rel``) or Student's unpaired
    (``ttest_ind``) t test of the original's values against the reproduction's."""
    from scipy import stats
    if len(orig) < 2 or len(repro) < 2:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        test = stats.ttest_rel if paired else stats.ttest_ind
        return float(test(np.asarray(orig, float), np.asarray(repro, float)).pvalue)


def effect_ratio(orig_run: np.ndarray, orig_base: np.ndarray, repro_run: np.ndarray,
                 repro_base: np.ndarray) -> float:
    """ER: the reproduction's mean per-query improvement over its baseline divided by the
    original's (each side's queries paired already)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(np.mean(repro_run - repro_base))
                     / np.float64(np.mean(orig_run - orig_base)))


def relative_improvement(run: np.ndarray, base: np.ndarray) -> float:
    """(mean of ``run`` - mean of ``base``) / mean of ``base``, each over its own queries."""
    b = np.float64(np.mean(base))
    with np.errstate(divide="ignore", invalid="ignore"):
        return float((np.float64(np.mean(run)) - b) / b)


# --------------------------------------------------------------------------- the whole

@dataclass
class Reproduction:
    """What ``smarteval repro`` found, ready for rendering.

    ``names[pair]`` is (original, reproduction) for the pairs compared ("run", and
    "baseline" with baselines); ``ranking`` one row per pair, query and cut-off (query
    ``all``: the mean); ``effects`` one row per pair and measure; ``overall`` one row per
    measure (ER, DeltaRI), with baselines.
    """

    kind: str                       # "reproducibility" or "replicability"
    names: dict[str, tuple[str, str]]
    measures: list[str]
    cutoffs: list[int]
    rbo_p: float
    rbo_depth: int
    ranking: list[dict] = field(default_factory=list)
    effects: list[dict] = field(default_factory=list)
    overall: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def paired(self) -> bool:
        return self.kind == "reproducibility"

    @property
    def test(self) -> str:
        return "paired t" if self.paired else "unpaired t"


def check_depth(name: str, depth: Any) -> None:
    """Refuse an RBO depth (``--rbo-depth``, diff's ``--depth``) that is not a whole number
    from 1 to :data:`MAX_RBO_DEPTH`."""
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or \
            not 1 <= depth <= MAX_RBO_DEPTH:
        raise UsageError(f"{name} must be a whole number from 1 to {MAX_RBO_DEPTH}, "
                         f"not {depth!r}")


def check_parameters(cutoffs: Sequence[int], p: float, depth: int) -> list[int]:
    """The cut-offs (ascending, each once), or UsageError for a parameter out of range."""
    def whole(k) -> bool:
        return isinstance(k, (int, np.integer)) and not isinstance(k, bool) \
            or isinstance(k, float) and k.is_integer()

    given: list[Any] = list(cutoffs) if hasattr(cutoffs, "__iter__") and \
        not isinstance(cutoffs, (str, bytes)) else [None]
    cuts = sorted({int(k) for k in given}) if all(map(whole, given)) else []
    if not cuts or cuts[0] < 1 or cuts[-1] > LONG_MAX:
        raise UsageError(f"--cutoffs must be whole numbers from 1 to {LONG_MAX}, not "
                         f"{cutoffs!r}")
    if not (isinstance(p, (int, float)) and 0 < p <= 1):
        raise UsageError(f"--rbo-p must be a number above 0 and at most 1, not {p!r}")
    check_depth("--rbo-depth", depth)
    return cuts


def reproduce(qrels, orig, repro, measures: Sequence[str] = DEFAULT_MEASURES,
              settings: Settings | None = None, *, baseline_orig=None, baseline_repro=None,
              replicability=None, cutoffs: Sequence[int] = CUTOFFS, rbo_p: float = RBO_P,
              rbo_depth: int = RBO_DEPTH,
              on_run: Callable | None = None) -> Reproduction:
    """Measure how well ``repro`` reproduces ``orig`` (paths or read runs).

    ``replicability`` (the qrels of the other collection) evaluates the reproduction and
    its baseline against it: a replication, compared by an unpaired t test, with
    neither ranking level nor RMSE. ``baseline_orig`` and ``baseline_repro`` (both or
    neither) add the baselines' comparison, ER and DeltaRI.
    """
    from smarteval.evaluation import as_run, evaluate, read_relevance, run_names
    from smarteval.stats.report import comparable_requests

    settings = settings or Settings()
    cuts = check_parameters(cutoffs, rbo_p, rbo_depth)
    if (baseline_orig is None) != (baseline_repro is None):
        raise UsageError("--baseline-orig and --baseline-repro go together: ER and DeltaRI "
                         "compare the improvement over the baseline in the original and in "
                         "the reproduction")
    requests, names, skipped = comparable_requests(list(measures) or DEFAULT_MEASURES,
                                                   settings.trec_version,
                                                   "no measure to compare")
    given = [orig, repro] + ([] if baseline_orig is None else [baseline_orig, baseline_repro])
    runs = [as_run(r) for r in given]
    labels = run_names(runs)
    pairs = PAIRS[: len(runs) // 2]
    kind = "reproducibility" if replicability is None else "replicability"
    rep = Reproduction(kind, {p: (labels[2 * i], labels[2 * i + 1])
                              for i, p in enumerate(pairs)},
                       list(names), cuts, float(rbo_p), int(rbo_depth))
    if skipped:
        rep.notes.append("not compared (no number for each query): " + ", ".join(skipped))

    first = read_relevance(qrels, requests, settings)
    other = first if replicability is None else read_relevance(replicability, requests,
                                                                 settings)
    sides = evaluate(first, runs[0::2], requests, settings, on_run=on_run, keep_ranked=False)
    sides_r = evaluate(other, runs[1::2], requests, settings, on_run=on_run,
                       keep_ranked=False)
    evs = {p: (sides[i], sides_r[i]) for i, p in enumerate(pairs)}

    if rep.paired:
        lists = listed(*runs)
        for i, pair in enumerate(pairs):
            _ranking(rep, pair, lists[2 * i], lists[2 * i + 1])
    def unchanged(pair: str) -> bool:
        i = pairs.index(pair)
        return _unchanged(first, other, runs[2 * i], runs[2 * i + 1], settings, rep.paired)

    for pair in pairs:
        _effects(rep, pair, *evs[pair], names, unchanged)
    if len(pairs) == 2:
        _overall(rep, evs, names)
    return rep


def _left_out(rep: Reproduction, pair: str, what: str, a: np.ndarray, b: np.ndarray,
              shared: int, hint: str = "") -> None:
    only_a, only_b = len(a) - shared, len(b) - shared
    if only_a or only_b:
        o, r = rep.names[pair]
        rep.notes.append(f"{what} of {o} and {r}: {shared} queries paired; left out "
                         f"{only_a} only in {o} and {only_b} only in {r}{hint}")


def _ranking(rep: Reproduction, pair: str, orig: Lists, repro: Lists) -> None:
    for k in rep.cutoffs:
        qids, tau, unequal = ktu(orig, repro, k)
        _, overlap = rbo(orig, repro, k, rep.rbo_p, rep.rbo_depth)
        if k == rep.cutoffs[0]:
            _left_out(rep, pair, "KTU and RBO", orig.qids, repro.qids, len(qids))
        if unequal.any():
            o, r = rep.names[pair]
            rep.notes.append(f"KTU@{k} of {o} and {r}: {int(unequal.sum())} queries whose "
                             "lists differ in length, each compared over the shorter's "
                             "length")
        for q, t, b in zip(qids.tolist(), tau.tolist(), overlap.tolist()):
            rep.ranking.append({"pair": pair, "query": q, "cutoff": k, "ktu": t, "rbo": b})
        rep.ranking.append({"pair": pair, "query": "all", "cutoff": k,
                            "ktu": float(np.mean(tau)) if len(tau) else math.nan,
                            "rbo": float(np.mean(overlap)) if len(overlap) else math.nan})
    undefined = {r["query"] for r in rep.ranking
                 if r["pair"] == pair and r["query"] != "all" and math.isnan(r["ktu"])}
    if undefined:
        rep.notes.append(f"KTU ({pair}): no value (fewer than 2 documents) for query "
                         f"{', '.join(sorted(undefined))}: the mean is undefined there, as "
                         "repro_eval's")


def _equal(orig, repro, name: str) -> bool:
    """Whether two evaluations have the same queries and, on each, the same value of
    ``name`` (repro_eval compares its scores so: NaN equals nothing)."""
    ids, oi, ri = align(orig.qids, repro.qids)
    return len(orig.qids) == len(repro.qids) == len(ids) and \
        np.array_equal(orig.per_query[name][oi], repro.per_query[name][ri])


def _unchanged(first, other, orig: Run, repro: Run, settings: Settings,
               paired: bool) -> bool:
    """repro_eval's rule for every p-value 1: over its own measures
    (:data:`REPRO_EVAL_MEASURES`), each t test undefined and the two runs' values equal on
    every query."""
    from smarteval.evaluation import evaluate
    from smarteval.stats.report import comparable_requests

    requests, names, _ = comparable_requests(REPRO_EVAL_MEASURES, settings.trec_version,
                                             "no measure to compare")
    o, = evaluate(first, [orig], requests, settings, keep_ranked=False)
    r, = evaluate(other, [repro], requests, settings, keep_ranked=False)
    _, oi, ri = align(o.qids, r.qids)

    def undefined(name: str) -> bool:
        a = np.asarray(o.per_query[name], dtype=np.float64)
        b = np.asarray(r.per_query[name], dtype=np.float64)
        return math.isnan(t_test(a[oi], b[ri], True) if paired else t_test(a, b, False))

    return all(_equal(o, r, n) and undefined(n) for n in dict.fromkeys(names))


def _effects(rep: Reproduction, pair: str, orig, repro, names: list[str],
             unchanged: Callable[[str], bool]) -> None:
    ids, oi, ri = align(orig.qids, repro.qids)
    if rep.paired:
        _left_out(rep, pair, "RMSE, nRMSE and the t test", orig.qids, repro.qids, len(ids),
                  " (-c: every query of the qrels, 0 where a run has none, as repro_eval)")
    rows: list[dict[str, Any]] = []
    for name in names:
        a = np.asarray(orig.per_query[name], dtype=np.float64)
        b = np.asarray(repro.per_query[name], dtype=np.float64)
        rows.append({
            "pair": pair, "measure": name, "orig": float(np.mean(a)) if len(a) else math.nan,
            "repro": float(np.mean(b)) if len(b) else math.nan,
            "rmse": rmse(a[oi], b[ri]) if rep.paired else math.nan,
            "nrmse": nrmse(a[oi], b[ri]) if rep.paired else math.nan,
            "p_value": t_test(a[oi], b[ri], True) if rep.paired else t_test(a, b, False),
            "queries_orig": len(a), "queries_repro": len(b)})
    # repro_eval: p = 1 where the reproduction is unchanged on every measure of its own
    undefined = [r for r in rows if math.isnan(r["p_value"])
                 and _equal(orig, repro, r["measure"])]
    if undefined and unchanged(pair):
        for r in undefined:
            r["p_value"] = 1.0
    elif undefined:
        rep.notes.append(f"p ({pair}) of {', '.join(r['measure'] for r in undefined)}: "
                         "undefined, every per-query difference being 0 (t = 0/0), and not "
                         "1, as repro_eval sets it only where every measure of its own is "
                         "unchanged")
    rep.effects.extend(rows)


def _overall(rep: Reproduction, evs: dict, names: list[str]) -> None:
    (o_run, r_run), (o_base, r_base) = evs["run"], evs["baseline"]
    o_ids, o_a, o_b = align(o_run.qids, o_base.qids)
    r_ids, r_a, r_b = align(r_run.qids, r_base.qids)
    for side, run, base, ids in (("original", o_run, o_base, o_ids),
                                 ("reproduction", r_run, r_base, r_ids)):
        only_run, only_base = len(run.qids) - len(ids), len(base.qids) - len(ids)
        if only_run or only_base:
            rep.notes.append(f"ER, {side}: {len(ids)} queries paired with the baseline; "
                             f"left out {only_run} only in {run.name} and {only_base} only "
                             f"in {base.name}")

    def values(ev, name: str, rows=None) -> np.ndarray:
        v = np.asarray(ev.per_query[name], dtype=np.float64)
        return v if rows is None else v[rows]

    for name in names:
        oa, ob = values(o_run, name, o_a), values(o_base, name, o_b)
        ra, rb = values(r_run, name, r_a), values(r_base, name, r_b)
        imp_o, imp_r = oa - ob, ra - rb
        ri_o = relative_improvement(values(o_run, name), values(o_base, name))
        ri_r = relative_improvement(values(r_run, name), values(r_base, name))
        rep.overall.append({
            "measure": name,
            "er": effect_ratio(oa, ob, ra, rb),
            "delta_ri": ri_o - ri_r,
            "improvement_orig": float(np.mean(imp_o)) if len(imp_o) else math.nan,
            "improvement_repro": float(np.mean(imp_r)) if len(imp_r) else math.nan,
            "ri_orig": ri_o, "ri_repro": ri_r})
