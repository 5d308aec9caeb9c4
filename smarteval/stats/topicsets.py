"""Topic set size design (Sakai, Information Retrieval Journal 2016; Nagata 2003): the
number of topics a test collection needs for a paired t-test's power, a one-way ANOVA's
power over m systems, or a confidence interval's width, from a variance estimate."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from smarteval.errors import UsageError

#: The designs, with what each asks for.
METHODS = {
    "t": "the paired t-test detects a difference of --diff between two systems with "
         "probability 1 - beta",
    "anova": "one-way ANOVA over --systems systems detects a range of --diff (best minus "
             "worst mean) with probability 1 - beta",
    "ci": "the expected width of the confidence interval of the difference between two "
          "systems is at most --diff",
}
#: The most topics a design looks for.
MAX_TOPICS = 1_000_000


def t_power(n: int, diff: float, variance: float, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t-test with n topics against a true difference
    ``diff`` when the per-topic differences have variance ``variance`` (sigma_t^2):
    P(|T'| > t(1 - alpha/2; n-1)), T' noncentral t with n-1 df and noncentrality
    diff sqrt(n) / sigma_t (statsmodels' TTestPower)."""
    from scipy import stats
    if n < 2:
        return math.nan
    df = n - 1
    crit = stats.t.isf(alpha / 2, df)
    nc = diff * math.sqrt(n / variance)
    return _sure(float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc)), nc, crit)


def _sure(power: float, shift: float, crit: float) -> float:
    """``power``, or 1 where scipy gives NaN for a noncentrality ``shift`` so far past the
    critical value ``crit`` that every test rejects (a variance of 1e-33 asked for more than
    a million topics)."""
    return 1.0 if math.isnan(power) and shift > crit else power


def anova_power(n: int, diff: float, variance: float, systems: int,
                alpha: float = 0.05) -> float:
    """Power of one-way ANOVA over ``systems`` systems of n topics each when the best and
    the worst system means differ by ``diff`` (the others at their midpoint) and the
    within-system variance is ``variance``: P(F' > F(1 - alpha; m-1, m(n-1))), F'
    noncentral with lambda = n diff^2 / (2 variance) (statsmodels' FTestAnovaPower with
    Cohen's f^2 = diff^2 / (2 m variance))."""
    from scipy import stats
    m = systems
    if n < 2 or m < 2:
        return math.nan
    df1, df2 = m - 1, m * (n - 1)
    crit = stats.f.isf(alpha, df1, df2)
    lam = n * diff * diff / (2 * variance)
    return _sure(float(stats.ncf.sf(crit, df1, df2, lam)), lam, crit)


def ci_width(n: int, variance: float, alpha: float = 0.05) -> float:
    """The expected width of the 1 - alpha confidence interval of a mean difference over n
    topics whose differences have variance ``variance``: 2 t(1 - alpha/2; n-1) E[s] /
    sqrt(n), with E[s] = c4(n) sigma, c4(n) = sqrt(2 / (n-1)) Gamma(n/2) / Gamma((n-1)/2)
    (Nagata's design, Sakai 2016)."""
    from scipy import special, stats
    if n < 2:
        return math.nan
    c4 = math.sqrt(2 / (n - 1)) * math.exp(special.gammaln(n / 2) - special.gammaln((n - 1) / 2))
    return float(2 * stats.t.isf(alpha / 2, n - 1) * c4 * math.sqrt(variance / n))


