"""Discriminative power (Sakai, SIGIR 2006): for a measure, the achieved significance level
of every pair of runs, the share of pairs it tells apart and the difference it needs, by
Sakai's paired bootstrap tests or by the randomised Tukey HSD of his Discpower tool."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from smarteval.errors import UsageError
from smarteval.stats.merit import shared_values, undefined_note
from smarteval.stats.significance import (
    CORRECTIONS,
    adjust,
    critical_differences,
    paired_tests,
    resamples,
)

#: The tests discriminative power is measured with, and what each is (with its source).
DISCPOWER_TESTS = {
    "randomized-tukey": "randomised Tukey HSD over every pair at once (Sakai's Discpower; "
                        "Carterette, TOIS 2012; Sakai, PROMISE 2014)",
    "bootstrap": "studentized paired bootstrap test of each pair (Sakai, SIGIR 2006, "
                 "\"Evaluating evaluation metrics based on the bootstrap\")",
    "tukey": "Tukey's HSD blocked by query (two-way ANOVA without replication)",
    "randomization": "paired randomization test of each pair, then --correction",
    "t": "paired t-test of each pair, then --correction",
}


@dataclass(frozen=True)
class Discpower:
    """One measure's discriminative power over every pair of ``runs``.

    ``pairs[k] = (a, b)``, ``diff[k]`` mean_a - mean_b and ``asl[k]`` its achieved
    significance level (the test's p-value, after ``correction`` for the paired tests; the
    all-pairs tests adjust for every pair themselves). ``needed`` is the estimated
    difference of means a pair needs to be significant at ``alpha`` (see
    :func:`discriminative_power`); ``queries`` the topics used, ``left_out`` those without a
    value in some run.
    """

    measure: str
    test: str
    correction: str
    alpha: float
    runs: list[str]
    pairs: np.ndarray
    diff: np.ndarray
    asl: np.ndarray
    needed: float
    queries: int
    samples: int
    exact: bool | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def significant(self) -> int:
        """The number of pairs with ASL < alpha."""
        return int(np.count_nonzero(self.asl < self.alpha))

    @property
    def share(self) -> float:
        """Discriminative power: the share of pairs with ASL < alpha."""
        return self.significant / len(self.asl) if len(self.asl) else math.nan

    def curve(self) -> np.ndarray:
        """The ASLs sorted, smallest first: Sakai's ASL curve."""
        return np.sort(self.asl)

    def summary(self) -> dict:
        return {"measure": self.measure, "test": self.test, "correction": self.correction,
                "alpha": self.alpha, "queries": self.queries, "pairs": len(self.asl),
                "significant": self.significant, "share": self.share, "needed": self.needed}

    def rows(self) -> list[dict]:
        """One row per pair: the runs, the difference of means and its ASL."""
        return [{"measure": self.measure, "run": self.runs[a], "other": self.runs[b],
                 "diff": float(d), "asl": float(p),
                 "significant": bool(p < self.alpha)}
                for (a, b), d, p in zip(self.pairs.tolist(), self.diff, self.asl, strict=True)]


def check_choices(test: str, correction: str | None) -> str:
    """Refuse what discriminative power cannot be measured with; the correction that
    applies (None: holm for the paired t and randomization tests, none for the all-pairs
    ones and for the bootstrap, which Sakai 2006 applies to each pair at alpha)."""
    if test not in DISCPOWER_TESTS:
        raise UsageError(f"unknown test {test!r}: discriminative power takes "
                         + ", ".join(DISCPOWER_TESTS))
    if correction is not None and correction not in CORRECTIONS:
        raise UsageError(f"unknown correction {correction!r}: expected one of "
                         + ", ".join(CORRECTIONS))
    if correction is None:
        return "none" if test in ("randomized-tukey", "tukey", "bootstrap") else "holm"
    return correction


