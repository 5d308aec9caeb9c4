"""A run evaluated a block of whole queries at a time gives what the whole run gives: every
value of every measure that allows blocks under every setting, the same refusals word for
word, and blocks of the size asked for (the rows in memory at once, not seconds).

Each setting (a field of Settings) says whether the blocks serve its values
(:func:`smarteval.settings.policy`); here the blocks and the whole run are compared under
some values of every setting, so a new setting fails until it says so and has values here.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest

import smarteval
from smarteval.errors import InputError, UsageError
from smarteval.measures import all_measures
from smarteval.measures.registry import ORIGINS
from smarteval.read.blocks import NotBlockable, run_blocks
from smarteval.settings import Settings, policy

#: every measure whose values may be computed a block at a time (trec_eval 9.0.8's names)
BLOCKED = sorted(n for n, m in all_measures().items()
                 if m.blockable and m.plugin is None)


def test_the_blocked_origins_hold_measures():
    origins = {all_measures()[n].origin for n in BLOCKED}
    assert origins == {o.name for o in ORIGINS.values() if o.one_query_alone}
    assert len(BLOCKED) > 80


def _collection(seed: int, tmp_path, grouped: bool = True):
    """Qrels and a run of 60 queries in files: queries of every length (one of 120
    documents), tied scores, unjudged and negatively judged documents, judged docnos
    longer than any retrieved one, queries on one side only, the run's queries in a
    shuffled (not byte) order."""
    rng = np.random.default_rng(seed)
    qids = [f"q{i}" for i in rng.permutation(70)]
    run_lines, qrels_lines = [], []
    for i, q in enumerate(qids):
        docs = [f"D{j}" for j in rng.permutation(300)]
        side = "both" if i % 9 else ("qrels" if i % 2 else "run")
        if side != "run":
            judged = rng.choice(150, size=int(rng.integers(1, 25)), replace=False)
            grades = rng.integers(-1, 4, size=len(judged))
            grades[0] = max(grades[0], 0)
            qrels_lines += [f"{q} 0 {docs[j]} {g}\n" for j, g in zip(judged, grades)]
            # judged docnos longer than any retrieved one: they can match none
            qrels_lines += [f"{q} 0 LONG-{'x' * 30}-{j} 1\n" for j in range(i % 3)]
        if side != "qrels":
            k = int(rng.choice([1, 2, 5, 20, 60, 120]))
            scores = np.round(rng.random(k) * 4, 1)        # many ties
            run_lines.append([f"{q} Q0 {docs[j]} {j} {s} tag{seed}\n"
                              for j, s in zip(range(k), scores)])
    if grouped:
        text = "".join(line for query in run_lines for line in query)
    else:                             # each query's lines spread among the others'
        flat = [line for query in run_lines for line in query]
        text = "".join(flat[j] for j in rng.permutation(len(flat)))
    qrels = tmp_path / f"qrels{seed}.txt"
    run = tmp_path / f"run{seed}.txt"
    qrels.write_text("".join(qrels_lines))
    run.write_text(text)
    return str(qrels), str(run)


def _same(whole, blocked) -> None:
    assert whole.qids.tolist() == blocked.qids.tolist()
    assert whole.in_run.tolist() == blocked.in_run.tolist()
    assert whole.tag == blocked.tag and whole.num_averaged == blocked.num_averaged
    for name, values in whole.per_query.items():
        got = blocked.per_query[name]
        assert got.dtype == values.dtype, name
        if values.dtype.kind == "f":
            assert np.array_equal(values, got, equal_nan=True), name
        else:
            assert values.tolist() == got.tolist(), name
    for name, value in whole.summary.items():
        got = blocked.summary[name]
        assert value == got or (value != value and got != got), (name, value, got)


#: Values of every setting (a field of Settings) under which the blocks are compared with
#: the whole run, each beside the defaults of the others (a value that needs another
#: setting is a dict of both; a function of the test's folder writes a file).
EXAMPLES = {
    "complete": [True],
    "rel_level": [2, 0],
    "max_docs": [7, 0],
    "judged_only": [True],
    "num_docs": [300],
    "trec_version": [10],
    "unranked": ["worst"],
    "target_generality": [3.5],
    "ties": ["average", dict(ties="random", seed=3)],
    "seed": [5],
    "average": ["median", "micro"],
    "query": ["q3", "q999"],
    "qrels_format": ["qrels_diversity"],
    "cwl_costs": [lambda d: _written(d / "costs", "Q0 2\n")],
    "cwl_default_cost": [2.0],
    "order_by": ["rank"],
    "unjudged": ["drop", "relevant", "range"],
    "unjudged_grade": [dict(unjudged="relevant", unjudged_grade=1),
                       dict(unjudged="range", unjudged_grade=0)],
}
#: Combinations of settings, compared on two collections.
SETTINGS = [dict(), dict(complete=True), dict(trec_version=10, complete=True),
            dict(max_docs=7, judged_only=True), dict(rel_level=2, average="median"),
            dict(unjudged="range"), dict(ties="average", trec_version=10),
            dict(query="q3", complete=True)]


def _written(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def unchecked(settings_type: type = Settings) -> list[str]:
    """The settings whose blocks are not compared with the whole run: those that do not
    say whether the blocks serve them (no :func:`policy`), or have no values here."""
    return [f.name for f in dataclasses.fields(settings_type)
            if "blocks" not in f.metadata or f.name not in EXAMPLES]


def _options(name: str, value, tmp_path) -> dict:
    if callable(value):
        value = value(tmp_path)
    return value if isinstance(value, dict) else {name: value}


def _outcome(qrels, run, names, options, **blocks):
    """The evaluation (or the refusal's words) and the blocks told."""
    seen: list = []
    try:
        return smarteval.evaluate(qrels, run, names, keep_ranked=False, on_block=seen.append,
                                  **options, **blocks), seen
    except (InputError, UsageError) as refused:
        return f"{type(refused).__name__}: {refused}", seen


def compare_blocks(options: dict, seed: int, tmp_path) -> None:
    """Under ``options``, blocks of 40 rows give the whole run's values, notes and
    refusals, and are used exactly where the settings say they serve them."""
    qrels, run = _collection(seed, tmp_path)
    version = options.get("trec_version", 9)
    names = [n for n in BLOCKED if version in all_measures()[n].versions]
    if options.get("ties") == "average":
        names = [n for n in names if all_measures()[n].ties is not None
                 or all_measures()[n].orders or all_measures()[n].order_free]
    if options.get("average") == "micro":   # the ratios of counts
        names = [n for n in names if all_measures()[n].micro is not None]
    common = dict(num_docs=500, target_generality=20.0) | options
    whole, _ = _outcome(qrels, run, names, common)
    blocked, seen = _outcome(qrels, run, names, common, block_rows=40)
    if isinstance(whole, str):          # refused: in the same words
        assert blocked == whole
        return
    assert not isinstance(blocked, str), blocked
    served = Settings(**options).blockable
    assert len(seen) > 5 if served else not seen, (options, served)
    assert blocked.notes == whole.notes
    _same(whole[0], blocked[0])


def test_every_setting_says_whether_blocks_serve_it_and_is_compared():
    assert unchecked() == []
    assert set(EXAMPLES) <= {f.name for f in dataclasses.fields(Settings)}


@pytest.mark.parametrize("name, value", [(n, v) for n, values in EXAMPLES.items()
                                         for v in values],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_blocks_give_the_whole_runs_values_under_every_setting(name, value, tmp_path):
    compare_blocks(_options(name, value, tmp_path), 1, tmp_path)


@pytest.mark.parametrize("options", SETTINGS, ids=lambda o: ",".join(map(str, o.items())))
@pytest.mark.parametrize("seed", [1, 2])
def test_blocks_give_the_whole_runs_values(options, seed, tmp_path):
    compare_blocks(options, seed, tmp_path)


def test_a_new_setting_fails_until_the_blocks_are_compared_under_it(monkeypatch, tmp_path):
    """``min_score``, a field of Settings without a :func:`policy`, is unchecked (and its
    values other than the default read the whole run); with one, it still is until it has
    values here. A setting that says the blocks serve what they do not fails the
    comparison: a micro average taken as if the blocks served it."""
    @dataclasses.dataclass(frozen=True)
    class WithMinScore(Settings):
        min_score: float | None = None

    assert unchecked(WithMinScore) == ["min_score"]
    assert WithMinScore().blockable and not WithMinScore(min_score=2.5).blockable

    @dataclasses.dataclass(frozen=True)
    class Declared(Settings):
        min_score: float | None = policy(None)

    assert unchecked(Declared) == ["min_score"] and Declared(min_score=2.5).blockable

    average = next(f for f in dataclasses.fields(Settings) if f.name == "average")
    monkeypatch.setattr(average, "metadata", MappingProxyType({"blocks": True}))
    with pytest.raises(AssertionError):
        compare_blocks(dict(average="micro"), 1, tmp_path)


@pytest.mark.parametrize("cpus", [1, 2])
def test_blocks_hold_whole_queries_of_about_the_rows_asked_for(cpus, tmp_path, monkeypatch):
    """The rows in memory at once are a block's: no more than the rows asked for, the
    tokenizer's last chunk (at most as many) and the longest query; chunks tokenized in
    the reading thread, or by two threads where two CPUs are free."""
    from smarteval.read import blocks
    monkeypatch.setattr(blocks, "spare_cpus", lambda: cpus)
    qrels, run = _collection(3, tmp_path)
    rows = 50
    blocks = list(run_blocks(run, rows))
    sizes = [len(b.run) for b in blocks]
    total = len(Path(run).read_text().splitlines())
    assert sum(sizes) == total and len(blocks) >= total // (3 * rows)
    assert max(sizes) <= 3 * rows + 120
    qids = [q for b in blocks for q in b.run.qids.tolist()]
    assert len(qids) == len(set(qids))                  # every query whole, in one block
    assert [b.done for b in blocks] == sorted(b.done for b in blocks)
    assert blocks[-1].done == blocks[-1].size > 0
    _same(smarteval.evaluate(qrels, run, ["official"], keep_ranked=False)[0],
          smarteval.evaluate(qrels, run, ["official"], keep_ranked=False, block_rows=rows)[0])


def test_a_run_not_grouped_by_query_is_read_whole_with_a_note(tmp_path):
    qrels, run = _collection(4, tmp_path, grouped=False)
    with pytest.raises(NotBlockable) as why:
        list(run_blocks(run, 40))
    assert why.value.query is not None
    whole = smarteval.evaluate(qrels, run, ["official"], keep_ranked=False)
    blocked = smarteval.evaluate(qrels, run, ["official"], keep_ranked=False, block_rows=40)
    _same(whole[0], blocked[0])
    note, = [n for n in blocked.notes if "not grouped by query" in n]
    assert note.startswith(f"{run}: its lines are not grouped by query (query ")
    assert "sort -s -k1,1" in note and not whole.notes


def test_a_query_found_again_blocks_later_is_found_at_the_end(tmp_path):
    """A query whose lines come again far from its others (not in the next block) is
    found once every query is known: the run is read whole, with the note."""
    qrels, run = _collection(8, tmp_path)
    lines = Path(run).read_text().splitlines(keepends=True)
    judged = {line.split()[0] for line in Path(qrels).read_text().splitlines()}
    first = next(q for q in (line.split()[0] for line in lines) if q in judged)
    Path(run).write_text("".join(lines + [f"{first} Q0 LATE 1 0.5 tag8\n"]))
    blocked = smarteval.evaluate(qrels, run, ["official"], keep_ranked=False, block_rows=40)
    whole = smarteval.evaluate(qrels, run, ["official"], keep_ranked=False)
    _same(whole[0], blocked[0])
    note, = blocked.notes
    assert f"(query {first} comes again after other queries)" in note


def _refusal(qrels, run, **options) -> str:
    with pytest.raises(InputError) as e:
        smarteval.evaluate(qrels, run, ["official"], keep_ranked=False, **options)
    return str(e.value)


@pytest.mark.parametrize("case", ["bad score late", "short line late", "repeated docno",
                                  "first query judged below 0", "no shared query",
                                  "NUL byte late", "query id not UTF-8"])
@pytest.mark.parametrize("cpus", [1, 2])
def test_blocks_refuse_as_the_whole_run_does(case, cpus, tmp_path, monkeypatch):
    from smarteval.read import blocks
    monkeypatch.setattr(blocks, "spare_cpus", lambda: cpus)
    qrels, run = _collection(5, tmp_path)
    text = Path(run).read_bytes()
    lines = text.splitlines(keepends=True)
    if case == "bad score late":
        lines[-3] = lines[-3].replace(b" tag5", b"x tag5")
        lines[-3] = lines[-3].split(b" ")
        lines[-3][4] = b"1.0.0"
        lines[-3] = b" ".join(lines[-3])
    elif case == "short line late":
        lines[-5] = b"q1 Q0 D1\n"
    elif case == "repeated docno":
        lines.insert(len(lines) // 2, lines[len(lines) // 2 - 1])
    elif case == "first query judged below 0":
        Path(qrels).write_text(Path(qrels).read_text() + "a0 0 D1 -1\n")
        lines.append(b"a0 Q0 D1 1 1.0 tag5\n")
    elif case == "no shared query":
        lines = [b"zz" + line for line in lines]
    elif case == "NUL byte late":
        lines[-2] = lines[-2][:3] + b"\0" + lines[-2][3:]
    elif case == "query id not UTF-8":
        lines[-4] = b"\xff" + lines[-4]
    Path(run).write_bytes(b"".join(lines))
    try:
        whole = _refusal(qrels, run)
    except pytest.fail.Exception:       # the whole run takes it: so do the blocks
        _same(smarteval.evaluate(qrels, run, ["official"], keep_ranked=False)[0],
              smarteval.evaluate(qrels, run, ["official"], keep_ranked=False,
                                 block_rows=40)[0])
        assert case == "query id not UTF-8"
        return
    assert _refusal(qrels, run, block_rows=40) == whole


def test_what_reads_more_than_a_query_is_never_blocked(tmp_path):
    """Random tie order, a micro average and z-scores read the run whole (the values are
    the whole run's; no block is told)."""
    qrels, run = _collection(6, tmp_path)
    for options in (dict(ties="random", seed=3), dict(average="micro")):
        seen = []
        smarteval.evaluate(qrels, run, ["P.5", "recall.10"], keep_ranked=False, block_rows=40,
                           on_block=seen.append, **options)
        assert not seen, options
    seen = []
    smarteval.evaluate(qrels, run, ["map"], keep_ranked=True, block_rows=40,
                       on_block=seen.append)
    assert not seen                     # the rankings are kept: the whole run


def test_the_command_line_evaluates_in_blocks(cli, tmp_path):
    qrels, run = _collection(7, tmp_path)
    whole = cli("evaluate", "-q", "-c", "-f", "trec", qrels, run)
    blocked = cli("evaluate", "-q", "-c", "-f", "trec", "--block-rows", "30", qrels, run)
    assert whole.exit_code == blocked.exit_code == 0
    assert blocked.stdout == whole.stdout
    bad = cli("evaluate", "--block-rows", "0", qrels, run)
    assert bad.exit_code == 2 and "--block-rows" in bad.stderr


@pytest.mark.parametrize("options", [dict(), dict(complete=True),
                                     dict(complete=True, trec_version=10),
                                     dict(max_docs=7, judged_only=True, rel_level=2)],
                         ids=lambda o: ",".join(map(str, o.items())))
@pytest.mark.parametrize("method,left", [("quasi", None), ("quasi", "zero"),
                                         ("quasi", "hybrid"), ("semi", None)])
@pytest.mark.parametrize("average", ["macro", "median"])
def test_curves_in_blocks_are_the_whole_runs(options, method, left, average, tmp_path):
    """The semi- and quasi-Cranfield curves of a run read in blocks equal the whole run's:
    values, each query's values, counts and queries."""
    qrels, run = _collection(9, tmp_path)
    common = dict(method=method, left=left, average=average, **options)
    whole = smarteval.curve(qrels, run, **common).result
    seen = []
    blocked = smarteval.curve(qrels, run, block_rows=40, on_block=seen.append,
                              **common).result
    assert len(seen) > 5
    w, b = whole.curves[0], blocked.curves[0]
    assert np.array_equal(w.value, b.value, equal_nan=True)
    assert np.array_equal(w.per_query, b.per_query, equal_nan=True)
    for name in ("real", "extrapolated", "excluded"):
        assert getattr(w, name).tolist() == getattr(b, name).tolist(), name
    assert whole.qids[0].tolist() == blocked.qids[0].tolist()
    assert whole.names == blocked.names and whole.queries == blocked.queries


def test_other_curves_read_the_whole_run(tmp_path):
    """A curve that is not the average of each query's values alone (micro, the
    cut-off methods) is made from the whole run: no block is told."""
    qrels, run = _collection(10, tmp_path)
    for common in (dict(method="semi", average="micro"), dict(method="points")):
        seen = []
        smarteval.curve(qrels, run, block_rows=40, on_block=seen.append, **common)
        assert not seen, common


def test_a_run_with_a_byte_order_mark_in_blocks_is_the_whole_run(tmp_path):
    """A BOM shortens the first chunk by 3 bytes: the blocks still read every line (the
    chunk was taken for the end of the file: 6 of 39 queries, and a wrong mean)."""
    import smarteval
    lines = "".join(f"{q} Q0 d{d} {d + 1} {100 - d} tag\n" for q in range(1, 40)
                    for d in range(30))
    (tmp_path / "q").write_text("".join(f"{q} 0 d{d} 1\n" for q in range(1, 40)
                                        for d in range(0, 30, 3)))
    (tmp_path / "r").write_bytes(b"\xef\xbb\xbf" + lines.encode())
    blocked = smarteval.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["map", "num_q"],
                                 block_rows=100, keep_ranked=False)
    whole = smarteval.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["map", "num_q"])
    assert blocked[0].summary == whole[0].summary
    assert whole[0].summary["num_q"] == 39
