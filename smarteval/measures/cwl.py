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

Each measure's value is EU; its other quantities are asked for as ``NAME_QUANTITY``
(``-m INST_ETU``, ``-m TBG_ResEC.100``: ETU, EC, ETC, ED, and with residuals ResEU,
ResETU, ResEC, ResETC, ResED), the numbers cwl_eval prints for it with ``-r``. A
residual is the quantity with every unjudged and padded document at the highest gain,
less the quantity itself.

Gains are the qrels' grades as ir_measures' cwl_eval provider makes them: a negative
grade is 0, then grades are clipped to [min_rel, max_rel] and scaled to [0, 1]
(cwl_eval's own defaults are min_rel 0 and max_rel 1: its gain file holds gains from 0
to 1, which binary qrels are). A document the qrels lack has gain 0 (1 for residuals).
cwl_eval's gain file may hold gains that are not whole numbers (``q1 0 d7 0.25``):
qrels asked for C/W/L measures alone are read so (:func:`smarteval.read.cwl.read_gain_qrels`;
a fractional gain is scaled as a grade is), while qrels asked for any other measure too
keep trec_eval's whole grades, a fraction refused on reading as before, so that no
trec_eval number ever sees one. cwl_eval itself refuses a gain outside ``--min_gain``
and ``--max_gain`` (0 and 1); smarteval clips it to [min_rel, max_rel], as ir_measures.