def discriminative_power(scores, *, runs: Sequence[str], measure: str,
                         test: str = "randomized-tukey", correction: str | None = None,
                         alpha: float = 0.05, samples: int = 10000,
                         seed: int | None = 0) -> Discpower:
    """The discriminative power of one measure from its ``scores`` (runs, topics; no NaN).

    The difference needed (Sakai 2006's "estimated difference required"):
    randomized-tukey  the ceil(alpha B)-th largest of the permutations' largest
                      differences: one threshold for every pair
    bootstrap         Sakai 2006's estimate: for each pair, |mean| of the resample whose
                      |t| is the ceil(alpha' B)-th largest (the first such resample when
                      several are equal), the largest over the pairs (alpha' as for t)
    tukey             Tukey's HSD, q_crit(1 - alpha; m, (m-1)(n-1)) sqrt(V_E / n)
    t, randomization  each pair's critical difference at level alpha' (alpha without a
                      correction, alpha / pairs otherwise: Bonferroni's level, which
                      suffices under Holm and Benjamini-Hochberg too), the largest over
                      the pairs; for t, t(1 - alpha'/2; n-1) s_d / sqrt(n), for
                      randomization the 1 - alpha' quantile of |sign-flipped mean|
    """
    from smarteval.stats.tukey import randomized_tukey, tukey_hsd
    applied = check_choices(test, correction)
    x = np.asarray(scores, dtype=np.float64)
    m, n = x.shape
    if m < 2:
        raise UsageError("discriminative power needs two runs or more")
    if n < 2:
        raise UsageError(f"{measure}: discriminative power needs two queries or more with a "
                         "value in every run")
    pairs = np.array([(a, b) for a in range(m) for b in range(a + 1, m)], dtype=int)
    a, b = pairs[:, 0], pairs[:, 1]
    means = x.mean(axis=1)
    diff = means[a] - means[b]
    exact = None
    if test == "randomized-tukey":
        r = randomized_tukey(x, samples=samples, seed=seed)
        asl, needed, exact = r.p[a, b], r.critical(alpha), r.exact
    elif test == "tukey":
        t = tukey_hsd(x, 1 - alpha)
        asl, needed = t.p[a, b], t.hsd
    elif test == "bootstrap":
        level = alpha if applied == "none" else alpha / len(pairs)
        raw, needs = bootstrap_tests(x[a] - x[b], level, samples=samples, seed=seed)
        asl, needed = adjust(raw, applied), float(np.max(needs))
    else:
        _, p, exact = paired_tests(test, x[b], x[a], samples=samples, seed=seed)
        asl = adjust(p, applied)
        level = alpha if applied == "none" else alpha / len(pairs)
        needed = float(np.max(critical_differences(test, x[a] - x[b], level,
                                                         samples=samples, seed=seed)))
    return Discpower(measure=measure, test=test, correction=applied, alpha=alpha,
                     runs=list(runs), pairs=pairs, diff=diff, asl=np.asarray(asl, float),
                     needed=float(needed), queries=n, samples=samples, exact=exact)


