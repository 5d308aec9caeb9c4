"""C/W/L measures as cwl_eval computes them: INST, INSQ, TBG, U, BPM, NERR, with its quantities.

cwl_eval (Azzopardi, Thomas and Moffat 2019; ``cwl/ruler/measures/cwl_metrics.py``) models
a user who examines rank i and continues to rank i + 1 with probability C(i). From C it
derives W(i), the share of attention rank i gets (W(1) = 1 / sum over i of
C(1)...C(i-1)), and L(i), the chance of stopping at rank i (C(1)...C(i-1) (1 - C(i))).
Every ranking is read to cwl_eval's depth of 1000 ranks: a shorter list is padded with
documents of gain 0, a longer one cut. The quantities it reports per query
(:func:`cwl_values`) are EU, the expected utility per document examined (sum of W g:
each measure's value), ETU the expected total utility (sum of L times cumulated gain),
EC and ETC the same for costs, and ED the expected depth (1 / W(1)); with residuals, how
far each rises when every unjudged and padded document has the highest gain.

Gains are the qrels' grades as ir_measures' cwl_eval provider makes them: a negative
grade is 0, then grades are clipped to [min_rel, max_rel] and scaled to [0, 1]
(cwl_eval's own defaults are min_rel 0 and max_rel 1: its gain file holds gains from 0
to 1, which binary qrels are). A document the qrels lack has gain 0 (1 for residuals).
Every document costs 1 (cwl_eval without a cost file). cwl_eval reads the run in the
file's order; smarteval reads it in the ranking's order (score, then docno descending).

Two inputs of cwl_eval have no counterpart here, so its values with them are not
computed: a cost file (``-c``: element type and cost per line, the element type being
the run's second field, which the run readers do not keep; a type the file lacks, and
every document without the file, costs ``--max_cost`` in the values and ``--min_cost``
in the residuals' best case), which changes EC and ETC and, through the cumulated cost,
TBG, U-measure, BPM (its K), BPM-Dynamic and IFT (the rate C2); and fractional gains
(cwl_eval reads the fourth field of its gain file as any number from ``--min_gain`` to
``--max_gain``; smarteval's qrels grades are whole numbers, a fraction is refused on
reading, and the ranking carries them as such). The values here are cwl_eval's with its
default costs (``--min_cost`` and ``--max_cost`` 1) on gains that are grades scaled as
above.
"""

from __future__ import annotations

import math

import numpy as np

from smarteval.columns import NONPOOL, Ranked
from smarteval.errors import UsageError
from smarteval.measures.registry import measure

#: cwl_eval's depth: every ranking is read to this many ranks
DEPTH = 1000
#: queries computed at a time (their dense DEPTH-wide rows bound the memory used)
_BLOCK = 2048
#: the quantities cwl_eval reports, in its column order
QUANTITIES = ("EU", "ETU", "EC", "ETC", "ED")


#: each measure's own parameters (cwl_eval's defaults), before the optional min_rel, max_rel
PARAMS: dict[str, tuple[float, ...]] = {
    "INST": (1.0,), "INSQ": (1.0,), "TBG": (224.0,), "U-measure": (1000.0,),
    "BPM": (1.0, 10.0), "NERR8": (10.0,), "NERR9": (10.0,), "NERR10": (0.9,),
    "NERR11": (1.0,), "RBP": (0.9,), "BPM-Dynamic": (1.0, 10.0, 1.0, 1.0, 0.5),
    "IFT-C1": (2.0, 0.9, 10.0), "IFT-C2": (0.2, 0.9, 10.0),
    "IFT-C1-C2": (2.0, 0.9, 10.0, 2.0, 0.9, 10.0)}


