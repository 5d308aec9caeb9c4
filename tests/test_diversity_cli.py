"""Diversity qrels through the one evaluation path: ``-R qrels_diversity``, or found out."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import smarteval
from smarteval.cli import main
from smarteval.evaluation import rankings
from smarteval.measures import parse_measures
from smarteval.measures.diversity import with_subtopics
from smarteval.read.diversity import read_qrels_diversity
from smarteval.read.plain import read_run

QRELS = ("1 1 a 1\n1 2 a 1\n1 2 b 1\n1 3 c 2\n1 1 d 0\n"
         "2 1 a 1\n2 4 e 1\n")
RUN = ("1 Q0 b 1 5 r\n1 Q0 a 2 4 r\n1 Q0 x 3 3 r\n1 Q0 c 4 2 r\n"
       "2 Q0 e 1 2 r\n2 Q0 a 2 1 r\n")
SPECS = ["alpha-nDCG.5,20", "ERR-IA.20", "strec.20", "NRBP", "MAP-IA", "map"]


def _library_values() -> dict[str, list[float]]:
    dq = read_qrels_diversity("q", data=QRELS.encode())
    ((_, ranked),) = rankings(dq.as_qrels(), [read_run("r", data=RUN.encode())])
    ranked = with_subtopics(ranked, dq)
    return {o.name: o.compute(ranked).tolist()
            for rq in parse_measures(SPECS) for o in rq.outputs()}


def _cli(tmp_path, *args):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    res = CliRunner().invoke(main, ["evaluate", "-f", "tsv", "-q", "-n", "--no-header",
                                    *args, *(a for s in SPECS for a in ("-m", s)),
                                    str(tmp_path / "q"), str(tmp_path / "r")])
    values: dict[str, list[float]] = {}
    for line in res.stdout.splitlines():
        _, qid, name, value = line.split("\t")
        values.setdefault(name, []).append(float(value))
    return res, values


def test_rel_info_format_reads_subtopics(tmp_path):
    res, values = _cli(tmp_path, "-R", "qrels_diversity")
    assert res.exit_code == 0, res.output
    assert res.stderr == ""
    want = _library_values()
    assert values.keys() == want.keys()
    for name in want:
        np.testing.assert_allclose(values[name], want[name], rtol=1e-12)


def test_diversity_file_is_found_out_when_a_diversity_measure_is_asked_for(tmp_path):
    res, values = _cli(tmp_path)
    assert res.exit_code == 0, res.output
    assert "read as diversity qrels" in res.stderr
    assert len(res.stderr.splitlines()) == 1
    want = _library_values()
    for name in want:
        np.testing.assert_allclose(values[name], want[name], rtol=1e-12)


def test_api_takes_the_format_from_settings(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    ev = smarteval.evaluate(str(tmp_path / "q"), [str(tmp_path / "r")], ["alpha-nDCG.20"],
                            settings=smarteval.Settings(qrels_format="qrels_diversity"))
    got = ev[0].per_query["alpha-nDCG_20"].tolist()
    assert got == pytest.approx(_library_values()["alpha-nDCG_20"], rel=1e-12)


def test_bad_format_is_a_usage_error(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    res = CliRunner().invoke(main, ["evaluate", "-R", "bogus", str(tmp_path / "q"),
                                    str(tmp_path / "r")])
    assert res.exit_code == 2


BASE = ("1 Q0 a 1 5 b\n1 Q0 d 2 4 b\n1 Q0 c 3 3 b\n"
        "3 Q0 a 1 2 b\n")


@pytest.mark.parametrize("risk_alpha", ["0", "1.5"])
def test_risk_baseline_option_is_ndevals_riskbased(tmp_path, risk_alpha):
    """evaluate --risk-baseline: ndeval's -baseline -riskAlpha, values from pyndeval."""
    import pyndeval
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    (tmp_path / "b").write_text(BASE)
    names = {"alpha-nDCG_20": "alpha-nDCG@20", "ERR-IA_10": "ERR-IA@10", "NRBP": "NRBP"}
    res = CliRunner().invoke(main, ["evaluate", "-R", "qrels_diversity", "-f", "tsv", "-q",
                                    "--no-header", "-m", "alpha-nDCG.20", "-m", "ERR-IA.10",
                                    "-m", "NRBP", "--risk-baseline", str(tmp_path / "b"),
                                    "--risk-alpha", risk_alpha, str(tmp_path / "q"),
                                    str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    qrels = [tuple(line.split()[:3]) + (int(line.split()[3]),)
             for line in QRELS.splitlines()]
    values = [pyndeval.ndeval(qrels, [(f[0], f[2], float(f[4])) for f in
                                      (line.split() for line in text.splitlines())],
                              list(names.values()))
              for text in (RUN, BASE)]
    a = float(risk_alpha)
    got = {(q, m): float(v) for _, q, m, v in (line.split("\t")
                                               for line in res.stdout.splitlines())}
    for name, ndeval_name in names.items():
        want = {}
        for q in sorted(set(values[0]) | set(values[1])):
            d = (values[0].get(q, {}).get(ndeval_name, 0.0)
                 - values[1].get(q, {}).get(ndeval_name, 0.0))
            want[q] = d if d >= 0 else (1 + a) * d
            assert got[q, name] == pytest.approx(want[q], abs=1e-4), (name, q)
        assert got["all", name] == pytest.approx(sum(want.values()) / len(want), abs=1e-4)
    assert {q for q, _ in got} == {"1", "2", "all"}      # 2: the baseline lacks it


def test_risk_baseline_refuses_what_has_no_risk(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 e 1\n")
    (tmp_path / "r").write_text(RUN)
    (tmp_path / "b").write_text(BASE)
    res = CliRunner().invoke(main, ["evaluate", "-m", "map", "-m", "num_ret", "-m", "gm_map",
                                    "--risk-baseline", str(tmp_path / "b"),
                                    str(tmp_path / "q"), str(tmp_path / "r")])
    assert res.exit_code == 2
    assert res.stderr == ("Error: --risk-baseline: num_ret, gm_map have no risk-sensitive "
                          "value (it takes measures whose values are averaged as a mean)\n")
    res = CliRunner().invoke(main, ["evaluate", "-m", "map", "--risk-alpha", "2",
                                    str(tmp_path / "q"), str(tmp_path / "r")])
    assert res.exit_code == 0
    assert res.stderr == "smarteval: --risk-alpha 2 has no effect without --risk-baseline\n"


def test_order_by_rank_reads_the_rank_column(tmp_path):
    """evaluate --order-by rank: ndeval's default order, from the run file's rank field."""
    import _pyndeval
    import pyndeval
    run = "1 Q0 b 4 5 r\n1 Q0 a 3 4 r\n1 Q0 x 2 3 r\n1 Q0 c 1 2 r\n2 Q0 e 1 2 r\n2 Q0 a 9 1 r\n"
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(run)
    res = CliRunner().invoke(main, ["evaluate", "-R", "qrels_diversity", "--order-by", "rank",
                                    "-f", "tsv", "-q", "-n", "--no-header", "-m",
                                    "alpha-nDCG.20", str(tmp_path / "q"), str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    got = {q: float(v) for _, q, _, v in (line.split("\t") for line in res.stdout.splitlines())}
    qrels = [tuple(line.split()[:3]) + (int(line.split()[3]),) for line in QRELS.splitlines()]
    oracle = pyndeval.RelevanceEvaluator(qrels, ["alpha-nDCG@20"])
    for q in ("1", "2"):
        _pyndeval.set_global_alpha_beta(0.5, 0.5)
        given = [(f.split()[2], int(f.split()[3])) for f in run.splitlines()
                 if f.split()[0] == q]
        (want,) = _pyndeval.eval(oracle.qrels[q], given, oracle.measures_arg)
        assert got[q] == pytest.approx(want, abs=1e-4)
