"""``smarteval repro``: repro_eval's numbers (recorded by tools/repro_golden.py) to 1e-9, the
vectorised KTU and RBO against plain per-query versions, and the command's edges."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import smarteval
import smarteval.api
from smarteval.columns import Run
from smarteval.errors import InputError
from smarteval.ranking.order import as_listed
from smarteval.stats.repro import Lists, discordant, ktu, max_rmse, nrmse, rbo, rmse

DATA = Path(__file__).resolve().parent / "data" / "repro"
CASES = sorted(p.stem for p in DATA.glob("*.json"))
TOL = 1e-9


def test_the_golden_cases_are_there():
    assert CASES == ["exact", "missing_queries", "one_document", "replicability",
                     "reproducibility", "unchanged_elsewhere"]


def _write(tmp_path: Path, case: dict) -> dict[str, str]:
    paths = {}
    for name, lines in [("qrels", case["qrels"]), ("qrels_other", case.get("qrels_other")),
                        *case["runs"].items()]:
        if lines is not None:
            paths[name] = str(tmp_path / name)
            Path(paths[name]).write_text("\n".join(lines) + "\n")
    return paths


def _close(got: float, want: float | None, what: str) -> None:
    if want is None:
        assert math.isnan(got), f"{what}: {got}, repro_eval: NaN"
    else:
        assert got == pytest.approx(want, abs=TOL, rel=0), f"{what}: {got}, repro_eval: {want}"


def _run(case: dict, paths: dict, p: float, depth: int):
    runs = case["runs"]
    return smarteval.repro(paths["qrels"], paths["orig"], paths["repro"],
                           list(case["measures"].values()),
                           baseline_orig=paths.get("baseline_orig"),
                           baseline_repro=paths.get("baseline_repro"),
                           replicability=paths.get("qrels_other"), cutoffs=case["cutoffs"],
                           rbo_p=p, rbo_depth=depth, **case.get("options", {})).result \
        if runs else None


@pytest.mark.parametrize("name", CASES)
def test_the_numbers_are_repro_evals(name, tmp_path):
    case = json.loads((DATA / f"{name}.json").read_text())
    want = case["expected"]
    paths = _write(tmp_path, case)
    names = {m: smarteval.api._output_names([spec], smarteval.Settings())[0]
             for m, spec in case["measures"].items()}
    checked = 0
    for p, depth in case["rbo"]:
        rep = _run(case, paths, p, depth)
        effects = {(r["pair"], r["measure"]): r for r in rep.effects}
        for pair, values in want["ttest"].items():
            for m, v in values.items():
                _close(effects[(pair, names[m])]["p_value"], v, f"p {pair} {m}")
                checked += 1
        for key in ("rmse", "nrmse"):
            for pair, values in want.get(key, {}).items():
                for m, v in values.items():
                    _close(effects[(pair, names[m])][key], v, f"{key} {pair} {m}")
                    checked += 1
        overall = {r["measure"]: r for r in rep.overall}
        for key, col in (("er", "er"), ("dri", "delta_ri")):
            for m, v in want.get(key, {}).items():
                _close(overall[names[m]][col], v, f"{key} {m}")
                checked += 1
        ranking = {(r["pair"], r["cutoff"], r["query"]): r for r in rep.ranking}
        for k, pairs in want.get("ktu", {}).items():
            for pair, topics in pairs.items():
                for q, v in topics.items():
                    _close(ranking[(pair, int(k), q)]["ktu"], v, f"KTU@{k} {pair} {q}")
                    checked += 1
                assert {q for (pr, kk, q) in ranking if pr == pair and kk == int(k)} == \
                    {*topics, "all"}
                mean = np.mean([math.nan if v is None else v for v in topics.values()])
                _close(ranking[(pair, int(k), "all")]["ktu"],
                       None if math.isnan(mean) else mean, f"KTU@{k} {pair} mean")
        for k, pairs in want.get("rbo", {}).get(f"{p},{depth}", {}).items():
            for pair, topics in pairs.items():
                for q, v in topics.items():
                    _close(ranking[(pair, int(k), q)]["rbo"], v, f"RBO@{k} {pair} {q}")
                    checked += 1
    assert checked >= (9 if name in ("exact", "unchanged_elsewhere") else 20)
    assert rep.kind == ("replicability" if "qrels_other" in case else "reproducibility")
    assert not rep.ranking if rep.kind == "replicability" else rep.ranking


def test_a_query_of_one_document_has_no_ktu_and_the_mean_none(tmp_path):
    case = json.loads((DATA / "one_document.json").read_text())
    paths = _write(tmp_path, case)
    res = smarteval.repro(paths["qrels"], paths["orig"], paths["repro"], "map", cutoffs=[10])
    mean = [r for r in res.result.ranking if r["query"] == "all"][0]
    assert math.isnan(mean["ktu"]) and not math.isnan(mean["rbo"])
    assert any("KTU (run): no value (fewer than 2 documents) for query 301" in n
               for n in res.notes)


def test_without_c_a_missing_query_is_left_out_and_the_note_names_c(tmp_path):
    """repro_eval counts a query of the qrels a run lacks as 0 (-c); without -c smarteval
    pairs the queries both runs have, and says so."""
    case = json.loads((DATA / "missing_queries.json").read_text())
    paths = _write(tmp_path, case)
    res = smarteval.repro(paths["qrels"], paths["orig"], paths["repro"], "map", cutoffs=[10])
    row = res.result.effects[0]
    assert (row["queries_orig"], row["queries_repro"]) == (7, 7)
    assert row["nrmse"] != pytest.approx(case["expected"]["nrmse"]["run"]["AP"], abs=1e-3)
    assert any("RMSE, nRMSE and the t test of orig_a and rpd_a: 6 queries paired" in n
               and "-c" in n for n in res.notes)


# =========================================================================== the pieces

def test_nrmse_divides_by_the_root_mean_square_of_max_x_1_minus_x():
    """The divisor takes the original's values only, max(x, 1 - x) each: at least 1/2 (so
    never 0), a value above 1 as itself."""
    orig, repro = np.array([0.2, 1.5, 0.5]), np.array([0.4, 1.0, 0.5])
    assert max_rmse(orig) == pytest.approx(math.sqrt((0.8 ** 2 + 1.5 ** 2 + 0.5 ** 2) / 3))
    assert nrmse(orig, repro) == pytest.approx(rmse(orig, repro) / max_rmse(orig))
    assert nrmse(repro, orig) != pytest.approx(nrmse(orig, repro))
    assert max_rmse(np.full(4, 0.5)) == 0.5 and nrmse(np.full(4, 0.5), np.ones(4)) == 1.0
    assert math.isnan(nrmse(np.array([]), np.array([])))


def _lists(*queries: list[int]) -> Lists:
    lengths = [len(q) for q in queries]
    return Lists(np.array([f"q{i}" for i in range(len(queries))]),
                 np.concatenate(([0], np.cumsum(lengths))).astype(np.int64),
                 np.array([d for q in queries for d in q], dtype=np.int64))


def test_discordant_pairs_by_example():
    got = discordant(np.array([0, 0, 0, 1, 1]), np.array([1, 2, 3, 1, 2]),
                     np.array([3, 1, 2, 1, 2]), 2)
    assert got.tolist() == [2, 0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=40),
                min_size=1, max_size=6))
def test_discordant_pairs_are_counted_pair_by_pair(segments):
    seg = np.repeat(np.arange(len(segments)), [len(s) for s in segments])
    x = np.array([a for s in segments for a, _ in s], dtype=np.int64)
    y = np.array([b for s in segments for _, b in s], dtype=np.int64)
    want = [sum(1 for i in range(len(s)) for j in range(len(s))
                if s[i][0] < s[j][0] and s[i][1] > s[j][1]) for s in segments]
    assert discordant(seg, x, y, len(segments)).tolist() == want


def _ktu_by_hand(orig: list[int], repro: list[int]) -> float:
    """scipy's tau-b of the places of the documents at each rank among the union sorted."""
    n = min(len(orig), len(repro))
    union = sorted(set(orig) | set(repro))
    x = [union.index(d) for d in orig[:n]]
    y = [union.index(d) for d in repro[:n]]
    return round(float(stats.kendalltau(x, y).statistic), 14) if n >= 2 else math.nan