def _split(params: tuple, kind: str) -> tuple[tuple[float, ...], float, float]:
    """(the measure's parameters, min_rel, max_rel) from ``NAME.x`` or ``NAME.x,min,max``."""
    own = PARAMS[kind]
    p = [float(v) for v in params]
    n = len(own)
    if len(p) <= n:
        p = p + list(own[len(p):]) + [0.0, 1.0]
    example = ",".join(f"{v:g}" for v in own)
    if len(p) != n + 2 or not p[n] < p[n + 1] or not all(math.isfinite(v) for v in p):
        raise UsageError(f"{kind} takes {n} parameter{'s' if n > 1 else ''}, optionally followed "
                         f"by min_rel and max_rel (min_rel below max_rel), e.g. "
                         f"{kind}.{example},0,3")
    return tuple(p[:n]), p[n], p[n + 1]


def _gains(r: Ranked, lo: float, hi: float, block: np.ndarray, best: bool) -> np.ndarray:
    """(B, DEPTH) gains of the queries in ``block``, rank order, padded as cwl_eval pads."""
    fill = 1.0 if best else 0.0
    out = np.full((len(block), DEPTH), fill)
    start, count = r.offsets[block], np.minimum(r.num_ret[block], DEPTH)
    qi = np.repeat(np.arange(len(block)), count)
    col = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    rows = np.repeat(start, count) + col
    rel = r.rel[rows]
    g = (np.clip(np.maximum(rel, 0).astype(np.float64), lo, hi) - lo) / (hi - lo)
    out[qi, col] = np.where(rel == NONPOOL, fill, g)
    return out


