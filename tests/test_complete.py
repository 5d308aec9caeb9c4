"""trec_eval's -c, -D and -v, and its NaN: smarteval -f trec against trec_eval's own output.

Every expected text below is what trec_eval 9.0.8 or 10.0 printed for the input written
here (the binaries are not needed to run these tests). Under -c, 9.0.8 never evaluates a
query of the qrels without results: it adds 0 to every sum and is only counted in the
divisor, and -q prints no line for it. 10.0 evaluates such a query on a one-document
ranking (a placeholder document, score 1.0), then resets the values named exactly
num_ret, utility, relstring and rbp_resid, and unj_*. Both recount num_rel's summary as
the qrels lines with a grade above 0, whatever -l, and divide by every query of the
qrels even when -D evaluates one.
"""

from __future__ import annotations

import math
import shlex
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner
from fixtures import invoke as smarteval_cli

import smarteval
from smarteval.aggregate import summarize
from smarteval.cli import main
from smarteval.columns import PLACEHOLDER
from smarteval.ranking import rank
from smarteval.read import read_qrels, read_run
from smarteval.render.evaluation import render
from smarteval.settings import Settings

# queries 1 and 3 have results; 2 (relevant documents) and 4 (none) have not
QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n2 0 d 0\n2 0 e 3\n3 0 a 0\n3 0 f 1\n4 0 g 0\n"
RUN = "1 Q0 a 1 3.0 tag\n1 Q0 x 2 2.0 tag\n1 Q0 c 3 1.0 tag\n3 Q0 f 1 5.0 tag\n3 Q0 y 2 4.0 tag\n"
# query 2, without results, judges d1 twice with the same grade
DUP_QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d1 1\n2 0 d1 1\n2 0 d5 0\n3 0 d9 3\n"
DUP_RUN = "1 Q0 d1 1 3.0 r\n1 Q0 d4 2 2.0 r\n1 Q0 d3 3 1.0 r\n"
SMALL_QRELS = "1 0 a 1\n1 0 b 0\n2 0 a 2\n2 0 c 0\n"
SMALL_RUN = "1 Q0 a 1 2.0 t\n1 Q0 z 2 1.0 t\n"

SOME = ("-m num_q -m num_ret -m num_rel -m map -m gm_map -m P.2 -m yaap -m utility "
        "-m relstring -m bpref -m recip_rank")


def invoke(tmp_path, flags: str, version: int = 9, qrels: str = QRELS, run: str = RUN):
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    args = ["evaluate", "-f", "trec", "--trec-version", str(version), *shlex.split(flags),
            str(tmp_path / "qrels"), str(tmp_path / "run")]
    return smarteval_cli(args)


def trec(tmp_path, flags: str, version: int = 9, qrels: str = QRELS, run: str = RUN) -> str:
    result = invoke(tmp_path, flags, version, qrels, run)
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


# =========================================================================== 9.0.8 -c

def test_9_queries_without_results_add_0_and_print_nothing(tmp_path):
    """yaap and utility too: 9.0.8 does not evaluate queries 2 and 4 at all."""
    assert trec(tmp_path, "-c -q " + SOME) == """\
num_ret               \t1\t3
num_rel               \t1\t2
map                   \t1\t0.8333
bpref                 \t1\t1.0000
recip_rank            \t1\t1.0000
P_2                   \t1\t0.5000
relstring             \t1\t'1-2'
utility               \t1\t1.0000
yaap                  \t1\t0.6931
num_ret               \t3\t2
num_rel               \t3\t1
map                   \t3\t1.0000
bpref                 \t3\t1.0000
recip_rank            \t3\t1.0000
P_2                   \t3\t0.5000
relstring             \t3\t'1-'
utility               \t3\t0.0000
yaap                  \t3\t0.6931
num_q                 \tall\t4
num_ret               \tall\t5
num_rel               \tall\t5
map                   \tall\t0.4583
gm_map                \tall\t0.0030
bpref                 \tall\t0.5000
recip_rank            \tall\t0.5000
P_2                   \tall\t0.2500
utility               \tall\t0.2500
yaap                  \tall\t0.3466
"""


