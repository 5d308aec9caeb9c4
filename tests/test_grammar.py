"""trec_eval's -m grammar: what trec_eval 9.0.8 and 10.0 print for each case, pinned.

Every expected output below was printed by the real trec_eval binaries on QRELS and RUN;
no binary is needed here. Covered: a measure asked for twice (trec_eval takes the first
parameter list; later ones and a plain name change nothing), nicknames beside explicit
parameters, 11pt_avg's levels in the order given, duplicate cut-offs, an empty parameter
list, and 10.0's rbp.p= and rbp_resid's pairs. The notes smarteval gives for ignored
requests are data on parse_measures' result.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from smarteval.cli import main
from smarteval.errors import UsageError
from smarteval.measures import parse_measures

QRELS = (
    "301 0 d05 0\n301 0 d02 2\n301 0 d06 0\n301 0 d10 0\n301 0 d00 0\n301 0 d01 1\n"
    "301 0 d08 1\n301 0 d12 0\n301 0 d04 0\n302 0 d02 2\n302 0 d08 3\n302 0 d01 0\n"
    "302 0 d09 1\n302 0 d04 0\n302 0 d12 2\n302 0 d13 3\n302 0 d00 0\n302 0 d10 2\n"
    "303 0 d07 0\n303 0 d05 -1\n303 0 d11 1\n303 0 d13 0\n303 0 d04 1\n303 0 d01 1\n"
    "303 0 d08 0\n303 0 d09 3\n303 0 d03 0\n")
RUN = (
    "301 Q0 d01 0 1.0 tag\n301 Q0 d08 0 1.0 tag\n301 Q0 d06 0 1.0 tag\n"
    "301 Q0 d00 0 3.0 tag\n301 Q0 d09 0 2.5 tag\n301 Q0 d13 0 3.0 tag\n"
    "301 Q0 d03 0 1.0 tag\n301 Q0 d05 0 0.25 tag\n301 Q0 d11 0 2.5 tag\n"
    "301 Q0 d04 0 2.5 tag\n301 Q0 d10 0 1.0 tag\n302 Q0 d00 0 2.5 tag\n"
    "302 Q0 d09 0 2.5 tag\n302 Q0 d03 0 0.25 tag\n302 Q0 d07 0 2.5 tag\n"
    "302 Q0 d08 0 0.5 tag\n302 Q0 d06 0 0.25 tag\n302 Q0 d05 0 2.5 tag\n"
    "302 Q0 d11 0 3.0 tag\n302 Q0 d04 0 1.0 tag\n302 Q0 d12 0 2.5 tag\n"
    "302 Q0 d02 0 1.0 tag\n303 Q0 d12 0 2.5 tag\n303 Q0 d08 0 1.0 tag\n"
    "303 Q0 d09 0 0.5 tag\n303 Q0 d05 0 0.5 tag\n303 Q0 d10 0 3.0 tag\n"
    "303 Q0 d11 0 3.0 tag\n303 Q0 d07 0 0.5 tag\n303 Q0 d04 0 0.5 tag\n"
    "303 Q0 d03 0 2.5 tag\n303 Q0 d00 0 0.5 tag\n303 Q0 d06 0 1.0 tag\n")


def line(name: str, value: str) -> str:
    return f"{name:<22}\tall\t{value}\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("grammar")
    (d / "qrels").write_text(QRELS)
    (d / "run").write_text(RUN)
    return d


def evaluate(files, args: str, version: int):
    res = CliRunner().invoke(main, ["evaluate", "-f", "trec", "--trec-version", str(version),
                                    *args.split(), str(files / "qrels"), str(files / "run")])
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return res


#: (arguments, what both versions print)
BOTH = [
    ("-m P.5 -m P.10", line("P_5", "0.2000")),
    ("-m P -m P.10", line("P_10", "0.3000")),
    ("-m P.10 -m P", line("P_10", "0.3000")),
    ("-m P.5,10 -m P.7", line("P_5", "0.2000") + line("P_10", "0.3000")),
    ("-m P.5 -m P.0", line("P_5", "0.2000")),     # the later parameters are never read
    ("-m set_F.0.5 -m set_F.2", line("set_F_0.5", "0.3382")),
    ("-m ndcg.1=2 -m ndcg.1=3", line("ndcg_1=2", "0.4457")),
    # 11pt_avg keeps its levels in the order given (and walks them as if ascending)
    ("-m 11pt_avg.1,0.5", line("11pt_avg_1,0.5", "0.4685")),
    ("-m 11pt_avg.0.5,1", line("11pt_avg_0.5,1", "0.1574")),
    ("-m 11pt_avg.0.5,0.5", line("11pt_avg_0.5,0.5", "0.3148")),   # repeats allowed
]


@pytest.mark.parametrize("version", [9, 10])
@pytest.mark.parametrize("args,want", BOTH)
def test_what_trec_eval_prints(files, args, want, version):
    res = evaluate(files, args, version)
    assert res.exit_code == 0, res.output
    assert res.stdout == want


OFFICIAL_9 = "".join(line(n, v) for n, v in [
    ("runid", "tag"), ("num_q", "3"), ("num_ret", "33"), ("num_rel", "13"),
    ("num_rel_ret", "9"), ("map", "0.2806"), ("gm_map", "0.2466"), ("Rprec", "0.1944"),
    ("bpref", "0.2940"), ("recip_rank", "0.5476"), ("iprec_at_recall_0.00", "0.6222"),
    ("iprec_at_recall_0.10", "0.6222"), ("iprec_at_recall_0.20", "0.6222"),
    ("iprec_at_recall_0.30", "0.3889"), ("iprec_at_recall_0.40", "0.3148"),
    ("iprec_at_recall_0.50", "0.3148"), ("iprec_at_recall_0.60", "0.3148"),
    ("iprec_at_recall_0.70", "0.1667"), ("iprec_at_recall_0.80", "0.0000"),
    ("iprec_at_recall_0.90", "0.0000"), ("iprec_at_recall_1.00", "0.0000"),
    ("P_7", "0.2381")])
# 10.0 rounds the recall levels to documents to nearest
OFFICIAL_10 = (OFFICIAL_9
               .replace(line("iprec_at_recall_0.40", "0.3148"),
                        line("iprec_at_recall_0.40", "0.3889"))
               .replace(line("iprec_at_recall_0.30", "0.3889"),
                        line("iprec_at_recall_0.30", "0.6222"))
               .replace(line("iprec_at_recall_0.80", "0.0000"),
                        line("iprec_at_recall_0.80", "0.1667"))
               .replace(line("iprec_at_recall_0.70", "0.1667"),
                        line("iprec_at_recall_0.70", "0.3148")))

ALL_TREC_NAMES_9 = (
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
    + " ".join(f"iprec_at_recall_{x / 10:.2f}" for x in range(11))
    + " P_7 " + " ".join(f"recall_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000))
    + " infAP gm_bpref " + " ".join(f"Rprec_mult_{x / 10:.2f}" for x in range(2, 21, 2))
    + " utility 11pt_avg binG G ndcg ndcg_rel Rndcg "
    + " ".join(f"{m}_{k}" for m in ("ndcg_cut", "map_cut", "relative_P")
               for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000))
    + " success_1 success_5 success_10 set_P set_relative_P set_recall set_map set_F "
    "num_nonrel_judged_ret").split()
ALL_TREC_NAMES_10 = ALL_TREC_NAMES_9 + ["rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"]


@pytest.mark.parametrize("version,official", [(9, OFFICIAL_9), (10, OFFICIAL_10)])
@pytest.mark.parametrize("args", ["-m official -m P.7", "-m P.7 -m official"])
def test_a_nickname_beside_explicit_parameters(files, version, official, args):
    """The nickname marks P; P.7 gives its parameters, before or after it."""
    res = evaluate(files, args, version)
    assert res.exit_code == 0, res.output
    assert res.stdout == official


@pytest.mark.parametrize("version,names", [(9, ALL_TREC_NAMES_9), (10, ALL_TREC_NAMES_10)])
def test_all_trec_beside_explicit_parameters(files, version, names):
    first = evaluate(files, "-m all_trec -m P.7", version)
    second = evaluate(files, "-m P.7 -m all_trec", version)
    assert first.exit_code == second.exit_code == 0
    assert first.stdout == second.stdout
    lines = first.stdout.splitlines(keepends=True)
    assert [ln.split("\t")[0].rstrip() for ln in lines] == names
    assert line("P_7", "0.2381") in lines


@pytest.mark.parametrize("args,why", [
    ("-m P.5,5", "5 given twice"),
    ("-m iprec_at_recall.0.5,0.5", "0.5 given twice"),
    ("-m Rprec_mult.0.5,0.5", "0.5 given twice"),
    ("-m P.0 -m P.5", "expected positive integers"),   # the first parameters are read
    ("-m P.5,,10", "expected positive integers"),
    ("-m P.", "nothing after the dot"),
    ("-m official.", "nothing after the dot"),
])
@pytest.mark.parametrize("version", [9, 10])
def test_what_trec_eval_refuses(files, args, why, version):
    res = evaluate(files, args, version)
    assert res.exit_code == 2
    assert res.stdout == ""
    assert why in res.stderr


#: 10.0 alone: rbp reads p= among its pairs; rbp_resid reads p= and ignores the others
TEN = [
    ("-m rbp", line("rbp", "0.1024")),
    ("-m rbp.p=0.5", line("rbp_p=0.5", "0.1307")),
    ("-m rbp.p=0.5,2=3", line("rbp_p=0.5,2=3", "0.1584")),
    ("-m rbp.p=0.5 -m rbp.p=0.8", line("rbp_p=0.5", "0.1307")),
    ("-m rbp_resid", line("rbp_resid", "0.6195")),
    ("-m rbp_resid.p=0.5", line("rbp_resid_p=0.5", "0.5597")),
    ("-m rbp_resid.2=3", line("rbp_resid_2=3", "0.6195")),
]


@pytest.mark.parametrize("args,want", TEN)
def test_rbp_parameters_under_10(files, args, want):
    res = evaluate(files, args, 10)
    assert res.exit_code == 0, res.output
    assert res.stdout == want


def test_rbp_is_10_only(files):
    assert evaluate(files, "-m rbp.p=0.5", 9).exit_code == 2


# =========================================================================== the notes

@pytest.mark.parametrize("specs,notes", [
    (["P.5", "P.10"], ["-m P.10 ignored: P is already asked for as P.5 (trec_eval takes "
                       "the first); write -m P.5,10"]),
    (["P.5,10", "P.7"], ["-m P.7 ignored: P is already asked for as P.5,10 (trec_eval takes "
                         "the first); write -m P.5,7,10"]),
    (["P.5,10", "P.10"], []),                          # nothing lost
    (["P.5", "P.5"], []),
    (["P", "P.10"], ["-m P ignored: P is also asked for as P.10 (trec_eval takes its "
                     "parameters); write -m P.5,10,15,20,30,100,200,500,1000"]),
    (["P.10", "P"], ["-m P ignored: P is already asked for as P.10 (trec_eval takes its "
                     "parameters); write -m P.5,10,15,20,30,100,200,500,1000"]),
    (["iprec_at_recall.0.5", "iprec_at_recall..25"],
     ["-m iprec_at_recall..25 ignored: iprec_at_recall is already asked for as "
      "iprec_at_recall.0.5 (trec_eval takes the first); write -m iprec_at_recall.0.25,0.5"]),
    (["set_F.0.5", "set_F.2"], ["-m set_F.2 ignored: set_F is already asked for as set_F.0.5 "
                                "(trec_eval takes the first); set_F takes one set of "
                                "parameters a run"]),
    (["P.5", "P.0"], ["-m P.0 ignored: P is already asked for as P.5 (trec_eval takes the "
                      "first)"]),
    (["official", "P.7"], []),                         # the usual way to change P's cut-offs
    (["P.7", "all_trec"], []),
])
def test_notes_say_what_was_ignored_and_how_to_write_it(specs, notes):
    got: list[str] = []
    requests = parse_measures(specs, on_note=got.append)
    assert requests.notes == notes
    assert got == notes


def test_notes_come_in_the_order_of_the_arguments():
    requests = parse_measures(["ndcg_cut.5", "P.5", "ndcg_cut.10", "P.10"])
    assert [n.split(" ")[1] for n in requests.notes] == ["ndcg_cut.10", "P.10"]


def test_the_first_parameters_win_in_the_library_too():
    (request,) = parse_measures(["P.5", "P.10"])
    assert request.params == (5,)
    (request,) = parse_measures(["11pt_avg.1,0.5"])
    assert request.params == (1.0, 0.5)                # the order given
    (request,) = parse_measures(["rbp.p=0.5,2=3"], version=10)
    assert request.params == (("p", 0.5), (2, 3.0))


@pytest.mark.parametrize("spec", ["ndcg.p=0.5", "rbp.x=2", "P.1e3"])
def test_parameters_that_are_not_numbers_are_refused(spec):
    with pytest.raises(UsageError, match="bad parameters"):
        parse_measures([spec], version=10)


def test_several_specs_in_one_argument_and_ir_names_with_blanks():
    names = [o.name for r in parse_measures(["map P.5", "P(rel=2, judged_only=True)@5"])
             for o in r.outputs()]
    assert names == ["map", "P_5", "P(rel=2,judged_only=True)@5"]


def test_cli_says_which_repeated_request_was_ignored(tmp_path):
    from click.testing import CliRunner

    from smarteval.cli import main
    q = tmp_path / "q"
    r = tmp_path / "r"
    q.write_text("1 0 a 1\n1 0 b 0\n")
    r.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    res = CliRunner().invoke(main, ["evaluate", "-f", "trec", "-m", "P.5", "-m", "P.10",
                                    str(q), str(r)])
    assert res.exit_code == 0
    assert res.stdout == "P_5                   \tall\t0.2000\n"
    assert "-m P.10 ignored" in res.stderr and "-m P.5,10" in res.stderr
