"""Selecting the best run: Joiner & Werner's points per query and cut-off, and Bechhofer's
probability of correct selection (exact for a few runs, simulated beyond)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from smarteval.errors import UsageError

#: Bechhofer's probability of correct selection is computed exactly up to this many runs.
PCS_EXACT_MAX_RUNS = 5


# --------------------------------------------------------------------------- Joiner & Werner

@dataclass(frozen=True)
class Selection:
    """Joiner & Werner's multinomial selection: points per run and Bechhofer's P(CS).

    ``per_cutoff[i, j]`` is the number of queries won by run j at cut-off ``cutoffs[i]``
    (their Table 2 rows); ``points`` the totals, ``p_hat`` the estimated probabilities.
    """

    points: np.ndarray
    per_cutoff: np.ndarray
    cutoffs: np.ndarray
    total: int
    p_hat: np.ndarray
    best: int
    theta: float
    pcs: float
    pcs_method: str            # exact | simulation
    pcs_se: float = 0.0        # standard error of a simulated P(CS)


CAVEAT = ("the points are not independent (the same queries score at every cut-off), so "
          "the probability of correct selection is a guide, not a test (Joiner & Werner).")


def selection_points(values: np.ndarray, tolerance: float = 0.0,
                     seed: int | None = 0) -> np.ndarray:
    """At each cut-off, give each query's point to the run with the highest value.

    ``values`` has shape (runs, queries, cut-offs); runs within ``tolerance`` of the
    best value tie and one of them is drawn at random (``seed``). Returns the counts,
    shape (cut-offs, runs).
    """
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 3:
        raise ValueError("values must have shape (runs, queries, cut-offs)")
    k = v.shape[0]
    top = v.max(axis=0)
    tied = v >= top - tolerance
    rng = np.random.default_rng(seed)
    draw = np.where(tied, rng.random(v.shape), -1.0)
    winner = draw.argmax(axis=0)                          # (Q, D)
    counts = np.stack([np.count_nonzero(winner == j, axis=0) for j in range(k)], axis=1)
    return counts.astype(np.int64)


def select_best(values: np.ndarray, *, cutoffs: Sequence[int] | None = None,
                tolerance: float = 0.0, theta: float = 1.5, seed: int | None = 0,
                samples: int = 100_000) -> Selection:
    """Joiner & Werner's selection procedure over values of shape (runs, queries, cut-offs)."""
    v = np.asarray(values, dtype=np.float64)
    per_cut = selection_points(v, tolerance, seed)
    return selection_from_points(per_cut, cutoffs=cutoffs, theta=theta, seed=seed,
                                 samples=samples)


def selection_from_points(per_cutoff: np.ndarray, *, cutoffs: Sequence[int] | None = None,
                          theta: float = 1.5, seed: int | None = 0,
                          samples: int = 100_000) -> Selection:
    """Totals, estimated probabilities and P(CS) from the points won at each cut-off."""
    per_cut = np.atleast_2d(np.asarray(per_cutoff, dtype=np.int64))
    points = per_cut.sum(axis=0)
    total = int(points.sum())
    k = len(points)
    p_hat = points / total if total else np.full(k, math.nan)
    pcs, method, se = bechhofer_pcs(k, total, theta, seed=seed, samples=samples)
    cut = np.arange(1, per_cut.shape[0] + 1) if cutoffs is None else np.asarray(cutoffs)
    return Selection(points=points, per_cutoff=per_cut, cutoffs=cut, total=total, p_hat=p_hat,
                     best=int(np.argmax(points)), theta=theta, pcs=pcs, pcs_method=method,
                     pcs_se=se)


def bechhofer_pcs(k: int, n: int, theta: float, *, seed: int | None = 0,
                  samples: int = 100_000) -> tuple[float, str, float]:
    """Bechhofer's probability of correct selection, exact for up to five runs.

    Returns (P(CS), "exact" or "simulation", standard error).
    """
    if k <= PCS_EXACT_MAX_RUNS:
        return pcs_exact(k, n, theta), "exact", 0.0
    p, se = pcs_simulated(k, n, theta, samples=samples, seed=seed)
    return p, "simulation", se