def test_9_parameters_do_not_matter(tmp_path):
    assert trec(tmp_path, "-c -q -m utility.1,-1,0,0 -m relstring.5 -m set_P "
                          "-m iprec_at_recall.0") == """\
iprec_at_recall_0.00  \t1\t1.0000
relstring_5           \t1\t'1-2'
utility_1,-1,0,0      \t1\t1.0000
set_P                 \t1\t0.6667
iprec_at_recall_0.00  \t3\t1.0000
relstring_5           \t3\t'1-'
utility_1,-1,0,0      \t3\t0.0000
set_P                 \t3\t0.5000
iprec_at_recall_0.00  \tall\t0.5000
utility_1,-1,0,0      \tall\t0.2500
set_P                 \tall\t0.2917
"""


def test_9_values_of_queries_without_results_are_the_zeros_averaged(tmp_path):
    q = read_qrels("q", data=QRELS.encode())
    r = read_run("r", data=RUN.encode())
    ev = smarteval.evaluate(q, r, ["yaap", "utility", "relstring", "num_rel"],
                            settings=Settings(complete=True))[0]
    assert ev.qids.tolist() == ["1", "2", "3", "4"]
    assert ev.per_query["yaap"].tolist()[1::2] == [0.0, 0.0]
    assert ev.per_query["utility"].tolist()[1::2] == [0.0, 0.0]
    assert ev.per_query["relstring"].tolist()[1::2] == ["", ""]
    assert ev.per_query["num_rel"].tolist() == [2, 0, 1, 0]
    assert ev.summary["num_rel"] == 5 and ev.num_averaged == 4


# =========================================================================== 10.0 -c

def test_10_queries_without_results_are_evaluated_on_a_placeholder(tmp_path):
    """num_ret, utility, relstring, unj_* and rbp_resid reset; yaap keeps its value."""
    assert trec(tmp_path, "-c -q " + SOME + " -m unj.2 -m rbp_resid -m set_P", 10) == """\
num_ret               \t1\t3
num_rel               \t1\t2
map                   \t1\t0.8333
bpref                 \t1\t1.0000
recip_rank            \t1\t1.0000
P_2                   \t1\t0.5000
relstring             \t1\t'1-2'
utility               \t1\t1.0000
set_P                 \t1\t0.6667
yaap                  \t1\t0.6931
rbp_resid             \t1\t0.8190
unj_2                 \t1\t0.5000
num_ret               \t2\t0
num_rel               \t2\t2
map                   \t2\t0.0000
bpref                 \t2\t0.0000
recip_rank            \t2\t0.0000
P_2                   \t2\t0.0000
relstring             \t2\t''
utility               \t2\t0.0000
set_P                 \t2\t0.0000
yaap                  \t2\t-1.0986
rbp_resid             \t2\t0.0000
unj_2                 \t2\t0.0000
num_ret               \t3\t2
num_rel               \t3\t1
map                   \t3\t1.0000
bpref                 \t3\t1.0000
recip_rank            \t3\t1.0000
P_2                   \t3\t0.5000
relstring             \t3\t'1-'
utility               \t3\t0.0000
set_P                 \t3\t0.5000
yaap                  \t3\t0.6931
rbp_resid             \t3\t0.9000
unj_2                 \t3\t0.5000
num_ret               \t4\t0
num_rel               \t4\t0
map                   \t4\t0.0000
bpref                 \t4\t0.0000
recip_rank            \t4\t0.0000
P_2                   \t4\t0.0000
relstring             \t4\t''
utility               \t4\t0.0000
set_P                 \t4\t0.0000
yaap                  \t4\t0.0000
rbp_resid             \t4\t0.0000
unj_2                 \t4\t0.0000
num_q                 \tall\t4
num_ret               \tall\t5
num_rel               \tall\t5
map                   \tall\t0.4583
gm_map                \tall\t0.0030
bpref                 \tall\t0.5000
recip_rank            \tall\t0.5000
P_2                   \tall\t0.2500
utility               \tall\t0.2500
set_P                 \tall\t0.2917
yaap                  \tall\t0.0719
rbp_resid             \tall\t0.4298
unj_2                 \tall\t0.2500
"""