def rbo_by_hand(a: list[int], b: list[int], p: float, depth: int) -> float:
    """The overlap of the two prefixes at each depth, over the depth, weighted p^(d-1)."""
    score = norm = 0.0
    for d in range(1, depth + 1):
        w = p ** (d - 1)
        score += w * len(set(a[:d]) & set(b[:d])) / d
        norm += w
    return score / norm


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.permutations(range(30)), st.permutations(range(10, 40)),
                          st.integers(0, 30), st.integers(0, 30)), min_size=1, max_size=5),
       st.integers(1, 35), st.sampled_from([0.5, 0.9, 0.95, 1.0]), st.integers(1, 45))
def test_ktu_and_rbo_are_the_per_query_definitions(queries, cutoff, p, depth):
    orig = _lists(*[list(a)[:na] for a, _, na, _ in queries])
    repro = _lists(*[list(b)[:nb] for _, b, _, nb in queries])
    _, tau, unequal = ktu(orig, repro, cutoff)
    _, overlap = rbo(orig, repro, cutoff, p, depth)
    for i, (a, b, na, nb) in enumerate(queries):
        a, b = list(a)[:min(na, cutoff)], list(b)[:min(nb, cutoff)]
        want = _ktu_by_hand(a, b)
        assert (math.isnan(tau[i]) and math.isnan(want)) or tau[i] == pytest.approx(want,
                                                                                     abs=1e-12)
        assert unequal[i] == (len(a) != len(b))
        assert overlap[i] == pytest.approx(rbo_by_hand(a, b, p, depth), abs=1e-12)


