"""smarteval.sweep on Dask's local distributed cluster gives the bytes of one local call.

The cluster runs in this process (``processes=False``, two workers of one thread), so
the qrels are still scattered and broadcast and each partition is a task on a worker,
but nothing is spawned; it starts in well under a second. Without dask (an optional
extra) the cluster tests are skipped, and fail in CI; the message naming the extra is
tested either way.
"""

from __future__ import annotations

import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures import SAMPLE

from smarteval import sweep
from smarteval.cli import main
from smarteval.errors import InputError, OutputError, UsageError
from smarteval.render.evaluation import render

ROOT = Path(__file__).resolve().parent.parent
QRELS = str(SAMPLE / "qrels.txt")


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[str]:
    """The sample runs, a copy of one under the same file name elsewhere (two runs share a
    tag and a file name: their paths name them) and one file given twice (``path#2``)."""
    other = tmp_path_factory.mktemp("other")
    shutil.copy(SAMPLE / "bm25.run", other / "bm25.run")
    return [str(SAMPLE / "bm25.run"), str(SAMPLE / "bm25_rm3.run"), str(SAMPLE / "dense.run"),
            str(other / "bm25.run"), str(SAMPLE / "dense.run")]


def local(tmp_path: Path, *args: str) -> bytes:
    """What one ``smarteval evaluate`` call writes, byte for byte."""
    out = tmp_path / "local.out"
    res = CliRunner().invoke(main, ["evaluate", *args, "-o", str(out)])
    assert res.exit_code == 0, res.output
    return out.read_bytes()


@pytest.mark.parametrize("partition_size", [1, 2, 10])
def test_sweep_tsv_is_one_local_call(client, runs, tmp_path, partition_size):
    evaluations = sweep.evaluate(QRELS, runs, client=client, partition_size=partition_size)
    assert [ev.name for ev in evaluations][-2:] == [runs[3], runs[4] + "#2"]
    assert sweep.tsv(evaluations).encode() == local(tmp_path, "-f", "tsv", QRELS, *runs)
    assert sweep.tsv(evaluations, per_query=True, header=False).encode() == \
        local(tmp_path, "-f", "tsv", "-q", "--no-header", QRELS, *runs)


def test_sweep_trec_output_and_options(client, runs, tmp_path):
    """Measures and settings reach the workers; trec_eval's text comes out the same."""
    evaluations = sweep.evaluate(QRELS, runs[:3], ["ndcg_cut.10", "P.5", "map"],
                                 client=client, partition_size=1, rel_level=2, complete=True)
    assert all(ev.ranked is None for ev in evaluations)        # rankings stay on the workers
    assert render(evaluations, "trec", per_query=True).encode() == \
        local(tmp_path, "-f", "trec", "-q", "-l", "2", "-c", "-m", "ndcg_cut.10", "-m", "P.5",
              "-m", "map", QRELS, *runs[:3])


def test_sweep_of_a_bag_with_read_qrels_and_the_default_client(client, runs):
    import dask.bag as db

    import smarteval
    qrels = smarteval.read_qrels(QRELS)
    evaluations = sweep.evaluate(qrels, db.from_sequence(runs[:3], npartitions=2), "map")
    expected = smarteval.evaluate(qrels, runs[:3], "map")
    assert [ev.summary for ev in evaluations] == [ev.summary for ev in expected]
    table = sweep.table(evaluations)
    assert table == {"run": ["bm25", "bm25_rm3", "dense"],
                     "map": [ev.summary["map"] for ev in expected]}


def test_a_bad_run_fails_as_it_does_locally(client, runs, tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("401 Q0 FT911-01 1 high tag\n")
    with pytest.raises(InputError) as err:
        sweep.evaluate(QRELS, [runs[0], str(bad)], client=client, partition_size=1)
    assert (err.value.path, err.value.line) == (str(bad), 1)


def test_bad_qrels_and_measures_fail_before_any_work(client, runs, tmp_path):
    bad = tmp_path / "bad.qrels"
    bad.write_text("401 0 FT911-01 one\n")
    with pytest.raises(InputError):
        sweep.bag(str(bad), runs, client=client)
    with pytest.raises(UsageError):
        sweep.bag(QRELS, runs, ["no_such_measure"], client=client)
    with pytest.raises(UsageError):
        sweep.bag(QRELS, ["-"], client=client)
    with pytest.raises(TypeError):
        sweep.bag(QRELS, runs, client=client, jobs=2)


def test_errors_cross_processes_whole():
    """Workers (a cluster's, -j's) send errors back pickled: they keep file, line and text."""
    err = InputError("r.run", 3, "bad score", "401 Q0 d 1 x t", "a number", "more")
    again = pickle.loads(pickle.dumps(err))
    assert (type(again), str(again), again.line) == (InputError, str(err), 3)
    out = pickle.loads(pickle.dumps(OutputError("o.tsv", PermissionError(13, "denied"))))
    assert str(out) == "o.tsv: cannot write: denied"


def test_without_dask_one_line_names_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m == "dask" or m.startswith("dask.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "dask", None)           # import dask fails
    with pytest.raises(UsageError) as err:
        sweep.bag(QRELS, [str(SAMPLE / "bm25.run")])
    assert "\n" not in str(err.value) and "smarteval[dask]" in str(err.value)


def test_smarteval_and_its_cli_do_not_import_dask():
    code = ("import sys, smarteval, smarteval.sweep\n"
            "from click.testing import CliRunner\n"
            "from smarteval.cli import main\n"
            f"r = CliRunner().invoke(main, ['evaluate', '-f', 'tsv', {QRELS!r}, "
            f"{str(SAMPLE / 'bm25.run')!r}])\n"
            "print(r.exit_code, any(m.split('.')[0] in ('dask', 'distributed') "
            "for m in sys.modules))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert res.stdout.split() == ["0", "False"]
