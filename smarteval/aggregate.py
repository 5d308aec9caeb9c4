"""Aggregation: per-query values into the summary value, as each measure's entry says."""

from __future__ import annotations

import math

import numpy as np

from smarteval import libm
from smarteval.errors import UsageError
from smarteval.measures.grammar import Output
from smarteval.measures.registry import GMEAN_FLOOR

#: Values trec_eval 10.0 resets after evaluating a query without results on its placeholder
#: document under -c: these exact output names, and every name starting with ``unj``.
RESET_BY_10 = ("num_ret", "utility", "relstring", "rbp_resid")


def sequential_sum(values: np.ndarray) -> float:
    """Sum in query order, one addition at a time onto 0.0, as trec_eval accumulates.

    Starting from 0.0 matters only for the sign of a zero: -0.0 values sum to 0.0.
    """
    if len(values) == 0:
        return 0.0
    return 0.0 + float(np.cumsum(np.asarray(values, dtype=np.float64))[-1])


def accumulated(ranked) -> np.ndarray:
    """(Q,) bool: the queries whose values trec_eval adds into its sums.

    Every evaluated query, except under ``-c`` with trec_eval 9.0.8: it never evaluates a
    query without results, which so adds nothing (counts 0) and is only in the divisor.
    """
    settings = ranked.settings
    if settings.complete and not settings.evaluates_added:
        return np.asarray(ranked.in_run, dtype=bool)
    return np.ones(ranked.num_queries, dtype=bool)


def averaged_over(ranked) -> int:
    """What trec_eval divides the sums by: the evaluated queries, or under ``-c`` every
    query of the qrels (even when ``-D`` evaluates one); also num_q's value."""
    if ranked.settings.complete and ranked.qrels_num_queries is not None:
        return int(ranked.qrels_num_queries)
    return ranked.num_queries


def empty_ranking(out: Output) -> bool:
    """Whether ``-c`` scores a query without results on its empty ranking: the SMART
    measures, which are not trec_eval's and so follow none of its ``-c`` rules."""
    return out.measure.scores_empty_ranking


def without_placeholders(ranked):
    """``ranked`` without trec_eval 10.0's ``-c`` placeholder documents: each query
    without results is an empty ranking again."""
    in_run = np.asarray(ranked.in_run, dtype=bool)
    if in_run.all():
        return ranked
    return ranked.subset(in_run[ranked.qindex])


def has_value(out: Output, values: np.ndarray) -> np.ndarray:
    """(Q,) bool: the queries ``out`` has a value for.

    Every query, except for a measure averaged over the queries it reports
    (``average="reported"``: ir_measures' Accuracy, whose provider reports nothing for a
    query without a relevant document retrieved). There NaN means no value: the query is
    left out of the mean and the median, and of every per-query output (trec_eval's
    lines, TSV, CSV, JSON, ``Results.rows``, ``frame`` and ``to_dict``, ``iter_calc``), as
    ir_measures leaves it out; the ``per_query`` arrays keep the NaN.
    """
    if out.measure.average != "reported":
        return np.ones(len(values), dtype=bool)
    return ~np.isnan(np.asarray(values, dtype=np.float64))


def complete_values(out: Output, values: np.ndarray, ranked) -> np.ndarray:
    """``values`` with trec_eval's ``-c`` rule for the queries without results.

    trec_eval 9.0.8 does not evaluate them: every value is 0 ('' for relstring), which
    is what they add to the averages. 10.0 evaluates them on its placeholder ranking
    (already in ``ranked``), then resets the outputs named in :data:`RESET_BY_10` and
    ``unj*`` to 0 (''): ``utility`` and ``relstring`` but not ``utility_1,-1,0,0`` or
    ``relstring_5``, which keep the placeholder's value (-1, '-'). The SMART measures
    (:func:`empty_ranking`) score such a query on its empty ranking, whatever the
    version: E is 1 there, and norm_recall places every relevant document as
    ``--unranked`` says.
    """
    missing = ~np.asarray(ranked.in_run, dtype=bool)
    if (not ranked.settings.complete or not missing.any()
            or out.measure.average in ("tag", "count")        # runid, num_q: not averaged
            or out.measure.average == "reported"):            # no value: none reported
        return values
    if empty_ranking(out):
        if not ranked.settings.evaluates_added:              # no rows: already empty
            return values
        values = values.copy()
        values[missing] = out.compute(without_placeholders(ranked))[missing]
        return values
    if ranked.settings.evaluates_added and not (
            out.name in RESET_BY_10 or out.name.startswith("unj")):
        return values
    values = values.copy()
    values[missing] = "" if values.dtype.kind in "OUS" else 0
    return values


