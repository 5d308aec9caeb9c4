"""Tukey's HSD over every pair of systems: blocked by topic (the two-way ANOVA's residual
variance), randomised (Carterette 2012, Sakai's Discpower), and over independent groups."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from smarteval import libm
from smarteval.errors import UsageError
from smarteval.stats.anova import ROUNDING, Anova, rounded, scores_matrix, two_way

# --------------------------------------------------------------------------- the distribution

#: Past this many degrees of freedom the studentized range is taken with infinite ones
#: (as scipy.stats.studentized_range does).
_INFINITE_DF = 100_000
#: The range of k standard normals beyond this is too rare to count (below 1e-20 for k <= 200).
_WIDEST = 16.0


def _legendre_p(x: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """P_n(x) by the three-term recurrence, and its derivative P_n'(x)."""
    p0, p1 = np.ones(len(x)), x.copy()
    for j in range(2, n + 1):
        p0, p1 = p1, ((2 * j - 1) * x * p1 - (j - 1) * p0) / j
    return p1, n * (x * p1 - p0) / (x * x - 1)


def _gauss_legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [-1, 1] by Newton's method on P_n, with
    arithmetic and C's cos alone (numpy's ``leggauss`` takes its nodes from LAPACK's
    eigenvalues, whose last bits follow the CPU's BLAS kernel)."""
    x = libm.cos(math.pi * (np.arange(1, n + 1) - 0.25) / (n + 0.5))
    for _ in range(100):
        p, dp = _legendre_p(x, n)
        step = p / dp
        x = x - step
        if np.max(np.abs(step)) < 1e-16:
            break
    _, dp = _legendre_p(x, n)
    return x[::-1].copy(), (2 / ((1 - x * x) * dp * dp))[::-1].copy()


def _legendre(a: float, b: float, nodes: int, panels: int) -> tuple[np.ndarray, np.ndarray]:
    """Composite Gauss-Legendre nodes and weights over [a, b]."""
    x, w = _gauss_legendre(nodes)
    edges = np.linspace(a, b, panels + 1)
    half = np.diff(edges)[:, None] / 2
    mid = (edges[:-1] + edges[1:])[:, None] / 2
    return (mid + half * x).ravel(), (half * w).ravel()


def _range_sf(w: np.ndarray, k: int) -> np.ndarray:
    """P(range of k independent standard normals > w), for each w:
    k * integral of phi(z) Phi(z)^(k-1) (1 - (1 - Phi(z - w) / Phi(z))^(k-1)) dz, the
    bracket through expm1/log1p so that the far tail keeps its relative precision."""
    from scipy import special
    z, zw = _legendre(-9.0, 14.0, 20, 24)        # up to w/2 + 6 for the far tail
    log_phi = special.log_ndtr(z)
    ratio = libm.exp(special.log_ndtr(z - w[:, None]) - log_phi)        # Phi(z-w) / Phi(z)
    bracket = -libm.expm1((k - 1) * libm.log1p(-np.minimum(ratio, 1.0)))   # ratio 1: w = 0
    weight = k * zw * libm.exp(-z * z / 2 + (k - 1) * log_phi) / math.sqrt(2 * math.pi)
    return libm.matmul(bracket, weight)


#: The pieces of [0, _WIDEST] on each of which the log of the range's tail is a Chebyshev
#: series of this degree.
_PIECES, _DEGREE = 8, 30


def _range_sf_chebyshev(k: int) -> np.ndarray:
    """Chebyshev coefficients (degree, pieces) of the log of :func:`_range_sf` for k, piece
    by piece over [0, _WIDEST]: relative precision down to the far tail."""
    n = _DEGREE + 1
    angle = math.pi * (np.arange(n) + 0.5) / n
    x = libm.cos(angle)                                    # the Chebyshev nodes
    width = _WIDEST / _PIECES
    w = (np.arange(_PIECES)[:, None] + (x[None, :] + 1) / 2) * width
    logs = libm.log(_range_sf(w.ravel(), k)).reshape(w.shape)
    # the interpolant through the n nodes (numpy's chebfit solves the same system by
    # LAPACK's least squares): c_j = 2/n sum_i f(x_i) T_j(x_i), c_0 halved
    t = libm.cos(np.arange(n)[:, None] * angle[None, :])  # T_j(x_i) = cos(j angle_i)
    coef = libm.matmul(t, logs.T) * (2 / n)
    coef[0] /= 2
    return coef


