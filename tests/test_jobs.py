"""Several runs in one call: qrels read once, -j/--jobs gives the same output as one process."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures import SAMPLE

import smarteval
from smarteval.cli import main
from smarteval.render.evaluation import FORMATS as WRITTEN
from smarteval.render.formats import FORMATS

RUNS = [str(SAMPLE / f"{n}.run") for n in ("bm25", "bm25_rm3", "dense")]


def test_jobs_match_one_process():
    qrels = smarteval.read_qrels(SAMPLE / "qrels.txt")
    one = smarteval.evaluate(qrels, RUNS, ["official", "ndcg_cut.10"])
    two = smarteval.evaluate(qrels, RUNS, ["official", "ndcg_cut.10"], jobs=2,
                             keep_ranked=False)
    assert [e.name for e in one] == [e.name for e in two] == ["bm25", "bm25_rm3", "dense"]
    for a, b in zip(one, two):
        assert a.summary == b.summary
        assert b.ranked is None
        for name in a.names:
            assert (a.per_query[name] == b.per_query[name]).all()


def test_cli_jobs_output_identical():
    args = ["evaluate", "-f", "tsv", "-q", "-m", "official", str(SAMPLE / "qrels.txt"), *RUNS]
    serial = CliRunner().invoke(main, args)
    parallel = CliRunner().invoke(main, ["evaluate", "-j", "2", *args[1:]])
    assert serial.exit_code == parallel.exit_code == 0
    assert serial.stdout == parallel.stdout


def test_runs_sharing_a_tag_are_named_by_file(tmp_path):
    a = tmp_path / "a.run"
    b = tmp_path / "b.run"
    a.write_text("401 Q0 X 1 1.0 same\n")
    b.write_text("401 Q0 Y 1 1.0 same\n")
    evs = smarteval.evaluate(SAMPLE / "qrels.txt", [str(a), str(b)], ["map"])
    assert [e.name for e in evs] == ["a.run", "b.run"]


def test_ties_average_keeps_order_free_measures():
    args = ["evaluate", "--ties", "average", "-f", "tsv", "-m", "num_ret", "-m", "set_P",
            "-m", "P.5", str(SAMPLE / "qrels.txt"), RUNS[0]]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    plain = CliRunner().invoke(main, ["evaluate", "-f", "tsv", *args[5:]])
    assert result.stdout == plain.stdout     # the sample runs have no tied scores


def test_ties_average_default_table_leaves_out_what_it_cannot_average():
    result = CliRunner().invoke(main, ["evaluate", "--ties", "average",
                                       str(SAMPLE / "qrels.txt"), RUNS[0]])
    assert result.exit_code == 0, result.output
    assert result.stderr == ("smarteval: --ties average: left out bpref, iprec_at_recall "
                             "(no exact average over tied orders)\n")
    assert "map" in result.stdout and "bpref" not in result.stdout


def test_same_tag_and_file_name_fall_back_to_the_path(tmp_path):
    for sub in ("x", "y"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "run.txt").write_text("401 Q0 X 1 1.0 same\n")
    paths = [str(tmp_path / "x" / "run.txt"), str(tmp_path / "y" / "run.txt")]
    evs = smarteval.evaluate(SAMPLE / "qrels.txt", paths, ["map"])
    assert [e.name for e in evs] == paths


def test_json_writes_null_for_an_undefined_value():
    import json
    import math

    from smarteval.render.evaluation import render_json
    ev = smarteval.evaluate(SAMPLE / "qrels.txt", RUNS[0], ["map"])[0]
    ev.summary["map"] = math.nan
    assert json.loads(render_json([ev]))[0]["summary"]["map"] is None


# =========================================================================== forked workers

def _many_runs(tmp_path, count: int = 7) -> list[str]:
    """``count`` runs: the sample runs again under tags of their own, each a little
    changed (the documents of one query in another order)."""
    paths = []
    for n in range(count):
        lines = (SAMPLE / f"{('bm25', 'bm25_rm3', 'dense')[n % 3]}.run").read_text().splitlines()
        fields = [ln.split() for ln in lines]
        first = fields[0][0]
        head = [f for f in fields if f[0] == first][::-1][:n + 1]
        rest = [f for f in fields if f[0] != first]
        path = tmp_path / f"r{n:02d}.run"
        path.write_text("".join(f"{f[0]} Q0 {f[2]} {i} {f[4]} t{n:02d}\n"
                                for i, f in enumerate(head + rest)))
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("fmt", WRITTEN)
def test_forked_workers_print_what_one_process_prints(tmp_path, fmt):
    runs = _many_runs(tmp_path)
    per_query = [] if FORMATS[fmt].table else ["-q"]
    args = ["evaluate", "-f", fmt, *per_query, "-m", "official", "-m", "ndcg_cut.10",
            str(SAMPLE / "qrels.txt"), *runs]
    one = CliRunner().invoke(main, [*args, "-j", "1"])
    assert one.exit_code == 0, one.output
    for jobs in (["-j", "3"], ["-j", "20"], []):
        forked = CliRunner().invoke(main, [*args, *jobs])
        assert (forked.exit_code, forked.stdout, forked.stderr) == (0, one.stdout, one.stderr)


def test_forked_workers_send_back_rankings_when_asked(tmp_path):
    runs = _many_runs(tmp_path, 4)
    one = smarteval.evaluate(SAMPLE / "qrels.txt", runs, ["map", "P.5"])
    forked = smarteval.evaluate(SAMPLE / "qrels.txt", runs, ["map", "P.5"], jobs=3)
    for a, b in zip(one, forked):
        assert a.name == b.name and a.summary == b.summary and a.names == b.names
        assert (a.ranked.docno == b.ranked.docno).all() and (a.ranked.rel == b.ranked.rel).all()


def test_standard_input_is_read_by_the_main_process(tmp_path):
    runs = _many_runs(tmp_path, 4)
    args = ["evaluate", "-f", "tsv", "-q", str(SAMPLE / "qrels.txt"), runs[0], "-", *runs[2:]]
    stdin = Path(runs[1]).read_text()
    one = CliRunner().invoke(main, [*args, "-j", "1"], input=stdin)
    forked = CliRunner().invoke(main, [*args, "-j", "4"], input=stdin)
    assert one.exit_code == forked.exit_code == 0, forked.output
    assert forked.stdout == one.stdout and "t01" in one.stdout


def test_processes_started_afresh_where_none_can_be_forked(tmp_path, monkeypatch):
    from smarteval import evaluation, workers
    runs = _many_runs(tmp_path, 3)
    one = smarteval.evaluate(SAMPLE / "qrels.txt", runs, ["map"])
    monkeypatch.setattr(workers, "can_fork", lambda: False)
    assert evaluation.default_jobs(runs) == 1
    spawned = smarteval.evaluate(SAMPLE / "qrels.txt", runs, ["map"], jobs=2)
    assert [e.summary for e in spawned] == [e.summary for e in one]


def test_default_jobs(tmp_path, monkeypatch):
    from smarteval import evaluation
    small = _many_runs(tmp_path, 5)
    monkeypatch.setattr(evaluation.os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    assert evaluation.default_jobs(small) == 3           # one per CPU
    assert evaluation.default_jobs(small[:2]) == 2       # at most one per run
    assert evaluation.default_jobs(small[:1]) == 1
    big = tmp_path / "big.run"
    with open(big, "wb") as fh:                          # text that would take 7M lines
        fh.truncate(evaluation.IN_HAND // 2 + 1)
    assert evaluation.default_jobs([*small, str(big)]) == 1
    gz = tmp_path / "big.run.gz"                         # compressed: its text counts
    with open(gz, "wb") as fh:
        fh.truncate(evaluation.IN_HAND // 4)
    assert evaluation.default_jobs([*small, str(gz)]) == 1
    assert evaluation.default_jobs([*small, "-"]) == 3   # standard input: size unknown


def test_the_first_bad_run_is_reported_whatever_the_processes(tmp_path):
    """A bad line in run 7 of 20 (and in run 15, which may be read first): the message and
    the exit status one process gives, nothing written."""
    runs = _many_runs(tmp_path, 20)
    for n, line in ((6, 3), (14, 1)):
        text = Path(runs[n]).read_text().splitlines(keepends=True)
        text[line] = "401 Q0 DOC 1 not-a-number x\n"
        Path(runs[n]).write_text("".join(text))
    out = tmp_path / "out.tsv"
    results = [CliRunner().invoke(main, ["evaluate", "-f", "tsv", "-o", str(out), *jobs,
                                         str(SAMPLE / "qrels.txt"), *runs])
               for jobs in (["-j", "1"], ["-j", "4"], ["-j", "20"], [])]
    one = results[0]
    assert one.exit_code == 1 and one.stderr.startswith(f"Error: {runs[6]}:4: score ")
    for res in results:
        assert (res.exit_code, res.stderr, res.stdout) == (1, one.stderr, "")
    assert not out.exists()


def test_long_runs_are_evaluated_each_in_a_process_of_its_own(tmp_path, monkeypatch):
    """Runs over ISOLATED bytes, one process asked for by default: each run in a process
    forked for it, the same output and the same first error; -j 1 keeps one process."""
    from smarteval import evaluation, workers
    runs = _many_runs(tmp_path, 5)
    args = ["evaluate", "-f", "tsv", "-q", str(SAMPLE / "qrels.txt"), *runs]
    one = CliRunner().invoke(main, [*args, "-j", "1"])
    monkeypatch.setattr(evaluation, "ISOLATED", 1)
    monkeypatch.setattr(evaluation, "default_jobs", lambda runs: 1)
    calls = []
    real = workers.run_isolated

    def counted(count, *a, **kw):
        calls.append(count)
        return real(count, *a, **kw)

    monkeypatch.setattr(workers, "run_isolated", counted)
    isolated = CliRunner().invoke(main, args)
    assert (isolated.exit_code, isolated.stdout) == (0, one.stdout) and calls == [5]
    assert CliRunner().invoke(main, [*args, "-j", "1"]).stdout == one.stdout and calls == [5]
    Path(runs[3]).write_text("401 Q0 DOC 1 1.0\n")
    bad = [CliRunner().invoke(main, [*args, *jobs]) for jobs in (["-j", "1"], [])]
    assert bad[0].exit_code == bad[1].exit_code == 1
    assert bad[0].stderr == bad[1].stderr and runs[3] in bad[0].stderr
