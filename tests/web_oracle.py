"""Slow per-query oracles of smarteval.measures.web: gdeval's, ranx's and ir_measures' definitions.

Each takes one query's relevance codes in rank order (the grade; -1 for a document the
qrels lack, -2 for a negative grade) and every qrels grade of the query, and follows its
reference program's loop literally.
"""

from __future__ import annotations

import math


def _grade(code: int) -> int:
    """A retrieved document's grade as the programs read it: 0 unless judged positive."""
    return max(code, 0)


def gd_dcg(gains: list[int], k: int) -> float:
    """gdeval.pl's dcg(): (2**g - 1) / log(i + 2) over the first k gains."""
    score = 0.0
    for i in range(min(k, len(gains))):
        score += (2 ** gains[i] - 1) / math.log(i + 2)
    return score


def gd_ndcg(codes, grades, k: int) -> float:
    ideal = sorted((g for g in grades if g > 0), reverse=True)
    if not ideal:
        return 0.0
    return gd_dcg([_grade(c) for c in codes], k) / gd_dcg(ideal, k)


def gd_err(codes, grades, k: int) -> float:
    """gdeval.pl's err(): R = (2**g - 1) / 2**4, score += R * decay / (i + 1)."""
    if not any(g > 0 for g in grades):
        return 0.0
    score, decay = 0.0, 1.0
    for i, c in enumerate(codes[:k]):
        r = (2 ** _grade(c) - 1) / (2 ** 4)
        score += r * decay / (i + 1)
        decay *= 1 - r
    return score


def ranx_dcg(codes, k: int, level: int, exponential: bool) -> float:
    """ranx's _dcg: grades at or above the level gain; k = 0 is the whole list."""
    depth = len(codes) if k == 0 or k > len(codes) else k
    total = 0.0
    for i in range(depth):
        g = codes[i] if codes[i] >= level else 0
        total += ((2 ** g - 1) if exponential else g) / math.log2(i + 2)
    return total


def ranx_ndcg(codes, grades, k: int, level: int, exponential: bool) -> float:
    ideal = sorted((g for g in grades if g >= level), reverse=True)
    idcg = ranx_dcg(ideal, k, level, exponential)
    return ranx_dcg(codes, k, level, exponential) / idcg if idcg else 0.0


def ranx_hits(codes, k: int, level: int) -> float:
    depth = len(codes) if k == 0 else k
    return float(sum(1 for c in codes[:depth] if c >= level))


def sdcg(codes, params) -> float:
    """cwl_eval's NDCGCWLMetric(k) on ir_measures' scaled gains (first 1000 ranks)."""
    k, hi, lo = int(params[0]), params[1], params[2] if len(params) > 2 else 0.0
    depth = min(k, 1000)
    num = 0.0
    for i, c in enumerate(codes[:depth]):
        g = 0.0 if c == -1 else (min(max(max(c, 0), lo), hi) - lo) / (hi - lo)
        num += g / math.log2(i + 2)
    return num / sum(1 / math.log2(i + 2) for i in range(depth))


def pair_accuracy(codes, k: int, level: int) -> float:
    """ir_measures' accuracy provider; 1 where it divides by zero (no non-relevant one),
    NaN (no value) where it reports none (no relevant one)."""
    top = codes if k <= 0 else codes[:k]
    nonrels = [0]
    for c in top:
        grade = 0 if c == -1 else c
        if grade >= level:
            nonrels.append(nonrels[-1])
        else:
            nonrels[-1] += 1
    if len(nonrels) < 2:
        return math.nan
    if nonrels[-1] == 0:
        return 1.0
    return 1.0 - sum(nonrels[:-1]) / (float(nonrels[-1]) * (len(nonrels) - 1))
