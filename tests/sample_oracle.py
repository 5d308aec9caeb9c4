"""Slow oracle of sample_eval's measures: one topic at a time, one document at a time.

``topic(ranked, judged, gains)`` walks a topic's ranked docnos against its sampled
judgements ``{docno: (stratum, grade)}`` (grade below 0: pooled, not sampled) as
sample_eval.pl's definitions say (smarteval.measures.sample's docstring), in plain Python
floats, every sum in sample_eval's order. ``from_query`` reads a tests/smart_helpers
Query as plain qrels are read: one stratum, every judged document sampled, a document
judged below 0 outside the pool.
"""

from __future__ import annotations

import math

DEPTH = 1000
LEVELS = [0.0, .1, .2, .3, .4, .5, .6, .7, .8, .9, 1.0]


def _label(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def topic(ranked: list[str], judged: dict, gains=(), levels=LEVELS) -> dict:
    """Every measure of one topic: infAP, infNDCG, E (estimated relevant up to each rank),
    R, iprec (per level), int11ptAP."""
    table = dict(gains)

    def mapped(g):
        return float(table.get(g, g))

    strata = sorted({s for s, _ in judged.values()}, key=lambda s: s.encode())
    docs = dict.fromkeys(strata, 0)
    sampled = dict.fromkeys(strata, 0)
    relevant = dict.fromkeys(strata, 0)
    per_grade: dict[str, dict[str, int]] = {s: {} for s in strata}
    for s, g in judged.values():
        m = mapped(g)
        docs[s] += 1
        if g >= 0 and m >= 0:
            sampled[s] += 1
            if m > 0:
                relevant[s] += 1
                per_grade[s][_label(m)] = per_grade[s].get(_label(m), 0) + 1
    R = 0.0
    for s in strata:
        if sampled[s]:
            R += relevant[s] * docs[s] / sampled[s]
    # the walk
    D = dict.fromkeys(strata, 0)
    S = dict.fromkeys(strata, 0)
    Rs = dict.fromkeys(strata, 0)
    sap = dict.fromkeys(strata, 0.0)
    gain = dict.fromkeys(strata, 0.0)
    depth = 0
    E = []
    for rank, doc in enumerate(ranked[:DEPTH], 1):
        s, g = judged.get(doc, (None, None))
        m = mapped(g) if s is not None else -1.0
        is_sampled = s is not None and g >= 0 and m >= 0
        if is_sampled and m > 0:
            above = 0.0
            for t in strata:
                if depth and D[t]:
                    above += D[t] / depth * (Rs[t] + 0.00001) / (S[t] + 0.00003)
            sap[s] += 1 / rank + (depth / rank) * above
            Rs[s] += 1
            gain[s] += m / (math.log(rank + 1) / math.log(2))
        if s is not None:
            depth += 1
            D[s] += 1
            if is_sampled:
                S[s] += 1
        e = 0.0
        for t in strata:
            e += D[t] * (Rs[t] + 0.00001) / (S[t] + 0.00003)
        E.append(e)
    ap = 0.0
    for s in strata:
        if sampled[s] and R:
            ap += (relevant[s] * docs[s] / sampled[s]) / R * (
                sap[s] / relevant[s] if relevant[s] else 0.0)
    dcg = 0.0
    for s in strata:
        if depth and S[s]:
            dcg += D[s] / depth * gain[s] / S[s]
    # the ideal
    estimate: dict[str, float] = {}
    for s in strata:
        for label, count in sorted(per_grade[s].items()):
            estimate[label] = estimate.get(label, 0.0) + count * docs[s] / sampled[s]
    ideal, start = 0.0, 0
    for label in sorted(estimate, reverse=True):
        n = int(estimate[label] + 0.5)
        r = start + 1
        while r <= start + n:
            ideal += float(label) / (math.log(r + 1) / math.log(2))
            if r >= DEPTH:
                break
            r += 1
        start += n
    ndcg = depth * dcg / ideal if ideal else 0.0
    # interpolated precision, walking up
    cuts = [lv * R for lv in levels]
    last = E[-1] if E else 0.0
    cc = len(cuts) - 1
    while cc >= 0 and cuts[cc] > last:
        cc -= 1
    iprec = [0.0] * len(levels)
    best = 0.0
    for rank in range(len(E), 0, -1):
        best = max(best, E[rank - 1] / rank)
        if cc >= 0 and cuts[cc] > E[rank - 1]:
            iprec[cc] = best
            cc -= 1
    while cc >= 0:
        iprec[cc] = best
        cc -= 1
    total = 0.0
    for v in reversed(iprec):
        total += v
    return {"infAP": ap, "infNDCG": ndcg, "E": E, "R": R, "iprec": iprec,
            "int11ptAP": total / len(levels), "num_ret": len(ranked)}


def precision(values: dict, k: int) -> float:
    E = values["E"]
    return (E[min(k, len(E)) - 1] if E else 0.0) / k


def iprec(values_of, level: float) -> float:
    """The value at ``level``: on sample_eval's eleven levels, or on them and ``level``."""
    levels = LEVELS if level in LEVELS else sorted([*LEVELS, level])
    return values_of(levels)["iprec"][levels.index(level)]


def from_query(codes: list, grades: list, gains=(), levels=LEVELS) -> dict:
    """A Query as plain qrels give it: retrieved document i has code ``codes[i]`` (a
    grade, -1 outside the qrels, -2 judged below 0), the other judged grades unretrieved."""
    ranked = [f"r{i}" for i in range(len(codes))]
    judged = {f"r{i}": ("0", g) for i, g in enumerate(codes) if g >= 0}
    rest = [g for g in grades if g >= 0]
    for g in (g for g in codes if g >= 0):
        rest.remove(g)
    judged.update({f"u{i}": ("0", g) for i, g in enumerate(rest)})
    return topic(ranked, judged, gains, levels)
