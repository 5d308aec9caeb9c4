"""The table of a paper as data: runs x measures, each mean with its interval, the best of
each column, and which runs are significantly better than which (every pair, or against
baselines), corrected over the whole family of comparisons; Keen's win/tie/loss counts."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from smarteval.errors import UsageError
from smarteval.settings import Settings
from smarteval.stats.merit import (
    shared_values,
    unbounded_note,
    undefined_note,
    unjudged_interval,
    unjudged_note,
)
from smarteval.stats.significance import (
    ALL_PAIRS_TESTS,
    CORRECTIONS,
    TESTS,
    UNDEFINED,
    adjust,
    intervals,
    paired_tests,
)

#: The ways a mean's interval is given (``--ci``).
INTERVALS = ("t", "bootstrap")
#: Default measures of a table.
DEFAULT_MEASURES = ("map", "P.10", "ndcg_cut.10")
#: The marks of the first baselines; later ones double them.
BASELINE_SYMBOLS = ("\u2020", "\u2021", "\u00a7", "\u00b6", "\u2016")


def letters(count: int) -> list[str]:
    """The letters naming ``count`` runs: a..z, A..Z, then aa, ab, ..."""
    alphabet = [chr(c) for c in range(ord("a"), ord("z") + 1)] + \
        [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    out = list(alphabet[:count])
    first = 0
    while len(out) < count:
        out += [alphabet[first] + b for b in alphabet][:count - len(out)]
        first += 1
    return out


def baseline_symbols(count: int) -> list[str]:
    """The mark of each baseline: dagger, double dagger, section, pilcrow, double bar,
    then each doubled, tripled..."""
    k = len(BASELINE_SYMBOLS)
    return [BASELINE_SYMBOLS[i % k] * (i // k + 1) for i in range(count)]


@dataclass
class Table:
    """The table and what stands behind each mark.

    ``values[r, m]`` holds run r's per-query values of measure m on the queries ``qids``
    every run has; ``kept[m]`` the queries where every run has a value of m (NaN values,
    such as ``-J`` gives a query with nothing judged, leave their query out of m's means
    and tests). ``means``, ``ci_low``, ``ci_high`` and ``rank`` (1 is best, equal means
    share the better place, 0 for a mean that is undefined) are (runs, measures).
    ``pairs[k] = (a, b)``: comparison k tests run a against run b (every pair a < b, or
    each run against each baseline b); ``diff``, ``statistic``, ``p_value``,
    ``p_adjusted``, ``better``, ``effect`` (Sakai's ES_E, diff / sqrt(V_E)) and, for
    Tukey's HSD (blocked or over independent groups), ``pair_low``/``pair_high`` (the
    simultaneous interval of the difference)
    are (pairs, measures), ``better`` +1 where a is significantly better than b, -1 where
    b is better than a, 0 neither. ``wins[k, m]`` counts the queries where a is better,
    equal, worse. ``anovas[m]``: measure m's two-way ANOVA without replication (None for
    one run); ``critical[m]``: under tukey and randomized-tukey, the difference of means a
    pair must exceed to be significant at alpha. ``symbols`` are the run letters (every
    pair) or the baseline marks.
    """

    runs: list[str]
    paths: list[str]
    measures: list[str]
    qids: np.ndarray
    values: np.ndarray
    means: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    rank: np.ndarray
    baselines: list[int]
    test: str
    correction: str
    alpha: float
    confidence: float
    interval: str | None
    samples: int
    pairs: np.ndarray
    diff: np.ndarray
    statistic: np.ndarray
    p_value: np.ndarray
    p_adjusted: np.ndarray
    better: np.ndarray
    wins: np.ndarray
    symbols: list[str]
    tolerance: float = 0.0
    exact: bool | None = None
    notes: list[str] = field(default_factory=list)
    kept: np.ndarray = field(default_factory=lambda: np.ones((0, 0), dtype=bool))
    effect: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    pair_low: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    pair_high: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    anovas: list = field(default_factory=list)
    critical: np.ndarray = field(default_factory=lambda: np.zeros(0))
    #: (pairs, measures) the interval of each difference the unjudged documents leave
    #: open (--unjudged range; empty otherwise)
    unjudged_low: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    unjudged_high: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    @property
    def unjudged(self) -> bool:
        """Whether the comparisons hold the unjudged documents' intervals."""
        return self.unjudged_low.size > 0

    def queries(self, m: int) -> int:
        """The number of queries measure m's means and tests are over (those with a value
        in every run)."""
        return int(self.kept[m].sum())

    @property
    def all_pairs(self) -> bool:
        return not self.baselines

    @property
    def family(self) -> int:
        """The number of comparisons the correction is applied over."""
        return int(self.p_value.size)

    @property
    def best(self) -> np.ndarray:
        return self.rank == 1

    @property
    def second(self) -> np.ndarray:
        """The runs with the second-highest mean of a column (after every best one)."""
        out = np.zeros_like(self.best)
        for m in range(len(self.measures)):
            below = self.means[:, m][self.rank[:, m] > 1]
            if len(below):
                out[:, m] = self.means[:, m] == below.max()
        return out

    def marks(self) -> list[list[list[int]]]:
        """For each run and measure, what its marks name: the runs it is significantly
        better than (every pair), or the baselines (their position in ``baselines``)."""
        out: list[list[list[int]]] = [[[] for _ in self.measures] for _ in self.runs]
        where = {b: i for i, b in enumerate(self.baselines)}
        for k, m in zip(*np.nonzero(self.better)):
            a, b = (int(x) for x in self.pairs[k])
            if self.all_pairs:
                win, lose = (a, b) if self.better[k, m] > 0 else (b, a)
                out[win][m].append(lose)
            elif self.better[k, m] > 0:         # run a beats its baseline b
                out[a][m].append(where[b])
        for row in out:
            for cell in row:
                cell.sort()
        return out

    def cells(self) -> list[dict]:
        """One row per (run, measure): mean, interval, place and marks."""
        marks, second = self.marks(), self.second
        named = self.runs if self.all_pairs else [self.runs[b] for b in self.baselines]
        return [{"run": run, "measure": name, "n": self.queries(m),
                 "mean": float(self.means[r, m]), "ci_low": float(self.ci_low[r, m]),
                 "ci_high": float(self.ci_high[r, m]), "rank": int(self.rank[r, m]),
                 "best": bool(self.rank[r, m] == 1), "second": bool(second[r, m]),
                 "marks": "".join(self.symbols[i] for i in marks[r][m]),
                 "better_than": [named[i] for i in marks[r][m]]}
                for r, run in enumerate(self.runs) for m, name in enumerate(self.measures)]

    def comparisons(self) -> list[dict]:
        """One row per comparison: the pair, its number of queries, the difference of the
        means with (Tukey's HSD) its simultaneous interval, Sakai's ES_E, the test's
        statistic, raw and adjusted p, and which run (if any) is significantly better."""
        rows = []
        for m, name in enumerate(self.measures):
            for k, (a, b) in enumerate(self.pairs.tolist()):
                better = {1: self.runs[a], -1: self.runs[b]}.get(int(self.better[k, m]), "")
                rows.append({
                    "measure": name, "run": self.runs[a], "other": self.runs[b],
                    "n": self.queries(m), "mean_run": float(self.means[a, m]),
                    "mean_other": float(self.means[b, m]), "diff": float(self.diff[k, m]),
                    "ci_low": float(self.pair_low[k, m]), "ci_high": float(self.pair_high[k, m]),
                    "es_e": float(self.effect[k, m]), "test": self.test,
                    "statistic": float(self.statistic[k, m]),
                    "p_value": float(self.p_value[k, m]),
                    "p_adjusted": float(self.p_adjusted[k, m]),
                    "significant": bool(self.better[k, m] != 0), "better": better})
                if self.unjudged:
                    low, high = float(self.unjudged_low[k, m]), float(self.unjudged_high[k, m])
                    rows[-1].update(unjudged_low=low, unjudged_high=high,
                                    within_unjudged=bool(low <= 0 <= high))
        return rows

    def anova_rows(self) -> list[dict]:
        """Each measure's two-way ANOVA without replication (runs x queries): one row per
        source (system, topic, residual, total) with its sum of squares, df, mean square,
        F and p; the system row also gives the effect's size (eta-squared, partial
        eta-squared, omega-squared, partial omega-squared)."""
        rows = []
        for name, a in zip(self.measures, self.anovas, strict=True):
            if a is None:
                continue
            sizes = a.effect_sizes()
            for row in a.rows():
                rows.append({"measure": name, **row,
                             **{k: (v if row["source"] == "system" else math.nan)
                                for k, v in sizes.items()}})
        return rows

    def win_counts(self) -> list[dict]:
        """Keen's Fig. 35 numbers for each pair and measure: the queries where the run is
        better than, equal to and worse than the other (within ``tolerance``)."""
        return [{"run": self.runs[a], "other": self.runs[b], "measure": name,
                 "better": int(self.wins[k, m, 0]), "equal": int(self.wins[k, m, 1]),
                 "worse": int(self.wins[k, m, 2])}
                for k, (a, b) in enumerate(self.pairs.tolist())
                for m, name in enumerate(self.measures)]

    def deltas(self, baseline: str | None = None) -> list[dict]:
        """Each run's per-query differences from a baseline (run - baseline), one row per
        (baseline, run, measure, query); every baseline when ``baseline`` is None (a run
        label names another)."""
        if baseline is not None:
            if baseline not in self.runs:
                raise UsageError(f"no run is labelled {baseline!r}: the runs are "
                                 + ", ".join(self.runs))
            chosen = [self.runs.index(baseline)]
        else:
            chosen = list(self.baselines)
        qids = self.qids.tolist()
        rows: list[dict] = []
        for b in chosen:
            for r, run in enumerate(self.runs):
                if r == b:
                    continue
                for m, name in enumerate(self.measures):
                    d = self.values[r, m] - self.values[b, m]
                    rows.extend({"baseline": self.runs[b], "run": run, "measure": name,
                                 "query": q, "delta": float(v)}
                                for q, v in zip(qids, d.tolist(), strict=True))
        return rows


