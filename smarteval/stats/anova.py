"""Two-way ANOVA without replication (system x topic) over a run-by-topic score matrix, the
system effect's size, and the within-system variance estimates of topic-set-size design."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from smarteval.errors import UsageError

#: Residuals smaller than this share of the largest score are rounding, not variation: an
#: exactly additive matrix of decimal scores (0.1 + 0.2) leaves residuals of 1e-17.
ROUNDING = 1e-12


def scores_matrix(scores) -> np.ndarray:
    """``scores`` as a float (systems, topics) matrix without NaN, or UsageError."""
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2:
        raise UsageError(f"scores must be a (systems, topics) matrix, got shape {x.shape}")
    if x.size and np.isnan(x).any():
        raise UsageError("scores hold NaN: leave out the topics without a value first")
    return x


def rounded(values: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``values`` (deviations computed from the scores ``x``) with rounding noise set to 0."""
    scale = float(np.abs(x).max()) if x.size else 0.0
    return np.where(np.abs(values) <= ROUNDING * scale, 0.0, values)


def residuals(x: np.ndarray) -> np.ndarray:
    """x_ij - system mean_i - topic mean_j + grand mean, rounding noise set to 0."""
    return rounded(x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True)
                   + x.mean(), x)


@dataclass(frozen=True)
class Anova:
    """Two-way ANOVA without replication of m systems by n topics.

    Sums of squares ``ss_*``, degrees of freedom ``df_*`` (system m-1, topic n-1, residual
    (m-1)(n-1)), mean squares ``ms_*`` (``ms_residual`` is V_E), F and p of the system and
    topic effects. With one topic there is no residual (df 0): V_E, F and p are NaN. Where
    V_E is 0 (every system differs from another by the same amount on every topic), F is
    inf and p 0 for an effect that exists, and F = 0/0 is undefined (NaN, and so is p) for
    one that does not (:data:`UNDEFINED_F`).
    """

    systems: int
    topics: int
    ss_system: float
    ss_topic: float
    ss_residual: float
    df_system: int
    df_topic: int
    df_residual: int

    @property
    def ss_total(self) -> float:
        return self.ss_system + self.ss_topic + self.ss_residual

    @property
    def df_total(self) -> int:
        return self.systems * self.topics - 1

    @property
    def ms_system(self) -> float:
        return _ratio(self.ss_system, self.df_system)

    @property
    def ms_topic(self) -> float:
        return _ratio(self.ss_topic, self.df_topic)

    @property
    def ms_residual(self) -> float:
        """V_E, the residual variance: what Tukey's HSD and ES_E divide by."""
        return _ratio(self.ss_residual, self.df_residual)

    @property
    def f_system(self) -> float:
        return _f(self.ms_system, self.ms_residual, self.ss_system, self.df_system)

    @property
    def f_topic(self) -> float:
        return _f(self.ms_topic, self.ms_residual, self.ss_topic, self.df_topic)

    @property
    def p_system(self) -> float:
        return _p(self.f_system, self.df_system, self.df_residual)

    @property
    def p_topic(self) -> float:
        return _p(self.f_topic, self.df_topic, self.df_residual)

    @property
    def eta2(self) -> float:
        """eta-squared of the system effect: S_system / S_total."""
        return _ratio(self.ss_system, self.ss_total)

    @property
    def partial_eta2(self) -> float:
        """Partial eta-squared: S_system / (S_system + S_residual)."""
        return _ratio(self.ss_system, self.ss_system + self.ss_residual)

    @property
    def omega2(self) -> float:
        """omega-squared: (S_system - df_system V_E) / (S_total + V_E)."""
        return _ratio(self.ss_system - self.df_system * self.ms_residual,
                      self.ss_total + self.ms_residual)

    @property
    def partial_omega2(self) -> float:
        """Partial omega-squared: df_system (F - 1) / (df_system (F - 1) + m n)."""
        a = self.df_system * (self.f_system - 1)
        return _ratio(a, a + self.systems * self.topics)

    def rows(self) -> list[dict]:
        """The ANOVA table: one row per source (system, topic, residual, total)."""
        return [
            {"source": "system", "ss": self.ss_system, "df": self.df_system,
             "ms": self.ms_system, "f": self.f_system, "p": self.p_system},
            {"source": "topic", "ss": self.ss_topic, "df": self.df_topic,
             "ms": self.ms_topic, "f": self.f_topic, "p": self.p_topic},
            {"source": "residual", "ss": self.ss_residual, "df": self.df_residual,
             "ms": self.ms_residual, "f": math.nan, "p": math.nan},
            {"source": "total", "ss": self.ss_total, "df": self.df_total, "ms": math.nan,
             "f": math.nan, "p": math.nan}]

    def effect_sizes(self) -> dict[str, float]:
        """The system effect's size four ways."""
        return {"eta2": self.eta2, "partial_eta2": self.partial_eta2, "omega2": self.omega2,
                "partial_omega2": self.partial_omega2}