def test_10_only_the_exact_names_are_reset(tmp_path):
    """utility.1,-1,0,0 scores the placeholder as a retrieved non-relevant document."""
    assert trec(tmp_path, "-c -q -m utility.1,-1,0,0 -m relstring.5 -m num_ret", 10) == """\
num_ret               \t1\t3
relstring_5           \t1\t'1-2'
utility_1,-1,0,0      \t1\t1.0000
num_ret               \t2\t0
relstring_5           \t2\t'-'
utility_1,-1,0,0      \t2\t-1.0000
num_ret               \t3\t2
relstring_5           \t3\t'1-'
utility_1,-1,0,0      \t3\t0.0000
num_ret               \t4\t0
relstring_5           \t4\t'-'
utility_1,-1,0,0      \t4\t-1.0000
num_ret               \tall\t5
utility_1,-1,0,0      \tall\t-0.2500
"""


def test_10_judged_only_drops_the_placeholder(tmp_path):
    assert trec(tmp_path, "-c -q -J -m utility.1,-1,0,0 -m relstring.5 -m set_P", 10) == """\
relstring_5           \t1\t'12'
utility_1,-1,0,0      \t1\t2.0000
set_P                 \t1\t1.0000
relstring_5           \t2\t''
utility_1,-1,0,0      \t2\t0.0000
set_P                 \t2\t0.0000
relstring_5           \t3\t'1'
utility_1,-1,0,0      \t3\t1.0000
set_P                 \t3\t1.0000
relstring_5           \t4\t''
utility_1,-1,0,0      \t4\t0.0000
set_P                 \t4\t0.0000
utility_1,-1,0,0      \tall\t0.7500
set_P                 \tall\t0.5000
"""


def test_10_max_docs_0_drops_the_placeholder(tmp_path):
    out = trec(tmp_path, "-c -q -M0 -m utility.1,-1,0,0 -m relstring.5 -m num_ret -m P.1", 10)
    assert out == "".join(f"""\
num_ret               \t{q}\t0
P_1                   \t{q}\t0.0000
relstring_5           \t{q}\t''
utility_1,-1,0,0      \t{q}\t0.0000
""" for q in "1234") + """\
num_ret               \tall\t0
P_1                   \tall\t0.0000
utility_1,-1,0,0      \tall\t0.0000
"""


ALL_TREC_10 = """\
runid                 \tall\tt
num_q                 \tall\t2
num_ret               \tall\t2
num_rel               \tall\t2
num_rel_ret           \tall\t1
map                   \tall\t0.5000
gm_map                \tall\t0.0032
Rprec                 \tall\t0.5000
bpref                 \tall\t0.5000
recip_rank            \tall\t0.5000
iprec_at_recall_0.00  \tall\t0.5000
iprec_at_recall_0.10  \tall\t0.5000
iprec_at_recall_0.20  \tall\t0.5000
iprec_at_recall_0.30  \tall\t0.5000
iprec_at_recall_0.40  \tall\t0.5000
iprec_at_recall_0.50  \tall\t0.5000
iprec_at_recall_0.60  \tall\t0.5000
iprec_at_recall_0.70  \tall\t0.5000
iprec_at_recall_0.80  \tall\t0.5000
iprec_at_recall_0.90  \tall\t0.5000
iprec_at_recall_1.00  \tall\t0.5000
P_5                   \tall\t0.1000
P_10                  \tall\t0.0500
P_15                  \tall\t0.0333
P_20                  \tall\t0.0250
P_30                  \tall\t0.0167
P_100                 \tall\t0.0050
P_200                 \tall\t0.0025
P_500                 \tall\t0.0010
P_1000                \tall\t0.0005
recall_5              \tall\t0.5000
recall_10             \tall\t0.5000
recall_15             \tall\t0.5000
recall_20             \tall\t0.5000
recall_30             \tall\t0.5000
recall_100            \tall\t0.5000
recall_200            \tall\t0.5000
recall_500            \tall\t0.5000
recall_1000           \tall\t0.5000
infAP                 \tall\t0.5000
gm_bpref              \tall\t0.0032
Rprec_mult_0.20       \tall\t0.5000
Rprec_mult_0.40       \tall\t0.5000
Rprec_mult_0.60       \tall\t0.5000
Rprec_mult_0.80       \tall\t0.5000
Rprec_mult_1.00       \tall\t0.5000
Rprec_mult_1.20       \tall\t0.2500
Rprec_mult_1.40       \tall\t0.2500
Rprec_mult_1.60       \tall\t0.2500
Rprec_mult_1.80       \tall\t0.2500
Rprec_mult_2.00       \tall\t0.2500
utility               \tall\t0.0000
11pt_avg              \tall\t0.5000
binG                  \tall\t0.5000
G                     \tall\t0.5000
ndcg                  \tall\t0.5000
ndcg_rel              \tall\t0.5000
Rndcg                 \tall\t0.5000
ndcg_cut_5            \tall\t0.5000
ndcg_cut_10           \tall\t0.5000
ndcg_cut_15           \tall\t0.5000
ndcg_cut_20           \tall\t0.5000
ndcg_cut_30           \tall\t0.5000
ndcg_cut_100          \tall\t0.5000
ndcg_cut_200          \tall\t0.5000
ndcg_cut_500          \tall\t0.5000
ndcg_cut_1000         \tall\t0.5000
map_cut_5             \tall\t0.5000
map_cut_10            \tall\t0.5000
map_cut_15            \tall\t0.5000
map_cut_20            \tall\t0.5000
map_cut_30            \tall\t0.5000
map_cut_100           \tall\t0.5000
map_cut_200           \tall\t0.5000
map_cut_500           \tall\t0.5000
map_cut_1000          \tall\t0.5000
relative_P_5          \tall\t0.5000
relative_P_10         \tall\t0.5000
relative_P_15         \tall\t0.5000
relative_P_20         \tall\t0.5000
relative_P_30         \tall\t0.5000
relative_P_100        \tall\t0.5000
relative_P_200        \tall\t0.5000
relative_P_500        \tall\t0.5000
relative_P_1000       \tall\t0.5000
success_1             \tall\t0.5000
success_5             \tall\t0.5000
success_10            \tall\t0.5000
set_P                 \tall\t0.2500
set_relative_P        \tall\t0.5000
set_recall            \tall\t0.5000
set_map               \tall\t0.2500
set_F                 \tall\t0.3333
num_nonrel_judged_ret \tall\t0
rbp                   \tall\t0.0500
rbp_resid             \tall\t0.4500
unj_5                 \tall\t0.1000
unj_10                \tall\t0.0500
unj_20                \tall\t0.0250
"""


