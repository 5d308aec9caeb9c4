"""Keen's merit of a run against a baseline: queries paired by id, better/worse/equal counts
(Fig. 35) and the magnitudes of the differences (Fig. 36)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# --------------------------------------------------------------------------- unjudged

#: The columns ``--unjudged range`` adds to a comparison: the interval of the difference of
#: the means (run - other) that the unjudged documents leave open, and whether it holds 0.
UNJUDGED_COLUMNS = ("unjudged_low", "unjudged_high", "within_unjudged")


def unjudged_interval(run_min: np.ndarray, run_max: np.ndarray, other_min: np.ndarray,
                      other_max: np.ndarray) -> tuple[float, float]:
    """The lowest and highest difference of the means, run - other, when each query's value
    may be any between its bounds over the gradings of the unjudged documents
    (``--unjudged range``'s ``NAME_min`` and ``NAME_max``).

    Each run's bounds are taken apart, so a document both runs retrieved unjudged may be
    relevant in one and not the other: the interval holds the difference under every
    grading, and may be wider than the differences the gradings give.

    By example: run [.5], [.9], other [.4], [.6]  ->  (.5 - .6, .9 - .4) = (-0.1, 0.5)
    """
    if not len(run_min):
        return math.nan, math.nan
    return (float(np.mean(run_min) - np.mean(other_max)),
            float(np.mean(run_max) - np.mean(other_min)))


def unjudged_note(run: str, other: str, name: str, diff: float, low: float,
                  high: float) -> str:
    """The note of a difference the unjudged documents could undo (its interval holds 0)."""
    return (f"{run} - {other} on {name}: {diff:+.4f} lies within what the unjudged documents "
            f"leave open, [{low:+.4f}, {high:+.4f}] (--unjudged range)")


def unbounded_note(name: str) -> str:
    """The note of a measure ``--unjudged range`` gives two readings of, not bounds: its
    differences have no interval."""
    return (f"{name}: no interval of the differences the unjudged documents leave open "
            f"(--unjudged range gives {name} and {name}_if_relevant, two readings, not "
            "bounds)")


# --------------------------------------------------------------------------- alignment

def align(base_qids: np.ndarray, run_qids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pair two runs' queries by id: the shared ids (sorted) and their row in each run.

    By example: base ['1','2','3'], run ['3','1','4']
                ->  ids ['1','3'], base rows [0,2], run rows [1,0]
    """
    base_qids = np.asarray(base_qids).astype(str)
    run_qids = np.asarray(run_qids).astype(str)
    ids, bi, ri = np.intersect1d(base_qids, run_qids, assume_unique=False, return_indices=True)
    return ids, bi, ri


def shared_values(evaluations, names, nothing: str) -> tuple[np.ndarray, np.ndarray]:
    """The query ids every evaluation has (sorted) and each evaluation's per-query values
    of ``names`` on them, shape (evaluations, names, queries). No shared query raises
    UsageError with the message ``nothing``."""
    from smarteval.errors import UsageError
    ids = np.asarray(evaluations[0].qids).astype(str)
    for ev in evaluations[1:]:
        ids = np.intersect1d(ids, np.asarray(ev.qids).astype(str))
    if len(ids) == 0:
        raise UsageError(nothing)
    values = np.empty((len(evaluations), len(names), len(ids)))
    for i, ev in enumerate(evaluations):
        qids = np.asarray(ev.qids).astype(str)
        order = np.argsort(qids, kind="stable")
        rows = order[np.searchsorted(qids[order], ids)]
        for j, name in enumerate(names):
            values[i, j] = np.asarray(ev.per_query[name], dtype=np.float64)[rows]
    return ids, values


def undefined_note(name: str, qids, runs: Sequence[str], missing: np.ndarray,
                   shown: int = 10) -> str:
    """The note naming the queries left out of ``name`` for lack of a value; ``missing``
    (runs, those queries) tells which runs have none."""
    qids = [str(q) for q in qids]
    listed = ", ".join(qids[:shown]) + (f" and {len(qids) - shown} more"
                                        if len(qids) > shown else "")
    who = [runs[int(r)] for r in np.flatnonzero(missing.any(axis=1))]
    return (f"{name}: {len(qids)} quer{'y' if len(qids) == 1 else 'ies'} without a value "
            f"(NaN) in {', '.join(who)} left out of its means and tests: {listed}")


# --------------------------------------------------------------------------- Keen's merit

@dataclass(frozen=True)
class Merit:
    """Numbers of queries better, worse and equal for a run against the baseline (Keen Fig. 35).

    Keen's option I is the run, option II the baseline: ``better`` counts the queries
    where the run beats the baseline.
    """

    better: int
    worse: int
    equal: int

    @property
    def n(self) -> int:
        return self.better + self.worse + self.equal

    def percentages(self) -> dict[str, dict[str, float | None]]:
        """The rows of Keen's Fig. 35 as percentages, each with its superiority percentage.

        Fig. 35's 6 better, 4 worse and 2 equal give: ignoring equal cases 60/40 (20),
        including equal cases 50/33/17 (17), adding equal cases to both 67/50 (17).
        A row whose denominator is zero gives None.
        """
        b, w, e, n = self.better, self.worse, self.equal, self.n

        def pct(x: int, d: int) -> float | None:
            return 100.0 * x / d if d else None

        def sup(x: float | None, y: float | None) -> float | None:
            return None if x is None or y is None else x - y

        rows = {}
        ib, iw = pct(b, b + w), pct(w, b + w)
        rows["ignoring_equal"] = {"better": ib, "worse": iw, "equal": None,
                                  "superiority": sup(ib, iw)}
        nb, nw, ne = pct(b, n), pct(w, n), pct(e, n)
        rows["including_equal"] = {"better": nb, "worse": nw, "equal": ne,
                                   "superiority": sup(nb, nw)}
        ab, aw = pct(b + e, n), pct(w + e, n)
        rows["adding_equal"] = {"better": ab, "worse": aw, "equal": None,
                                "superiority": sup(ab, aw)}
        return rows

    @property
    def superiority(self) -> float | None:
        """Keen's superiority percentage in the form SMART mostly used (ignoring equal cases)."""
        return self.percentages()["ignoring_equal"]["superiority"]


def merit(base: np.ndarray, run: np.ndarray, tolerance: float = 0.0) -> Merit:
    """Count the queries where ``run`` is better than, worse than or equal to ``base``.

    Values whose difference is at most ``tolerance`` count as equal.
    """
    d = differences(base, run)
    better = int(np.count_nonzero(d > tolerance))
    worse = int(np.count_nonzero(d < -tolerance))
    return Merit(better, worse, len(d) - better - worse)


@dataclass(frozen=True)
class Magnitudes:
    """Keen's Fig. 36 data: the per-query differences on each side, largest first.

    ``better`` holds run - baseline for the queries the run wins, ``worse`` holds
    baseline - run for the queries the baseline wins; ``*_qids`` name the queries.
    """

    better: np.ndarray
    worse: np.ndarray
    better_qids: np.ndarray
    worse_qids: np.ndarray
    mean_base: float
    mean_run: float


def magnitudes(base: np.ndarray, run: np.ndarray, qids: np.ndarray | None = None,
               tolerance: float = 0.0) -> Magnitudes:
    """The magnitude-difference data of Keen's Fig. 36 (differences sorted within each side)."""
    d = differences(base, run)
    if qids is None:
        qids = np.arange(len(d)).astype(str)
    qids = np.asarray(qids).astype(str)
    up = np.flatnonzero(d > tolerance)
    down = np.flatnonzero(d < -tolerance)
    # stable sort on the negated magnitude: largest first, ties in query order
    up = up[np.argsort(-d[up], kind="stable")]
    down = down[np.argsort(d[down], kind="stable")]
    return Magnitudes(better=d[up], worse=-d[down], better_qids=qids[up], worse_qids=qids[down],
                      mean_base=float(np.mean(base)) if len(d) else math.nan,
                      mean_run=float(np.mean(run)) if len(d) else math.nan)


def differences(base: np.ndarray, run: np.ndarray) -> np.ndarray:
    """run - base, query by query, for two aligned 1-d arrays."""
    base = np.asarray(base, dtype=np.float64)
    run = np.asarray(run, dtype=np.float64)
    if base.shape != run.shape or base.ndim != 1:
        raise ValueError(f"per-query arrays must be aligned 1-d arrays, got {base.shape} "
                         f"and {run.shape}")
    return run - base
