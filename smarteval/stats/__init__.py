"""Statistics comparing runs: merit, significance, ANOVA and Tukey's HSD, discriminative
power, topic set sizes, best-run selection, correlation, risk."""

from __future__ import annotations

from smarteval.stats.anova import Anova, standardized_differences, two_way, within_variance
from smarteval.stats.baseline_risk import Risk, risk
from smarteval.stats.correlation import (
    LeaderboardCorrelation,
    RankCorrelation,
    kendall_tau,
    leaderboard_correlation,
    pearson,
    rank_correlation,
    spearman,
    tau_ap,
)
from smarteval.stats.discpower import DISCPOWER_TESTS, Discpower, discpower, discriminative_power
from smarteval.stats.merit import Magnitudes, Merit, align, differences, magnitudes, merit
from smarteval.stats.report import (
    Leaderboards,
    Report,
    build_report,
    compare_runs,
    correlate_results,
    leaderboards,
)
from smarteval.stats.selection import (
    CAVEAT,
    PCS_EXACT_MAX_RUNS,
    Selection,
    bechhofer_pcs,
    lfc,
    pcs_exact,
    pcs_simulated,
    select_best,
    selection_from_points,
    selection_points,
)
from smarteval.stats.significance import (
    ALL_PAIRS_TESTS,
    ASSUMES,
    CORRECTIONS,
    TESTS,
    TestResult,
    adjust,
    effect_size,
    hedges_g_av,
    paired_test,
    t_interval,
)
from smarteval.stats.topicsets import Design, topics_needed, variance_estimate
from smarteval.stats.tukey import (
    RandomizedTukey,
    Tukey,
    randomized_tukey,
    studentized_range_sf,
    tukey_hsd,
    tukey_independent,
)

__all__ = [
    "TESTS", "CORRECTIONS", "CAVEAT", "PCS_EXACT_MAX_RUNS", "Merit", "merit", "Magnitudes",
    "magnitudes", "align", "differences", "TestResult", "paired_test", "effect_size",
    "t_interval", "adjust", "Selection", "selection_points", "select_best",
    "selection_from_points", "bechhofer_pcs", "pcs_exact", "pcs_simulated", "lfc",
    "kendall_tau", "spearman", "pearson", "tau_ap", "RankCorrelation", "rank_correlation",
    "LeaderboardCorrelation", "leaderboard_correlation", "Report", "build_report",
    "compare_runs", "Leaderboards", "leaderboards", "correlate_results", "Risk", "risk",
    "ALL_PAIRS_TESTS", "ASSUMES", "hedges_g_av", "Anova", "two_way", "within_variance",
    "standardized_differences", "Tukey", "tukey_hsd", "RandomizedTukey", "randomized_tukey",
    "tukey_independent", "studentized_range_sf", "DISCPOWER_TESTS", "Discpower", "discpower",
    "discriminative_power", "Design", "topics_needed", "variance_estimate",
]