@pytest.mark.parametrize("version", [9, 10])
def test_all_trec_summary(tmp_path, version):
    """9.0.8 prints the same lines without rbp, rbp_resid and unj_*."""
    want = ALL_TREC_10 if version == 10 else "".join(
        line for line in ALL_TREC_10.splitlines(keepends=True)
        if not line.startswith(("rbp", "unj")))
    assert trec(tmp_path, "-c -m all_trec", version, SMALL_QRELS, SMALL_RUN) == want


def test_10_all_trec_lines_of_a_query_without_results(tmp_path):
    """trec_eval 10.0 printed 0 for every all_trec value of query 2 but num_rel (1)."""
    out = trec(tmp_path, "-c -q -m all_trec", 10, SMALL_QRELS, SMALL_RUN)
    lines = [line.split("\t") for line in out.splitlines() if line.split("\t")[1] == "2"]
    assert len(lines) == 96
    special = {"num_rel": "1", "num_ret": "0", "num_rel_ret": "0",
               "num_nonrel_judged_ret": "0", "relstring": "''"}
    for name, _, value in lines:
        assert value == special.get(name.rstrip(), "0.0000"), name


def test_10_ranking_holds_the_placeholder_and_9_none():
    q = read_qrels("q", data=b"1 0 a 1\n2 0 b 1\n")
    r = read_run("r", data=b"1 Q0 a 1 1.0 t\n")     # docnos 1 byte wide
    r10 = rank(r, q, Settings(complete=True, trec_version=10))
    assert r10.docno.tolist() == [b"a", PLACEHOLDER] and r10.rel.tolist() == [1, -1]
    assert r10.in_run.tolist() == [True, False] and r10.score.tolist() == [1.0, 1.0]
    r9 = rank(r, q, Settings(complete=True, trec_version=9))
    assert r9.docno.tolist() == [b"a"] and r9.offsets.tolist() == [0, 1, 1]


# =========================================================================== num_rel under -c