def test_identical_lists_have_ktu_1_and_rbo_1_to_their_depth():
    lst = _lists(list(range(20)))
    assert ktu(lst, lst, 1000)[1].tolist() == [1.0]
    assert rbo(lst, lst, 1000, 0.9, 20)[1][0] == pytest.approx(1.0, abs=1e-15)
    assert rbo(lst, lst, 1000, 0.9, 40)[1][0] < 1.0       # no extrapolation past the list


def _run_of(qid_docs_scores: list[tuple[str, str, float]]) -> Run:
    qids = sorted({q for q, _, _ in qid_docs_scores})
    rows = sorted(range(len(qid_docs_scores)), key=lambda i: qids.index(qid_docs_scores[i][0]))
    counts = [sum(1 for q, _, _ in qid_docs_scores if q == x) for x in qids]
    return Run("<run>", np.array(qids), np.concatenate(([0], np.cumsum(counts))),
               np.array([qid_docs_scores[i][1].encode() for i in rows]),
               np.array([qid_docs_scores[i][2] for i in rows]), None, "t")


def test_the_lists_are_the_lines_with_equal_neighbours_docno_descending():
    run = _run_of([("1", "a", 3.0), ("1", "c", 2.0), ("1", "b", 2.0), ("1", "z", 5.0),
                   ("1", "d", 2.0), ("2", "a", 1.0), ("2", "b", 1.0)])
    order = as_listed(run)
    assert [run.docnos[i].decode() for i in order] == ["a", "c", "b", "z", "d", "b", "a"]


def test_a_document_twice_in_a_list_is_refused(tmp_path):
    path = tmp_path / "run"
    path.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n1 Q0 a 3 0.5 t\n")
    run = smarteval.read_run(str(path))
    with pytest.raises(InputError, match=r"run:3: document a appears again in query 1 "
                                         r"\(first at line 1\)"):
        as_listed(run)


# =========================================================================== the command

def test_one_baseline_alone_is_refused(cli, sample):
    res = cli("repro", "--baseline-orig", sample.runs[0], sample.qrels, sample.runs[0],
              sample.runs[1])
    assert res.exit_code == 2
    assert "--baseline-orig and --baseline-repro go together" in res.stderr


@pytest.mark.parametrize("args, message", [
    (["--cutoffs", "0,5"], "'0,5': expected whole numbers of 1 or more"),
    (["--rbo-p", "0"], "--rbo-p"),
    (["--rbo-depth", "0"], "--rbo-depth"),
])
def test_parameters_out_of_range_are_refused(cli, sample, args, message):
    res = cli("repro", *args, sample.qrels, sample.runs[0], sample.runs[1])
    assert res.exit_code == 2 and message in res.stderr


def test_the_table_names_the_runs_and_the_levels(cli, sample):
    res = cli("repro", "-m", "map", "--cutoffs", "10,100", sample.qrels, sample.runs[0],
              sample.runs[1], "--baseline-orig", sample.runs[0], "--baseline-repro",
              sample.runs[2])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert out.startswith("Reproducibility (run: ")
    for text in ("Ranking level", "KTU run", "RBO baseline", "Effectiveness level",
                 "RMSE    nRMSE", "Overall effects", "DeltaRI"):
        assert text in out


def test_a_replication_has_no_ranking_level(cli, sample, tmp_path):
    res = cli("repro", "-f", "json", "--replicability", sample.qrels, sample.qrels,
              sample.runs[0], sample.runs[1])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["kind"] == "replicability" and data["test"] == "unpaired t"
    assert data["ranking"] == [] and data["overall"] == []
    assert all(r["rmse"] is None and r["nrmse"] is None for r in data["effectiveness"])


