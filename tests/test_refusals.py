"""Never silence, never a traceback: what cannot work is refused in one line, what changes
nothing is said on standard error, numbers past a C long act as trec_eval's, and odd
measure parameters print what trec_eval prints."""

from __future__ import annotations

import math
import os

import pytest
from fixtures import invoke

import smarteval
from smarteval.errors import UsageError
from smarteval.numerals import NUMBER, WHOLE_NUMBER
from smarteval.read import read_qrels, read_run

QRELS = ("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 0\n2 0 d 1\n3 0 e 1\n3 0 f 1\n3 0 g 0\n"
         "4 0 a 2\n4 0 h 1\n")
RUN = ("1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0 tag\n1 Q0 x 3 1.0 tag\n"
       "2 Q0 d 1 5.0 tag\n2 Q0 a 2 4.0 tag\n2 Q0 y 3 4.0 tag\n"
       "3 Q0 g 1 1.0 tag\n3 Q0 f 2 0.5 tag\n"
       "4 Q0 z 1 9.0 tag\n4 Q0 h 2 8.0 tag\n4 Q0 a 3 7.0 tag\n")
OTHER = RUN.replace(" tag", " other")


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    (tmp_path / "s").write_text(OTHER)
    return tmp_path


def usage(command: str, message: str) -> str:
    return (f"Usage: smarteval {command} [OPTIONS] QRELS "
            f"{'BASELINE RUNS' if command == 'compare' else 'RUNS'}...\n"
            f"Try 'smarteval {command} --help' for help.\n\nError: {message}\n")


# =========================================================================== refused: exit 2

SEED = "Invalid value for '--seed': -1 is not in the range x>=0."
LEVELS = "Error: --levels 1000000000: at most 10000 levels\n"


def not_a_number(option: str, value: str, kind: str = "float range") -> str:
    """click's refusal of a number outside smarteval's grammar (nan, inf among them)."""
    return (f"Invalid value for '{option}': {value!r} is not "
            f"{WHOLE_NUMBER if kind == 'integer' else NUMBER}.")