def _range_tail(w: np.ndarray, k: int) -> np.ndarray:
    """:func:`_range_sf` interpolated (0 past _WIDEST)."""
    from numpy.polynomial import chebyshev
    coef = _range_sf_chebyshev(int(k))
    width = _WIDEST / _PIECES
    clipped = np.minimum(w, _WIDEST)
    piece = np.minimum((clipped / width).astype(np.int64), _PIECES - 1)
    x = 2 * (clipped / width - piece) - 1
    inside = chebyshev.chebval(x, coef[:, piece], tensor=False)
    return np.where(w >= _WIDEST, 0.0, libm.exp(np.minimum(inside, 0.0)))


def studentized_range_sf(q, k: int, df: float) -> np.ndarray:
    """P(Q > q) for the studentized range of k means with df degrees of freedom, for an
    array of q at once: scipy.stats.studentized_range.sf's numbers (within 1e-9; checked
    by the tests for k <= 100, df >= k - 1) in milliseconds where scipy takes about 8 ms
    a value. The range's own tail, interpolated in k's Chebyshev series, is integrated over
    the chi distribution of s / sigma with composite Gauss-Legendre quadrature."""
    from scipy import special, stats
    q = np.asarray(q, dtype=np.float64)

    def tail(w: np.ndarray) -> np.ndarray:
        return _range_tail(w, k)

    flat = np.abs(q.ravel())
    if df >= _INFINITE_DF:
        out = tail(flat)
    else:
        chi = stats.chi(df, scale=1 / math.sqrt(df))
        s, sw = _legendre(float(chi.ppf(1e-15)), float(chi.isf(1e-15)), 20, 8)
        log_density = (math.log(2) + (df / 2) * math.log(df / 2) - special.gammaln(df / 2)
                       + (df - 1) * libm.log(s) - df * s * s / 2)
        out = libm.matmul(tail(flat[:, None] * s[None, :]), libm.exp(log_density) * sw)
    return np.clip(out, 0.0, 1.0).reshape(q.shape)


@lru_cache(maxsize=64)
def studentized_range_ppf(confidence: float, k: int, df: float) -> float:
    """The studentized range's quantile (scipy.stats.studentized_range.ppf, once for each
    confidence, k and df: scipy takes 0.1 to 0.2 s a call, and each measure of a table over
    the same runs and queries asks the same one)."""
    from scipy import stats
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(stats.studentized_range.ppf(confidence, k, df))


# --------------------------------------------------------------------------- blocked by topic

@dataclass(frozen=True)
class Tukey:
    """Tukey's HSD over every pair of m systems, blocked by topic.

    ``diff[i, j] = mean_i - mean_j``; ``q`` the studentized range statistic
    |diff| / sqrt(V_E / n); ``p`` its p-value with m means and the residual's (m-1)(n-1)
    degrees of freedom (adjusted for every pair at once); ``ci_low``/``ci_high`` the
    simultaneous ``confidence`` interval of each difference, diff -+ ``hsd``, the honestly
    significant difference q_crit sqrt(V_E / n); ``es`` Sakai's ES_E, diff / sqrt(V_E).
    """

    means: np.ndarray
    diff: np.ndarray
    q: np.ndarray
    p: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    es: np.ndarray
    hsd: float
    confidence: float
    anova: Anova

    def needed(self, alpha: float) -> float:
        """The difference of means a pair must reach to be significant at ``alpha``:
        q_crit(1 - alpha; m, (m-1)(n-1)) sqrt(V_E / n)."""
        if self.confidence == 1 - alpha or math.isnan(self.hsd) or self.hsd == 0.0:
            return self.hsd
        m, n = self.anova.systems, self.anova.topics
        return (studentized_range_ppf(1 - alpha, m, self.anova.df_residual)
                * math.sqrt(self.anova.ms_residual / n))