@pytest.mark.parametrize("version", [9, 10])
def test_complete_num_rel_counts_grades_above_0_whatever_the_level(tmp_path, version):
    """Queries with results are recounted too: 5 lines have a grade above 0."""
    shown = "1\t1\t3\t0" if version == 9 else "1\t1\t2\t1\t3\t0\t4\t0"
    per_q = "".join(f"num_rel               \t{q}\t{n}\n"
                    f"num_rel_ret           \t{q}\t{int(q == '1')}\n"
                    for q, n in zip(shown.split("\t")[::2], shown.split("\t")[1::2]))
    assert trec(tmp_path, "-c -q -l2 -m num_rel -m num_rel_ret", version) == per_q + """\
num_rel               \tall\t5
num_rel_ret           \tall\t1
"""


def test_complete_num_rel_counts_identical_duplicate_lines():
    """The count behind trec_eval's recount: Qrels.duplicate_grades (see the next test)."""
    q = read_qrels("q", data=DUP_QRELS.encode())
    r = read_run("r", data=DUP_RUN.encode())
    q = replace(q, duplicate_grades=np.array([1], dtype=np.int64))
    ev = smarteval.evaluate(q, r, ["num_rel"], settings=Settings(complete=True, rel_level=2))[0]
    assert ev.summary["num_rel"] == 5


def test_9_complete_num_rel_counts_a_duplicated_qrels_line(tmp_path):
    """trec_eval 9.0.8 reads the line twice; 10.0 stops ('duplicate docs d1', exit 4)."""
    assert trec(tmp_path, "-c -q -l2 -m num_rel -m num_q -m map -m num_ret", 9,
                DUP_QRELS, DUP_RUN) == """\
num_ret               \t1\t3
num_rel               \t1\t1
map                   \t1\t0.3333
num_q                 \tall\t3
num_ret               \tall\t3
num_rel               \tall\t5
map                   \tall\t0.1111
"""


# =========================================================================== -D LEVEL.QUERY

@pytest.mark.parametrize("version", [9, 10])
def test_debug_query_evaluates_one_query(tmp_path, version):
    assert trec(tmp_path, "-q -D 0.3 -m num_q -m num_ret -m num_rel -m map -m gm_map "
                          "-m relstring", version) == """\
num_ret               \t3\t2
num_rel               \t3\t1
map                   \t3\t1.0000
relstring             \t3\t'1-'
num_q                 \tall\t1
num_ret               \tall\t2
num_rel               \tall\t1
map                   \tall\t1.0000
gm_map                \tall\t1.0000
"""


@pytest.mark.parametrize("version", [9, 10])
def test_debug_query_with_complete_still_averages_over_the_qrels(tmp_path, version):
    assert trec(tmp_path, "-q -D 1.3 -c -m num_q -m num_ret -m num_rel -m map -m gm_map "
                          "-m relstring", version) == """\
num_ret               \t3\t2
num_rel               \t3\t1
map                   \t3\t1.0000
relstring             \t3\t'1-'
num_q                 \tall\t4
num_ret               \tall\t2
num_rel               \tall\t5
map                   \tall\t0.2500
gm_map                \tall\t0.0002
"""


def test_10_debug_query_without_results_under_complete(tmp_path):
    assert trec(tmp_path, "-q -D 0.2 -c -m num_q -m num_ret -m num_rel -m map -m gm_map "
                          "-m relstring", 10) == """\
num_ret               \t2\t0
num_rel               \t2\t2
map                   \t2\t0.0000
relstring             \t2\t''
num_q                 \tall\t4
num_ret               \tall\t0
num_rel               \tall\t5
map                   \tall\t0.0000
gm_map                \tall\t0.0000
"""


@pytest.mark.parametrize("version,flags", [
    (9, "-D 0.2 -c"),    # trec_eval: No queries with both results and relevance info (7)
    (10, "-D 0.2"),      # trec_eval: result qid '2' not found in qrels (4)
    (9, "-D 0.5"),       # no such query: No queries with both results ... (7)
    (10, "-D 0.5 -c"),
])
def test_debug_query_that_trec_eval_cannot_evaluate(tmp_path, version, flags):
    result = invoke(tmp_path, flags + " -m map", version)
    assert result.exit_code == 1 and result.stdout == ""
    assert "(-D)" in result.stderr


def test_debug_level_alone_is_ignored(tmp_path):
    assert trec(tmp_path, "-D 4 -m map") == trec(tmp_path, "-m map")