def test_the_api_gives_frames(sample):
    res = smarteval.repro(sample.qrels, sample.runs[0], sample.runs[1], ["map", "P.10"],
                          cutoffs=[10], baseline_orig=sample.runs[0],
                          baseline_repro=sample.runs[2])
    frame = res.frame()
    assert list(frame["measure"]) == ["map", "P_10", "map", "P_10"]
    assert list(frame["pair"]) == ["run", "run", "baseline", "baseline"]
    assert list(frame.columns[6:8]) == ["rmse", "nrmse"]
    assert (frame["nrmse"] >= frame["rmse"]).all() and (frame["nrmse"] <= 2 * frame["rmse"]).all()
    ranking = res.ranking_frame()
    assert len(ranking) == 2 * 16 and set(ranking["cutoff"]) == {10}
    assert list(res.overall_frame()["measure"]) == ["map", "P_10"]


def test_tsv_writes_one_level_the_one_asked_for(cli, sample):
    """-f tsv is one table: the effectiveness level, --ranking's or --overall's; two are
    refused before any work (exit 2)."""
    base = ["repro", "-f", "tsv", "-m", "map", "--cutoffs", "10", str(sample.qrels),
            *map(str, sample.runs[:2]), "--baseline-orig", str(sample.runs[0]),
            "--baseline-repro",
            str(sample.runs[2])]
    heads = {}
    for flag in ([], ["--ranking"], ["--overall"]):
        res = cli(*base, *flag)
        assert res.exit_code == 0, res.output
        lines = res.stdout.splitlines()
        assert all(len(ln.split("\t")) == len(lines[0].split("\t")) for ln in lines)
        heads[tuple(flag)] = lines[0].split("\t")[:4]
    assert heads == {(): ["pair", "orig", "repro", "measure"],
                     ("--ranking",): ["pair", "orig", "repro", "query"],
                     ("--overall",): ["measure", "er", "delta_ri", "improvement_orig"]}
    both = cli(*base, "--ranking", "--overall")
    assert both.exit_code == 2 and "-f tsv writes one table" in both.stderr


@pytest.mark.parametrize("name", ["unchanged_elsewhere", "exact"])
def test_a_p_value_never_depends_on_the_other_measures_asked(name, tmp_path):
    # repro_eval sets p = 1 only where all of its own measures are unchanged: P@10 of
    # unchanged_elsewhere is equal on every query, AP is not, and P@10's p is NaN there
    case = json.loads((DATA / f"{name}.json").read_text())
    paths = _write(tmp_path, case)
    want = case["expected"]["ttest"]["run"]
    asked = list(case["measures"].values())
    for measures in [[m] for m in asked] + [asked, asked[::-1]]:
        rep = smarteval.repro(paths["qrels"], paths["orig"], paths["repro"], measures,
                              cutoffs=[10]).result
        for r in rep.effects:
            m = next(k for k, v in case["measures"].items()
                     if smarteval.api._output_names([v], smarteval.Settings())[0] ==
                     r["measure"])
            _close(r["p_value"], want[m], f"p {m} of -m {' '.join(measures)}")


REPRO_QRELS = "q1 0 a 1\nq1 0 b 1\nq2 0 a 1\nq2 0 c 1\n"
REPRO_RUNS = {"mid": ("x", "a", "x", "a"), "bad": ("x", "y", "x", "y"),
              "good": ("a", "b", "a", "c")}


@pytest.mark.parametrize("orig, base_orig, repro, base_repro, er, delta_ri", [
    ("mid", "mid", "mid", "bad", "inf", "-inf"),
    ("mid", "bad", "mid", "good", -3.0, "inf"),
    ("mid", "mid", "bad", "mid", "-inf", 1.0)])
def test_json_tells_plus_from_minus_infinity(cli, tmp_path, orig, base_orig, repro,
                                             base_repro, er, delta_ri):
    # repro_eval 0.5.0's er() and dri() of AP on these runs: inf -inf, -3.0 inf, -inf 1.0
    (tmp_path / "qrels").write_text(REPRO_QRELS)
    for name, (q1a, q1b, q2a, q2b) in REPRO_RUNS.items():
        (tmp_path / name).write_text(f"q1 Q0 {q1a} 1 2 {name}\nq1 Q0 {q1b} 2 1 {name}\n"
                                     f"q2 Q0 {q2a} 1 2 {name}\nq2 Q0 {q2b} 2 1 {name}\n")
    args = ["repro", "-m", "map", str(tmp_path / "qrels"), str(tmp_path / orig),
            str(tmp_path / repro), "--baseline-orig", str(tmp_path / base_orig),
            "--baseline-repro", str(tmp_path / base_repro)]
    res = cli(*args, "-f", "json")
    overall, = json.loads(res.output)["overall"]
    assert (overall["er"], overall["delta_ri"]) == (er, delta_ri)
    text = cli(*args, "--overall", "-f", "tsv").output.splitlines()
    assert [str(er), str(delta_ri)] == text[1].split("\t")[1:3]
