"""-Z (z-scores) and -T: printed as trec_eval prints them, the file read and refused clearly.

The expected outputs in tests/data/zscores were printed by trec_eval 9.0.8 and 10.0 for
the cases of its cases.tsv: missing queries and measures, a standard deviation of 0 (the
value equal to the mean or not), a negative one, measures named with a dot (P.5, never
found), geometric means, -c under both versions, -n, -M -l -J, and trec_eval's search
reaching a measure of the next query.
"""

from __future__ import annotations

import csv
import gzip
import json
import shlex
from pathlib import Path

import numpy as np
import pytest
from fixtures import invoke

import smarteval
from smarteval.read.zscores import read_zscores

DATA = Path(__file__).parent / "data" / "zscores"
TREC = Path(__file__).parent / "data" / "trec_eval" / "inputs"
QRELS = str(TREC / "qrels.test")
RUN = str(TREC / "results.test")


def _cases():
    with open(DATA / "cases.tsv", newline="") as fh:
        for row in csv.reader(fh, delimiter="\t"):
            if row and not row[0].startswith("#"):
                yield row


CASES = list(_cases())


@pytest.mark.parametrize("version,folder", [("9", "expected-9.0"), ("10", "expected-10.0")])
@pytest.mark.parametrize("name,flags,zfile,results", CASES, ids=[c[0] for c in CASES])
def test_prints_what_trec_eval_prints(name, flags, zfile, results, version, folder):
    run = DATA / "inputs" / results
    if not run.exists():
        run = TREC / results
    result = invoke(["evaluate", "-f", "trec", "--trec-version", version,
                      *shlex.split(flags), "-Z", DATA / "inputs" / zfile, QRELS, run])
    assert result.exit_code == 0, result.output
    assert result.stdout == (DATA / folder / f"out.{name}").read_text()


def _write(tmp_path, text: str | bytes, name: str = "z.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


EXPECTED = "  expected: QUERY_ID MEASURE MEAN STDDEV (4 fields, whitespace-separated)\n"

# (name, file contents, exact standard error)
BAD = [
    ("three fields", "301 map 0.1 0.2\n301 P_5 0.1\n",
     "Error: z.txt:2: z-score line has 3 fields, not 4\n    301 P_5 0.1\n" + EXPECTED),
    ("five fields", "301 map 0.1 0.2 x\n",
     "Error: z.txt:1: z-score line has 5 fields, not 4\n    301 map 0.1 0.2 x\n" + EXPECTED),
    ("blank line", "301 map 0.1 0.2\n\n302 map 0.1 0.2\n",
     "Error: z.txt:2: blank line: every z-score line holds 4 fields\n    \n" + EXPECTED),
    ("mean not a number", "# means\n301 map abc 0.2\n",
     "Error: z.txt:2: mean 'abc' is not a number\n    301 map abc 0.2\n" + EXPECTED),
    ("mean with trailing text", "301 map 0.1x 0.2\n",
     "Error: z.txt:1: mean '0.1x' is not a number\n    301 map 0.1x 0.2\n" + EXPECTED),
    ("stddev not a number", "301 map 0.1 0x10\n",
     "Error: z.txt:1: standard deviation '0x10' is not a number\n    301 map 0.1 0x10\n"
     + EXPECTED),
    ("stddev not finite", "301 map 0.1 inf\n",
     "Error: z.txt:1: standard deviation 'inf' is not a finite number\n"
     "    301 map 0.1 inf\n" + EXPECTED),
    ("a measure twice", "301 map 0.1 0.2\n302 map 0 1\n301 map 0.3 0.2\n",
     "Error: z.txt:3: this query's measure is given again (first at line 1): give one "
     "mean and standard deviation for each query and measure\n    301 map 0.3 0.2\n"
     + EXPECTED),
    ("empty", "",
     "Error: z.txt: no z-score lines (empty, or only blank and comment lines)\n" + EXPECTED),
    ("only comments", "# nothing\n",
     "Error: z.txt: no z-score lines (empty, or only blank and comment lines)\n" + EXPECTED),
]


@pytest.mark.parametrize("name,text,message", BAD, ids=[b[0] for b in BAD])
def test_bad_file_is_one_message(tmp_path, monkeypatch, name, text, message):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, text)
    result = invoke(["evaluate", "-f", "trec", "-m", "map", "-Z", "z.txt", QRELS, RUN])
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", message)


def test_missing_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke(["evaluate", "-m", "map", "-Z", "nothing.txt", QRELS, RUN])
    assert (result.exit_code, result.stderr) == (1, "Error: nothing.txt: no such file\n")


GOOD = ("# reference runs\n301 map 0.1212 0.1545\r\n  302\tmap 0.3903 0.1849\n"
        "303 map 1.641e-1 +0.1532\n")
EXPECTED_MAP = ("Zmap                   \t301\t-0.5746\nZmap                   \t302\t0.1469\n"
                "Zmap                   \t303\t-0.5114\nZmap                   \tall\t-0.3130\n")


@pytest.mark.parametrize("pack", [lambda b: b, gzip.compress], ids=["plain", "gzip"])
def test_comments_crlf_whitespace_and_compression(tmp_path, pack):
    path = _write(tmp_path, pack(GOOD.encode()))
    result = invoke(["evaluate", "-f", "trec", "-q", "-m", "map", "-Z", path, QRELS, RUN])
    assert result.stdout == EXPECTED_MAP