def _smallest(ok, start: int = 2) -> int:
    """The smallest n >= start with ok(n), ok monotone: doubling, then bisection."""
    hi = start
    while not ok(hi):
        if hi >= MAX_TOPICS:
            raise UsageError(f"more than {MAX_TOPICS} topics would be needed: ask for a "
                             "larger difference or a smaller variance")
        hi = min(2 * hi, MAX_TOPICS)
    lo = max(start, hi // 2)
    if ok(lo):
        return lo
    while hi - lo > 1:                          # ok(hi), not ok(lo)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


@dataclass(frozen=True)
class Design:
    """One cell of a topic set size table: the design, its parameters, the topics it needs
    and what it reaches with them (the power, or the expected width for ``ci``)."""

    method: str
    variance: float
    diff: float
    alpha: float
    beta: float
    systems: int
    topics: int
    reached: float
    label: str = ""

    def row(self) -> dict:
        return {"label": self.label, "method": self.method, "variance": self.variance,
                "diff": self.diff,
                "alpha": self.alpha, "beta": self.beta if self.method != "ci" else math.nan,
                "systems": self.systems, "topics": self.topics, "reached": self.reached}


def topics_needed(method: str, diff: float, variance: float, *, alpha: float = 0.05,
                  beta: float = 0.20, systems: int = 2) -> Design:
    """The smallest number of topics (at least 2) that ``method`` asks for.

    ``variance`` is the within-system variance sigma^2 of the scores (V_E, see
    :func:`variance_estimate`). The paired designs (t, ci) take the variance of a
    difference as 2 sigma^2, which assumes no covariance between the two systems and
    errs on the safe side (Sakai 2016). ``systems`` is the m of anova (2 for the others).
    """
    if method not in METHODS:
        raise UsageError(f"unknown design {method!r}: expected one of {', '.join(METHODS)}")
    if not (diff > 0 and math.isfinite(diff)):
        raise UsageError(f"the difference must be a positive number, not {diff}")
    if not (variance > 0 and math.isfinite(variance)):
        raise UsageError(f"the variance must be a positive number, not {variance}")
    if not 0 < alpha < 1 or not 0 < beta < 1:
        raise UsageError("alpha and beta must lie between 0 and 1")
    if method == "anova" and systems < 2:
        raise UsageError("a one-way ANOVA design needs two systems or more")
    if method == "t":
        n = _smallest(lambda k: t_power(k, diff, 2 * variance, alpha) >= 1 - beta)
        reached = t_power(n, diff, 2 * variance, alpha)
    elif method == "anova":
        n = _smallest(lambda k: anova_power(k, diff, variance, systems, alpha) >= 1 - beta)
        reached = anova_power(n, diff, variance, systems, alpha)
    else:
        n = _smallest(lambda k: ci_width(k, 2 * variance, alpha) <= diff)
        reached = ci_width(n, 2 * variance, alpha)
    return Design(method, variance, diff, alpha, beta, systems if method == "anova" else 2,
                  n, reached)


def table(method: str, variances: Sequence[float] | Mapping[str, float],
          diffs: Sequence[float], *, alpha: float = 0.05, beta: float = 0.20,
          systems: Sequence[int] = (2,)) -> list[Design]:
    """Topic set sizes over a grid, as Sakai's tables print them: every variance (a row
    each; a mapping labels them, e.g. by the measure each was estimated on) x difference
    (a column each), for each number of systems under anova."""
    labelled = list(variances.items()) if isinstance(variances, Mapping) else \
        [(f"{v:g}", v) for v in variances]
    return [replace(topics_needed(method, d, v, alpha=alpha, beta=beta, systems=m), label=name)
            for m in (systems if method == "anova" else (2,))
            for name, v in labelled for d in diffs]


def variance_estimate(scores, kind: str = "residual") -> float:
    """The within-system variance of a run-by-topic score matrix: ``residual``, V_E of the
    two-way ANOVA without replication (system x topic), or ``within``, the pooled
    within-system variance of one-way ANOVA (Sakai 2016's estimate; topic difficulty
    counts in it, so it is larger)."""
    from smarteval.stats.anova import two_way, within_variance
    x = np.asarray(scores, dtype=np.float64)
    if kind == "residual":
        return two_way(x).ms_residual
    if kind == "within":
        return within_variance(x)
    raise UsageError(f"unknown variance estimate {kind!r}: expected residual or within")


def variances_from_runs(evaluations, names: Sequence[str], kind: str = "residual"
                        ) -> tuple[dict[str, float], list[str]]:
    """Each measure's within-system variance (:func:`variance_estimate`) over the runs of
    ``evaluations``, on the queries they all have a value for; and the notes naming the
    queries left out."""
    from smarteval.stats.merit import shared_values, undefined_note
    from smarteval.stats.table import run_labels
    if len(evaluations) < 2:
        raise UsageError("a variance estimate needs two runs or more")
    runs = run_labels(evaluations, None)
    qids, values = shared_values(evaluations, names, "the runs share no query: there is "
                                 "nothing to estimate a variance from")
    out, notes = {}, []
    for m, name in enumerate(names):
        kept = ~np.isnan(values[:, m]).any(axis=0)
        if not kept.all():
            notes.append(undefined_note(name, qids[~kept], runs,
                                        np.isnan(values[:, m][:, ~kept])))
        if kept.sum() < 2:
            raise UsageError(f"{name}: a variance estimate needs two queries or more with a "
                             "value in every run")
        out[name] = variance_estimate(values[:, m][:, kept], kind)
        if not out[name] > 0:       # NaN too
            raise UsageError(f"{name}: the {kind} variance estimated from the runs is "
                             f"{out[name]:g}: no number of topics follows from it (give "
                             "--variance)")
    return out, notes