def test_debug_level_must_be_an_integer(tmp_path):
    result = invoke(tmp_path, "-D x.1 -m map")
    assert result.exit_code == 2 and "LEVEL.QUERY" in result.stderr


# =========================================================================== -v

@pytest.mark.parametrize("args,printed", [
    (["-v"], "trec_eval version 9.0.7\n"),
    (["-v", "--trec-version", "10"], "trec_eval version 10.0-rc3\n"),
    (["--trec-version", "10", "-v"], "trec_eval version 10.0-rc3\n"),
    (["--trec-version", "9", "--trec-eval-version"], "trec_eval version 9.0.7\n"),
])
def test_v_prints_what_trec_eval_v_prints(args, printed):
    """On standard error, exit 0, without files: as trec_eval -v."""
    result = CliRunner().invoke(main, ["evaluate", *args])
    assert result.exit_code == 0 and result.stdout == "" and result.stderr == printed


# =========================================================================== NaN

def _nan_evaluation():
    q = read_qrels("q", data=b"1 0 a 1\n2 0 b 1\n")
    r = read_run("r", data=b"1 Q0 a 1 1.0 t\n2 Q0 c 1 1.0 t\n")
    ev = smarteval.evaluate(q, r, ["map", "P.1"])[0]
    with np.errstate(invalid="ignore"):
        zero_by_zero = np.zeros(2) / np.zeros(2)          # the CPU's NaN: sign bit set
    assert math.copysign(1.0, zero_by_zero[0]) < 0
    ev.per_query["map"] = np.array([0.5, zero_by_zero[0]])
    ev.per_query["P_1"] = np.array([np.nan, 1.0])        # sign bit clear
    for out in ev.outputs:
        ev.summary[out.name] = summarize(out, ev.per_query[out.name], ev.ranked)
    return ev


def test_trec_prints_nan_with_its_sign_as_glibc():
    assert render([_nan_evaluation()], "trec", per_query=True) == """\
map                   \t1\t0.5000
P_1                   \t1\t   nan
map                   \t2\t  -nan
P_1                   \t2\t1.0000
map                   \tall\t  -nan
P_1                   \tall\t   nan
"""


def test_other_formats_show_nan_as_undefined():
    import json
    ev = _nan_evaluation()
    assert json.loads(render([ev], "json"))[0]["summary"] == {"map": None, "P_1": None}
    assert render([ev], "tsv").splitlines()[1:] == ["t\tall\tmap\tnan", "t\tall\tP_1\tnan"]


def test_9_max_docs_0_prints_minus_nan(tmp_path):
    """iprec_at_recall and 11pt_avg return the 0/0 NaN on an empty ranking."""
    assert trec(tmp_path, "-q -M0 -m iprec_at_recall.0 -m 11pt_avg -m map") == """\
map                   \t1\t0.0000
iprec_at_recall_0.00  \t1\t  -nan
11pt_avg              \t1\t  -nan
map                   \t3\t0.0000
iprec_at_recall_0.00  \t3\t  -nan
11pt_avg              \t3\t  -nan
map                   \tall\t0.0000
iprec_at_recall_0.00  \tall\t  -nan
11pt_avg              \tall\t  -nan
"""


# =========================================================================== -N 0

def test_num_docs_0_is_trec_evals_default(tmp_path):
    """trec_eval's N is 0 unless -N says otherwise: -N 0 is accepted and means unknown."""
    assert trec(tmp_path, "-N 0 -m utility.1,-1,0,1") == trec(tmp_path, "-m utility.1,-1,0,1")


def test_residual_collection_ignores_the_initial_runs_placeholders():
    """--frozen under 10.0's -c: only documents the initial run retrieved leave N."""
    q = read_qrels("q", data=b"1 0 a 1\n2 0 b 1\n")
    r = read_run("r", data=b"1 Q0 a 1 2.0 t\n1 Q0 c 2 1.0 t\n")
    ev = smarteval.evaluate(q, r, ["num_ret"], frozen=r, frozen_depth=1, complete=True,
                            trec_version=10, num_docs=100)[0]
    assert ev.ranked.num_docs_q.tolist() == [99, 100]
    assert ev.ranked.docno.tolist() == [b"c", PLACEHOLDER]