#: Why an effect's F (and p) is undefined where V_E and the effect's sum of squares are 0.
UNDEFINED_F = "the residual variance and the effect's sum of squares are both 0, so F = 0/0"


def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


def _f(ms: float, ve: float, ss: float, df: int) -> float:
    if df == 0 or math.isnan(ve):
        return math.nan
    if ve == 0.0:
        return math.nan if ss == 0.0 else math.inf
    return ms / ve


def _p(f: float, df1: int, df2: int) -> float:
    if math.isnan(f):
        return math.nan
    if math.isinf(f):
        return 0.0
    from scipy import stats
    return float(stats.f.sf(f, df1, df2))


def two_way(scores) -> Anova:
    """The two-way ANOVA without replication of ``scores`` (systems, topics).

    By example, Sakai's Table 5.1 (three systems, twenty topics): S_system 0.1083 (df 2),
    S_topic 1.0293 (df 19), S_residual 0.8317 (df 38), V_E 0.0219, F 2.475, p 0.098.
    """
    x = scores_matrix(scores)
    m, n = x.shape
    if m == 0 or n == 0:
        raise UsageError("an ANOVA needs at least one system and one topic")
    grand = x.mean()
    ss_system = float(n * np.sum(rounded(x.mean(axis=1) - grand, x) ** 2))
    ss_topic = float(m * np.sum(rounded(x.mean(axis=0) - grand, x) ** 2))
    ss_residual = float(np.sum(residuals(x) ** 2))
    return Anova(systems=m, topics=n, ss_system=ss_system, ss_topic=ss_topic,
                 ss_residual=ss_residual, df_system=m - 1, df_topic=n - 1,
                 df_residual=(m - 1) * (n - 1))


def within_variance(scores) -> float:
    """The within-system variance of one-way ANOVA: each system's sum of squares about its
    own mean, pooled over m(n-1) degrees of freedom (Sakai 2016's estimate for topic set
    size design). NaN with one topic."""
    x = scores_matrix(scores)
    m, n = x.shape
    ss = float(np.sum((x - x.mean(axis=1, keepdims=True)) ** 2))
    return _ratio(ss, m * (n - 1))


def standardized_differences(scores, ve: float | None = None) -> np.ndarray:
    """Sakai's ES_E of every pair: (mean_i - mean_j) / sqrt(V_E), shape (systems, systems).

    V_E is the residual variance of :func:`two_way` unless given. V_E = 0: undefined
    (NaN, 0/0) where the means are equal, +-inf where they differ; V_E undefined (one
    topic): NaN.
    """
    x = scores_matrix(scores)
    if ve is None:
        ve = two_way(x).ms_residual
    means = x.mean(axis=1)
    d = rounded(means[:, None] - means[None, :], x)
    if math.isnan(ve):
        return np.full(d.shape, math.nan)
    if ve == 0.0:
        return np.where(d == 0, math.nan, np.copysign(math.inf, d))
    return d / math.sqrt(ve)
