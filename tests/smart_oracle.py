"""A slow, obviously-correct oracle for the SMART measures and curves: one query at a time, plain Python.

Each function takes one query: ``lst`` the grades of the retrieved documents in rank
order (-1 for documents absent from the qrels), ``qrels`` every judged grade, and the
options; it follows the definition in the seed text literally (loops, sums, explicit
rank lists), never the vectorised formula.
"""

from __future__ import annotations

import math
from fractions import Fraction

from scipy.stats import hypergeom


def rel_ranks(lst, level=1):
    return [i + 1 for i, g in enumerate(lst) if g >= level]


def num_rel(qrels, level=1):
    return sum(1 for g in qrels if g >= level)


def placed(L, m, N, how):
    """Ranks given to the m unretrieved relevant documents."""
    if how == "worst":
        return [N - m + j for j in range(1, m + 1)]
    return [L + j * (N - L + 1) / (m + 1) for j in range(1, m + 1)]


def mean_log(L, N):
    """Mean of ln t over t = L+1..N (expected log rank of a randomly placed document)."""
    return sum(math.log(t) for t in range(L + 1, N + 1)) / (N - L)


def rank_sum(lst, R, N, how, level):
    """Σ r_i over the R relevant documents, the unretrieved ones placed as ``how`` says."""
    ranks = rel_ranks(lst, level)
    m = R - len(ranks)
    total = sum(ranks)
    if how == "worst":
        return total + sum(placed(len(lst), m, N, how))
    return total + m * sum(range(len(lst) + 1, N + 1)) / max(N - len(lst), 1)


def log_rank_sum(lst, R, N, how, level):
    """Σ ln r_i over the R relevant documents, the unretrieved ones placed as ``how`` says."""
    ranks = rel_ranks(lst, level)
    m = R - len(ranks)
    total = sum(math.log(x) for x in ranks)
    if how == "worst":
        return total + sum(math.log(x) for x in placed(len(lst), m, N, how))
    return total + m * mean_log(len(lst), N) if m else total


def norm_recall(lst, qrels, N, how="expected", level=1):
    R = num_rel(qrels, level)
    if R == 0:
        return 0.0
    if R == N:
        return 1.0
    total = rank_sum(lst, R, N, how, level)
    return 1 - (total - sum(range(1, R + 1))) / (R * (N - R))


def norm_prec(lst, qrels, N, how="expected", level=1):
    R = num_rel(qrels, level)
    if R == 0:
        return 0.0
    if R == N:
        return 1.0
    total = log_rank_sum(lst, R, N, how, level)
    ideal = sum(math.log(i) for i in range(1, R + 1))
    lncomb = math.log(math.comb(N, R))
    return 1 - (total - ideal) / lncomb


def rank_recall(lst, qrels, N, how="expected", level=1):
    R = num_rel(qrels, level)
    if R == 0:
        return 0.0
    total = rank_sum(lst, R, N, how, level)
    return sum(range(1, R + 1)) / total


def log_prec(lst, qrels, N, how="expected", level=1):
    R = num_rel(qrels, level)
    if R == 0:
        return 0.0
    total = log_rank_sum(lst, R, N, how, level)
    ideal = sum(math.log(i) for i in range(1, R + 1))
    return 1.0 if total == 0 else ideal / total


def wnorm_recall(lst, qrels, N, how="expected", level=1, gains=()):
    gmap = dict(gains)
    w = lambda g: float(gmap.get(g, g))  # noqa: E731
    R = num_rel(qrels, level)
    if R == 0:
        return 0.0
    if R == N:
        return 1.0
    actual = sum((i + 1) * w(g) for i, g in enumerate(lst) if g >= level)
    missing = sorted(qrels_rel(qrels, level))
    for g in (g for g in lst if g >= level):
        missing.remove(g)
    L = len(lst)
    m = len(missing)
    ws = sorted(w(g) for g in missing)          # lightest first
    if how == "worst":
        actual += sum((N - m + j + 1) * x for j, x in enumerate(ws))
    else:
        actual += sum(ws) * sum(range(L + 1, N + 1)) / max(N - L, 1)
    ideal_w = sorted((w(g) for g in qrels_rel(qrels, level)), reverse=True)
    ideal = sum((i + 1) * x for i, x in enumerate(ideal_w))
    return 1 - (actual - ideal) / (R * (N - R))


def qrels_rel(qrels, level):
    return [g for g in qrels if g >= level]


def top(lst, k, level=1):
    return sum(1 for g in lst[:k] if g >= level)


def fallout(lst, qrels, N, k, level=1):
    R = num_rel(qrels, level)
    a = top(lst, k, level)
    b = min(min(k, N) - a, N - R)
    return b / (N - R) if N - R else 0.0


def sliding_ratio(lst, qrels, k, level=1):
    actual = sum(g for g in lst[:k] if g >= level)
    ideal = sum(sorted(qrels_rel(qrels, level), reverse=True)[:k])
    return actual / ideal if ideal else 0.0


def relpoints_recall(lst, qrels, k, level=1):
    actual = sum(g for g in lst[:k] if g >= level)
    total = sum(qrels_rel(qrels, level))
    return actual / total if total else 0.0


def rel_recall(lst, qrels, u, level=1):
    return min(top(lst, len(lst), level), u) / u


def rank_j(lst, qrels, N, j, how="expected", level=1):
    R = num_rel(qrels, level)
    if j < 1 or j > R:
        return 0.0
    ranks = rel_ranks(lst, level)
    if j <= len(ranks):
        return float(ranks[j - 1])
    return float(placed(len(lst), R - len(ranks), N, how)[j - len(ranks) - 1])


