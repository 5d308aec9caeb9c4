"""A slow, obviously-correct oracle for the SMART measures and curves: one query at a time.

Each function takes one query: ``lst`` the grades of the retrieved documents in rank
order (-1 for documents absent from the qrels), ``qrels`` every judged grade, and the
options; it follows the definition in the seed text literally (loops, sums, explicit
rank lists), never the vectorised formula.
"""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist


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


def f_alpha(lst, qrels, alpha, k=None, level=1):
    """IIR (8.40): F = 1 / (α/P + (1-α)/R); 0 when P or R is 0."""
    R = num_rel(qrels, level)
    a, t = (top(lst, len(lst), level), len(lst)) if k is None else (top(lst, k, level), k)
    P = Fraction(a, t) if t else Fraction(0)
    rec = Fraction(a, R) if R else Fraction(0)
    if P == 0 or rec == 0:
        return 0.0
    return float(1 / (Fraction(alpha) / P + (1 - Fraction(alpha)) / rec))


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
    # Pr(X < a), the hypergeometric probabilities C(R,x)C(N-R,k-x)/C(N,k) summed exactly
    total = sum(Fraction(math.comb(R, x) * math.comb(N - R, kk - x), math.comb(N, kk))
                for x in range(0, a))
    return float(total)


def jw_avg(lst, qrels, N, D, level=1):
    """jw_prob averaged over the cut-offs k = 1..D."""
    return sum(jw_prob(lst, qrels, N, k, level) for k in range(1, D + 1)) / D


def generality(qrels, N, level=1):
    return 1000 * num_rel(qrels, level) / N


def cutoff(N, k):
    return min(k, N) / N


def adj_prec(lst, qrels, N, k, G, level=1):
    """Keen's R1·G / (R1·G + F1·(1000 - G)), recall and fallout after k documents."""
    R = num_rel(qrels, level)
    a = top(lst, k, level)
    b = min(min(k, N) - a, N - R)
    rec = a / R if R else 0.0
    fall = b / (N - R) if N - R else 0.0
    den = rec * G + fall * (1000 - G)
    return rec * G / den if den else 0.0


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


def cnr_recall(lst, qrels, n, level=1):
    R = num_rel(qrels, level)
    return cnr(lst, qrels, n, level)[0] / R if R else 0.0


def cnr_prec(lst, qrels, n, level=1):
    found, examined = cnr(lst, qrels, n, level)
    return found / examined if examined else 0.0