def summarize(out: Output, values: np.ndarray, ranked, *, zscores: bool = False):
    """The summary value of one output over all evaluated queries.

    The ranking's ``settings.average`` is ``macro`` (trec_eval's: each query counts once),
    ``median``, or ``micro`` (pool the counts of every query first; only for measures that
    are a ratio of counts, whose entry gives a ``micro`` function). A measure averaged over
    the queries it reports (:func:`has_value`) takes the mean or median of the values it
    has, NaN when it has none. Under ``-c`` a macro average divides by every query of the
    qrels (:func:`averaged_over`; a SMART measure adds the value of every one,
    :func:`complete_values`) and num_rel's summary is trec_eval's recount of the qrels lines
    with a grade above 0, whatever ``-l``
    (:attr:`~smarteval.columns.Qrels.num_positive_lines`).

    With ``zscores``, ``values`` are :func:`standardized` and summarized as trec_eval's
    ``-Z`` does: each measure's own rule applied to the z-scores (a mean, a sum for the
    counts, ``exp`` of the mean for a geometric mean, whose z-scores are of the logs),
    every summary a float; num_q and num_rel's ``-c`` recount stay raw counts.
    """
    m = out.measure
    average = ranked.settings.average
    n_q = len(values)
    if m.average == "tag":
        return ranked.run_tag
    if m.average == "count":
        return float(averaged_over(ranked)) if zscores else averaged_over(ranked)
    if m.average == "none":
        return None
    if m.total is not None and not zscores and (m.average == "sum" or average == "macro"):
        return m.total(ranked, np.asarray(values), averaged_over(ranked))  # sample_eval's
    acc = np.ones(n_q, dtype=bool) if empty_ranking(out) else accumulated(ranked)
    if m.average == "sum":
        if (m.name == "num_rel" and out.rel_level is None and ranked.settings.complete
                and ranked.qrels_positive_lines is not None):
            count = int(ranked.qrels_positive_lines)
            return float(count) if zscores else count
        if zscores:
            return sequential_sum(np.asarray(values)[acc])
        return int(np.sum(np.asarray(values)[acc]))
    if average == "median" and m.average in ("mean", "gmean"):
        return float(np.median(values)) if n_q else 0.0
    if zscores:
        check_zscores_average(average)
    if average == "micro" and m.average in ("mean", "gmean", "reported"):
        if m.micro is None:
            raise UsageError(f"{out.name} is not a ratio of counts, so it has no micro "
                             "average; use --average macro or median")
        r = without_placeholders(ranked) if empty_ranking(out) and ranked.settings.complete \
            else ranked
        r = r if out.rel_level is None else r.at_level(out.rel_level)
        num, den = (m.micro(r) if m.params == "none" else m.micro(r, out.param))
        tot = float(np.sum(den))
        return float(np.sum(num)) / tot if tot else 0.0
    if m.average == "reported":
        kept = np.asarray(values, dtype=np.float64)[has_value(out, values)]
        if len(kept) == 0:
            return math.nan                 # ir_measures' mean of no value
        return float(np.median(kept)) if average == "median" else \
            sequential_sum(kept) / len(kept)
    n = averaged_over(ranked)
    if m.average == "gmean":
        # the logs of the queries added by -c and not evaluated come after the others,
        # as trec_eval patches its sum
        logs = np.asarray(values, dtype=np.float64)[acc]
        if not zscores:
            logs = libm.log(np.maximum(logs, GMEAN_FLOOR))
        total = sequential_sum(logs) + (n - int(acc.sum())) * math.log(GMEAN_FLOOR)
        return math.exp(total / n) if n else 0.0
    # mean
    return sequential_sum(np.asarray(values)[acc]) / n if n else 0.0


#: What trec_eval's ``-Z`` gives a (query, measure) whose mean its file lacks, and one
#: whose standard deviation is 0 while its value is not the mean.
MISSING_ZSCORE = -1000000.0
#: Why z-scores have no micro average.
ZSCORES_MICRO = ("-Z/--zscores: --average micro pools each query's counts, and z-scores "
                 "have none: use --average macro or median")


def check_zscores_average(average: str) -> None:
    """Refuse an average that z-scores do not have (micro: they are not counts)."""
    if average == "micro":
        raise UsageError(ZSCORES_MICRO)


def standardized(out: Output, values: np.ndarray, ranked, zscores,
                 located: np.ndarray | None = None) -> np.ndarray:
    """``values`` as z-scores against ``zscores`` (a :class:`~smarteval.read.zscores.ZScores`),
    as trec_eval's ``-Z`` converts each evaluated query's values before it adds them up.

    (value - mean) / stddev, where the file has the (query, measure): the measure named
    as printed (``P_5``, not ``P.5``); with a standard deviation of 0 the z-score is 0
    when the value is the mean, else :data:`MISSING_ZSCORE`, as it is where the file has
    no mean. A geometric mean's values are standardized as trec_eval keeps them, as the
    log of the value (at least :data:`GMEAN_FLOOR`). Text values (runid, relstring) are
    left as they are, and so are the queries trec_eval 9.0.8 does not evaluate under
    ``-c`` (they add 0 to every sum, as without ``-Z``). ``located`` is
    ``zscores.locate(ranked.qids)``, when the caller has it for every output.
    """
    m = out.measure
    if m.value == "str" or m.average in ("tag", "none"):
        return values
    acc = np.ones(len(values), dtype=bool) if empty_ranking(out) else accumulated(ranked)
    raw = np.asarray(values, dtype=np.float64)
    kept = raw
    if m.average == "gmean":
        raw = libm.log(np.maximum(raw, GMEAN_FLOOR))
    if located is None:
        located = zscores.locate(ranked.qids)
    found, mean, stddev = zscores.lookup(located, out.name)
    spread = stddev != 0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(spread, (raw - mean) / np.where(spread, stddev, 1.0),
                     np.where(raw == mean, 0.0, MISSING_ZSCORE))
    z = np.where(acc & found, z, np.where(acc, MISSING_ZSCORE, kept))
    return np.where(has_value(out, values), z, np.nan)     # no value: no z-score either