# --------------------------------------------------------------------------- building it

def check_choices(test: str, correction: str | None, interval: str | None,
                  baselines: Sequence[str]) -> str:
    """Refuse a test, correction or interval the table does not know; the correction that
    applies (None: holm, or for tukey nothing beyond its own adjustment)."""
    if test not in (*TESTS, *ALL_PAIRS_TESTS):
        raise UsageError(f"unknown test {test!r}: --test takes "
                         + ", ".join((*TESTS, *ALL_PAIRS_TESTS)))
    if test in ALL_PAIRS_TESTS and baselines:
        raise UsageError(f"--test {test} compares every pair of runs at once: give no "
                         "--baseline (nor --baseline-results), or another test")
    if correction is not None and correction not in CORRECTIONS:
        raise UsageError(f"unknown correction {correction!r}: expected one of "
                         + ", ".join(CORRECTIONS))
    if interval is not None and interval not in INTERVALS:
        raise UsageError(f"unknown interval {interval!r}: --ci takes {', '.join(INTERVALS)}")
    if correction is None:
        return "none" if test in ALL_PAIRS_TESTS else "holm"
    return correction


def _find(spec: str, evaluations, labels: Sequence[str], what: str) -> int:
    """The run a ``--baseline`` or ``--label`` names. A path that names one of the runs'
    files is that run, always (``./a.run`` for ``a.run`` too); otherwise its label or run
    tag, which must name one run (a name several runs go by is refused)."""
    import os

    from smarteval.read.source import same_file
    if os.path.isfile(spec):
        found = [i for i, ev in enumerate(evaluations)
                 if isinstance(ev.path, str) and same_file(ev.path, spec)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise UsageError(f"{what} {spec}: this file is given as several runs: give a "
                             "label (--label) to tell them apart")
    found = sorted({i for i in range(len(evaluations))
                    if spec in (labels[i], evaluations[i].name, evaluations[i].path)})
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise UsageError(f"{what} {spec}: several runs go by this name "
                         f"({', '.join(labels[i] for i in found)}): give the path")
    raise UsageError(f"{what} {spec}: none of the runs given (their paths, tags or labels: "
                     + ", ".join(labels) + ")")


def _label_pairs(labels: Mapping[str, str] | Sequence[str] | None) -> list[tuple[str, str]]:
    from smarteval.read.frames import check_field
    if not labels:
        return []
    pairs = list(labels.items()) if isinstance(labels, Mapping) else \
        [parse_label(text) for text in labels]
    for _, label in pairs:
        check_field(str(label), "--label", "a label")
    return pairs


def _names_measure(key: str, names: Sequence[str]) -> str | None:
    """The measure of ``names`` a ``--label`` key names, as printed (``ndcg_cut_10``) or as
    -m writes it (``ndcg_cut.10``); None if none."""
    for name in names:
        if key == name or key.replace(".", "_", 1) == name:
            return name
    return None


def _measure_key(key: str, label: str, evaluations, names: Sequence[str]) -> str | None:
    """The measure a ``--label`` key names (None: a run's), refusing a key that names both."""
    import os
    name = _names_measure(key, names)
    if name is None or os.path.isfile(key):
        return None
    if any(key in (ev.name, ev.path) for ev in evaluations):
        raise UsageError(f"--label {key}={label}: {key} names a run and a measure: give "
                         "the run's path to label the run")
    return name


def measure_labels(evaluations, names: Sequence[str],
                   labels: Mapping[str, str] | Sequence[str] | None) -> dict[str, str]:
    """The labels ``--label`` gives measures (``ndcg_cut_10="nDCG@10"``): a key that names
    one of ``names`` and no run (a run's file, tag or label is a run's). Two measures
    labelled alike, or a label that is another measure's name, are refused."""
    out: dict[str, str] = {}
    for key, label in _label_pairs(labels):
        name = _measure_key(key, label, evaluations, names)
        if name is not None:
            out[name] = label
    shown = [out.get(n, n) for n in names]
    twice = sorted({n for n in shown if shown.count(n) > 1})
    if twice:
        raise UsageError(f"--label: several measures are named {twice[0]!r}: give each its "
                         "own")
    return out


def run_labels(evaluations, labels: Mapping[str, str] | Sequence[str] | None,
               measures: Sequence[str] = ()) -> list[str]:
    """Each run's label: its name (tag), or the label given for its path or tag (a key
    naming one of ``measures`` and no run labels that measure: :func:`measure_labels`)."""
    out = [ev.name for ev in evaluations]
    pairs = [(k, v) for k, v in _label_pairs(labels)
             if _measure_key(k, v, evaluations, measures) is None]
    if not pairs:
        return out
    named = list(out)
    for key, name in pairs:
        out[_find(key, evaluations, named, "--label")] = name
    seen: dict[str, int] = {}
    for name in out:
        seen[name] = seen.get(name, 0) + 1
    twice = [n for n, c in seen.items() if c > 1]
    if twice:
        raise UsageError(f"--label: several runs are labelled {twice[0]!r}: give each its own")
    return out


def parse_label(text: str) -> tuple[str, str]:
    """``RUN=NAME`` into (RUN, NAME)."""
    run, eq, name = text.partition("=")
    if not eq or not run or not name.strip():
        raise UsageError(f"--label {text!r}: expected RUN=NAME (a run's path or tag, and the "
                         "name it gets in the table)")
    return run, name.strip()


def build_table(evaluations, names: Sequence[str], *, baselines: Sequence[str] = (),
                labels: Mapping[str, str] | Sequence[str] | None = None, test: str = "t",
                correction: str | None = None, alpha: float = 0.05,
                confidence: float = 0.95, interval: str | None = None,
                samples: int = 10000, seed: int | None = 0,
                tolerance: float = 0.0, stored_baselines: int = 0) -> Table:
    """The table of ``evaluations`` on the measures ``names``, on the queries they all have.

    ``baselines`` (labels, tags or paths) mark the runs significantly better than each of
    them, and so do the first ``stored_baselines`` evaluations (stored baselines,
    ``--baseline-results``); without any, every pair of runs is compared. p-values are
    corrected over every comparison of the table (pairs x measures) by ``correction``.
    """
    applied = check_choices(test, correction, interval,
                            [*baselines, *(["--baseline-results"] if stored_baselines else [])])
    if not evaluations:
        raise UsageError("a table needs at least one run")
    runs = run_labels(evaluations, labels, names)
    renamed = measure_labels(evaluations, names, labels)
    base = [*range(stored_baselines),
            *(_find(b, evaluations, runs, "--baseline") for b in baselines)]
    base = list(dict.fromkeys(base))
    if len(evaluations) - len(base) < 1 and base:
        raise UsageError("every run is a --baseline: nothing is compared with them")
    notes: list[str] = []
    qids, values = shared_values(evaluations, names, "the runs share no query: there is "
                                 "nothing to average or compare")
    for r, ev in enumerate(evaluations):
        left = len(ev.qids) - len(qids)
        if left:
            notes.append(f"{runs[r]}: {left} of its queries left out (not in every run)")
    kept = ~np.isnan(values).any(axis=0)                      # (measures, queries)
    for m, name in enumerate(names):
        if not kept[m].all():
            notes.append(undefined_note(name, qids[~kept[m]], runs,
                                        np.isnan(values[:, m][:, ~kept[m]])))
    counts = kept.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(kept[None], values, 0.0).sum(axis=2) / counts[None, :]
    lo = np.full(means.shape, math.nan)
    hi = np.full(means.shape, math.nan)
    if interval is not None:
        for m in range(len(names)):
            lo[:, m], hi[:, m] = intervals(values[:, m][:, kept[m]], interval, confidence,
                                           samples=samples, seed=seed)
    rank = places(means)

    if base:
        pairs = np.array([(r, b) for b in base for r in range(len(runs)) if r != b],
                         dtype=int).reshape(-1, 2)
        symbols = baseline_symbols(len(base))
    else:
        pairs = np.array([(a, b) for a in range(len(runs)) for b in range(a + 1, len(runs))],
                         dtype=int).reshape(-1, 2)
        symbols = letters(len(runs))
    diff = means[pairs[:, 0]] - means[pairs[:, 1]]
    d = np.where(kept[None], values[pairs[:, 0]] - values[pairs[:, 1]], np.nan)   # (K, M, Q)
    with np.errstate(invalid="ignore"):
        wins = np.stack([np.count_nonzero(d > tolerance, axis=2),
                         np.count_nonzero(np.abs(d) <= tolerance, axis=2),
                         np.count_nonzero(d < -tolerance, axis=2)], axis=2)
    k, nm = len(pairs), len(names)
    tested = Tested(k, nm)
    for m, name in enumerate(names):
        scores = values[:, m][:, kept[m]]                     # (runs, queries with values)
        tested.measure(m, name, scores, pairs, test, samples=samples, seed=seed,
                       tolerance=tolerance, alpha=alpha, confidence=confidence, notes=notes)
        if scores.shape[1] >= 2:
            notes.extend(tested.undefined(m, name, test))
    p = tested.p
    p_adj = adjust(p.ravel(), applied).reshape(p.shape)
    significant = np.where(np.isnan(p_adj), False, p_adj < alpha)
    better = np.where(significant & ~np.isnan(diff), np.sign(np.nan_to_num(diff)),
                      0).astype(np.int8)
    if len(runs) < 2:
        notes.append("one run: nothing to compare")
    low, high = _unjudged_intervals(evaluations, names, qids, values, kept, pairs, diff,
                                    runs, notes)
    return Table(runs=runs, paths=[ev.path for ev in evaluations],
                 measures=[renamed.get(n, n) for n in names],
                 qids=qids, values=values, means=means, ci_low=lo, ci_high=hi, rank=rank,
                 baselines=base, test=test, correction=applied, alpha=alpha,
                 confidence=confidence, interval=interval, samples=samples, pairs=pairs,
                 diff=diff, statistic=tested.statistic, p_value=p, p_adjusted=p_adj,
                 better=better, wins=wins, symbols=symbols, tolerance=tolerance,
                 exact=tested.exact, notes=notes, kept=kept, effect=tested.effect,
                 pair_low=tested.low, pair_high=tested.high, anovas=tested.anovas,
                 critical=tested.critical, unjudged_low=low, unjudged_high=high)


def _unjudged_intervals(evaluations, names, qids, values, kept, pairs, diff, runs, notes):
    """(pairs, measures) the lowest and highest difference of each comparison the unjudged
    documents leave open, when every run has ``NAME_min`` and ``NAME_max`` (``--unjudged
    range``; NaN for a measure it gives two readings of, not bounds, with a note; empty
    without it), and a note for each that holds 0."""
    if not any(f"{n}_min" in ev.per_query or f"{n}_if_relevant" in ev.per_query
               for ev in evaluations for n in names):
        return np.zeros((0, 0)), np.zeros((0, 0))
    low = np.full((len(pairs), len(names)), math.nan)
    high = np.full((len(pairs), len(names)), math.nan)
    for m, name in enumerate(names):
        if not all(f"{name}_min" in ev.per_query for ev in evaluations):
            notes.append(unbounded_note(name))
            continue
        _, both = shared_values(evaluations, [f"{name}_min", f"{name}_max"],
                                "the runs share no query")
        least, most, q = both[:, 0], both[:, 1], kept[m]
        for k, (a, b) in enumerate(pairs.tolist()):
            low[k, m], high[k, m] = unjudged_interval(least[a, q], most[a, q],
                                                      least[b, q], most[b, q])
            if low[k, m] <= 0 <= high[k, m]:
                notes.append(unjudged_note(runs[a], runs[b], name, float(diff[k, m]),
                                           float(low[k, m]), float(high[k, m])))
    return low, high


def places(means: np.ndarray) -> np.ndarray:
    """Each run's place in each column of ``means`` (runs, measures): 1 + the number of
    runs with a higher mean, so equal means share the better place; 0 for an undefined
    (NaN) mean, which has no place and is never the best."""
    with np.errstate(invalid="ignore"):
        higher = np.count_nonzero(means[None, :, :] > means[:, None, :], axis=1)
    return np.where(np.isnan(means), 0, 1 + higher)


class Tested:
    """The test's numbers for every pair (rows) and measure (columns), filled a measure at a
    time: statistic, p, Sakai's ES_E, the simultaneous interval of Tukey's HSD, and each
    measure's ANOVA and the difference a pair needs to be significant (Tukey)."""

    def __init__(self, pairs: int, measures: int):
        shape = (pairs, measures)
        self.statistic = np.full(shape, math.nan)
        self.p = np.full(shape, math.nan)
        self.effect = np.full(shape, math.nan)
        self.low = np.full(shape, math.nan)
        self.high = np.full(shape, math.nan)
        self.anovas: list = [None] * measures
        self.critical = np.full(measures, math.nan)
        self.exact: bool | None = None

    def undefined(self, m: int, name: str, test: str) -> list[str]:
        """Why measure m's tests, ES_E or ANOVA F are undefined (0/0) where they are."""
        from smarteval.stats.anova import UNDEFINED_F
        notes = []
        p, es = np.isnan(self.p[:, m]), np.isnan(self.effect[:, m])
        if p.any() and test in UNDEFINED:
            notes.append(f"{name}: the {test} test is undefined for {int(p.sum())} of "
                         f"{len(p)} pairs: {UNDEFINED[test]}")
        if es.any() and self.anovas[m] is not None and self.anovas[m].ms_residual == 0:
            notes.append(f"{name}: ES_E is undefined for {int(es.sum())} of {len(es)} "
                         "pairs: the residual variance is 0 and their means are equal, so "
                         "ES_E = 0/0")
        a = self.anovas[m]
        if a is not None and a.df_residual:
            for source, f in (("runs", a.f_system), ("queries", a.f_topic)):
                if math.isnan(f):
                    notes.append(f"{name}: the ANOVA's F of the {source} is undefined: "
                                 f"{UNDEFINED_F}")
        return notes

    def measure(self, m: int, name: str, scores: np.ndarray, pairs: np.ndarray, test: str,
                *, samples: int, seed: int | None, tolerance: float, alpha: float,
                confidence: float, notes: list[str]) -> None:
        from smarteval.stats.anova import standardized_differences, two_way
        from smarteval.stats.tukey import randomized_tukey, tukey_hsd, tukey_independent
        runs, n = scores.shape
        a, b = pairs[:, 0], pairs[:, 1]
        if n == 0:
            return
        if runs > 1:
            self.anovas[m] = two_way(scores)
            self.effect[:, m] = standardized_differences(
                scores, self.anovas[m].ms_residual)[a, b]
        if not len(pairs):
            return
        if test in ("tukey", "tukey-independent") and n < 2:
            notes.append(f"{name}: {test} needs two queries or more with a value in every "
                         "run: no test")
            return
        if test == "tukey":
            t = tukey_hsd(scores, confidence)
            self.statistic[:, m], self.p[:, m] = t.q[a, b], t.p[a, b]
            self.low[:, m], self.high[:, m] = t.ci_low[a, b], t.ci_high[a, b]
            self.critical[m] = t.needed(alpha)
        elif test == "randomized-tukey":
            r = randomized_tukey(scores, samples=samples, seed=seed)
            self.statistic[:, m], self.p[:, m] = r.diff[a, b], r.p[a, b]
            self.critical[m] = r.critical(alpha)
            self.exact = r.exact if self.exact is None else (self.exact and r.exact)
        elif test == "tukey-independent":
            st, pv, low, high = tukey_independent(scores, confidence)
            self.statistic[:, m], self.p[:, m] = st[a, b], pv[a, b]
            self.low[:, m], self.high[:, m] = low[a, b], high[a, b]
        else:
            st, pv, exact = paired_tests(test, scores[b], scores[a], tolerance=tolerance,
                                         samples=samples, seed=seed)
            self.statistic[:, m], self.p[:, m] = st, pv
            if exact is not None:
                self.exact = exact if self.exact is None else (self.exact and exact)


def table_runs(qrels, runs: Sequence, measures: Sequence[str] = DEFAULT_MEASURES,
               settings: Settings | None = None, *, on_run=None, **options) -> Table:
    """Evaluate ``runs`` against ``qrels`` and build their table (``options`` as
    :func:`build_table` takes them)."""
    from smarteval.stats.report import check_parameters, evaluate_comparable
    check_parameters(alpha=options.get("alpha", 0.05),
                     confidence=options.get("confidence", 0.95),
                     samples=options.get("samples", 10000), seed=options.get("seed", 0),
                     tolerance=options.get("tolerance", 0.0), depth=1, theta=1.0)
    check_choices(options.get("test", "t"), options.get("correction"),
                  options.get("interval"), options.get("baselines", ()))
    for text in options.get("labels") or ():
        if isinstance(options.get("labels"), Mapping):
            break
        parse_label(text)
    stored = list(options.pop("stored", ()))
    evs, names, skipped = evaluate_comparable(qrels, runs, measures or DEFAULT_MEASURES,
                                              settings or Settings(),
                                              "no measure for the table", on_run)
    if stored:
        from dataclasses import replace

        from smarteval.stats.report import check_stored
        for run in stored:
            check_stored(run, names)
        # a stored baseline of the run under test (its tag) is told apart from it
        taken = {ev.name for ev in evs}
        stored = [replace(run, name=f"{run.name} (baseline)") if run.name in taken else run
                  for run in stored]
        evs = [*stored, *evs]
    table = build_table(evs, names, stored_baselines=len(stored), **options)
    if skipped:
        table.notes.append("left out (no number for each query): " + ", ".join(skipped))
    return table