def test_from_standard_input():
    result = invoke(["evaluate", "-f", "trec", "-q", "-m", "map", "--Zscore", "-", QRELS, RUN],
                     input=GOOD)
    assert result.stdout == EXPECTED_MAP
    both = invoke(["evaluate", "-m", "map", "-Z", "-", QRELS, "-"], input=GOOD)
    assert both.exit_code == 2
    assert both.stderr == ("Error: standard input (-) is given twice (a run and the -Z "
                           "z-score file): it can be read only once\n")


def test_lookup_follows_trec_eval_search(tmp_path):
    z = read_zscores(_write(tmp_path, "301 P_5 1 2\n302 map 3 4\n302 zzz 0 1\n"
                                      "303 map 5 6\n"))
    at = z.locate(np.array(["300", "301", "302", "303", "304"]))
    assert at.tolist() == [-1, 0, 1, 2, -1]
    found, mean, sd = z.lookup(at, "map")
    # 301 has no map, which sorts after its every measure: the next query's first entry
    assert found.tolist() == [False, True, True, True, False]
    assert mean.tolist() == [0, 3, 3, 5, 0] and sd.tolist() == [0, 4, 4, 6, 0]
    # 302's zzz is last of its query; nothing past the file's last entry (303's map)
    assert z.lookup(at, "zzz")[0].tolist() == [False, False, True, False, False]
    assert z.lookup(at, "P.5")[0].tolist() == [False] * 5
    assert z.lookup(z.locate(np.array([], dtype=str)), "map")[0].tolist() == []


def test_formats_name_z_scores(tmp_path):
    path = _write(tmp_path, GOOD)
    tsv = invoke(["evaluate", "-f", "tsv", "-q", "-m", "map", "-m", "relstring", "-Z", path,
                   QRELS, RUN]).stdout.splitlines()
    assert tsv[0] == "run\tquery\tmeasure\tvalue"
    assert tsv[1] == "STANDARD\t301\tZmap\t-0.574593237516199"
    assert "relstring" not in "".join(tsv)           # text: in -f trec and json only
    per_query = json.loads(invoke(["evaluate", "-f", "json", "-q", "-m", "map", "-m",
                                   "relstring", "-Z", path, QRELS, RUN]).stdout)[0]["queries"]
    assert per_query["301"]["relstring"] == "0000011000"
    obj = json.loads(invoke(["evaluate", "-f", "json", "-m", "map", "-m", "num_q", "-Z",
                              path, QRELS, RUN]).stdout)[0]
    assert obj["zscores"] == str(path)
    assert obj["summary"] == {"Znum_q": 3.0, "Zmap": pytest.approx(-0.3130, abs=5e-5)}
    table = invoke(["evaluate", "-f", "markdown", "-m", "map", "-Z", path, QRELS, RUN]).stdout
    assert table.splitlines()[0].split("|")[1].strip() == "z-score"
    assert "| Zmap " in table


def test_api_matches_the_definition(tmp_path):
    path = _write(tmp_path, "301 map 0.1 0.2\n302 map 0.3 0\n303 map 0.5 0.25\n")
    raw = smarteval.evaluate(QRELS, RUN, ["map"])[0].per_query["map"]
    results = smarteval.evaluate(QRELS, RUN, ["map"], zscores=str(path))
    (ev,) = results
    expected = [(raw[0] - 0.1) / 0.2, -1000000.0, (raw[2] - 0.5) / 0.25]
    assert ev.per_query["map"].tolist() == expected
    assert ev.summary["map"] == pytest.approx(sum(expected) / 3)
    assert list(results.to_dict()["STANDARD"]) == ["Zmap"]
    assert results.frame(per_query=True)["measure"].unique().tolist() == ["Zmap"]
    assert results.render("trec").startswith("Zmap                   \tall\t")
    same = smarteval.evaluate(QRELS, RUN, ["map"], zscores=read_zscores(path))[0]
    assert same.per_query["map"].tolist() == expected


@pytest.mark.parametrize("args,status,words", [
    (["compare", "-Z", "z.txt", QRELS, RUN, RUN], 2, "compare tests the per-query"),
    (["evaluate", "--average", "micro", "-Z", "z.txt", QRELS, RUN], 2,
     "z-scores have none"),
    (["evaluate", "-T", "trec_text", QRELS, RUN], 2, "'trec_text' is not 'trec_results'"),
], ids=["compare", "micro", "-T other"])
def test_refused_usage(tmp_path, monkeypatch, args, status, words):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, GOOD)
    result = invoke(args)
    assert result.exit_code == status and result.stdout == ""
    assert words in result.stderr


def test_results_format_trec_results_is_accepted():
    plain = invoke(["evaluate", "-f", "trec", "-m", "map", QRELS, RUN]).stdout
    assert invoke(["evaluate", "-f", "trec", "-T", "trec_results", "-m", "map", QRELS,
                    RUN]).stdout == plain
    assert invoke(["evaluate", "-f", "trec", "--Results_format", "trec_results", "-m",
                    "map", QRELS, RUN]).stdout == plain