def swets_line(lst, qrels, N, level=1):
    """(a, b) of the least-squares line z(recall) = a + b z(fallout) over the cut-offs.

    One point per retrieved rank n: recall a_n/R and fallout (n - a_n)/(N - R), kept when
    both lie strictly between 0 and 1; (0, 0) unless two kept points differ in fallout.
    """
    R = num_rel(qrels, level)
    z = NormalDist().inv_cdf
    pts = []
    for n in range(1, len(lst) + 1):
        a = top(lst, n, level)
        rec = Fraction(a, R) if R else Fraction(0)
        fall = Fraction(min(n - a, N - R), N - R) if N - R else Fraction(0)
        if 0 < rec < 1 and 0 < fall < 1:
            pts.append((fall, rec))
    if len({f for f, _ in pts}) < 2:
        return 0.0, 0.0
    xs = [z(float(f)) for f, _ in pts]
    ys = [z(float(r)) for _, r in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def swets_E(lst, qrels, N, level=1):
    a, b = swets_line(lst, qrels, N, level)
    return 2 * a / (1 + b) if 1 + b > 0 else 0.0


def swets_slope(lst, qrels, N, level=1):
    return swets_line(lst, qrels, N, level)[1]


def residual(feedback, initial, qrels, N, depth):
    """Joiner & Werner's frozen pass for one query, by document identity.

    ``feedback`` and ``initial`` are lists of docnos in rank order (``initial`` None when
    the initial run lacks the query), ``qrels`` maps docno to grade. The first ``depth``
    documents of the initial run are seen: they leave the feedback run, the qrels and
    the collection. Returns (the feedback docnos kept, the qrels kept, N left).
    """
    seen = set(initial[:depth]) if initial is not None else set()
    kept = [d for d in feedback if d not in seen]
    left = {d: g for d, g in qrels.items() if d not in seen}
    return kept, left, N - len(seen)


# --------------------------------------------------------------------------- curves

def found_at(lst, qrels, n, N=None, how="expected", level=1):
    """(a, g): the relevant documents and the relevance points among the first n.

    Each relevant document scores its grade. Past the end of the list, with N known, the
    m unretrieved relevant documents are placed: ``expected`` — each lies at any of the
    ranks L+1..N with probability 1/(N-L), so a share (n-L)/(N-L) of them and of their
    points is found; ``worst`` — at ranks N-m+1..N, the lightest first.
    """
    a = top(lst, n, level)
    g = sum(x for x in lst[:n] if x >= level)
    L = len(lst)
    if N is None or n <= L:
        return a, g
    missing = sorted(qrels_rel(qrels, level))
    for x in (x for x in lst if x >= level):
        missing.remove(x)
    m = len(missing)
    if how == "worst":
        seen = [w for j, w in enumerate(missing) if N - m + j + 1 <= n]
        return a + len(seen), g + sum(seen)
    if N == L:
        return a, g
    share = Fraction(min(n, N) - L, N - L)
    return a + m * share, g + sum(missing) * share


def cutoff_values(lst, qrels, n, N=None, how="expected", level=1):
    """One query after n documents: recall a/R, points recall g/G, precision a/n and
    fallout b/(N-R), b = min(n - a, N - R) (None without N); 0 for 0/0."""
    a, g = found_at(lst, qrels, n, N, how, level)
    R = num_rel(qrels, level)
    G = sum(qrels_rel(qrels, level))
    fall = None
    if N is not None:
        fall = float(min(n - a, N - R) / (N - R)) if N - R else 0.0
    return {"recall": float(a / R) if R else 0.0, "points": float(g / G) if G else 0.0,
            "precision": float(a / n), "fallout": fall, "a": a, "g": g, "R": R, "G": G,
            "b": min(n - a, N - R) if N is not None else None,
            "nonrel": N - R if N is not None else None}


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


def exact_points(lst, qrels, N=None, how="expected", level=1):
    """[(i, rank, real)] as :func:`points`, ranks as Fractions (None when unreachable)."""
    R = num_rel(qrels, level)
    ranks = rel_ranks(lst, level)[:R]
    out = [(i + 1, Fraction(x), True) for i, x in enumerate(ranks)]
    m, L = R - len(ranks), len(lst)
    for j in range(1, m + 1):
        if N is None:
            x = None
        elif how == "worst":
            x = Fraction(N - m + j)
        else:
            x = L + Fraction(j * (N - L + 1), m + 1)
        out.append((len(ranks) + j, x, False))
    return out


def semi_cell(lst, qrels, level_x, N=None, how="expected", level=1):
    """(precision, class, found, seen) of one query at recall level x on the semi curve.

    The best precision i/r over the points with i/R >= x, ratios compared exactly; the
    cut-off is the earliest point giving it. ``class`` is "real" when x is at or right of
    the first point (x >= 1/R) and reached by a retrieved document, else "extrapolated"
    (a query without relevant documents too). ``found``/``seen`` are what the cut-off adds
    to the micro average: the point's i and rank, or 0 and the whole list when no
    candidate point is reachable, 0 and 0 without relevant documents.
    """
    R = num_rel(qrels, level)
    if R == 0:
        return 0.0, "extrapolated", 0, 0
    x = Fraction(repr(float(level_x))).limit_denominator(10 ** 9)
    pts = exact_points(lst, qrels, N, how, level)
    cands = [(i, rank) for i, rank, _ in pts if Fraction(i, R) >= x]
    best = None
    for i, rank in cands:
        prec = Fraction(i) / rank if rank is not None else Fraction(0)
        if best is None or prec > best[0]:
            best = (prec, i, rank)
    prec, i, rank = best
    a = min(len(rel_ranks(lst, level)), R)
    klass = "real" if x >= Fraction(1, R) and cands[0][0] <= a else "extrapolated"
    if rank is None:
        return 0.0, klass, 0, len(lst)
    return float(prec), klass, i, rank


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


def chosen(lst, qrels, step="highest", N=None, how="expected", level=1):
    """The precision chosen on each point's vertical step, i = 1..R (0 where unreachable)."""
    pts = points(lst, qrels, N, how, level)
    end_all = N if N is not None else len(lst)
    out = []
    for idx, (i, s, _) in enumerate(pts):
        if idx + 1 < len(pts) and math.isfinite(pts[idx + 1][1]):
            e = pts[idx + 1][1] - 1
        else:
            e = end_all
        e = max(e, s) if math.isfinite(s) else e
        out.append(step_value(i, s, e, step))
    return out


def quasi(lst, qrels, level_x, step="highest", left="constant", N=None, how="expected",
          level=1):
    """The quasi curve of one query at x: None when the query is left out."""
    R = num_rel(qrels, level)
    if R == 0:
        return None if left == "none" else 0.0
    pts = points(lst, qrels, N, how, level)
    ys = chosen(lst, qrels, step, N, how, level)
    x = Fraction(repr(float(level_x))).limit_denominator(10 ** 9)
    if x < Fraction(1, R):
        if left == "none":
            return None
        y0 = {"zero": 0.0, "one": 1.0, "constant": ys[0],
              "hybrid": 1.0 if pts[0][1] == 1 else 0.0}[left]     # first relevant at rank 1
        t = float(x * R)
        return y0 + (ys[0] - y0) * t
    for i in range(1, R + 1):
        if Fraction(i, R) == x:
            return ys[i - 1]
        if Fraction(i, R) < x < Fraction(i + 1, R):
            t = float(x * R - i)
            return ys[i - 1] + (ys[i] - ys[i - 1]) * t
    raise AssertionError("level above 1")


def cluster(cl, full, qrels, level_x, step="highest", left="constant", end="extrapolate",
            N=None, how="expected", level=1):
    """Keen 4D for one query at x: (value, class), (None, "excluded") when left out.

    The cluster search's own points (its retrieved relevant documents only: the others
    have no rank, whatever N), then by ``end``: one more point at recall 1 with the
    full search's chosen precision there (extrapolate), the full search's points past
    the cluster's last (join), or none. Straight lines between points; left of the
    first, a line from (0, y0) by ``left``; right of the last, left out.
    """
    R = num_rel(qrels, level)
    if R == 0:
        return (None, "excluded") if left == "none" else (0.0, "extrapolated")
    own = [(i, y, True) for (i, _, real), y in zip(points(cl, qrels, None, how, level),
                                                   chosen(cl, qrels, step, None, how, level))
           if real]
    yf = chosen(full, qrels, step, N, how, level)
    a = len(own)
    if end == "extrapolate" and a < R:
        own.append((R, yf[R - 1], False))
    elif end == "join":
        own += [(i, yf[i - 1], False) for i in range(a + 1, R + 1)]
    if not own:
        return None, "excluded"
    x = Fraction(repr(float(level_x))).limit_denominator(10 ** 9)
    i1, y1, _ = own[0]
    if x < Fraction(i1, R):
        if left == "none":
            return None, "excluded"
        y0 = {"zero": 0.0, "one": 1.0, "constant": y1,
              "hybrid": 1.0 if cl and cl[0] >= level else 0.0}[left]
        return y0 + (y1 - y0) * float(x * R / i1), "extrapolated"
    for (i, y, real), nxt in zip(own, own[1:] + [None]):
        if Fraction(i, R) == x:
            return y, "real" if real else "extrapolated"
        if nxt is not None and Fraction(i, R) < x < Fraction(nxt[0], R):
            t = float((x * R - i) / (nxt[0] - i))
            return y + (nxt[1] - y) * t, "real" if real and nxt[2] else "extrapolated"
    return None, "excluded"


def precision_cell(lst, qrels, level_p, N=None, how="expected", level=1):
    """Keen 4B for one query at precision level p: (recall, examined, class).

    The cut-off is the deepest relevant document (retrieved, or placed when N is known)
    whose precision i/rank is at least p, compared exactly; none: recall 0, nothing
    examined. Class "real" unless the cut-off is a placed document or R = 0.
    """
    R = num_rel(qrels, level)
    p = Fraction(repr(float(level_p))).limit_denominator(10 ** 9)
    best = None
    for i, rank, real in exact_points(lst, qrels, N, how, level):
        if rank is not None and Fraction(i) / rank >= p:
            best = (i, rank, real)
    if R == 0:
        return 0.0, float(best[1]) if best else 0.0, "extrapolated"
    if best is None:
        return 0.0, 0.0, "real"
    return best[0] / R, float(best[1]), "real" if best[2] else "extrapolated"


def matched(lst, qrels, size, N=None, how="expected", level=1):
    """Keen part 7 for one query: (relevant found, documents examined) when its ranking
    is cut at ``size``, the other system's set size (placed documents past the list)."""
    a, _ = found_at(lst, qrels, size, N, how, level) if size else (0, 0)
    return a, size


# --------------------------------------------------------------------------- ir_measures names
# The measures behind ir_measures names trec_eval lacks (smarteval/measures/extra.py), as
# ir_measures 0.4.3's providers compute them. ``lst`` holds relevance codes in the
# provider's order (-1 not in the qrels, -2 judged negatively).

def judged_ir(lst, k):
    """Judged@k: documents the qrels list (any grade) among the first min(k, n) / min(k, n);
    k = 0 is the whole list (Judged). ``lst`` in the judged provider's order."""
    ranked = lst
    depth = len(ranked) if k == 0 else min(k, len(ranked))
    return sum(1 for c in ranked[:depth] if c != -1) / depth if depth else 0.0


def rr_at_k(lst, k, level=1):
    """RR@k: 1 / rank of the first relevant document (``lst`` in the msmarco provider's
    order), if <= k."""
    for i, c in enumerate(lst[:k]):
        if c >= level:
            return 1.0 / (i + 1)
    return 0.0


def rbp_binary(lst, p, level=1):
    """cwl_eval's RBP(rel=level, p): binary gains (a negative grade read as 0), rank i
    weighted p^(i-1) / (p^0 + ... + p^999), ranks past 1000 unread."""
    norm = sum(p ** j for j in range(1000))
    total = 0.0
    for i, c in enumerate(lst[:1000]):
        grade = 0 if c == -2 else c
        if c != -1 and grade >= level:
            total += p ** i / norm
    return total