Costs come from cwl_eval's cost file (``--cwl-costs``, its ``-c``: an element type and
its cost a line, the element type being a run's second field, which the run is then read
with): a document whose type the file lacks, every document without the file, and the
padded ranks cost ``--cwl-default-cost`` (cwl_eval's ``--max_cost`` and ``--min_cost``,
both 1 by default; smarteval takes one value for both). Costs change EC and ETC and,
through the cost spent so far, TBG, U-measure, BPM (its K), BPM-Dynamic and IFT (the
rate C2). cwl_eval reads the run in the order of its lines, whatever the scores say, and
so do these measures (:mod:`smarteval.ranking.programs`); their ir_measures names
(``INST(max_rel=3)``) are computed by ir_measures' cwl_eval provider, which sorts the run
by score as a double first, equal scores in line order. ``-M`` keeps the documents
trec_eval's ranking puts first.
"""

from __future__ import annotations

import math

import numpy as np

from smarteval import libm
from smarteval.columns import NONPOOL, Ranked
from smarteval.errors import UsageError
from smarteval.measures.registry import measure
from smarteval.ranking.cwl import CwlInputs, Keyed

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
    "IFT-C1-C2": (2.0, 0.9, 10.0, 2.0, 0.9, 10.0),
    "P": (10.0,), "NDCG": (10.0,), "RR": (), "AP": ()}


def _split(params: tuple, kind: str) -> tuple[tuple[float, ...], float, float]:
    """(the measure's parameters, min_rel, max_rel) from ``NAME.x`` or ``NAME.x,min,max``."""
    own = PARAMS[kind]
    p = [float(v) for v in params]
    n = len(own)
    if len(p) <= n:
        p = p + list(own[len(p):]) + [0.0, 1.0]
    example = ",".join(f"{v:g}" for v in own)
    if len(p) != n + 2 or not p[n] < p[n + 1] or not all(math.isfinite(v) for v in p):
        takes = f"{n} parameter{'s' if n > 1 else ''}, optionally followed by" if n \
            else "no parameters of its own, optionally"
        raise UsageError(f"{kind} takes {takes} min_rel and max_rel (min_rel below max_rel), "
                         f"e.g. {kind}.{example + ',' if n else ''}0,3")
    if kind == "P" and not (p[0] == int(p[0]) and 1 <= p[0] <= DEPTH):
        raise UsageError(f"cwl_P takes a whole number of documents from 1 to {DEPTH}")
    return tuple(p[:n]), p[n], p[n + 1]


def _values_at(r: Ranked, t: Keyed) -> np.ndarray:
    """(n,) the value of each row of ``r`` in ``t`` (matched by query id and docno), NaN
    where ``t`` has none."""
    out = np.full(len(r.docno), math.nan)
    if not len(t.docnos) or not len(r.docno):
        return out
    pos = np.minimum(np.searchsorted(t.qids, r.qids), len(t.qids) - 1)
    found = t.qids[pos] == r.qids
    to_r = np.full(len(t.qids), -1, dtype=np.int64)
    to_r[pos[found]] = np.flatnonzero(found)
    tq = to_r[np.repeat(np.arange(len(t.qids)), np.diff(t.offsets))]
    keep = tq >= 0
    docs = t.docnos[keep]
    _, inv = np.unique(np.concatenate([docs, r.docno]), return_inverse=True)
    inv = inv.reshape(-1).astype(np.int64)
    width = int(inv.max()) + 1
    tkey = tq[keep] * width + inv[:len(docs)]
    rkey = r.qindex * width + inv[len(docs):]
    order = np.argsort(tkey, kind="stable")
    if not len(order):
        return out
    at = np.minimum(np.searchsorted(tkey[order], rkey), len(order) - 1)
    hit = tkey[order][at] == rkey
    out[hit] = t.values[keep][order][at[hit]]
    return out


def _row_gains(r: Ranked) -> np.ndarray:
    """(n,) each ranked document's gain before scaling: its fractional gain or grade, a
    negative one 0 (ir_measures' cwl_eval provider), NaN when the qrels lack it."""
    key = ("cwl_gains",)
    if key not in r.memo:
        inputs = r.cwl if isinstance(r.cwl, CwlInputs) else CwlInputs()
        if inputs.gains is not None:
            raw = _values_at(r, inputs.gains)
        else:
            raw = np.where(r.rel == NONPOOL, math.nan, r.rel.astype(np.float64))
        r.memo[key] = np.where(np.isnan(raw), math.nan, np.maximum(raw, 0.0))
    return r.memo[key]


def _row_costs(r: Ranked) -> tuple[np.ndarray | None, float]:
    """(n,) each ranked document's cost (None: all cost the default), and the default."""
    inputs = r.cwl if isinstance(r.cwl, CwlInputs) else CwlInputs()
    if inputs.costs is None:
        return None, inputs.default_cost
    key = ("cwl_costs",)
    if key not in r.memo:
        raw = _values_at(r, inputs.costs)
        r.memo[key] = np.where(np.isnan(raw), inputs.default_cost, raw)
    return r.memo[key], inputs.default_cost


def _dense(r: Ranked, values: np.ndarray, block: np.ndarray, fill: float) -> np.ndarray:
    """(B, DEPTH): the ``values`` of the rows of the queries in ``block``, rank order, cut
    at DEPTH ranks and padded with ``fill`` (as cwl_eval pads), NaN also ``fill``."""
    out = np.full((len(block), DEPTH), fill)
    start, count = r.offsets[block], np.minimum(r.num_ret[block], DEPTH)
    qi = np.repeat(np.arange(len(block)), count)
    col = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    v = values[np.repeat(start, count) + col]
    out[qi, col] = np.where(np.isnan(v), fill, v)
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


def _weights(kind: str, xs: tuple[float, ...], g: np.ndarray,
             k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(W, L) of measure ``kind`` with parameters ``xs`` over gains ``g`` and costs ``k``."""
    i = np.arange(1, DEPTH + 1, dtype=np.float64)           # cwl_eval's i + 1
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return _weights_of(kind, xs, g, np.cumsum(k, axis=1), i)


def _weights_of(kind: str, xs: tuple[float, ...], g: np.ndarray, spent: np.ndarray,
                i: np.ndarray):
    """:func:`_weights`, ``spent`` the cost of ranks 1..i (cwl_eval's ``c_costs``)."""
    x = xs[0] if xs else 0.0
    if kind == "BPM":             # continue while the gain so far is below T, the cost below K
        c = (np.logical_and.accumulate(np.cumsum(g, axis=1) < x, axis=1)
             & np.logical_and.accumulate(spent < xs[1], axis=1)).astype(np.float64)
        return _from_c(c)
    if kind == "BPM-Dynamic":     # T moves by hb (gain - gain_med) after each rank
        t, k, hb, _, med = xs
        steps = np.concatenate([np.full((len(g), 1), t), hb * (g[:, :-1] - med)], axis=1)
        target = np.cumsum(steps, axis=1)                  # as cwl_eval adds, rank by rank
        c = (np.logical_and.accumulate(np.cumsum(g, axis=1) < target, axis=1)
             & np.logical_and.accumulate(spent < k, axis=1)).astype(np.float64)
        return _from_c(c)
    if kind.startswith("IFT"):
        y = np.cumsum(g, axis=1)
        c = np.ones_like(g)
        if kind != "IFT-C2":      # the goal: stop as the gain so far nears T
            t, b1, r1 = xs[:3]
            c = c * (1.0 - 1.0 / (1.0 + b1 * libm.exp((t - y) * r1)))
        if kind != "IFT-C1":      # the rate: stop as the gain per cost falls below A
            a, b2, r2 = xs[-3:]
            c = c * (1.0 / (1.0 + b2 * libm.exp((a - y / spent) * r2)))
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
    if kind == "P":               # the user reads k documents
        return _from_c(np.broadcast_to((i < x).astype(np.float64), g.shape).copy())
    if kind == "NDCG":            # DCG's discount, as a chance of going on, to rank k
        c = np.where(i < x, libm.log2(i + 1) / libm.log2(i + 2), 0.0)
        return _from_c(np.broadcast_to(c, g.shape).copy())
    if kind == "RR":              # on until the first document with gain
        return _from_c(np.logical_and.accumulate(g <= 0, axis=1).astype(np.float64))
    if kind == "AP":              # the share of the gain per rank still to come, from i on
        rii = g / i
        left = np.cumsum(rii[:, ::-1], axis=1)[:, ::-1]     # the sum over ranks i ... 1000
        top = np.concatenate([left[:, 1:], np.zeros((len(g), 1))], axis=1)
        return _from_c(np.where(top > 0, top / np.where(left > 0, left, 1.0), 0.0))
    if kind == "INST":
        ti = x - np.cumsum(g, axis=1)
        c = ((i + x + ti - 1.0) / (i + x + ti)) ** 2.0
        return _from_c(c)
    if kind == "INSQ":
        c = np.broadcast_to(((i + 2.0 * x - 1.0) / (i + 2.0 * x)) ** 2.0, g.shape)
        return _from_c(np.ascontiguousarray(c))
    zero = np.zeros((len(g), 1))
    if kind == "TBG":             # the weight decays with the cost spent above the rank
        before = np.concatenate([zero, spent[:, :-1]], axis=1)
        decay = x * libm.power(2.0, -before / x) / math.log(2.0)
        w = decay / np.sum(decay, axis=1)[:, None]
    else:                         # U-measure: a linear decay, over every rank but the last
        start = np.concatenate([zero, spent[:, :-2]], axis=1)
        raw = np.maximum(0.0, 1.0 - start / x)
        w = np.concatenate([raw, zero], axis=1) / np.sum(raw, axis=1)[:, None]
    c = _c_from_w(w)
    shift = np.concatenate([np.ones((len(g), 1)), c[:, :-1]], axis=1)
    return w, np.cumprod(shift, axis=1) * (1.0 - c)


def _scores(kind: str, xs: tuple[float, ...], g: np.ndarray,
            k: np.ndarray) -> dict[str, np.ndarray]:
    """cwl_eval's quantities (``_do_score``) over gains ``g`` and costs ``k``, (B, DEPTH)."""
    w, lv = _weights(kind, xs, g, k)
    return {"EU": np.sum(w * g, axis=1), "ETU": np.sum(lv * np.cumsum(g, axis=1), axis=1),
            "EC": np.sum(w * k, axis=1), "ETC": np.sum(lv * np.cumsum(k, axis=1), axis=1),
            "ED": 1.0 / w[:, 0]}


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
    raw = _row_gains(r)
    gains = (np.clip(raw, lo, hi) - lo) / (hi - lo)        # NaN (not in the qrels) stays
    costs, default = _row_costs(r)
    for first in range(0, Q, _BLOCK):                       # blocks of queries, not queries
        block = np.arange(first, min(first + _BLOCK, Q))
        k = (np.full((len(block), DEPTH), default) if costs is None
             else _dense(r, costs, block, default))
        worst = _scores(kind, xs, _dense(r, gains, block, 0.0), k)
        for q in QUANTITIES:
            out[q][block] = worst[q]
        if residuals:
            best = _scores(kind, xs, _dense(r, gains, block, 1.0), k)
            for q in QUANTITIES:
                out[f"Res{q}"][block] = best[q] - worst[q]
    return out


#: what each C/W/L measure reports besides its value (EU): ``INST_ETU``, ``TBG_ResEC.100``
REPORTED = QUANTITIES[1:] + tuple(f"Res{q}" for q in QUANTITIES)


def _value(r: Ranked, kind: str, params: tuple, quantity: str) -> np.ndarray:
    residuals = quantity.startswith("Res")
    key = ("cwl", kind, tuple(params), residuals)
    if key not in r.memo:
        r.memo[key] = cwl_values(r, kind, params, residuals)
    return r.memo[key][quantity]


@measure("INST", params="floats", default=(1.0,), origin="cwl", quantities=REPORTED)
def inst(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's INST (Moffat et al. 2015): expected utility of a user wanting T gain (default 1).

    C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T minus the gain of ranks 1..i
    (cwl_eval's ``cwl_inst.py``); the value is EU, the sum over the 1000 ranks of W(i)
    times the gain (gains from 0 to 1: scaled grades, or fractional gains from cwl_eval's
    gain file); its other quantities are ``INST_ETU`` ... ``INST_ResED`` (see the module,
    and ``--cwl-costs``). Parameters: T, optionally then min_rel and max_rel
    (``INST.2,0,3``: grades 0..3 scaled to gains 0..1, ir_measures'
    ``INST(T=2,min_rel=0,max_rel=3)``). 0 for an empty list.
    """
    return _value(r, "INST", params, quantity)


@measure("INSQ", params="floats", default=(1.0,), origin="cwl", quantities=REPORTED)
def insq(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's INSQ (Moffat et al. 2012): INST's forerunner, C(i) = ((i + 2T - 1) / (i + 2T))^2.

    The value is EU (see the module; ``cwl_insq.py``). Parameters as INST's: T (default
    1), optionally min_rel and max_rel. 0 for an empty list.
    """
    return _value(r, "INSQ", params, quantity)


@measure("TBG", params="floats", default=(224.0,), origin="cwl", quantities=REPORTED)
def tbg(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's TBG (Smucker and Clarke 2012): time-biased gain, half-life H (default 224).

    W(i) proportional to H 2^(-t_i / H) / ln 2, t_i the cost of the documents above rank i
    (1 each, or as ``--cwl-costs`` says), normalised over the 1000 ranks (``cwl_tbg.py``);
    the value is EU, its other quantities ``TBG_ETU`` ... (see the module). Parameters:
    H, optionally min_rel and max_rel.
    """
    return _value(r, "TBG", params, quantity)


@measure("U-measure", params="floats", default=(1000.0,), origin="cwl", quantities=REPORTED)
def u_measure(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's U-measure (Sakai and Dou 2013): linearly decaying attention over L (default 1000).

    W(i) proportional to max(0, 1 - t_i / L), t_i the cost of the documents above rank i,
    over the first 999 ranks, 0 at the 1000th (``cwl_umeasure.py``); the value is EU.
    Parameters: L, optionally min_rel and max_rel.
    """
    return _value(r, "U-measure", params, quantity)


@measure("BPM", params="floats", default=(1.0, 10.0), origin="cwl", quantities=REPORTED)
def bpm(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's static BPM (Zhang et al. 2017): the user stops at gain T or cost K (1, 10).

    C(i) = 1 while the gain of ranks 1..i stays below T and their cost (i, without
    ``--cwl-costs``) below K, then 0 for good
    (``cwl_bpm.py``, ``BPMCWLMetric``); the value is EU. Parameters: T and K, optionally
    then min_rel and max_rel (ir_measures' ``BPM(T=t,max_rel=m)@K``).
    """
    return _value(r, "BPM", params, quantity)


@measure("BPM-Dynamic", params="floats", default=(1.0, 10.0, 1.0, 1.0, 0.5),
         origin="cwl", quantities=REPORTED)
def bpm_dynamic(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's dynamic BPM: BPM whose T moves by hb (gain - gain_med) after each rank.

    Parameters T, K, hb, hc and gain_med (cwl_eval's defaults 1, 10, 1, 1, 0.5), optionally
    then min_rel and max_rel (``cwl_bpm.py``, ``BPMDCWLMetric``). As in cwl_eval, K does
    not move: the update meant for it changes T after T is last read, so hc changes
    nothing. The value is EU.
    """
    return _value(r, "BPM-Dynamic", params, quantity)


@measure("IFT-C1", params="floats", default=(2.0, 0.9, 10.0), origin="cwl", quantities=REPORTED)
def ift_goal(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's IFT goal measure (Azzopardi et al. 2018): C(i) = 1 - 1/(1 + b1 e^((T - y_i) R1)).

    y_i is the gain of ranks 1..i (``cwl_ift.py``, ``IFTGoalCWLMetric``); the value is EU.
    Parameters T, b1, R1 (default 2, 0.9, 10: cwl_eval's worked example; cwl_eval has
    no defaults), optionally then min_rel and max_rel. Where the exponential passes a
    double's range cwl_eval stops with an OverflowError; smarteval takes the limit (C = 1
    here, 0 in IFT-C2).
    """
    return _value(r, "IFT-C1", params, quantity)


@measure("IFT-C2", params="floats", default=(0.2, 0.9, 10.0), origin="cwl", quantities=REPORTED)
def ift_rate(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's IFT rate measure: C(i) = 1 / (1 + b2 e^((A - y_i / k_i) R2)), y_i the gain so far.

    k_i is the cost of ranks 1..i (i without ``--cwl-costs``; ``cwl_ift.py``,
    ``IFTRateCWLMetric``); the value is EU. Parameters A, b2, R2
    (default 0.2, 0.9, 10: cwl_eval's worked example), optionally min_rel and max_rel.
    """
    return _value(r, "IFT-C2", params, quantity)


@measure("IFT-C1-C2", params="floats", default=(2.0, 0.9, 10.0, 2.0, 0.9, 10.0),
         origin="cwl", quantities=REPORTED)
def ift_goal_rate(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's IFT goal-and-rate measure: the product of IFT-C1's and IFT-C2's C(i).

    (``cwl_ift.py``, ``IFTGoalRateCWLMetric``); the value is EU. Parameters T, b1, R1, A,
    b2, R2 (default 2, 0.9, 10, 2, 0.9, 10: cwl_eval's worked example), optionally then
    min_rel and max_rel.
    """
    return _value(r, "IFT-C1-C2", params, quantity)


@measure("NERR8", params="floats", default=(10.0,), origin="cwl", quantities=REPORTED)
def nerr8(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's NERR (equation 8, Azzopardi et al. 2021): ERR-like, truncated at k (default 10).

    C(i) = 1 - gain(i) for i < k, 0 from k on (``cwl_nerr.py``); the value is EU.
    Parameters: k, optionally min_rel and max_rel (ir_measures' ``NERR8(max_rel=m)@k``).
    """
    return _value(r, "NERR8", params, quantity)


@measure("NERR9", params="floats", default=(10.0,), origin="cwl", quantities=REPORTED)
def nerr9(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's NERR (equation 9): C(i) = i / (i + 1) (1 - gain(i)) for i < k (default 10).

    0 from k on (``cwl_nerr.py``); the value is EU. Parameters: k, optionally min_rel
    and max_rel (ir_measures' ``NERR9(max_rel=m)@k``).
    """
    return _value(r, "NERR9", params, quantity)


@measure("NERR10", params="floats", default=(0.9,), origin="cwl", quantities=REPORTED)
def nerr10(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's NERR (equation 10): C(i) = phi (1 - gain(i)), RBP-like (phi default 0.9).

    Over the 1000 ranks (``cwl_nerr.py``); the value is EU. Parameters: phi, optionally
    min_rel and max_rel (ir_measures' ``NERR10(p=phi,max_rel=m)``).
    """
    return _value(r, "NERR10", params, quantity)


@measure("NERR11", params="floats", default=(1.0,), origin="cwl", quantities=REPORTED)
def nerr11(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's NERR (equation 11): INSQ's C(i) times (1 - gain(i)), T default 1.

    C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - gain(i)) over the 1000 ranks (``cwl_nerr.py``);
    the value is EU. Parameters: T, optionally min_rel and max_rel (ir_measures'
    ``NERR11(T=t,max_rel=m)``).
    """
    return _value(r, "NERR11", params, quantity)


@measure("cwl_RBP", params="floats", default=(0.9,), origin="cwl", quantities=REPORTED)
def cwl_rbp(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's RBP (Moffat and Zobel 2008): C(i) = theta, the patience (default 0.9).

    (``cwl_rbp.py``, ``RBPCWLMetric``, printed as RBP@theta); the value is EU on the
    scaled gains, its other quantities ``cwl_RBP_ETU`` ... (ir_measures' ``RBP(rel=r,
    p=theta)`` is EU on binary gains: ``rbp_bin``). Parameters: theta, optionally min_rel
    and max_rel.
    """
    return _value(r, "RBP", params, quantity)


@measure("cwl_P", params="floats", default=(10.0,), origin="cwl", quantities=REPORTED)
def cwl_p(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's precision at k (its P@k): the user reads k documents (default 10).

    C(i) = 1 for i < k, then 0 (``cwl_precision.py``, ``PrecisionCWLMetric``): EU is the
    mean gain of the first k ranks (graded precision), ETU their summed gain. Parameters:
    k, a whole number from 1 to 1000, optionally min_rel and max_rel.
    """
    return _value(r, "P", params, quantity)


@measure("cwl_NDCG", params="floats", default=(10.0,), origin="cwl", quantities=REPORTED)
def cwl_ndcg(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's NDCG-k@k: DCG's discount to rank k as C/W/L weights (k default 10).

    C(i) = log2(i + 1) / log2(i + 2) for i < k, then 0 (``cwl_dcg.py``,
    ``NDCGCWLMetric``): EU is ir_measures' ``SDCG@k`` (sdcg), scaled DCG over the ideal
    of k documents of the highest gain. Parameters: k, optionally min_rel and max_rel.
    """
    return _value(r, "NDCG", params, quantity)


@measure("cwl_RR", params="floats", default=(), origin="cwl", quantities=REPORTED)
def cwl_rr(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's RR: the user stops at the first document with gain (its reciprocal rank).

    C(i) = 1 while ranks 1..i hold no gain, then 0 (``cwl_rr.py``, ``RRCWLMetric``): EU
    is the first such document's gain over its rank. Parameters: none of its own,
    optionally min_rel and max_rel (``cwl_RR.0,3``).
    """
    return _value(r, "RR", params, quantity)


@measure("cwl_AP", params="floats", default=(), origin="cwl", quantities=REPORTED)
def cwl_ap(r: Ranked, params: tuple, quantity: str = "EU") -> np.ndarray:
    """cwl_eval's AP as a C/W/L measure: C(i) = (sum over j > i of g_j / j) / (same over j >= i).

    0 where nothing after rank i has gain, and at rank 1000 (``cwl_ap.py``,
    ``APCWLMetric``); over the 1000 ranks read, whatever the qrels hold beyond them.
    The value is EU. Parameters: none of its own, optionally min_rel and max_rel.
    """
    return _value(r, "AP", params, quantity)


__all__ = ["DEPTH", "PARAMS", "QUANTITIES", "cwl_values"]
