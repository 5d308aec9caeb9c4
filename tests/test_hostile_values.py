"""Hostile values: a number past what the program can hold, NaN or an infinity where a
command or a call takes a value, refused in one message with its exit status (never an
OverflowError, a ValueError or an IndexError), by one check that every command shares."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from fixtures import files_in

import smarteval
from smarteval.cli import main
from smarteval.errors import UsageError
from smarteval.numerals import NUMBER, WHOLE_NUMBER

QRELS = "1 0 a 1\n1 0 b 0\n2 0 a 0\n2 0 d 1\n"
RUN = "1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0 tag\n2 Q0 d 1 5.0 tag\n2 Q0 a 2 4.0 tag\n"
BIG = "100000000000000000000000"
LONG_MAX = 2**63 - 1


@pytest.fixture
def files(tmp_path, monkeypatch):
    return files_in(tmp_path, monkeypatch, q=QRELS, r=RUN, base="1 Q0 a 1 1.0 b\n2 Q0 d 1 2 b\n",
                    unjudged="1 Q0 zz 1 9 u\n1 Q0 a 2 3 u\n",
                    zneg="1 map 0.1 0.2\n2 map 0.1 -0.2\n")


def invoke(args, input=None):
    result = CliRunner().invoke(main, [str(a) for a in args], input=input)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    return result


def refused(spec: str, why: str) -> str:
    return f"Error: refused measure:\n  {spec}: {why}\n"


CUTOFFS = "positive whole numbers up to 9007199254740992 (1,2,5,10)"


def invalid(command: str, option: str, value: str, kind: str) -> str:
    """click's refusal of a value outside smarteval's grammar of numbers (nan, inf, 1_0)."""
    arguments = {"repro": "QRELS ORIG_RUN REPRO_RUN"}.get(command, "QRELS RUNS...")
    return (f"Usage: main {command} [OPTIONS] {arguments}\nTry 'main {command} --help' for "
            f"help.\n\nError: Invalid value for {option}: {value!r} is not "
            f"{WHOLE_NUMBER if kind == 'integer' else NUMBER}.\n")


#: (name, arguments, exit status, exact standard error)
CASES = [
    ("P@ past a C long", ["evaluate", "-m", f"P@{BIG}", "q", "r"], 2,
     refused(f"P@{BIG}", f"P@ takes a whole number of documents up to {LONG_MAX}")),
    ("ERR@ past a C long", ["evaluate", "-m", f"ERR@{BIG}", "q", "r"], 2,
     refused(f"ERR@{BIG}", f"ERR@ takes a whole number of documents up to {LONG_MAX}")),
    ("a gain past a C long", ["evaluate", "-m", f"nDCG(gains={{0:0,1:{BIG}}})@10", "q", "r"], 2,
     refused(f"nDCG(gains={{0:0,1:{BIG}}})@10", f"gains= maps grades up to {LONG_MAX} to "
             f"gains up to {LONG_MAX} (a C long: pytrec_eval's)")),
    ("a grade past a C long", ["evaluate", "-m", f"nDCG(gains={{0:0,{BIG}:1}})@10", "q", "r"],
     2, refused(f"nDCG(gains={{0:0,{BIG}:1}})@10", f"gains= maps grades up to {LONG_MAX} to "
                f"gains up to {LONG_MAX} (a C long: pytrec_eval's)")),
    *[(f"curve --method {method} --levels {level}",
       ["curve", "-N", "100", "--method", method, "--levels", level, "q", "r"], 2,
       f"Error: --levels takes {CUTOFFS}, not '{level}'\n" if level == "1e30" else
       invalid("curve", "'--levels'", level, "number"))
      for method in ("characteristic", "cnr") for level in ("nan", "inf", "1e30")],
    ("plot --method cnr --levels inf",
     ["plot", "-N", "100", "--method", "cnr", "--levels", "inf", "-o", "x.png", "q", "r"], 2,
     invalid("plot", "'--levels'", "inf", "number")),
    # 60,000 x 60,000 pixels ran out of memory
    ("plot --size 50,50 --dpi 1200", ["plot", "--size", "50,50", "--dpi", "1200", "-o",
                                      "x.png", "q", "r"], 2,
     "Error: the image would be 60000 x 60000 pixels (--size in inches times --dpi 1200): a "
     "PNG image holds at most 100,000,000 pixels; give a smaller --size or --dpi, or write "
     ".svg or .pdf\n"),
    ("plot -k oc -N 1 as curve refuses it", ["plot", "-k", "oc", "-N", "1", "-o", "x.png",
                                             "q", "r"], 1,
     "Error: -N/--num-docs: collection of 1 documents is smaller than query 1's 2 retrieved "
     "plus 0 unretrieved relevant documents\n  expected: N at least the retrieved plus the "
     "unretrieved relevant documents of every query\n"),
    ("a negative standard deviation", ["evaluate", "-Z", "zneg", "-m", "map", "q", "r"], 1,
     "Error: zneg:2: standard deviation '-0.2' is negative: a standard deviation is 0 or "
     "more\n    2 map 0.1 -0.2\n  expected: QUERY_ID MEASURE MEAN STDDEV (4 fields, "
     "whitespace-separated)\n"),
    # an RBO depth is held a weight a depth: 10**8 ran out of memory, past a C long a
    # ValueError; a cut-off past a C long an OverflowError
    *[(f"diff -k {k}", ["diff", "-k", k, "q", "base", "r"], 2,
       f"Error: --depth must be a whole number from 1 to 10000000, not {k}\n")
      for k in (BIG, "100000000")],
    *[(f"repro --rbo-depth {k}", ["repro", "--rbo-depth", k, "q", "base", "r"], 2,
       f"Error: --rbo-depth must be a whole number from 1 to 10000000, not {k}\n")
      for k in (BIG, "100000000")],
    *[(f"repro --cutoffs {c!r}", ["repro", "--cutoffs", c, "q", "base", "r"], 2,
       "Usage: main repro [OPTIONS] QRELS ORIG_RUN REPRO_RUN\nTry 'main repro "
       f"--help' for help.\n\nError: Invalid value for '--cutoffs': {c!r}: expected whole "
       "numbers of 1 or more, separated by commas (5,10,100)\n")
      for c in ("5,,10", "+5")],
    *[(f"repro --cutoffs {c!r}", ["repro", "--cutoffs", c, "q", "base", "r"], 2,
       invalid("repro", "'--cutoffs'", c, "integer")) for c in ("1_0", "\u0665")],
    ("repro --cutoffs past a C long", ["repro", "--cutoffs", f"5,{BIG}", "q", "base", "r"], 2,
     f"Error: --cutoffs must be whole numbers from 1 to {LONG_MAX}, not [5, {BIG}]\n"),
    # a label is a field of -f tsv and csv: a tab in it shifted the row's columns
    *[(f"{command} --label with {held}", [command, "-f", "tsv", "--label", f"r=x{char}y",
                                          "q", "base", "r"], 2,
       f"Error: --label 'x{shown}y' holds {held}: a label is printed as one field of a line "
       "(-f tsv, csv, trec)\n")
      for command in ("report", "discpower")
      for char, shown, held in (("\t", "\\t", "a tab"), ("\n", "\\n", "a line feed"),
                                ("\r", "\\r", "a carriage return"))],
    # past a C long the grade was an OverflowError, and one past the grades' narrow
    # column (grades 0 and 1 held in int32) too
    ("--unjudged-grade past a C long", ["evaluate", "--unjudged", "relevant",
                                        "--unjudged-grade", BIG, "q", "unjudged"], 2,
     f"Error: --unjudged-grade must be a grade from 0 to {LONG_MAX}, not {BIG}\n"),
    *[(f"--risk-alpha {a}", ["evaluate", "-m", "map", "--risk-baseline", "base",
                             "--risk-alpha", a, "q", "r"], 2,
       invalid("evaluate", "'--risk-alpha'", a, "float range")) for a in ("nan", "inf")],
    # NTCIREVAL's parameters: a gain or a key of NaN or an infinity was printed as nan, a
    # key given twice kept the last, a level past a C long was an IndexError
    *[(f"-m {spec}", ["evaluate", "-m", spec, "q", "r"], 2,
       f"Error: bad parameters in measure {spec!r}: expected rel=gain pairs, e.g. "
       "ndcg.1=3,2=9\n")
      for spec in ("ntcir_Q.L1=nan", "ntcir_Q.L1=inf", "ntcir_Q.beta=inf", "ntcir_Q.L1=1_0",
                   "ntcir_nDCG.logb=-inf")],
    *[(f"-m {spec}", ["evaluate", "-m", spec, "q", "r"], 2,
       f"Error: bad parameters in measure {spec!r}: {what} given twice (a level or a key "
       "takes one value)\n")
      for spec, what in (("ntcir_Q.beta=1,beta=2", "beta"), ("ntcir_Q.L1=1,1=2", "1"))],
    (f"-m ntcir_Q.{BIG}=1", ["evaluate", "-m", f"ntcir_Q.{BIG}=1", "q", "r"], 2,
     f"Error: bad parameters in measure 'ntcir_Q.{BIG}=1': level {BIG} is past the "
     f"largest, {LONG_MAX}\n"),
    *[(f"-m {spec}", ["evaluate", "-m", spec, "q", "r"], 2,
       f"Error: bad parameters in measure {spec!r}: expected numbers{more}\n")
      for spec, more in (("U.nan", " separated by commas"), ("ERR-IA.inf", " separated by "
                                                                      "commas"))],
]


GRADED = "1 0 a 1\n1 0 b 2\n1 0 c 0\n2 0 a 0\n2 0 d 3\n"


def value(spec: str, qrels: str = GRADED, stderr: str = "") -> float:
    """The summary value of ``-m spec`` (one measure) on ``qrels`` and the run ``r``, and
    that its standard error is ``stderr``."""
    res = invoke(["evaluate", "-f", "json", "-m", spec, "-", "r"], input=qrels)
    assert (res.exit_code, res.stderr) == (0, stderr), res.output
    (v,) = json.loads(res.stdout)[0]["summary"].values()
    return v


#: (name, -m, the -m it is the same as): what was a traceback (an OverflowError, an
#: IndexError in a table of every level up to the largest)
THE_SAME = [
    ("a cut-off past every rank", "ntcir_Q.k=1e300", "ntcir_Q"),
    ("an AP cut-off past every rank", "ntcir_AP.k=1e300", "ntcir_AP"),
    ("a level of a C long's largest, judged nowhere", f"ntcir_Q.{LONG_MAX}=1", "ntcir_Q"),
    ("a level given its own number", "ntcir_nDCG.L2=2", "ntcir_nDCG"),
]


@pytest.mark.parametrize("name,spec,same", THE_SAME, ids=[c[0] for c in THE_SAME])
def test_the_same_value(files, name, spec, same):
    assert value(spec) == value(same)


@pytest.mark.parametrize("spec", ["ntcir_Q", "ntcir_nDCG", "ntcir_ERR", "ntcir_NCUguBR",
                                  "ntcir_RBP", "ntcir_Pplus"])
def test_a_grade_of_a_c_longs_largest(files, spec):
    """The highest level is a grade of the qrels, however large (a table of every level up
    to it was an IndexError, and held a gain per level: 814 MB for a grade of 10**8)."""
    import tracemalloc
    tracemalloc.start()
    try:
        big = value(spec, GRADED.replace("0 d 3", f"0 d {LONG_MAX}"))
        value(spec, GRADED.replace("0 d 3", "0 d 100000000"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 0 <= big <= 1
    assert peak < 20 << 20


def test_ir_measures_gains_past_the_grades_column(files):
    """Gains up to a C long's largest (the grades' narrow column was an OverflowError)."""
    big = value(f"nDCG(gains={{0:0,1:{LONG_MAX},2:{LONG_MAX},3:{LONG_MAX}}})@10")
    assert big == pytest.approx(value("nDCG(gains={0:0,1:1,2:1,3:1})@10"))


def test_a_cut_off_past_a_c_long_is_said_to_be_clamped(files):
    assert value(f"P.{BIG}", stderr=f"smarteval: -m P.{BIG}: cut-off {BIG} is past the "
                 f"largest trec_eval reads (a C long): taken as {LONG_MAX}, as its atol "
                 "takes it\n") == value(f"P.{LONG_MAX}")


#: (name, measures given to smarteval.evaluate, exact message)
API_MEASURES = [
    ("bytes in a list", [b"map"], "measures are names (str), not b'map' (bytes)"),
    ("an int in a list", ["map", 3], "measures are names (str), not 3 (int)"),
    ("a nested list", [["map"]], "measures are names (str), not ['map'] (list)"),
]


@pytest.mark.parametrize("name,measures,message", API_MEASURES, ids=[c[0] for c in API_MEASURES])
def test_api_measures_of_the_wrong_type(files, name, measures, message):
    with pytest.raises(UsageError) as err:
        smarteval.evaluate("q", "r", measures)
    assert str(err.value) == message


@pytest.mark.parametrize("levels,message", [
    (10**9, "--levels takes a count (10) or recall levels between 0 and 1 (0.1,0.5,1), not "
            "1000000000"),
    ("1000000000", "--levels 1000000000: at most 10000 levels"),
    ([0.5, float("nan")], "--levels takes recall levels between 0 and 1 (0.1,0.5,1), not "
                          "[0.5, nan]"),
])
def test_api_levels(files, levels, message):
    with pytest.raises(UsageError) as err:
        smarteval.curve("q", "r", levels=levels)
    assert str(err.value) == message


#: (name, a library call, exact message): the command line's checks, for every value a
#: call may be given (an infinity, NaN, a string, a number where a list goes)
API_VALUES = [
    ("diff depth=inf", lambda: smarteval.diff("q", "base", "r", depth=float("inf")),
     "--depth must be a whole number from 1 to 10000000, not inf"),
    ("diff limit=nan", lambda: smarteval.diff("q", "base", "r", limit=float("nan")),
     "--limit must be a whole number, 1 or more, not nan"),
    ("diff limit='3'", lambda: smarteval.diff("q", "base", "r", limit="3"),
     "--limit must be a whole number, 1 or more, not '3'"),
    ("repro cutoffs=[inf]", lambda: smarteval.repro("q", "base", "r", cutoffs=[float("inf")]),
     f"--cutoffs must be whole numbers from 1 to {LONG_MAX}, not [inf]"),
    ("repro cutoffs=[nan]", lambda: smarteval.repro("q", "base", "r", cutoffs=[float("nan")]),
     f"--cutoffs must be whole numbers from 1 to {LONG_MAX}, not [nan]"),
    ("repro cutoffs=5", lambda: smarteval.repro("q", "base", "r", cutoffs=5),
     f"--cutoffs must be whole numbers from 1 to {LONG_MAX}, not 5"),
    ("repro rbo_depth=10**30", lambda: smarteval.repro("q", "base", "r", rbo_depth=10**30),
     f"--rbo-depth must be a whole number from 1 to 10000000, not {10**30}"),
]


@pytest.mark.parametrize("name,call,message", API_VALUES, ids=[c[0] for c in API_VALUES])
def test_api_values(files, name, call, message):
    with pytest.raises(UsageError) as err:
        call()
    assert str(err.value) == message


@pytest.mark.parametrize("grade", [2**31, LONG_MAX])
def test_an_unjudged_grade_past_the_grades_column(files, grade):
    """The grades of a 0/1 qrels are held narrow: a larger --unjudged-grade widens them."""
    res = invoke(["evaluate", "-f", "tsv", "--unjudged", "relevant", "--unjudged-grade",
                  grade, "-m", "num_rel", "-m", "map", "q", "unjudged"])
    assert (res.exit_code, res.stdout) == (
        0, "run\tquery\tmeasure\tvalue\nu\tall\tnum_rel\t2\nu\tall\tmap\t1.0\n")


@pytest.mark.parametrize("method", ["t", "anova", "ci"])
@pytest.mark.parametrize("variance", [1e-33, 5e-324])
def test_a_tiny_variance_needs_the_fewest_topics(method, variance):
    """scipy's noncentral t and F give NaN so far past the critical value: that read as a
    power never reached, "more than 1000000 topics would be needed"."""
    from smarteval.stats.topicsets import topics_needed
    assert topics_needed(method, 0.1, variance).topics == 2


def test_an_estimated_variance_of_zero_is_named(files):
    """Two runs that differ by the same amount on every query leave no residual variance."""
    (files / "r2").write_text(RUN.replace(" tag", " two"))
    res = invoke(["topics", "--diff", "0.1", "-m", "P.5", "q", "r", "r2"])
    assert (res.exit_code, res.stderr) == (
        2, "Error: P_5: the residual variance estimated from the runs is 0: no number of "
           "topics follows from it (give --variance)\n")


@pytest.mark.parametrize("call", [
    lambda m: smarteval.evaluate("q", "r", m).frame().measure.tolist(),
    lambda m: smarteval.discpower("q", ["base", "r"], m).render(),
    lambda m: smarteval.report("q", ["base", "r"], m).render(),
    lambda m: smarteval.compare("q", "base", ["r"], m).render(),
], ids=["evaluate", "discpower", "report", "compare"])
def test_no_measures_are_the_defaults_in_every_call(files, call):
    """measures=[] is what None is, as in compare and report: evaluate gave no value at
    all, discpower refused it as "no measure to compare:  have no number"."""
    assert call([]) == call(None)


# ====================================================== numbers written as Python writes them

def _numeric_parameters():
    """(command, parameter) of every parameter of every command whose value is a number
    (click's number types) or text holding numbers (``Numbers``), read from the commands."""
    import click

    from smarteval.cli import LazyGroup
    from smarteval.cli.types import Numbers
    ctx = click.Context(main)
    for name in sorted(LazyGroup.lazy):
        for param in main.get_command(ctx, name).params:
            if isinstance(param.type, (click.types._NumberParamTypeBase, Numbers)):
                yield name, param


NUMERIC = list(_numeric_parameters())


def test_every_number_option_is_found():
    """The sweep below sees the options it should (a rename would hide one from it)."""
    found = {(name, p.opts[0]) for name, p in NUMERIC}
    assert {("evaluate", "-M"), ("evaluate", "-l"), ("evaluate", "-N"), ("plot", "--dpi"),
            ("plot", "--size"), ("plot", "--ranges"), ("curve", "--levels"),
            ("topics", "--diff"), ("topics", "--variance"), ("topics", "--systems"),
            ("repro", "--cutoffs"), ("discpower", "--samples"), ("diff", "--rbo-p"),
            ("evaluate", "--risk-alpha"), ("curve", "--target-generality")} <= found
    assert len(NUMERIC) >= 80


@pytest.mark.parametrize("name,param", NUMERIC, ids=[f"{n} {p.opts[0]}" for n, p in NUMERIC])
def test_every_number_is_written_in_ascii_digits(name, param):
    """Every number of every command goes through the one strict grammar: click's own
    types (Python's int and float) take 1_0 as 10, other scripts' digits and spaces."""
    from smarteval.cli.types import Numbers, StrictFloat, StrictInt
    assert isinstance(param.type, (StrictInt, StrictFloat, Numbers)), \
        f"{name} {param.opts[0]}: {param.type!r}, not one of smarteval.cli.types'"
    quoted = " / ".join(f"'{o}'" for o in param.opts)
    for value in ("1_0", " 5", "5 ", "\uff15", "\u0663", "1\u00a0"):
        res = invoke([name, param.opts[0], value])
        assert res.exit_code == 2, (value, res.stderr)
        assert f"Error: Invalid value for {quoted}: " in res.stderr, (value, res.stderr)
        assert res.stdout == ""


#: (name, arguments, exact standard error): refused with exit 2; the numbers other than
#: the options' own: -D's level, --require's bound, an item of a list
STRICT = [
    ("-D 1_0", ["evaluate", "-D", "1_0", "q", "r"],
     "Usage: main evaluate [OPTIONS] QRELS RUNS...\nTry 'main evaluate --help' for help.\n\n"
     "Error: Invalid value for '-D' / '--debug-level': '1_0': expected LEVEL or LEVEL.QUERY, "
     "LEVEL an integer (0.401 evaluates query 401 only)\n"),
    ("-D with a superscript digit", ["evaluate", "-D", "\u00b2.1", "q", "r"],
     "Usage: main evaluate [OPTIONS] QRELS RUNS...\nTry 'main evaluate --help' for help.\n\n"
     "Error: Invalid value for '-D' / '--debug-level': '\u00b2.1': expected LEVEL or "
     "LEVEL.QUERY, LEVEL an integer (0.401 evaluates query 401 only)\n"),
    *[(f"--require with {bound!r}", ["evaluate", "--require", f"map>={bound}", "q", "r"],
       f"Error: --require 'map>={bound}': '{bound}' is not a finite number\n")
      for bound in ("0_1", "\u0663", "inf", "nan", "1e999")],
    ("--levels, an item with a space inside", ["curve", "--levels", "0.1,1 0", "q", "r"],
     "Usage: main curve [OPTIONS] QRELS RUNS...\nTry 'main curve --help' for help.\n\n"
     f"Error: Invalid value for '--levels': '0.1,1 0': '1 0' is not {NUMBER}.\n"),
    ("--levels, a superscript count", ["curve", "--levels", "\u00b2", "q", "r"],
     "Usage: main curve [OPTIONS] QRELS RUNS...\nTry 'main curve --help' for help.\n\n"
     f"Error: Invalid value for '--levels': '\u00b2' is not {NUMBER}.\n"),
    ("topics --systems 1_0", ["topics", "--diff", "0.1", "--variance", "0.1", "-d", "anova",
                              "--systems", "2,1_0"],
     "Usage: main topics [OPTIONS] [QRELS] [RUNS]...\nTry 'main topics --help' for help.\n\n"
     f"Error: Invalid value for '--systems': '2,1_0': '1_0' is not {WHOLE_NUMBER}.\n"),
    # one wording for too many levels, before any work and in the library
    ("--levels past the limit", ["curve", "--levels", "20000", "q", "r"],
     "Error: --levels 20000: at most 10000 levels\n"),
    # correlate refuses a measure as evaluate does, not as a value the results lack
    ("correlate -m P@0", ["correlate", "-m", "P@0", "-m", "P@5", "res", "res"],
     "Error: refused measure:\n  P@0: P@ takes a whole number of documents above 0, e.g. "
     "P@10\n"),
    ("evaluate -m P@0", ["evaluate", "-m", "P@0", "q", "r"],
     "Error: refused measure:\n  P@0: P@ takes a whole number of documents above 0, e.g. "
     "P@10\n"),
]


@pytest.mark.parametrize("name,args,stderr", STRICT, ids=[c[0] for c in STRICT])
def test_strict_numbers_refused(files, name, args, stderr):
    (files / "res").write_text("P_5\tall\t0.2000\n")
    res = invoke(args)
    assert (res.exit_code, res.stderr, res.stdout) == (2, stderr, "")


def test_levels_past_the_limit_in_the_library_as_in_the_command(files):
    with pytest.raises(UsageError) as exc:
        smarteval.curve("q", "r", levels="20000")
    assert str(exc.value) == "--levels 20000: at most 10000 levels"


@pytest.mark.parametrize("text", ["1_0", "\uff15", " 5", "inf", "+", "", "1e", "0x10"])
def test_the_grammar_refuses(text):
    from smarteval.numerals import decimal, whole
    for parse in (whole, decimal):
        with pytest.raises(ValueError):
            parse(text)


@pytest.mark.parametrize("text,number", [("10", 10.0), ("-3", -3.0), ("+007", 7.0),
                                         ("0.25", 0.25), (".5", 0.5), ("5.", 5.0),
                                         ("1e-3", 0.001), ("2E2", 200.0)])
def test_the_grammar_takes(text, number):
    from smarteval.numerals import decimal, is_whole, whole
    assert decimal(text) == number
    if is_whole(text):
        assert whole(text) == int(number)
