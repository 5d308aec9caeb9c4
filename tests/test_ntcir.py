"""NTCIREVAL's measures: worked examples by hand from Sakai's definitions, pinned as
fractions; the run's line order; names and parameters; the topics pyNTCIREVAL gives no
value (an empty condensed list, levels without gain), where smarteval gives 0. The
property test against pyNTCIREVAL, every measure and its variants to 1e-9 a query, is
tests/test_vs_oracle.py's (tests/ntcir_oracle.py)."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction as F

import ntcir_oracle as N
import numpy as np
import pytest

import smarteval
from smarteval.errors import UsageError
from smarteval.read.plain import read_qrels, read_run

# one topic: d1 L2, d2 L0, d3 L1, d4 unjudged, d5 L2 in the run's line order (scores
# ascending: NTCIREVAL reads the lines, not the scores); d6 L1 and d7 L0 not retrieved.
# R = 4, gains L1=1 L2=2, the ideal gains 2, 2, 1, 1.
QRELS = "1 0 d1 2\n1 0 d2 0\n1 0 d3 1\n1 0 d5 2\n1 0 d6 1\n1 0 d7 0\n"
RUN = "".join(f"1 Q0 d{i} {i} {i}.0 t\n" for i in range(1, 6))


def values(*specs):
    q = read_qrels("qrels", data=QRELS.encode())
    r = read_run("run", data=RUN.encode())
    ev = smarteval.evaluate(q, r, list(specs))[0]
    return {name: float(ev.per_query[name][0]) for name in ev.names}


# BR at the relevant ranks 1, 3, 5: (1+2)/(1+2), (2+3)/(3+5), (3+5)/(5+6)
WORKED = {
    "ntcir_Q": F(1 + F(5, 8) + F(8, 11)) / 4,                 # 207/352
    "ntcir_AP": (1 + F(2, 3) + F(3, 5)) / 4,                   # 17/30
    "ntcir_RR": F(1),
    "ntcir_O": F(1),                                           # (1 + 2) / (1 + 2)
    "ntcir_P": F(1),                                           # the first L2 is at rank 1
    "ntcir_Pplus": F(1),
    # condensed: d4 removed, the relevant ranks 1, 3, 4
    "ntcir_Q_j=1": (1 + F(5, 8) + F(8, 10)) / 4,               # 97/160
    "ntcir_AP_j=1": (1 + F(2, 3) + F(3, 4)) / 4,               # 29/48
    "ntcir_Q_k=3": (1 + F(5, 8)) / 3,                          # over min(R, k)
    "ntcir_Prec_k=3": F(2, 3),
    "ntcir_Recall_k=3": F(2, 4),
    "ntcir_Hit_k=1": F(1),
    # ERR: a level's chance its gain over 2 + 1: 2/3, 1/3 and 2/3 at ranks 1, 3, 5
    "ntcir_ERR": F(2, 3) + F(1, 3) * F(1, 3) * F(1, 3) + F(2, 3) * F(1, 5) * F(1, 3) * F(2, 3),
}


@pytest.mark.parametrize("name", sorted(WORKED))
def test_worked_example(name):
    spec = name.replace("_j=", ".j=").replace("_k=", ".k=")
    got = values(spec)[name]
    assert got == pytest.approx(float(WORKED[name]), rel=1e-15), (got, WORKED[name])


def test_worked_ndcg_and_rbp():
    log3 = math.log(3) / math.log(2)
    got = values("ntcir_nDCG.k=3", "ntcir_RBP")
    # DCG@3: 2/1 + 1/log2(3); the ideal (L2, L2, L1...): 2/1 + 2/log2(2) + 1/log2(3)
    assert got["ntcir_nDCG_k=3"] == pytest.approx((2 + 1 / log3) / (4 + 1 / log3), rel=1e-15)
    # gains over the highest level's (2), weights 0.05 * 0.95^(r - 1)
    rbp = 0.05 * (1 + 0.5 * 0.95 ** 2 + 0.95 ** 4)
    assert got["ntcir_RBP"] == pytest.approx(rbp, rel=1e-14)


def test_pynctireval_agrees_on_the_example():
    """The same topic through pyNTCIREVAL (tests/ntcir_oracle.py) for every measure."""
    codes, grades = [2, 0, 1, -1, 2], [2, 0, 1, 2, 1, 0]
    got = values("ntcireval", "ntcir_Recall")
    for name, value in got.items():
        assert value == pytest.approx(N.query(codes, grades, name, ()), rel=1e-12), name


def test_the_lines_not_the_scores_give_the_order():
    """Scores change nothing: NTCIREVAL reads each topic's lines in order, where
    trec_eval's map sorts by score (d2, d3, d4, d5, d1 here)."""
    q = read_qrels("qrels", data=QRELS.encode())
    scores = {1: 1.0, 2: 5.0, 3: 4.0, 4: 3.0, 5: 2.0}
    run = read_run("run", data="".join(f"1 Q0 d{i} {i} {s} t\n"
                                       for i, s in scores.items()).encode())
    ev = smarteval.evaluate(q, run, ["ntcir_AP", "map"])[0]
    assert float(ev.per_query["ntcir_AP"][0]) == pytest.approx(float(WORKED["ntcir_AP"]))
    assert float(ev.per_query["map"][0]) == pytest.approx((F(1, 2) + F(2, 4) + F(3, 5)) / 4)


