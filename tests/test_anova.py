"""The two-way ANOVA without replication against statsmodels (``ols`` + ``anova_lm``) and
pingouin's repeated-measures ANOVA to 1e-9, against Sakai's worked example to the decimals
his book prints, and its degenerate cases."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pingouin
import pytest
from scipy import stats
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm

from smarteval.errors import UsageError
from smarteval.stats.anova import standardized_differences, two_way, within_variance

SAKAI = Path(__file__).parent / "data" / "sakai"
# pingouin 0.7 calls DataFrame.dropna(inplace=True), which pandas 3.1 deprecates
pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword")


def sakai_table() -> tuple[list[str], np.ndarray]:
    """Sakai's Table 5.1: systems X, Y, Z (rows) by twenty topics."""
    frame = pd.read_csv(SAKAI / "table5_1.tsv", sep="\t", index_col="topic")
    return list(frame.columns), frame.to_numpy().T


def sakai_expected() -> dict:
    return json.loads((SAKAI / "expected.json").read_text(encoding="utf-8"))


def printed(value: float, want: list) -> bool:
    """``value`` rounds to the number the book prints, to its decimals."""
    number, decimals = want
    return abs(value - number) <= 0.5 * 10 ** -decimals + 1e-12


def long_frame(x: np.ndarray) -> pd.DataFrame:
    m, n = x.shape
    return pd.DataFrame({"score": x.ravel(), "system": np.repeat([f"s{i}" for i in range(m)], n),
                         "topic": np.tile([f"t{j}" for j in range(n)], m)})


def matrices():
    """Random run-by-topic matrices: continuous, rounded (ties), a run far ahead."""
    rng = np.random.default_rng(7)
    out = []
    for m, n in [(2, 2), (2, 9), (3, 20), (5, 13), (8, 50), (4, 3)]:
        topic = rng.normal(0.4, 0.2, n)
        x = np.clip(topic + rng.normal(0, 0.1, (m, n)) + np.linspace(0, 0.1, m)[:, None], 0, 1)
        out.append(x)
        if n > 2:                   # (2 x 2 rounded is additive: no residual, tested below)
            out.append(x.round(1))
    x = rng.random((3, 6))
    x[2] += 0.5
    out.append(x)
    return out


@pytest.mark.parametrize("x", matrices(), ids=lambda x: f"{x.shape[0]}x{x.shape[1]}")
def test_two_way_is_statsmodels(x):
    ref = anova_lm(ols("score ~ C(system) + C(topic)", long_frame(x)).fit())
    a = two_way(x)
    for source, row in (("C(system)", "system"), ("C(topic)", "topic"), ("Residual", "residual")):
        assert getattr(a, f"ss_{row}") == pytest.approx(ref.loc[source, "sum_sq"], rel=1e-9,
                                                        abs=1e-12)
        assert getattr(a, f"df_{row}") == ref.loc[source, "df"]
        assert getattr(a, f"ms_{row}") == pytest.approx(ref.loc[source, "mean_sq"], rel=1e-9,
                                                        abs=1e-12)
    for source, row in (("C(system)", "system"), ("C(topic)", "topic")):
        assert getattr(a, f"f_{row}") == pytest.approx(ref.loc[source, "F"], rel=1e-9)
        assert getattr(a, f"p_{row}") == pytest.approx(ref.loc[source, "PR(>F)"], rel=1e-9,
                                                       abs=1e-15)
    # omega-squared from statsmodels' own sums of squares
    ss = ref["sum_sq"]
    ve = ref.loc["Residual", "mean_sq"]
    want = (ss["C(system)"] - (x.shape[0] - 1) * ve) / (ss.sum() + ve)
    assert a.omega2 == pytest.approx(want, rel=1e-9)
    f = ref.loc["C(system)", "F"]
    df1 = x.shape[0] - 1
    assert a.partial_omega2 == pytest.approx(df1 * (f - 1) / (df1 * (f - 1) + x.size), rel=1e-9)