def tukey_hsd(scores, confidence: float = 0.95) -> Tukey:
    """Tukey's HSD blocked by topic over ``scores`` (systems, topics), as R's
    ``TukeyHSD(aov(score ~ system + topic))``: the studentized range on the residual
    variance V_E of the two-way ANOVA without replication (Carterette, TOIS 2012; Sakai's
    book, ch. 4).

    One topic leaves no residual: q, p, the intervals and ES_E are NaN. V_E = 0 (every
    pair differs by the same amount on every topic): q = 0/0 is undefined (NaN, and so are
    p and ES_E) where the means are equal, q is infinite and p 0 where they differ, and
    the intervals have no width.
    """
    x = scores_matrix(scores)
    m, n = x.shape
    if m < 2:
        raise UsageError("Tukey's HSD compares two systems or more")
    a = two_way(x)
    ve, df = a.ms_residual, a.df_residual
    means = x.mean(axis=1)
    diff = means[:, None] - means[None, :]
    same = rounded(diff, x) == 0
    if math.isnan(ve):
        nan = np.full((m, m), math.nan)
        return Tukey(means, diff, nan, nan, nan, nan, nan, math.nan, confidence, a)
    se = math.sqrt(ve / n)
    if se == 0.0:
        q = np.where(same, math.nan, math.inf)
        p = np.where(same, math.nan, 0.0)
        hsd = 0.0
    else:
        q = np.where(same, 0.0, np.abs(diff) / se)
        p = studentized_range_sf(q, m, df)
        p[same] = 1.0
        hsd = studentized_range_ppf(confidence, m, df) * se
    es = np.where(same, 0.0 if ve else math.nan,
                  diff / math.sqrt(ve) if ve else np.copysign(math.inf, diff))
    return Tukey(means, diff, q, p, diff - hsd, diff + hsd, es, hsd, confidence, a)


# --------------------------------------------------------------------------- randomised

@dataclass(frozen=True)
class RandomizedTukey:
    """Randomised Tukey HSD over every pair of m systems.

    ``p[i, j]``: the share of the ``samples`` permutations whose largest difference of
    system means reaches |mean_i - mean_j|; ``exact``: every permutation was enumerated
    (then ``samples`` is their number, (m!)^n). ``ranges`` holds each permutation's
    largest difference, sorted.
    """

    diff: np.ndarray
    p: np.ndarray
    samples: int
    exact: bool
    ranges: np.ndarray

    def critical(self, alpha: float) -> float:
        """The difference of means a pair must exceed to have p < alpha: the
        ceil(alpha B)-th largest of the permutations' largest differences (NaN when
        alpha B < 1: no pair can)."""
        k = math.ceil(alpha * self.samples - 1e-9)
        if k < 1:
            return math.nan
        return float(self.ranges[len(self.ranges) - min(k, len(self.ranges))])


#: Values held at once by the permutations of one block (8 MiB of doubles).
_CELLS = 1 << 20