def f_measure(lst, qrels, beta, k=None, level=1):
    R = num_rel(qrels, level)
    if k is None:
        a, t = top(lst, len(lst), level), len(lst)
    else:
        a, t = top(lst, k, level), k
    P = a / t if t else 0.0
    rec = a / R if R else 0.0
    if P == 0 and rec == 0:
        return 0.0
    b2 = beta * beta
    return (1 + b2) * P * rec / (b2 * P + rec)


def accuracy(lst, qrels, N, k, level=1):
    R = num_rel(qrels, level)
    kk = min(k, N)
    tp = top(lst, k, level)
    fp = min(kk - tp, N - R)
    fn = R - tp
    tn = N - tp - fp - fn
    return (tp + tn) / N


def jw_prob(lst, qrels, N, k, level=1):
    R = num_rel(qrels, level)
    if R == 0:
        return 0.0
    a = top(lst, k, level)
    kk = min(k, N)
    # Pr(X < a), summing the hypergeometric probabilities one by one
    return sum(hypergeom.pmf(x, N, R, kk) for x in range(0, a))


def esl(lst, qrels, scores, N, k, how="expected", level=1):
    """Cooper's ESL over the weak order given by equal scores (brute force over levels)."""
    R = num_rel(qrels, level)
    want = min(k, R)
    if want == 0:
        return 0.0
    levels = []
    for g, s in zip(lst, scores):
        if levels and levels[-1][0] == s:
            levels[-1][1].append(g)
        else:
            levels.append([s, [g]])
    found = 0
    nonrel = 0
    for _, docs in levels:
        h = sum(1 for g in docs if g >= level)
        i = len(docs) - h
        if found + h >= want:
            return nonrel + i * (want - found) / (h + 1)
        found += h
        nonrel += i
    m = R - found
    rest_nonrel = N - len(lst) - m
    if how == "worst":
        return nonrel + rest_nonrel
    return nonrel + rest_nonrel * (want - found) / (m + 1)


def cnr(lst, qrels, n, level=1):
    """(relevant found, examined) stopping after n consecutive non-relevant."""
    streak = 0
    found = 0
    for i, g in enumerate(lst):
        if g >= level:
            found += 1
            streak = 0
        else:
            streak += 1
            if streak >= n:
                return found, i + 1
    return found, len(lst)


# --------------------------------------------------------------------------- curves

def points(lst, qrels, N=None, how="expected", level=1):
    """[(i, rank, real)] for i = 1..R; unreachable ranks are inf."""
    R = num_rel(qrels, level)
    ranks = rel_ranks(lst, level)[:R]
    out = [(i + 1, float(x), True) for i, x in enumerate(ranks)]
    m = R - len(ranks)
    if N is not None:
        out += [(len(ranks) + j + 1, float(x), False)
                for j, x in enumerate(placed(len(lst), m, N, how))]
    else:
        out += [(len(ranks) + j + 1, math.inf, False) for j in range(m)]
    return out


def semi(lst, qrels, level_x, N=None, how="expected", level=1):
    """Best precision i/r over the points with i/R >= x, exact rational comparison."""
    R = num_rel(qrels, level)
    if R == 0:
        return 0.0
    x = Fraction(repr(float(level_x))).limit_denominator(10 ** 9)
    best = 0.0
    for i, rank, _ in points(lst, qrels, N, how, level):
        if Fraction(i, R) >= x and math.isfinite(rank):
            best = max(best, i / rank)
    return best


def step_value(i, s, e, step):
    if not math.isfinite(s):
        return 0.0
    ranks = [s + t for t in range(math.floor(e - s + 1e-9) + 1)]   # the step's documents
    if step == "highest":
        return i / ranks[0]
    if step == "lowest":
        return i / ranks[-1]
    if step == "middle":
        return i / ranks[(len(ranks) - 1) // 2]
    if step == "ends":
        return (i / ranks[0] + i / ranks[-1]) / 2
    return sum(i / t for t in ranks) / len(ranks)


def quasi(lst, qrels, level_x, step="highest", left="constant", N=None, how="expected",
          level=1):
    """The quasi curve of one query at x: None when the query is left out."""
    R = num_rel(qrels, level)
    if R == 0:
        return None if left == "none" else 0.0
    pts = points(lst, qrels, N, how, level)
    end_all = N if N is not None else len(lst)
    chosen = []
    for idx, (i, s, _) in enumerate(pts):
        if idx + 1 < len(pts) and math.isfinite(pts[idx + 1][1]):
            e = pts[idx + 1][1] - 1
        else:
            e = end_all
        e = max(e, s) if math.isfinite(s) else e
        chosen.append(step_value(i, s, e, step))
    x = Fraction(repr(float(level_x))).limit_denominator(10 ** 9)
    if x < Fraction(1, R):
        if left == "none":
            return None
        y0 = {"zero": 0.0, "one": 1.0, "constant": chosen[0],
              "hybrid": 1.0 if pts[0][1] == 1 else 0.0}[left]     # first relevant at rank 1
        t = float(x * R)
        return y0 + (chosen[0] - y0) * t
    for i in range(1, R + 1):
        if Fraction(i, R) == x:
            return chosen[i - 1]
        if Fraction(i, R) < x < Fraction(i + 1, R):
            t = float(x * R - i)
            return chosen[i - 1] + (chosen[i] - chosen[i - 1]) * t
    raise AssertionError("level above 1")