def studentized(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """|t| = |mean| / (s / sqrt(n)) of each row of ``d`` (..., n), s with n - 1, and |mean|.
    A row of one value repeated has no spread: its |t| is 0 where that value is 0 (0/0,
    as far from the null as no difference at all) and infinite elsewhere."""
    n = d.shape[-1]
    mean = np.abs(d.mean(axis=-1))
    flat = np.all(d == d[..., :1], axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (d.std(axis=-1, ddof=1) / math.sqrt(n))
    first = np.abs(d[..., 0])
    t[flat] = np.where(first[flat] == 0, 0.0, math.inf)
    mean[flat] = first[flat]
    return t, mean


#: Values (pairs x resamples x queries) gathered at once by :func:`bootstrap_tests`: with
#: the best ceil(level B) resamples of each pair, all it holds.
_GATHERED = 1 << 21


def bootstrap_tests(d: np.ndarray, level: float, *, samples: int = 1000,
                    seed: int | None = 0) -> tuple[np.ndarray, np.ndarray]:
    """Sakai's (SIGIR 2006) paired bootstrap test of each row of differences ``d`` (pairs,
    queries): the ASLs and each pair's estimated difference required at ``level``.

    For a pair, z is its per-query differences and t(z) = mean(z) / (s_z / sqrt(n));
    w = z - mean(z) obeys the null hypothesis. Each of ``samples`` = B resamples of the
    queries (:func:`~smarteval.stats.significance.resamples`, drawn from ``seed``, the
    same for every pair) gives w*b and t(w*b); ASL = #{b: |t(w*b)| >= |t(z)|} / B. The
    difference required is |mean(w*b)| of the resample whose |t(w*b)| is the
    ceil(level B)-th largest (the earliest of equal ones; :func:`studentized` for rows
    without spread). Memory: the best ceil(level B) resamples of each pair and one block
    of pairs x resamples x queries (``_GATHERED`` values, or one pair's block).
    """
    d = np.asarray(d, dtype=np.float64)
    k, n = d.shape
    observed, _ = studentized(d)
    w = d - d.mean(axis=1, keepdims=True)
    w[np.all(d == d[:, :1], axis=1)] = 0.0
    keep = max(1, min(samples, math.ceil(level * samples - 1e-9)))
    count = np.zeros(k, np.int64)
    # each pair's largest |t| so far (ties: the earlier resample first), their |mean|
    best_t = np.full((k, keep), -math.inf)
    best_mean = np.zeros((k, keep))
    best_at = np.full((k, keep), samples, dtype=np.int64)
    done = 0
    for draws in resamples(n, samples, seed):
        b = len(draws)
        step = max(1, _GATHERED // (b * n))
        at = np.arange(done, done + b)
        for start in range(0, k, step):
            rows = slice(start, start + step)
            t, mean = studentized(w[rows][:, draws])
            count[rows] += np.count_nonzero(t >= observed[rows, None], axis=1)
            all_t = np.hstack([best_t[rows], t])
            all_at = np.hstack([best_at[rows], np.broadcast_to(at, t.shape)])
            order = np.lexsort((all_at, -all_t), axis=1)[:, :keep]
            best_t[rows] = np.take_along_axis(all_t, order, axis=1)
            best_at[rows] = np.take_along_axis(all_at, order, axis=1)
            best_mean[rows] = np.take_along_axis(np.hstack([best_mean[rows], mean]), order,
                                                 axis=1)
        done += b
    return count / samples, best_mean[:, keep - 1]


def discpower(evaluations, names: Sequence[str], *, labels=None, test: str = "randomized-tukey",
              correction: str | None = None, alpha: float = 0.05, samples: int = 10000,
              seed: int | None = 0) -> list[Discpower]:
    """The discriminative power of each measure of ``names`` over ``evaluations`` (every
    pair of runs), on the queries every run has; a query without a value (NaN) in some run
    is left out of that measure, and named in its ``notes``."""
    from smarteval.stats.table import run_labels
    check_choices(test, correction)
    if len(evaluations) < 2:
        raise UsageError("discriminative power needs two runs or more")
    runs = run_labels(evaluations, labels)
    qids, values = shared_values(evaluations, names, "the runs share no query: there is "
                                 "nothing to compare")
    out = []
    for m, name in enumerate(names):
        kept = ~np.isnan(values[:, m]).any(axis=0)
        result = discriminative_power(values[:, m][:, kept], runs=runs, measure=name,
                                      test=test, correction=correction, alpha=alpha,
                                      samples=samples, seed=seed)
        if not kept.all():
            note = undefined_note(name, qids[~kept], runs, np.isnan(values[:, m][:, ~kept]))
            result.notes.append(note)
        out.append(result)
    return out


def discpower_runs(qrels, runs: Sequence, measures: Sequence[str], settings=None, *,
                   on_run=None, **options) -> list[Discpower]:
    """Evaluate ``runs`` against ``qrels`` and measure each measure's discriminative power
    (``options`` as :func:`discpower` takes them)."""
    from smarteval.settings import Settings
    from smarteval.stats.report import check_parameters, evaluate_comparable
    check_parameters(alpha=options.get("alpha", 0.05), confidence=0.95,
                     samples=options.get("samples", 10000), seed=options.get("seed", 0),
                     tolerance=0.0, depth=1, theta=1.0)
    check_choices(options.get("test", "randomized-tukey"), options.get("correction"))
    if len(runs) < 2:
        raise UsageError("discriminative power needs two runs or more")
    evs, names, skipped = evaluate_comparable(qrels, runs, measures, settings or Settings(),
                                              "no measure to compare", on_run)
    results = discpower(evs, names, **options)
    if skipped:
        results[0].notes.append("left out (no per-query numbers): " + ", ".join(skipped))
    return results