def test_nickname_and_names():
    got = values("ntcireval", "ntcir_Q.L1=1,L2=3,beta=0.5,k=10")
    assert list(got) == ["ntcir_RR", "ntcir_O", "ntcir_P", "ntcir_Pplus", "ntcir_AP",
                         "ntcir_Q", "ntcir_Q_L1=1,L2=3,beta=0.5,k=10", "ntcir_NCUguP",
                         "ntcir_NCUguBR", "ntcir_NCUrbP", "ntcir_NCUrbBR", "ntcir_RBP",
                         "ntcir_ERR", "ntcir_nDCG", "ntcir_MSnDCG", "ntcir_nERR",
                         "ntcir_Prec", "ntcir_Hit"]


@pytest.mark.parametrize("spec, message", [
    ("ntcir_Q.k=0", "ntcir_Q: k=0 is out of range"),
    ("ntcir_Q.k=2.5", "ntcir_Q: k=2.5 is out of range"),
    ("ntcir_RBP.p=2", "ntcir_RBP: p=2 is out of range"),
    ("ntcir_Q.L0=1", "ntcir_Q: NTCIREVAL's gains are per relevance level, L1 and above"),
    ("ntcir_nDCG.L1=-1", "ntcir_nDCG: a gain is 0 or more"),
    ("ntcir_Q.gamma=0.5", "bad parameters in measure 'ntcir_Q.gamma=0.5'"),
])
def test_parameters_refused(spec, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(".", r"\.")):
        values(spec)


# --------------------------------------------------------------- no value in pyNTCIREVAL

ALL = ["ntcir_RR", "ntcir_O", "ntcir_P", "ntcir_Pplus", "ntcir_AP", "ntcir_Q", "ntcir_NCUguP",
       "ntcir_NCUguBR", "ntcir_NCUrbP", "ntcir_NCUrbBR", "ntcir_RBP", "ntcir_ERR",
       "ntcir_nDCG", "ntcir_MSnDCG", "ntcir_nERR", "ntcir_Prec", "ntcir_Hit"]


def one_topic(qrels: str, run: str, specs: list[str]) -> list[float]:
    ev = smarteval.evaluate(read_qrels("q", data=qrels.encode()),
                            read_run("r", data=run.encode()), specs)[0]
    return [float(ev.per_query[name][0]) for name in ev.names]


@pytest.mark.parametrize("name", ALL)
def test_an_empty_condensed_list_gives_0(name):
    """j=1 with every retrieved document unjudged: the condensed list is empty, which
    pyNTCIREVAL cannot evaluate (max() of nothing); smarteval gives 0, as nothing
    relevant is retrieved."""
    with pytest.raises(ValueError, match="empty"):
        N.query([-1, -1], [1, 2, 0], name, [("j", 1)], strict=True)
    assert one_topic("1 0 d1 1\n1 0 d2 2\n1 0 d3 0\n",
                     "1 Q0 u1 1 2.0 t\n1 Q0 u2 2 1.0 t\n", [f"{name}.j=1"]) == [0.0]


#: The measures pyNTCIREVAL gives no value when every level present gains 0 (a division
#: by an ideal worth nothing; nERR's numpy division gives NaN).
NO_GAIN = {"ntcir_NCUguP", "ntcir_NCUguBR", "ntcir_RBP", "ntcir_nDCG", "ntcir_MSnDCG",
           "ntcir_nERR"}


@pytest.mark.parametrize("name", ALL)
def test_levels_without_gain(name):
    """The topic's one level, L1, given gain 0: where pyNTCIREVAL divides by the ideal
    ranking's gain (or the highest level's) smarteval gives 0; elsewhere its value."""
    got = one_topic("1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n",
                    [f"{name}.L1=0"])
    if name in NO_GAIN:
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            try:
                value = N.query([1, 0], [1, 0, 1], name, [(1, 0.0)], strict=True)
            except ZeroDivisionError:
                value = None
        assert value is None or math.isnan(value)
        assert got == [0.0]
    else:
        assert got == [pytest.approx(N.query([1, 0], [1, 0, 1], name, [(1, 0.0)],
                                             strict=True), rel=1e-12)]
