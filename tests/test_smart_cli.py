"""The SMART options of ``smarteval evaluate`` and the ``smarteval curve`` command, end to end."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from fixtures import invoke as run

DATA = os.path.join(os.path.dirname(__file__), "data", "smart")


def data(name: str) -> str:
    return os.path.join(DATA, name)


def tsv(result) -> dict:
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in result.output.splitlines()[1:]]
    return {(r[1], r[2]): r[3] for r in rows}


def test_smart_table_gains_the_normalized_measures_with_n():
    # Keen Fig. 3 and Fig. 5: RNK REC, LOG PRE, NOR REC, NOR PRE under the curve
    out = run("evaluate", data("q268.qrels"), data("q268.run"), "-N", 200, "-f", "smart")
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    labels = [line.split()[0] for line in lines if line and line[0].isalpha()]
    at = labels.index("RNK")
    assert labels[at:at + 4] == ["RNK", "LOG", "NOR", "NOR"]
    rows = {line[:11].strip(): line.split()[-1] for line in lines if line[:3] in
            ("RNK", "LOG", "NOR", "1.0", "0.8")}
    assert rows["NOR REC"] == "0.9887"
    assert rows["NOR PRE"] == "0.9239"        # .92386: Keen prints it truncated, .9238
    assert rows["RNK REC"] == "0.5769"
    assert rows["0.8"] == "0.6667" and rows["1.0"] == "0.3846"
    # without N the table has no normalized measures
    out = run("evaluate", data("q268.qrels"), data("q268.run"), "-f", "smart")
    assert "NOR REC" not in out.output


def test_measure_needing_n_without_it():
    out = run("evaluate", data("q268.qrels"), data("q268.run"), "-m", "norm_recall")
    assert out.exit_code == 2
    assert out.output == ("Error: norm_recall needs the number of documents in the "
                          "collection: give -N/--num-docs\n")


def test_n_too_small_is_an_input_error():
    out = run("evaluate", data("jw.qrels"), data("jw.run"), "-m", "norm_recall", "-N", 150)
    assert out.exit_code == 1
    assert "collection of 150 documents is smaller than query 1's 200 retrieved" in out.output


def test_micro_average_refused_for_non_ratio():
    out = run("evaluate", data("q268.qrels"), data("q268.run"), "-m", "map",
              "--average", "micro")
    assert out.exit_code == 2
    assert "map is not a ratio of counts, so it has no micro average" in out.output


def test_micro_f_is_f_of_the_pooled_counts():
    # Rocchio Table 1 at his cutoff 2: 8 relevant of 80 examined, 13 relevant in all;
    # F is a ratio of counts, so its micro average is F of micro P = 8/80 and micro
    # R = 8/13: 2·8 / (13 + 80); E is 1 minus it
    vals = tsv(run("evaluate", data("rocchio.qrels"), data("rocchio.run"), "-m", "F",
                   "-m", "E", "-m", "set_P", "-m", "set_recall", "--average", "micro",
                   "-f", "tsv"))
    P, R = float(vals[("all", "set_P")]), float(vals[("all", "set_recall")])
    assert float(vals[("all", "F")]) == pytest.approx(16 / 93)
    assert float(vals[("all", "F")]) == pytest.approx(2 * P * R / (P + R))
    assert float(vals[("all", "E")]) == pytest.approx(1 - 16 / 93)


def test_each_parameter_set_of_a_smart_measure_is_printed():
    # F, E, F_alpha, wnorm_recall and jw_avg are not trec_eval's: every distinct set of
    # parameters asked for is printed, in the order asked; a set asked twice, once.
    # Q268 (ranks 1,2,4,6,13 of 14, R = 5): F = 2·5/(5+14), F.0.5 = 1.25·5/(.25·5+14),
    # F.2,10 = 5·4/(4·5+10)
    out = run("evaluate", data("q268.qrels"), data("q268.run"), "-N", 200, "-f", "tsv",
              "-m", "F", "-m", "F.0.5", "-m", "F.2,10", "-m", "F.1", "-m", "E.2,10",
              "-m", "jw_avg.5", "-m", "jw_avg.10", "-m", "F_alpha.0.2", "-m", "F_alpha",
              "-m", "wnorm_recall", "-m", "wnorm_recall.1=3")
    vals = tsv(out)
    names = [name for (q, name) in vals if q == "all"]
    assert names == ["F", "F_0.5", "F_2,10", "E_2,10", "jw_avg_5", "jw_avg_10",
                     "F_alpha_0.2", "F_alpha", "wnorm_recall", "wnorm_recall_1=3"]
    assert float(vals[("all", "F")]) == pytest.approx(10 / 19)
    assert float(vals[("all", "F_0.5")]) == pytest.approx(6.25 / 15.25)
    assert float(vals[("all", "F_2,10")]) == pytest.approx(20 / 30)
    assert float(vals[("all", "E_2,10")]) == pytest.approx(1 / 3)
    assert out.stderr_bytes in (None, b"")
    # trec_eval's own measures keep trec_eval's rule: the first parameters given
    out = run("evaluate", data("q268.qrels"), data("q268.run"), "-f", "tsv",
              "-m", "set_F.0.5", "-m", "set_F.2")
    assert [name for (q, name) in tsv(out) if q == "all"] == ["set_F_0.5"]


def _complete_files(tmp_path):
    # query 1: relevant a at rank 1 of 2; query 2: 2 relevant and no results (-c adds it)
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 x 1\n2 0 y 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 9 f\n1 Q0 b 2 8 f\n")
    return tmp_path / "q", tmp_path / "r"


@pytest.mark.parametrize("version", ["9", "10"])
def test_complete_scores_smart_measures_on_the_empty_ranking(tmp_path, version):
    # -c: trec_eval's measures follow trec_eval's rule for a query without results; the
    # SMART measures score its empty ranking (N = 20, R = 2, both placed at the expected
    # ranks 7 and 14): E 1, norm_recall 1 - (21 - 3)/(2·18) = .5, rank_first 7
    q, r = _complete_files(tmp_path)
    out = run("evaluate", q, r, "-c", "-N", 20, "-f", "tsv", "-q", "--trec-version",
              version, "-m", "map", "-m", "E", "-m", "norm_recall", "-m", "rank_first")
    vals = tsv(out)
    assert vals[("2", "map")] == "0.0"
    assert float(vals[("2", "E")]) == 1.0
    assert float(vals[("2", "norm_recall")]) == 0.5
    assert float(vals[("2", "rank_first")]) == 7.0
    assert float(vals[("all", "E")]) == pytest.approx((1 / 3 + 1) / 2)
    assert float(vals[("all", "norm_recall")]) == pytest.approx(0.75)
    what = "averaged in as 0 (-c)" if version == "9" else \
        "evaluated on trec_eval 10.0's placeholder document (-c)"
    assert f"1 query of the qrels without results, {what}; the SMART measures score " \
        "their empty ranking" in out.stderr
    # micro F pools the empty ranking's counts: 2·1 / ((1 + 2) + (2 + 0))
    vals = tsv(run("evaluate", q, r, "-c", "-f", "tsv", "--average", "micro",
                   "--trec-version", version, "-m", "F"))
    assert float(vals[("all", "F")]) == pytest.approx(2 / 5)
    # the curves see the empty ranking too (no placeholder document at rank 1): query
    # 2's first point is 1/7 (not 1/7.67), held to recall 0 by the constant left end
    out = run("curve", q, r, "-c", "-N", 20, "--trec-version", version, "--levels", "0,1",
              "-f", "tsv")
    assert out.exit_code == 0, out.output
    assert float(out.output.splitlines()[1].split("\t")[2]) == pytest.approx((1 + 1 / 7) / 2)


def test_ties_average_refusal_and_value(tmp_path):
    out = run("evaluate", data("q268.qrels"), data("q268.run"), "-m", "bpref",
              "--ties", "average")
    assert out.exit_code == 2
    assert "--ties average: bpref has no exact average" in out.output
    # two tied documents at ranks 1-2, one relevant: P_1 averages to 1/2
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 5 t\n1 Q0 b 2 5 t\n")
    vals = tsv(run("evaluate", tmp_path / "q", tmp_path / "r", "-m", "P.1", "-m", "recip_rank",
                   "--ties", "average", "-f", "tsv"))
    assert float(vals[("all", "P_1")]) == 0.5
    assert float(vals[("all", "recip_rank")]) == 0.75


def test_frozen_residual_collection():
    # Joiner & Werner: 4 relevant in the first 10 of 200 leave n = 190 and 8 relevant
    vals = tsv(run("evaluate", data("jw.qrels"), data("jw_feedback.run"), "-N", 200,
                   "-m", "num_rel", "-m", "num_ret", "-m", "generality", "-m", "jw_prob.1",
                   "--frozen", data("jw.run"), "--frozen-depth", 10, "-f", "tsv"))
    assert vals[("all", "num_rel")] == "8"
    assert vals[("all", "num_ret")] == "190"
    assert float(vals[("all", "generality")]) == pytest.approx(1000 * 8 / 190)
    assert float(vals[("all", "jw_prob_1")]) == pytest.approx(182 / 190)   # P(X = 0)
    out = run("evaluate", data("jw.qrels"), data("jw.run"), "--frozen", data("jw.run"))
    assert out.exit_code == 2 and "go together" in out.output


@pytest.mark.parametrize("frozen, depth, num_rel, num_ret, n", [
    ("jw.run", 0, 12, 200, 200),             # depth 0: nothing seen, nothing removed
    ("unjudged.run", 2, 12, 200, 198),       # a seen top no qrels line judges
])
def test_frozen_edges(tmp_path, frozen, depth, num_rel, num_ret, n):
    (tmp_path / "unjudged.run").write_text("1 Q0 zz1 1 9 x\n1 Q0 zz2 2 8 x\n")
    path = data(frozen) if frozen == "jw.run" else tmp_path / frozen
    vals = tsv(run("evaluate", data("jw.qrels"), data("jw_feedback.run"), "-N", 200,
                   "-m", "num_rel", "-m", "num_ret", "-m", "generality",
                   "--frozen", path, "--frozen-depth", depth, "-f", "tsv"))
    assert vals[("all", "num_rel")] == str(num_rel)
    assert vals[("all", "num_ret")] == str(num_ret)
    assert float(vals[("all", "generality")]) == pytest.approx(1000 * num_rel / n)


def test_jw_table_through_the_cli():
    vals = tsv(run("evaluate", data("jw.qrels"), data("jw.run"), "-N", 200,
                   "-m", "jw_prob.1,2,10,14", "-f", "tsv"))
    assert float(vals[("all", "jw_prob_1")]) == pytest.approx(0.94)
    assert abs(float(vals[("all", "jw_prob_10")]) - 0.99868) < 1e-5
    assert abs(float(vals[("all", "jw_prob_14")]) - 0.99997) < 1e-5


CURVE_Q268 = """\
Quasi-Cranfield precision at 10 recall levels (step middle, left end constant), macro average over 1 queries