def _check_pcs(k: int, n: int, theta: float) -> None:
    if k < 2:
        raise UsageError("selecting the best run needs at least two runs")
    if n < 0:
        raise ValueError("the number of points cannot be negative")
    if not theta >= 1.0:
        raise UsageError(f"--theta must be at least 1 (the best run's probability over the "
                         f"second best's), got {theta}")


def lfc(k: int, theta: float) -> np.ndarray:
    """Least favourable configuration: the best cell theta times as likely as each of the others."""
    p = np.full(k, 1.0 / (theta + k - 1))
    p[0] = theta / (theta + k - 1)
    return p


def pcs_exact(k: int, n: int, theta: float) -> float:
    """P(CS) of Bechhofer, Elmaghraby and Morse's single-sample multinomial procedure.

    ``n`` observations fall into ``k`` cells under the least favourable configuration
    (one cell ``theta`` times as likely as each of the others, which are equal); the
    cell with the largest count is chosen, ties broken at random. This is the chance
    that the chosen cell is the most likely one.

    Conditioning on the best cell's count x, the other counts are multinomial with
    equal probabilities over n - x; they are computed as independent Poisson counts
    with mean (n - x)/(k - 1) conditioned on their sum, which keeps every term in
    floating-point range. x values with binomial probability below 1e-20 are skipped
    (their total is below 1e-17).
    """
    from scipy import stats
    _check_pcs(k, n, theta)
    if n == 0:
        return 1.0 / k
    pb = theta / (theta + k - 1)
    x_all = np.arange(n + 1)
    px = stats.binom.pmf(x_all, n, pb)
    # the best count must reach the largest of the others, which is at least (n - x)/(k - 1)
    keep = (px > 1e-20) & (x_all * k >= n)
    total = 0.0
    comb = [math.comb(k - 1, r) for r in range(k)]
    for x in x_all[keep]:
        m = n - x
        lam = m / (k - 1)
        # T: Poisson(lam) probabilities of lo..x-1 (each other cell strictly below x);
        # below lo they are under 1e-40 of the peak and are left out
        lo = max(0, int(lam - 14.0 * math.sqrt(lam)) - 1)
        hi = min(x, m + 1)
        t = stats.poisson.pmf(np.arange(lo, hi), lam) if hi > lo else np.zeros(0)
        at_x = float(stats.poisson.pmf(x, lam))
        norm = float(stats.poisson.pmf(m, m)) if m > 0 else 1.0
        powers = _powers(t, k - 1, m)
        cond = 0.0
        for r in range(k):                       # r of the other cells tie with the best at x
            j = k - 1 - r
            at = m - r * x - j * lo              # index in t^j, whose first term is j*lo
            if m - r * x < 0:
                break
            coef = powers[j][at] if 0 <= at < len(powers[j]) else 0.0
            cond += comb[r] / (r + 1) * at_x ** r * coef
        total += px[x] * cond / norm
    return float(min(1.0, max(0.0, total)))


def _powers(t: np.ndarray, up_to: int, length: int) -> list[np.ndarray]:
    """t^0 .. t^up_to as polynomial powers, each truncated to ``length + 1`` terms."""
    out = [np.array([1.0])]
    for _ in range(up_to):
        nxt = _convolve(out[-1], t)[: length + 1] if len(t) else np.zeros(0)
        out.append(np.maximum(nxt, 0.0))
    return out


def _convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if min(len(a), len(b)) < 256:
        return np.convolve(a, b)
    from scipy import signal
    return signal.fftconvolve(a, b)


def pcs_simulated(k: int, n: int, theta: float, *, samples: int = 100_000,
                  seed: int | None = 0) -> tuple[float, float]:
    """P(CS) by simulating ``samples`` multinomial experiments: (estimate, standard error)."""
    _check_pcs(k, n, theta)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, lfc(k, theta), size=samples)
    top = counts.max(axis=1)
    ties = np.count_nonzero(counts == top[:, None], axis=1)
    won = np.where(counts[:, 0] == top, 1.0 / ties, 0.0)
    est = float(won.mean())
    return est, float(won.std(ddof=1) / math.sqrt(samples)) if samples > 1 else math.nan