#: (name, arguments, exact standard error); each exits 2 and prints nothing
REFUSED = [
    ("evaluate --seed -1", ["evaluate", "--ties", "random", "--seed", "-1", "q", "r"],
     usage("evaluate", SEED)),
    ("curve --seed -1", ["curve", "--ties", "random", "--seed", "-1", "q", "r"],
     usage("curve", SEED)),
    ("compare --seed -1", ["compare", "--seed", "-1", "q", "r", "s"], usage("compare", SEED)),
    ("plot --seed -1", ["plot", "--seed", "-1", "-o", "x.png", "q", "r"], usage("plot", SEED)),
    ("curve --levels 1e9", ["curve", "--levels", "1000000000", "q", "r"],
     LEVELS),
    ("plot --levels 1e9", ["plot", "--levels", "1000000000", "-o", "x.png", "q", "r"],
     LEVELS),
    ("compare --depth too deep", ["compare", "--select", "--depth", "99999999999", "q", "r", "s"],
     "Error: --depth must be a whole number from 1 to 10000, not 99999999999\n"),
    ("compare --samples too many", ["compare", "--samples", "99999999999", "q", "r", "s"],
     "Error: --samples must be a whole number from 1 to 1000000, not 99999999999\n"),
    ("compare --samples 0", ["compare", "--samples", "0", "q", "r", "s"],
     "Error: --samples must be a whole number from 1 to 1000000, not 0\n"),
    ("compare --alpha nan", ["compare", "--alpha", "nan", "q", "r", "s"],
     usage("compare", not_a_number("--alpha", "nan"))),
    ("compare --confidence nan", ["compare", "--confidence", "nan", "q", "r", "s"],
     usage("compare", not_a_number("--confidence", "nan"))),
    ("compare --tie-tolerance nan", ["compare", "--tie-tolerance", "nan", "q", "r", "s"],
     usage("compare", not_a_number("--tie-tolerance", "nan"))),
    ("compare --tie-tolerance inf", ["compare", "--tie-tolerance", "inf", "q", "r", "s"],
     usage("compare", not_a_number("--tie-tolerance", "inf"))),
    ("compare --theta nan", ["compare", "--theta", "nan", "q", "r", "s"],
     usage("compare", not_a_number("--theta", "nan"))),
    ("evaluate --target-generality nan",
     ["evaluate", "-m", "adj_prec.5", "-N", "100", "--target-generality", "nan", "q", "r"],
     usage("evaluate", not_a_number("--target-generality", "nan", "float"))),
    ("compare the baseline against itself", ["compare", "q", "r", "r"],
     "Error: the baseline r is also given as a run: a run compared with itself differs on no "
     "query\n"),
    ("compare -m ''", ["compare", "-m", "", "q", "r", "s"],
     "Error: measure '' is empty (trec_eval refuses it too): name a measure, e.g. -m map\n"),
    ("-q with the smart table", ["evaluate", "-q", "q", "r"],
     "Error: -q/--per-query: the smart table prints the averages only; per-query values are "
     "printed by -f trec, tsv, csv and json\n"),
    ("-o onto the run", ["evaluate", "-o", "r", "q", "r"],
     "Error: -o r: this file is a run, and smarteval never writes over its input: give "
     "another output file\n"),
    ("-o onto the qrels", ["curve", "-o", "q", "q", "r"],
     "Error: -o q: this file is the qrels, and smarteval never writes over its input: give "
     "another output file\n"),
    ("-o onto a link to the run", ["compare", "-o", "link", "q", "r", "s"],
     "Error: -o link: this file is a run (s), and smarteval never writes over its input: "
     "give another output file\n"),
    ("--plot onto the baseline", ["compare", "--plot", "r", "q", "r", "s"],
     "Error: --plot r: this file is the baseline run, and smarteval never writes over its "
     "input: give another output file\n"),
    ("plot -o onto the qrels", ["plot", "-o", "q", "q", "r"],
     "Error: -o q: this file is the qrels, and smarteval never writes over its input: give "
     "another output file\n"),
    ("correlate -o onto a results file", ["correlate", "-o", "r", "r", "s"],
     "Error: -o r: this file is a results file, and smarteval never writes over its input: "
     "give another output file\n"),
]