def randomized_tukey(scores, samples: int = 10000, seed: int | None = 0) -> RandomizedTukey:
    """Randomised Tukey HSD over ``scores`` (systems, topics): each topic's scores are
    permuted across the systems, ``samples`` times (drawn from ``seed``), or every way
    when (m!)^n <= ``samples``; each permutation gives the largest difference of system
    means; a pair's p is the share of permutations where it is at least the pair's observed
    |difference| (within 100 ulp of the sums). Distribution-free; p is adjusted for every
    pair at once, as Tukey's HSD is (Carterette, TOIS 2012; Sakai, Discpower)."""
    x = scores_matrix(scores)
    m, n = x.shape
    if m < 2:
        raise UsageError("Tukey's HSD compares two systems or more")
    if n == 0:
        raise UsageError("randomised Tukey HSD needs at least one topic")
    if samples < 1:
        raise UsageError(f"--samples must be at least 1, not {samples}")
    sums = x.sum(axis=1)
    every = _every_count(m, n, samples)
    ranges = np.empty(every if every else samples)
    for start, block in _permuted_sums(x, every, samples, seed):
        ranges[start:start + len(block)] = block.max(axis=1) - block.min(axis=1)
    ranges.sort()
    observed = np.abs(sums[:, None] - sums[None, :])
    slack = 100 * np.finfo(np.float64).eps * max(float(np.abs(sums).max()), 1e-300)
    reach = len(ranges) - np.searchsorted(ranges, observed - slack, side="left")
    p = reach / len(ranges)
    p[rounded(observed / n, x) == 0] = 1.0
    return RandomizedTukey(diff=(sums[:, None] - sums[None, :]) / n, p=p,
                           samples=len(ranges), exact=bool(every), ranges=ranges / n)


def _every_count(m: int, n: int, samples: int) -> int:
    """(m!)^n when it is at most ``samples`` (every permutation is then enumerated), else 0."""
    f = math.factorial(m)
    total = 1
    for _ in range(n):
        total *= f
        if total > samples:
            return 0
    return total


def _permuted_sums(x: np.ndarray, every: int, samples: int, seed: int | None):
    """Blocks of (start, system sums (b, m)) of permuted score matrices: every permutation
    in turn when ``every``, else ``samples`` random ones."""
    import itertools
    m, n = x.shape
    xt = np.ascontiguousarray(x.T)                          # (topics, systems)
    step = max(1, _CELLS // (m * n))
    if every:
        perms = np.array(list(itertools.permutations(range(m))))      # (m!, m)
        f = len(perms)
        topics = np.arange(n)
        for start in range(0, every, step):
            idx = np.arange(start, min(every, start + step))
            digits = (idx[:, None] // f ** topics) % f                  # (b, n) mixed radix
            order = perms[digits]                                       # (b, n, m)
            yield start, np.take_along_axis(np.broadcast_to(xt, order.shape), order,
                                            axis=2).sum(axis=1)
        return
    rng = np.random.default_rng(seed)
    for start in range(0, samples, step):
        b = min(step, samples - start)
        block = np.tile(xt, (b, 1))
        rng.permuted(block, axis=1, out=block)
        yield start, block.reshape(b, n, m).sum(axis=1)


# --------------------------------------------------------------------------- independent groups

def tukey_independent(groups, confidence: float = 0.95
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tukey's HSD over the rows of ``groups`` (runs, queries) as independent groups
    (scipy.stats.tukey_hsd, statsmodels' ``pairwise_tukeyhsd``): the differences of means
    ``mean_i - mean_j``, their p-values, adjusted for every pair, and the simultaneous
    ``confidence`` interval of each difference, diff -+ q_crit sqrt(MSE / 2 (1/n_i +
    1/n_j)) (Tukey-Kramer), each of shape (runs, runs). It ignores that every run answers
    the same queries. No spread within the groups (MSE = 0): a p-value is 0 where the
    means differ (q infinite) and undefined (NaN, q = 0/0) where they are equal, as
    scipy gives it; the interval is then the difference itself."""
    from scipy import stats
    g = np.asarray(groups, dtype=np.float64)
    if g.shape[1] < 2:
        raise UsageError("Tukey's HSD over independent groups needs two queries or more "
                         "in every run")
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        r = stats.tukey_hsd(*g)
        interval = r.confidence_interval(confidence_level=confidence)
    return (np.array(r.statistic, dtype=float), np.array(r.pvalue, dtype=float),
            np.array(interval.low, dtype=float), np.array(interval.high, dtype=float))


__all__ = ["ROUNDING", "RandomizedTukey", "Tukey", "randomized_tukey", "studentized_range_ppf",
           "studentized_range_sf", "tukey_hsd", "tukey_independent"]