@pytest.mark.parametrize("x", matrices(), ids=lambda x: f"{x.shape[0]}x{x.shape[1]}")
@pytest.mark.parametrize("effsize", ["np2", "n2"])
def test_system_effect_is_pingouins_rm_anova(x, effsize):
    frame = long_frame(x)
    ref = pingouin.rm_anova(frame, dv="score", within="system", subject="topic",
                            detailed=True, effsize=effsize, correction=False)
    system = ref.set_index("Source").loc["system"]
    error = ref.set_index("Source").loc["Error"]
    a = two_way(x)
    assert a.ss_system == pytest.approx(system["SS"], rel=1e-9, abs=1e-12)
    assert a.df_system == system["DF"] and a.df_residual == error["DF"]
    assert a.ss_residual == pytest.approx(error["SS"], rel=1e-9, abs=1e-12)
    assert a.f_system == pytest.approx(system["F"], rel=1e-9)
    assert a.p_system == pytest.approx(system["p_unc"], rel=1e-9, abs=1e-15)
    # pingouin's n2 of a one-way repeated-measures design is S_system / S_total
    want = a.partial_eta2 if effsize == "np2" else a.eta2
    assert want == pytest.approx(system[effsize], rel=1e-9)


def test_sakai_table_5_1():
    names, x = sakai_table()
    want = sakai_expected()["anova_XYZ"]
    a = two_way(x)
    for key in ("ss_system", "ss_topic", "ss_residual", "ms_system", "ms_topic", "ms_residual",
                "f_system", "f_topic", "p_system", "p_topic"):
        assert printed(getattr(a, key), want[key]), key
    moe = stats.t.ppf(0.975, a.df_residual) * math.sqrt(a.ms_residual / a.topics)
    assert printed(moe, want["moe95"])
    es = standardized_differences(x)
    for pair, value in sakai_expected()["es_e"].items():
        i, j = (names.index(s) for s in pair.split("-"))
        assert printed(es[i, j], value), pair
        assert es[j, i] == -es[i, j]


def test_sakai_paired_t():
    """The book's paired t-test of X against Y: what compare's t row holds."""
    from smarteval.stats.significance import paired_test
    names, x = sakai_table()
    want = sakai_expected()["paired_t_X_Y"]
    r = paired_test("t", x[1], x[0])
    assert printed(r.mean_diff, want["mean"])
    assert printed(float(np.var(x[0] - x[1], ddof=1)), want["variance"])
    assert printed(r.effect, want["effect_size"])
    assert printed(r.statistic, want["t"]) and printed(r.p_value, want["p"])
    assert printed((r.ci_high - r.ci_low) / 2, want["moe95"])


def test_within_variance_is_one_way_residual():
    for x in matrices():
        ref = ols("score ~ C(system)", long_frame(x)).fit()
        assert within_variance(x) == pytest.approx(ref.mse_resid, rel=1e-9)


def test_one_topic_has_no_residual():
    a = two_way(np.array([[0.2], [0.5], [0.9]]))
    assert a.df_residual == 0 and math.isnan(a.ms_residual)
    assert math.isnan(a.f_system) and math.isnan(a.p_system)
    assert np.isnan(standardized_differences(np.array([[0.2], [0.5]]))).all()


def test_equal_runs_and_additive_runs():
    x = np.array([[0.1, 0.4, 0.7, 0.2]] * 3)
    a = two_way(x)                                   # no system effect and no residual
    assert a.ss_system == 0 and a.ss_residual == 0
    # F = MS_system / V_E = 0/0: undefined, as scipy's ttest_rel is for two such runs
    # (pingouin's rm_anova prints F 0, p 1 here; statsmodels' rounding noise F 0.098)
    assert math.isnan(a.f_system) and math.isnan(a.p_system)
    assert math.isnan(a.partial_omega2)
    assert math.isnan(float(stats.ttest_rel(x[0], x[1]).statistic))
    y = x + np.array([[0.0], [0.1], [0.3]])          # the same gain on every topic
    b = two_way(y)
    assert b.ss_residual == 0 and b.f_system == math.inf and b.p_system == 0.0
    es = standardized_differences(y)
    assert math.isnan(es[0, 0]) and es[2, 0] == math.inf and es[0, 2] == -math.inf


def test_refusals():
    with pytest.raises(UsageError, match="NaN"):
        two_way(np.array([[0.1, math.nan], [0.2, 0.3]]))
    with pytest.raises(UsageError, match="matrix"):
        two_way(np.array([0.1, 0.2]))