REC.      thesaurus2
------  ------------
0.1           1.0000
0.2           1.0000
0.3           1.0000
0.4           1.0000
0.5           0.8750
0.6           0.7500
0.7           0.5972
0.8           0.4444
0.9           0.4145
1.0           0.3846

Queries averaged from real points + by extrapolation (- left out):

REC.      thesaurus2
------  ------------
0.1              0+1
0.2              1+0
0.3              1+0
0.4              1+0
0.5              1+0
0.6              1+0
0.7              1+0
0.8              1+0
0.9              1+0
1.0              1+0
"""  # noqa: E501


def test_curve_golden_quasi_middle():
    # middle documents of the steps (by hand): ranks 1, 2 (of 2-3), 4 (of 4-5), 9 (of 6-12,
    # Fig. 15's .4444) and 13 (of 13-14, the end of the list): 1, 1, .75, 4/9, 5/13, joined
    # by straight lines (.5: (1 + .75)/2, .7: (.75 + 4/9)/2, .9: (4/9 + 5/13)/2)
    out = run("curve", data("q268.qrels"), data("q268.run"), "--step", "middle")
    assert out.exit_code == 0, out.output
    assert out.output == CURVE_Q268


def test_curve_json_and_pseudo():
    out = run("curve", data("q268.qrels"), data("q268.run"), "--method", "pseudo",
              "--levels", "0.2,0.4,0.6,0.8,1", "-f", "json")
    assert out.exit_code == 0, out.output
    (obj,) = json.loads(out.output)
    assert [lv["examined"] for lv in obj["levels"]] == [1, 2, 4, 6, 13]
    assert [round(lv["precision"], 4) for lv in obj["levels"]] == [1, 1, 0.75, 0.6667, 0.3846]


def test_curve_semi_matches_iprec():
    out = run("curve", data("q268.qrels"), data("q268.run"), data("q268.run"), "--method",
              "semi", "-f", "tsv")
    semi = [line.split("\t") for line in out.output.splitlines()[1:]]
    vals = tsv(run("evaluate", data("q268.qrels"), data("q268.run"),
                   "-m", "iprec_at_recall.0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1", "-f", "tsv"))
    for row in semi[:10]:
        assert float(row[2]) == pytest.approx(
            float(vals[("all", f"iprec_at_recall_{float(row[1]):.2f}")]))


@pytest.mark.parametrize("args, message", [
    (["--method", "semi", "--left", "one"], "--left extrapolates the quasi and cluster"),
    (["--method", "pseudo", "--step", "lowest"], "takes no --step"),
    (["--average", "micro"], "the quasi curve interpolates between cut-offs"),
    (["--levels", "1.5"], "--levels takes recall levels between 0 and 1"),
])
def test_curve_usage_errors(args, message):
    out = run("curve", data("q268.qrels"), data("q268.run"), *args)
    assert out.exit_code == 2
    assert message in out.output



def fig25_files(tmp_path):
    """Keen Fig. 25: full search relevant at 2, 4, 7, 10, 14 of 14; three cluster searches
    of 8 documents: relevant at none, at 3 and 7, at 1 and 3."""
    full_ranks = {2, 4, 7, 10, 14}
    cluster_ranks = {"a": set(), "b": {3, 7}, "c": {1, 3}}
    with open(tmp_path / "qrels", "w") as fq, open(tmp_path / "full.run", "w") as ff, \
            open(tmp_path / "cluster.run", "w") as fc:
        for q, ranks in cluster_ranks.items():
            for i in range(1, 15):
                fq.write(f"{q} 0 f{i} {int(i in full_ranks)}\n")
                ff.write(f"{q} Q0 f{i} {i} {100 - i} full\n")
            rel = iter(sorted(full_ranks))
            nonrel = iter(sorted(set(range(1, 15)) - full_ranks))
            for i in range(1, 9):
                doc = f"f{next(rel)}" if i in ranks else f"f{next(nonrel)}"
                fc.write(f"{q} Q0 {doc} {i} {100 - i} cluster\n")
    return tmp_path / "qrels", tmp_path / "full.run", tmp_path / "cluster.run"


def test_curve_cluster_fig25(tmp_path):
    qrels, full, cluster = fig25_files(tmp_path)
    out = run("curve", qrels, cluster, "--method", "cluster", "--full", full, "--levels",
              "0.2,0.4,1", "-f", "json")
    assert out.exit_code == 0, out.output
    cl, fs = json.loads(out.output)
    assert cl["ceiling"] == pytest.approx(0.8 / 3) and cl["end"] == "extrapolate"
    assert [round(lv["precision"], 4) for lv in cl["levels"]] == [
        round((5 / 14 + 1 / 3 + 1) / 3, 4), round((5 / 14 + 2 / 7 + 2 / 3) / 3, 4),
        round(5 / 14, 4)]
    assert fs["run"] == "full (full search)" and fs["method"] == "quasi"
    assert [lv["precision"] for lv in fs["levels"]] == [0.5, 0.5, 5 / 14]
    table = run("curve", qrels, cluster, "--method", "cluster", "--full", full).output
    assert "Recall ceiling of the cluster search (macro): cluster 0.2667" in table
    assert "full (full search)" in table


@pytest.mark.parametrize("args, message", [
    (["--method", "cluster"], "--method cluster needs --full RUN"),
    (["--full", "x.run"], "--full gives the cluster curve its full search"),
    (["--cluster-end", "join"], "--cluster-end applies to --method cluster"),
    (["--method", "cluster", "--full", "x.run", "--average", "micro"],
     "the cluster curve interpolates between cut-offs"),
])
def test_curve_cluster_usage_errors(args, message):
    out = run("curve", data("q268.qrels"), data("q268.run"), *args)
    assert out.exit_code == 2, out.output
    assert message in out.output


def test_curve_options_are_checked_before_any_file_is_read(tmp_path):
    # a usage error (exit 2) wins over a missing run (exit 1)
    out = run("curve", data("q268.qrels"), tmp_path / "missing.run", "--method", "semi",
              "--left", "one")
    assert out.exit_code == 2
    assert "--left extrapolates the quasi and cluster" in out.output


def test_curve_formats_agree(tmp_path):
    """Every format carries the same numbers as the JSON, the table to four places."""
    args = ["curve", data("q268.qrels"), data("q268.run"), "--method", "pseudo", "-N", "1400"]
    (obj,) = json.loads(run(*args, "-f", "json").output)
    rows = [line.split("\t") for line in run(*args, "-f", "tsv").output.splitlines()]
    assert rows[0] == ["run", "level", "precision", "real", "extrapolated", "excluded",
                       "examined"]
    assert len(rows) == 1 + len(obj["levels"])
    for row, lv in zip(rows[1:], obj["levels"], strict=True):
        assert float(row[1]) == lv["level"] and float(row[2]) == lv["precision"]
        assert [int(x) for x in row[3:6]] == [lv["real"], lv["extrapolated"], lv["excluded"]]
        assert float(row[6]) == lv["examined"]
    table = run(*args).output
    assert table.startswith("Pseudo-Cranfield precision at 10 recall levels, macro average "
                            "over 1 queries\n")
    assert "Documents examined" in table
    assert f"{obj['levels'][0]['precision']:.4f}" in table


def test_curve_characteristic_and_points(tmp_path):
    # Q167 of Keen Fig. 27(d): grades 3, 2, 4, 2 at ranks 3, 13, 19, 41
    (tmp_path / "q").write_text("".join(f"167 0 d{i} {g}\n" for i, g in
                                        ((3, 3), (13, 2), (19, 4), (41, 2), (1, 0))))
    (tmp_path / "r").write_text("".join(f"167 Q0 d{i} {i} {50 - i} q167\n"
                                        for i in range(1, 46)))
    rows = [line.split("\t") for line in run(
        "curve", tmp_path / "q", tmp_path / "r", "--method", "characteristic", "--levels",
        "3,13,41", "-f", "tsv").output.splitlines()]
    assert rows[0][:3] == ["run", "level", "points_recall"]
    assert [float(r[2]) for r in rows[1:]] == [3 / 11, 5 / 11, 1.0]
    out = run("curve", tmp_path / "q", tmp_path / "r", "--method", "points", "--levels",
              "0.5,1", "-f", "json")
    (obj,) = json.loads(out.output)
    # 5.5 of 11 points: between 18 documents (5) and 19 (9), joined by a line
    assert [lv["examined"] for lv in obj["levels"]] == [18.125, 41]
    table = run("curve", tmp_path / "q", tmp_path / "r", "--method", "characteristic").output
    assert table.startswith("Performance characteristic: relevance-points recall at 10 "
                            "document cut-offs, macro average over 1 queries\n")
    bad = run("curve", tmp_path / "q", tmp_path / "r", "--method", "characteristic",
              "--levels", "0.5")
    assert bad.exit_code == 2 and "positive whole numbers" in bad.output


def test_curve_fallout_and_adjusted():
    # Q268 in Cran-1 (N = 200): at recall 1 the 13 documents examined hold 8 non-relevant
    # of 195; adjusted to its own generality (25) the precision is precision, 5/13
    args = ["curve", data("q268.qrels"), data("q268.run"), "-N", 200, "--levels", "0.2,1",
            "-f", "tsv"]
    rows = [line.split("\t") for line in run(*args, "--method", "fallout").output.splitlines()]
    assert rows[0][2] == "fallout"
    assert float(rows[2][2]) == pytest.approx(8 / 195) and float(rows[2][6]) == 13
    rows = [line.split("\t") for line in run(*args, "--method", "adjusted",
                                             "--target-generality", 25).output.splitlines()]
    assert rows[0][2] == "adjusted_precision"
    assert float(rows[2][2]) == pytest.approx(5 / 13)
    table = run("curve", data("q268.qrels"), data("q268.run"), "-N", 200, "--method",
                "adjusted", "--target-generality", 23.16).output
    assert table.startswith("Pseudo-Cranfield precision adjusted to generality 23.16 at 10 "
                            "recall levels")


@pytest.mark.parametrize("args, message", [
    (["--method", "adjusted", "-N", "200"], "--method adjusted needs --target-generality G"),
    (["--method", "adjusted", "-N", "200", "--target-generality", "1000"],
     "--target-generality must lie between 0 and 1000"),
    (["--method", "fallout"], "the fallout curve needs the number of documents"),
])
def test_curve_fallout_and_adjusted_usage(args, message):
    out = run("curve", data("q268.qrels"), data("q268.run"), *args)
    assert out.exit_code == 2, out.output
    assert message in out.output


def test_curve_precision_levels():
    out = run("curve", data("q268.qrels"), data("q268.run"), "--method", "precision",
              "--levels", "0.3,0.5,0.7,1", "-f", "tsv")
    rows = [line.split("\t") for line in out.output.splitlines()]
    assert rows[0][:3] == ["run", "level", "recall"]
    assert [float(r[2]) for r in rows[1:]] == [1.0, 0.8, 0.6, 0.4]
    assert [float(r[6]) for r in rows[1:]] == [13, 6, 4, 2]
    table = run("curve", data("q268.qrels"), data("q268.run"), "--method", "precision").output
    assert table.startswith("Precision-level cut-off: recall at 10 precision levels")
    assert "PREC." in table and "Documents examined (mean rank of the cut-off)" in table


@pytest.mark.parametrize("sizes, micro, macro", [
    # Rocchio's Table 1 as another system's set sizes: 3 and 3 documents ("cutoff 1"),
    # then 20 and 60 ("cutoff 2"); Table 2's recall and precision
    ((3, 3), (.31, .66), (.43, .66)),
    ((20, 60), (.62, .10), (.63, .17)),
])
def test_cutoffs_from_another_systems_set_sizes(tmp_path, sizes, micro, macro):
    # the set system retrieves the first documents of each query, in another order, and
    # one unjudged document
    with open(data("rocchio.run")) as f:
        ranked = [line.split() for line in f]
    with open(tmp_path / "set.run", "w") as f:
        for q, n in zip(("1", "2"), sizes):
            docs = [d for qq, _, d, *_ in ranked if qq == q][:n - 1] + [f"unjudged{q}"]
            for d in reversed(docs):
                f.write(f"{q} Q0 {d} 1 1.0 boolean\n")
    for average, (rec, prec) in (("micro", micro), ("macro", macro)):
        out = run("curve", data("rocchio.qrels"), data("rocchio.run"), "--cutoffs-from",
                  tmp_path / "set.run", "--average", average, "-f", "json")
        assert out.exit_code == 0, out.output
        own, cut = json.loads(out.output)
        assert own["run"] == "boolean (set sizes)" and cut["run"] == "hypothetical"
        assert cut["examined"] == sum(sizes) / 2
        assert abs(cut["recall"] - rec) < 0.01 and abs(cut["precision"] - prec) < 0.01
        # the set holds the ranking's first n-1 documents and an unjudged one: its own
        # pair is at most the ranking's
        assert own["precision"] <= cut["precision"] and own["recall"] <= cut["recall"]
        assert own["examined"] == cut["examined"]
    table = run("curve", data("rocchio.qrels"), data("rocchio.run"), "--cutoffs-from",
                tmp_path / "set.run").output
    assert table.startswith("Each run cut where boolean stopped")
    bad = run("curve", data("rocchio.qrels"), data("rocchio.run"), "--cutoffs-from",
              tmp_path / "set.run", "--method", "semi")
    assert bad.exit_code == 2 and "--method do not apply" in bad.output


def test_curve_stopping_rules():
    rows = [line.split("\t") for line in run(
        "curve", data("rocchio.qrels"), data("rocchio.run"), "--method", "cnr", "--levels",
        "1,100", "--average", "micro", "-f", "tsv").output.splitlines()]
    assert rows[0] == ["run", "level", "precision", "real", "extrapolated", "excluded",
                       "examined", "recall"]
    assert [round(float(r[2]), 2) for r in rows[1:]] == [0.67, 0.1]
    assert [round(float(r[7]), 2) for r in rows[1:]] == [0.31, 0.62]
    table = run("curve", data("rocchio.qrels"), data("rocchio.run"), "--method", "cnr").output
    assert table.startswith("Rocchio's stopping rule: precision at 10 stopping rules")
    assert "Recall at each stopping rule:" in table


def test_curve_of_a_run_sharing_no_query_is_exit_1(tmp_path):
    run_file = tmp_path / "other.run"
    run_file.write_text("999 Q0 d1 1 1.0 other\n")
    out = run("curve", data("q268.qrels"), run_file)
    assert out.exit_code == 1
    assert "no query of this run has judgements in" in out.output
    assert "REC." not in out.output                   # no empty table


def test_evaluate_does_not_load_the_curves():
    import subprocess
    import sys
    code = ("import sys; from click.testing import CliRunner; from smarteval.cli import main; "
            f"r = CliRunner().invoke(main, ['evaluate', {data('q268.qrels')!r}, "
            f"{data('q268.run')!r}]); "
            "print(r.exit_code, 'smarteval.curves' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["0", "False"]

def test_smart_measures_listed_with_help():
    out = run("measures")
    assert out.exit_code == 0
    for name in ("norm_recall", "norm_prec", "rank_recall", "log_prec", "wnorm_recall",
                 "fallout", "generality", "cutoff", "adj_prec", "sliding_ratio",
                 "relpoints_recall", "rel_recall", "rank_first", "rank_second", "rank_last",
                 "F", "E", "accuracy", "jw_prob", "jw_avg", "esl", "cnr_recall", "cnr_prec"):
        assert f"\n{name}" in "\n" + out.output, name


def test_nicknames_listed_are_the_ones_evaluate_uses(tmp_path):
    """Without --trec-version, --nicknames lists what -m all_trec computes by default."""
    listed = run("measures", "--nicknames")
    assert listed.exit_code == 0, listed.output
    assert listed.output == run("measures", "--nicknames", "--trec-version", "9").output
    assert listed.output != run("measures", "--nicknames", "--trec-version", "10").output
    members = dict(line.split(": ", 1) for line in listed.output.splitlines())
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 t\n")
    res = run("evaluate", "-f", "json", "-m", "all_trec", tmp_path / "q", tmp_path / "r")
    assert res.exit_code == 0, res.output
    computed = {name.split("_")[0] for name in json.loads(res.stdout)[0]["summary"]}
    assert {"rbp", "unj"}.isdisjoint(computed)
    assert {name.split("_")[0] for name in members["all_trec"].split()} - {"relstring"} \
        <= computed


@pytest.mark.parametrize("average, printed", [
    # Rocchio Table 2: cutoff 1 / cutoff 2, recall and precision
    ("micro", {"cnr_recall_1": .31, "cnr_prec_1": .66, "cnr_recall_100": .62,
               "cnr_prec_100": .10, "P_3": .66, "set_P": .10, "set_recall": .62}),
    ("macro", {"cnr_recall_1": .43, "cnr_prec_1": .66, "cnr_recall_100": .63,
               "cnr_prec_100": .17, "P_3": .66, "set_P": .17, "set_recall": .63}),
])
def test_rocchio_table2_through_the_cli(average, printed):
    vals = tsv(run("evaluate", data("rocchio.qrels"), data("rocchio.run"), "-m",
                   "cnr_recall.1,100", "-m", "cnr_prec.1,100", "-m", "P.3", "-m", "set_P",
                   "-m", "set_recall", "--average", average, "-f", "tsv"))
    for name, p in printed.items():
        assert abs(float(vals[("all", name)]) - p) < 0.01, name


def test_ties_random_is_seeded_and_averages_to_ties_average(tmp_path):
    # SMART's random order within tied scores: reproducible by seed, and over many seeds
    # its mean approaches the exact --ties average
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 c 0\n1 0 d 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 5 t\n1 Q0 b 2 5 t\n1 Q0 c 3 5 t\n1 Q0 d 4 1 t\n")
    from smarteval.api import evaluate
    from smarteval.settings import Settings

    def value(**kw):
        (ev,) = evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["recip_rank"],
                         settings=Settings(**kw))
        return ev.summary["recip_rank"]
    assert value(ties="random", seed=3) == value(ties="random", seed=3)
    draws = [value(ties="random", seed=s) for s in range(300)]
    assert set(draws) == {1.0, 0.5, 1 / 3}
    exact = value(ties="average")
    assert exact == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert abs(np.mean(draws) - exact) < 0.05
