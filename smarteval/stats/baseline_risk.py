"""Risk-sensitive evaluation against a baseline run, as ndeval's ``-baseline`` computes it."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from smarteval.errors import UsageError
from smarteval.evaluation import Evaluation
from smarteval.measures.diversity import risk_sensitive
from smarteval.ranking.join import in_byte_order


@dataclass(frozen=True)
class Risk:
    """A run's risk-sensitive values of one measure against a baseline run.

    ``values[i]`` is query ``qids[i]``'s value (queries in trec_eval's output order);
    ``mean`` their mean, what ndeval prints on its ``amean`` line.
    """

    measure: str
    risk_alpha: float
    qids: np.ndarray
    values: np.ndarray
    mean: float


def risk(run: Evaluation, baseline: Evaluation, measure: str,
         risk_alpha: float = 0.0) -> Risk:
    """The risk-sensitive value of ``measure`` for ``run`` against ``baseline`` (ndeval's
    ``-baseline FILE -riskAlpha A``).

    ndeval's ``RiskBased``, per query: d = run's value - baseline's value, kept where
    d >= 0 and weighted by (1 + risk_alpha) where the run does worse
    (:func:`~smarteval.measures.diversity.risk_sensitive`). The queries are the union
    of the two evaluations' (each evaluates its run's queries of the qrels; under ``-c``
    every query of the qrels); a query one of them lacks counts 0 for it, as ndeval
    counts it. ``mean`` is the mean over those queries. Both evaluations must have
    ``measure`` (an output name, e.g. ``alpha-nDCG_20``) with numeric values; any
    measure is accepted, ndeval's are the ones it defines the value for. ``risk_alpha``
    is 0 or more (ndeval's default 0: the plain difference).

    Raises :class:`~smarteval.errors.UsageError` for a measure one of the evaluations
    lacks or whose values are not numbers, or a negative ``risk_alpha``.
    """
    for ev, which in ((run, "run"), (baseline, "baseline")):
        if measure not in ev.per_query:
            raise UsageError(f"risk: the {which}'s evaluation has no measure {measure!r} "
                             f"(it has {', '.join(ev.per_query) or 'none'})")
        if ev.per_query[measure].dtype.kind not in "biuf":
            raise UsageError(f"risk: {measure} has no numeric values")
    check_risk_alpha(risk_alpha)
    run_q = np.asarray(run.qids).astype(str)
    base_q = np.asarray(baseline.qids).astype(str)
    qids = in_byte_order(np.union1d(run_q, base_q))
    values = []
    for ev, q in ((run, run_q), (baseline, base_q)):
        v = np.zeros(len(qids))
        v[_positions(qids, q)] = np.asarray(ev.per_query[measure], dtype=np.float64)
        values.append(v)
    out = risk_sensitive(values[0], values[1], risk_alpha)
    mean = float(out.mean()) if len(out) else 0.0
    return Risk(measure, float(risk_alpha), qids, out, mean)


def check_risk_alpha(risk_alpha) -> None:
    """Refuse a risk weight that is not a finite number of 0 or more (NaN, inf included)."""
    if isinstance(risk_alpha, bool) or not isinstance(risk_alpha, (int, float, np.integer,
                                                                   np.floating)) \
            or not math.isfinite(risk_alpha) or risk_alpha < 0:
        raise UsageError(f"--risk-alpha must be a number, 0 or more, not {risk_alpha!r}")


def risk_evaluations(runs: list[Evaluation], baseline: Evaluation,
                     risk_alpha: float = 0.0) -> list[Evaluation]:
    """Each of ``runs`` with every value replaced by its risk-sensitive value against
    ``baseline`` (ndeval's ``-baseline FILE -riskAlpha A``, for every measure: :func:`risk`).

    Each result evaluates the union of its run's and the baseline's queries, its
    summary the mean over them, and is named ``RUN vs BASELINE (risk alpha A)``. Every
    measure must have numbers averaged as a mean (a count, a text, a geometric or no
    mean has no risk-sensitive difference: :class:`~smarteval.errors.UsageError`).
    """
    check_risk_alpha(risk_alpha)
    check_risk_measures([o.measure for o in baseline.outputs])
    out = []
    for ev in runs:
        values = {o.name: risk(ev, baseline, o.name, risk_alpha) for o in ev.outputs}
        qids = next(iter(values.values())).qids if values else np.zeros(0, dtype=str)
        out.append(Evaluation(
            name=f"{ev.name} vs {baseline.name} (risk alpha {risk_alpha:g})", path=ev.path,
            tag=ev.tag, qids=qids, in_run=np.ones(len(qids), dtype=bool),
            outputs=ev.outputs, per_query={n: v.values for n, v in values.items()},
            summary={n: v.mean for n, v in values.items()}, ranked=None,
            run_info=ev.run_info, settings=ev.settings))
    return out


def check_risk_measures(measures) -> None:
    """Refuse (:class:`~smarteval.errors.UsageError`) the measures that have no
    risk-sensitive value: those whose per-query numbers are not averaged as a mean."""
    bad = list(dict.fromkeys(m.name for m in measures if m.value == "str"
                             or m.average != "mean" or not m.per_query))
    if bad:
        raise UsageError(f"--risk-baseline: {', '.join(bad)} "
                         f"{'has' if len(bad) == 1 else 'have'} no risk-sensitive value "
                         "(it takes measures whose values are averaged as a mean)")


def _positions(qids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The index in ``qids`` (distinct, any order) of each of ``wanted`` (all present)."""
    order = np.argsort(qids)
    return order[np.searchsorted(qids[order], wanted)]


__all__ = ["Risk", "check_risk_alpha", "check_risk_measures", "risk", "risk_evaluations"]