@pytest.mark.parametrize("name,args,message", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_before_any_work(files, name, args, message):
    (files / "link").symlink_to("s")
    before = {p: p.read_bytes() for p in files.iterdir()}
    res = invoke(args)
    assert res.exit_code == 2
    assert res.stderr == message
    assert res.stdout == ""
    assert {p: p.read_bytes() for p in files.iterdir()} == before      # nothing written


# =========================================================================== refused: exit 1

ROOT_READS = "root reads unreadable files"

#: (name, arguments, exact standard error); each exits 1: a file that cannot be read or
#: written, whatever the command
UNREADABLE = [
    (f"{command}: a directory as {what}", args, "Error: d: is a directory, not a file\n")
    for command, what, args in [
        ("evaluate", "the run", ["evaluate", "q", "d"]),
        ("evaluate", "the qrels", ["evaluate", "d", "r"]),
        ("curve", "the run", ["curve", "q", "d"]),
        ("compare", "the baseline", ["compare", "q", "d", "r"]),
        ("plot", "the qrels", ["plot", "-o", "x.png", "d", "r"]),
        ("correlate", "results", ["correlate", "d", "d"]),
    ]] + [
    (f"{command}: a missing output directory", [*args[:1], "-o", "no/out.txt", *args[1:]],
     "Error: no/out.txt: cannot write: No such file or directory\n")
    for command, args in [("evaluate", ["evaluate", "q", "r"]), ("curve", ["curve", "q", "r"]),
                          ("compare", ["compare", "q", "r", "s"])]
]


@pytest.mark.parametrize("name,args,message", UNREADABLE, ids=[c[0] for c in UNREADABLE])
def test_unreadable_or_unwritable_exits_1(files, name, args, message):
    if "plot" in args:
        pytest.importorskip("matplotlib")
    (files / "d").mkdir()
    res = invoke(args)
    assert res.exit_code == 1
    assert res.stderr == message
    assert res.stdout == ""


def test_a_missing_output_directory_is_found_before_the_evaluation(files, monkeypatch):
    from smarteval.cli import edge
    calls = []
    monkeypatch.setattr(edge, "check_paths", lambda kwargs: calls.append(kwargs) or
                        (_ for _ in ()).throw(UsageError("checked")))
    res = invoke(["evaluate", "-o", "no/out.txt", "q", "nonexistent.run"])
    assert calls and res.stderr == "Error: checked\n"    # before the run is even opened


# =========================================================================== said, not silent

NOT_RELEVANT = ("smarteval: nothing is relevant at -l 3: no judgement of the queries "
                "evaluated has a grade of 3 or more (the highest is 2), so every measure of "
                "relevant documents is 0\n")

#: (name, arguments, exact standard error, what standard output holds); each exits 0
SAID = [
    ("--seed without --ties random", ["evaluate", "-f", "tsv", "-m", "map", "--seed", "3",
                                      "q", "r"],
     "smarteval: --seed 3 has no effect without --ties random (--ties docno)\n",
     "tag\tall\tmap\t"),
    ("curve --seed without --ties random", ["curve", "-f", "tsv", "--seed", "3", "q", "r"],
     "smarteval: --seed 3 has no effect without --ties random (--ties docno)\n", "tag"),
    ("--target-generality without adj_prec",
     ["evaluate", "-f", "tsv", "-m", "map", "--target-generality", "20", "q", "r"],
     "smarteval: --target-generality has no effect: only adj_prec reads it, and it is not "
     "asked for (-m adj_prec.K)\n", "tag\tall\tmap\t"),
    ("the same run twice", ["evaluate", "-f", "tsv", "-m", "map", "q", "r", "r"],
     "smarteval: r: this run is given more than once (each is evaluated, under distinct "
     "names)\n", "r\tall\tmap\t0.5833333333333333\nr#2\tall\tmap\t"),
    ("the same run twice to compare", ["compare", "-f", "tsv", "q", "r", "s", "s"],
     "smarteval: s: this run is given more than once (each is evaluated, under distinct "
     "names)\n" + "".join(
         f"smarteval: {run} against tag on map: the t test is undefined: every per-query "
         f"difference is 0, so t = 0/0\nsmarteval: {run} against tag on map: every "
         "per-query difference is 0, so d_z and g_av are 0/0\n" for run in ("s", "s#2")),
     "tag\ts#2\tmap\t"),
    ("-l above every grade", ["evaluate", "-f", "tsv", "-m", "map", "-l", "3", "q", "r"],
     NOT_RELEVANT, "tag\tall\tmap\t0.0\n"),
    ("-l past a C long", ["evaluate", "-f", "trec", "-m", "map", "-l",
                          "99999999999999999999", "q", "r"],
     NOT_RELEVANT.replace(" 3", " 9223372036854775807"), "map                   \tall\t0.0000\n"),
    ("curve -l above every grade", ["curve", "-f", "tsv", "-l", "3", "q", "r"], NOT_RELEVANT,
     "tag\t0.1\t0.0\t"),
    ("curve --cutoffs-from -l above every grade",
     ["curve", "-f", "tsv", "-l", "3", "--cutoffs-from", "s", "q", "r"], NOT_RELEVANT,
     "tag\t"),
    ("curve --target-generality without adjusted",
     ["curve", "-f", "tsv", "--target-generality", "20", "q", "r"],
     "smarteval: --target-generality has no effect: only --method adjusted reads it "
     "(--method quasi)\n", "tag\t0.1\t"),
    ("plot -l above every grade", ["plot", "-l", "3", "q", "r", "-o", "p.png"], NOT_RELEVANT,
     ""),
    ("plot diff -l above every grade",
     ["plot", "-k", "diff", "-l", "3", "q", "r", "s", "-o", "p.png"], NOT_RELEVANT, ""),
    ("plot --target-generality without adjusted",
     ["plot", "--target-generality", "20", "q", "r", "-o", "p.png"],
     "smarteval: --target-generality has no effect: only --method adjusted reads it "
     "(--method semi)\n", ""),
    ("plot --examined without a cut-off method",
     ["plot", "--examined", "--method", "quasi", "q", "r", "-o", "p.png"],
     "smarteval: --examined has no effect: only the cut-off methods (pseudo, points, "
     "adjusted, cnr) write numbers beside their points (--method quasi)\n", ""),
    ("plot --no-examined without a cut-off method",
     ["plot", "--no-examined", "q", "r", "-o", "p.png"],
     "smarteval: --no-examined has no effect: only the cut-off methods (pseudo, points, "
     "adjusted, cnr) write numbers beside their points (--method semi)\n", ""),
    ("numpy's own warnings stay quiet", ["evaluate", "-f", "trec", "-m", "Rprec_mult.1e300",
                                         "q", "r"],
     "", f"Rprec_mult_{1e300:.2f}\tall\t0.0000\n"),
]


@pytest.mark.parametrize("name,args,message,output", SAID, ids=[c[0] for c in SAID])
def test_said_on_standard_error(files, name, args, message, output):
    if "plot" in args:
        pytest.importorskip("matplotlib")
    res = invoke(args)
    assert res.exit_code == 0, res.output
    assert res.stderr == message
    assert output in res.stdout


# =========================================================================== trec_eval's numbers

#: (-m and options, what trec_eval 9.0.8 and 10.0 both print for them on QRELS and RUN):
#: parameters past a C long, NaN and infinities are what trec_eval makes of them
TREC_EVAL_PRINTS = [
    (["-m", "utility.inf,0,0,0"], "utility_inf,0,0,0     \tall\t   inf\n"),
    (["-m", "utility.nan,1,1,1"], "utility_nan,1,1,1     \tall\t   nan\n"),
    (["-m", "Rprec_mult.nan"], "Rprec_mult_nan        \tall\t0.0000\n"),
    (["-m", "Rprec_mult.inf"], "Rprec_mult_inf        \tall\t0.0000\n"),
    (["-m", "set_F.-1"], "set_F_-1              \tall\t  -nan\n"),
    (["-m", "set_F.nan"], "set_F_nan             \tall\t   nan\n"),
    (["-m", "set_F.inf"], "set_F_inf             \tall\t  -nan\n"),
    (["-q", "-m", "relstring.-3"], "".join(f"relstring_-3          \t{q}\t''\n"
                                           for q in "1234")),
    (["-q", "-m", "relstring.1e20"], "".join(f"relstring_1e20        \t{q}\t''\n"
                                             for q in "1234")),
    (["-m", "iprec_at_recall.1.5"], "iprec_at_recall_1.50  \tall\t0.0000\n"),
    (["-m", "iprec_at_recall.nan"], "iprec_at_recall_nan   \tall\t0.7917\n"),
    (["-m", "11pt_avg.nan"], "11pt_avg_nan          \tall\t0.7917\n"),
    (["-m", "ndcg.1=inf"], "ndcg_1=inf            \tall\t  -nan\n"),
    (["-m", "map", "-M", "99999999999999999999"], "map                   \tall\t0.5833\n"),
    (["-m", "num_nonrel_judged_ret", "-N", "99999999999999999999"],
     "num_nonrel_judged_ret \tall\t3\n"),
]


@pytest.mark.parametrize("version", ["9", "10"])
@pytest.mark.parametrize("args,expected", TREC_EVAL_PRINTS, ids=[" ".join(c[0])
                                                                  for c in TREC_EVAL_PRINTS])
def test_what_trec_eval_prints(files, version, args, expected):
    res = invoke(["evaluate", "-f", "trec", "--trec-version", version, *args, "q", "r"])
    assert res.exit_code == 0
    assert res.stdout == expected
    assert res.stderr == ""


@pytest.mark.parametrize("version", ["9", "10"])
@pytest.mark.parametrize("spec,expected", [
    ("P.99999999999999999999", "P_9223372036854775807 \tall\t0.0000\n"),
    ("success.99999999999999999999", "success_9223372036854775807\tall\t1.0000\n")])
def test_a_cut_off_past_a_c_long_is_clamped_as_trec_eval_clamps_it(files, version, spec,
                                                                   expected):
    res = invoke(["evaluate", "-f", "trec", "--trec-version", version, "-m", spec, "q", "r"])
    assert (res.exit_code, res.stdout) == (0, expected)
    assert res.stderr == (f"smarteval: -m {spec}: cut-off 99999999999999999999 is past the "
                          "largest trec_eval reads (a C long): taken as 9223372036854775807, "
                          "as its atol takes it\n")


# =========================================================================== the Python API

#: (name, keyword arguments of smarteval.evaluate, exact message of the UsageError)
API_REFUSED = [
    ("max_docs=-1", {"max_docs": -1}, "-M/--max-docs must not be negative, not -1"),
    ("rel_level='2'", {"rel_level": "2"}, "rel_level must be a whole number, not '2'"),
    ("average='bogus'", {"average": "bogus"},
     "--average must be one of macro, micro, median, not 'bogus'"),
    ("jobs=0", {"jobs": 0}, "jobs must be a whole number, 1 or more, or None, not 0"),
    ("seed=-1", {"seed": -1, "ties": "random"}, "--seed must be 0 or more, not -1"),
    ("num_docs=0", {"num_docs": 0}, "-N/--num-docs must be at least 1, not 0"),
    ("complete='yes'", {"complete": "yes"}, "complete must be True or False, not 'yes'"),
    ("target_generality=nan", {"target_generality": math.nan},
     "--target-generality must lie between 0 and 1000, not nan"),
    ("measures=''", {"measures": ""},
     "measure '' is empty (trec_eval refuses it too): name a measure, e.g. -m map"),
]


@pytest.mark.parametrize("name,kwargs,message", API_REFUSED, ids=[c[0] for c in API_REFUSED])
def test_api_refusals(files, name, kwargs, message):
    kwargs = {"measures": ["map"], **kwargs}
    with pytest.raises(UsageError) as exc:
        smarteval.evaluate("q", "r", **kwargs)
    assert str(exc.value) == message


def test_api_one_measure_as_a_string(files):
    ev = smarteval.evaluate("q", "r", "map")[0]
    assert ev.names == ["map"]                  # not m, a and p


def test_api_run_and_qrels_swapped(files):
    with pytest.raises(UsageError, match=r"^qrels: r was read as a run \(Run\), not as qrels"):
        smarteval.evaluate(read_run("r"), "r", "map")
    with pytest.raises(UsageError, match=r"^runs: q was read as qrels \(Qrels\), not as a run"):
        smarteval.evaluate("q", read_qrels("q"), "map")


def test_api_the_same_run_twice_gets_two_names(files):
    assert [ev.name for ev in smarteval.evaluate("q", ["r", "r"], "map")] == ["r", "r#2"]


def test_api_numbers_past_a_c_long_are_its_bounds(files):
    """As trec_eval's atol: ``-l -99999999999999999999 -M 99999999999999999999 -N ...``
    prints map 1.1667 there (every judged document relevant, the negative ones too)."""
    ev = smarteval.evaluate("q", "r", "map", max_docs=10**20, num_docs=10**30,
                            rel_level=-(10**20))[0]
    assert f"{ev.summary['map']:.4f}" == "1.1667"


@pytest.mark.ci_skip_ok(ROOT_READS)
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason=ROOT_READS)
@pytest.mark.parametrize("command", [["evaluate", "q", "u"], ["curve", "q", "u"],
                                     ["compare", "q", "r", "u"], ["correlate", "u", "u"]])
def test_an_unreadable_file_exits_1_like_a_missing_one(files, command):
    (files / "u").write_text(RUN)
    (files / "u").chmod(0)
    res = invoke(command)
    assert res.exit_code == 1
    assert res.stderr == "Error: u: permission denied\n"