def _from_c(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cwl_eval's W and L vectors from C (``w_vector``, ``l_vector``), row by row."""
    cp = np.cumprod(c[:, :-1], axis=1)
    cp = np.concatenate([np.ones((len(c), 1)), cp], axis=1)
    w1 = 1.0 / np.sum(cp, axis=1)
    w = np.concatenate([w1[:, None], cp[:, 1:] * w1[:, None]], axis=1)
    shift = np.concatenate([np.ones((len(c), 1)), c[:, :-1]], axis=1)
    lv = np.cumprod(shift, axis=1) * (1.0 - c)
    return w, lv


def _c_from_w(w: np.ndarray) -> np.ndarray:
    """C(i) = W(i+1) / W(i) (0 where W(i) is 0, and at the last rank): TBG's and U's."""
    c = np.zeros_like(w)
    with np.errstate(divide="ignore", invalid="ignore"):
        c[:, :-1] = np.where(w[:, :-1] > 0, w[:, 1:] / np.where(w[:, :-1] > 0, w[:, :-1], 1),
                             0.0)
    return c


def _weights(kind: str, xs: tuple[float, ...],
             g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(W, L) of measure ``kind`` with parameters ``xs`` over gains ``g`` (costs all 1)."""
    i = np.arange(1, DEPTH + 1, dtype=np.float64)           # cwl_eval's i + 1
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return _weights_of(kind, xs, g, i)


def _weights_of(kind: str, xs: tuple[float, ...], g: np.ndarray, i: np.ndarray):
    x = xs[0]
    if kind == "BPM":             # continue while the gain so far is below T, the cost below K
        c = (np.logical_and.accumulate(np.cumsum(g, axis=1) < x, axis=1)
             & np.logical_and.accumulate(i < xs[1])[None, :]).astype(np.float64)
        return _from_c(c)
    if kind == "BPM-Dynamic":     # T moves by hb (gain - gain_med) after each rank
        t, k, hb, _, med = xs
        steps = np.concatenate([np.full((len(g), 1), t), hb * (g[:, :-1] - med)], axis=1)
        target = np.cumsum(steps, axis=1)                  # as cwl_eval adds, rank by rank
        c = (np.logical_and.accumulate(np.cumsum(g, axis=1) < target, axis=1)
             & np.logical_and.accumulate(i < k)[None, :]).astype(np.float64)
        return _from_c(c)
    if kind.startswith("IFT"):
        y = np.cumsum(g, axis=1)
        c = np.ones_like(g)
        if kind != "IFT-C2":      # the goal: stop as the gain so far nears T
            t, b1, r1 = xs[:3]
            c = c * (1.0 - 1.0 / (1.0 + b1 * np.exp((t - y) * r1)))
        if kind != "IFT-C1":      # the rate: stop as the gain per cost falls below A
            a, b2, r2 = xs[-3:]
            c = c * (1.0 / (1.0 + b2 * np.exp((a - y / i) * r2)))
        return _from_c(c)
    if kind in ("NERR8", "NERR9"):
        c = 1.0 - g if kind == "NERR8" else (i / (i + 1.0)) * (1.0 - g)
        return _from_c(np.where(i < x, c, 0.0))
    if kind == "NERR10":
        return _from_c(x * (1.0 - g))
    if kind == "NERR11":
        return _from_c(((i + 2.0 * x - 1.0) / (i + 2.0 * x)) ** 2.0 * (1.0 - g))
    if kind == "RBP":
        return _from_c(np.full(g.shape, x))
    if kind == "INST":
        ti = x - np.cumsum(g, axis=1)
        c = ((i + x + ti - 1.0) / (i + x + ti)) ** 2.0
        return _from_c(c)
    if kind == "INSQ":
        c = np.broadcast_to(((i + 2.0 * x - 1.0) / (i + 2.0 * x)) ** 2.0, g.shape)
        return _from_c(np.ascontiguousarray(c))
    costs = np.cumsum(np.ones(DEPTH))
    if kind == "TBG":
        decay = x * (2.0 ** (-np.concatenate(([0.0], costs[:-1])) / x)) / math.log(2.0)
        w = decay / np.sum(decay)
    else:                                                    # U-measure
        start = np.concatenate(([0.0], costs[:-2]))
        raw = np.maximum(0.0, 1.0 - start / x)
        w = np.append(raw, 0.0) / np.sum(raw)
    w2 = np.broadcast_to(w, g.shape)
    c = _c_from_w(w[None, :])
    shift = np.concatenate(([1.0], c[0, :-1]))
    lv = np.broadcast_to(np.cumprod(shift) * (1.0 - c[0]), g.shape)
    return w2, lv


def _scores(kind: str, xs: tuple[float, ...], g: np.ndarray) -> dict[str, np.ndarray]:
    w, lv = _weights(kind, xs, g)
    cost = np.ones(DEPTH)
    return {"EU": np.sum(w * g, axis=1), "ETU": np.sum(lv * np.cumsum(g, axis=1), axis=1),
            "EC": w @ cost, "ETC": lv @ np.cumsum(cost), "ED": 1.0 / w[:, 0]}


def cwl_values(r: Ranked, kind: str, params: tuple = (),
               residuals: bool = False) -> dict[str, np.ndarray]:
    """cwl_eval's per-query quantities of measure ``kind`` (a key of :data:`PARAMS`).

    Returns EU, ETU, EC, ETC and ED (:data:`QUANTITIES`), each (Q,), and with
    ``residuals`` ResEU ... ResED as well: what cwl_eval's ``-r`` prints. ``params`` is
    what the measure's ``-m`` parameters give (its own, then min_rel and max_rel);
    ``RBP`` is cwl_eval's rank-biased precision on these gains (persistence 0.9).
    """
    xs, lo, hi = _split(params, kind)
    if kind in ("TBG", "U-measure") and xs[0] <= 0:
        raise UsageError(f"{kind} takes a parameter above 0")
    Q = r.num_queries
    out = {k: np.zeros(Q) for k in QUANTITIES}
    if residuals:
        out.update({f"Res{k}": np.zeros(Q) for k in QUANTITIES})
    for first in range(0, Q, _BLOCK):                       # blocks of queries, not queries
        block = np.arange(first, min(first + _BLOCK, Q))
        worst = _scores(kind, xs, _gains(r, lo, hi, block, best=False))
        for k in QUANTITIES:
            out[k][block] = worst[k]
        if residuals:
            best = _scores(kind, xs, _gains(r, lo, hi, block, best=True))
            for k in QUANTITIES:
                out[f"Res{k}"][block] = best[k] - worst[k]
    return out


def _eu(r: Ranked, kind: str, params: tuple) -> np.ndarray:
    key = ("cwl", kind, tuple(params))
    if key not in r.memo:
        r.memo[key] = cwl_values(r, kind, params)["EU"]
    return r.memo[key]


@measure("INST", params="floats", default=(1.0,), family="cwl")
def inst(r: Ranked, params: tuple) -> np.ndarray:
    """cwl_eval's INST (Moffat et al. 2015): expected utility of a user wanting T gain (default 1).

    C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T minus the gain of ranks 1..i
    (cwl_eval's ``cwl_inst.py``); the value is EU, the sum over the 1000 ranks of W(i)
    times the gain (see the module: gains from 0 to 1). Parameters: T, optionally then
    min_rel and max_rel (``INST.2,0,3``: grades 0..3 scaled to gains 0..1, ir_measures'
    ``INST(T=2,min_rel=0,max_rel=3)``). 0 for an empty list.
    """
    return _eu(r, "INST", params)


@measure("INSQ", params="floats", default=(1.0,), family="cwl")
def insq(r: Ranked, params: tuple) -> np.ndarray:
    """cwl_eval's INSQ (Moffat et al. 2012): INST's forerunner, C(i) = ((i + 2T - 1) / (i + 2T))^2.

    The value is EU (see the module; ``cwl_insq.py``). Parameters as INST's: T (default
    1), optionally min_rel and max_rel. 0 for an empty list.
    """
    return _eu(r, "INSQ", params)


@measure("TBG", params="floats", default=(224.0,), family="cwl")
def tbg(r: Ranked, params: tuple) -> np.ndarray:
    """cwl_eval's TBG (Smucker and Clarke 2012): time-biased gain, half-life H (default 224).

    W(i) proportional to H 2^(-t_i / H) / ln 2, t_i the cost of the documents above rank i
    (each costs 1), normalised over the 1000 ranks (``cwl_tbg.py``); the value is EU.
    Parameters: H, optionally min_rel and max_rel.
    """
    return _eu(r, "TBG", params)


@measure("U-measure", params="floats", default=(1000.0,), family="cwl")
def u_measure(r: Ranked, params: tuple) -> np.ndarray:
    """cwl_eval's U-measure (Sakai and Dou 2013): linearly decaying attention over L (default 1000).

    W(i) proportional to max(0, 1 - t_i / L), t_i the cost of the documents above rank i,
    over the first 999 ranks, 0 at the 1000th (``cwl_umeasure.py``); the value is EU.
    Parameters: L, optionally min_rel and max_rel.
    """
    return _eu(r, "U-measure", params)


@measure("BPM", params="floats", default=(1.0, 10.0), family="cwl")
def bpm(r: Ranked, params: tuple) -> np.ndarray:
    """cwl_eval's static BPM (Zhang et al. 2017): the user stops at gain T or cost K (1, 10).

    C(i) = 1 while the gain of ranks 1..i stays below T and i below K, then 0 for good
    (``cwl_bpm.py``, ``BPMCWLMetric``); the value is EU. Parameters: T and K, optionally
    then min_rel and max_rel (ir_measures' ``BPM(T=t,max_rel=m)@K``).
    """
    return _eu(r, "BPM", params)


@measure("BPM-Dynamic", params="floats", default=(1.0, 10.0, 1.0, 1.0, 0.5),
         family="cwl")
def bpm_dynamic(r: Ranked, params: tuple) -> np.ndarray:
    """cwl_eval's dynamic BPM: BPM whose T moves by hb (gain - gain_med) after each rank.

    Parameters T, K, hb, hc and gain_med (cwl_eval's defaults 1, 10, 1, 1, 0.5), optionally
    then min_rel and max_rel (``cwl_bpm.py``, ``BPMDCWLMetric``). As in cwl_eval, K does
    not move: the update meant for it changes T after T is last read, so hc changes
    nothing. The value is EU.
    """
    return _eu(r, "BPM-Dynamic", params)


@measure("IFT-C1", params="floats", default=(2.0, 0.9, 10.0), family="cwl")
def ift_goal(r: Ranked, params: tuple) -> np.ndarray:
    """cwl_eval's IFT goal measure (Azzopardi et al. 2018): C(i) = 1 - 1/(1 + b1 e^((T - y_i) R1)).

    y_i is the gain of ranks 1..i (``cwl_ift.py``, ``IFTGoalCWLMetric``); the value is EU.
    Parameters T, b1, R1 (default 2, 0.9, 10: cwl_eval's worked example; cwl_eval has
    no defaults), optionally then min_rel and max_rel. Where the exponential passes a
    double's range cwl_eval stops with an OverflowError; smarteval takes the limit (C = 1
    here, 0 in IFT-C2).
    """
    return _eu(r, "IFT-C1", params)


@measure("IFT-C2", params="floats", default=(0.2, 0.9, 10.0), family="cwl")
def ift_rate(r: Ranked, params: tuple) -> np.ndarray:
    """cwl_eval's IFT rate measure: C(i) = 1 / (1 + b2 e^((A - y_i / i) R2)), y_i the gain so far.

    (``cwl_ift.py``, ``IFTRateCWLMetric``); the value is EU. Parameters A, b2, R2
    (default 0.2, 0.9, 10: cwl_eval's worked example), optionally min_rel and max_rel.
    """
    return _eu(r, "IFT-C2", params)


@measure("IFT-C1-C2", params="floats", default=(2.0, 0.9, 10.0, 2.0, 0.9, 10.0),
         family="cwl")
def ift_goal_rate(r: Ranked, params: tuple) -> np.ndarray:
    """cwl_eval's IFT goal-and-rate measure: the product of IFT-C1's and IFT-C2's C(i).

    (``cwl_ift.py``, ``IFTGoalRateCWLMetric``); the value is EU. Parameters T, b1, R1, A,
    b2, R2 (default 2, 0.9, 10, 2, 0.9, 10: cwl_eval's worked example), optionally then
    min_rel and max_rel.
    """
    return _eu(r, "IFT-C1-C2", params)


@measure("NERR8", params="floats", default=(10.0,), family="cwl")
def nerr8(r: Ranked, params: tuple) -> np.ndarray:
    """cwl_eval's NERR (equation 8, Azzopardi et al. 2021): ERR-like, truncated at k (default 10).

    C(i) = 1 - gain(i) for i < k, 0 from k on (``cwl_nerr.py``); the value is EU.
    Parameters: k, optionally min_rel and max_rel (ir_measures' ``NERR8(max_rel=m)@k``).
    """
    return _eu(r, "NERR8", params)


@measure("NERR9", params="floats", default=(10.0,), family="cwl")
def nerr9(r: Ranked, params: tuple) -> np.ndarray:
    """cwl_eval's NERR (equation 9): C(i) = i / (i + 1) (1 - gain(i)) for i < k (default 10).

    0 from k on (``cwl_nerr.py``); the value is EU. Parameters: k, optionally min_rel
    and max_rel (ir_measures' ``NERR9(max_rel=m)@k``).
    """
    return _eu(r, "NERR9", params)


@measure("NERR10", params="floats", default=(0.9,), family="cwl")
def nerr10(r: Ranked, params: tuple) -> np.ndarray:
    """cwl_eval's NERR (equation 10): C(i) = phi (1 - gain(i)), RBP-like (phi default 0.9).

    Over the 1000 ranks (``cwl_nerr.py``); the value is EU. Parameters: phi, optionally
    min_rel and max_rel (ir_measures' ``NERR10(p=phi,max_rel=m)``).
    """
    return _eu(r, "NERR10", params)


@measure("NERR11", params="floats", default=(1.0,), family="cwl")
def nerr11(r: Ranked, params: tuple) -> np.ndarray:
    """cwl_eval's NERR (equation 11): INSQ's C(i) times (1 - gain(i)), T default 1.

    C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - gain(i)) over the 1000 ranks (``cwl_nerr.py``);
    the value is EU. Parameters: T, optionally min_rel and max_rel (ir_measures'
    ``NERR11(T=t,max_rel=m)``).
    """
    return _eu(r, "NERR11", params)


__all__ = ["DEPTH", "PARAMS", "QUANTITIES", "cwl_values"]
