"""``smarteval diff``: each query's numbers against plain per-query versions, the command's
edges, and the page in a real browser (headless Chromium)."""

from __future__ import annotations

import json
import math
import sys
import types
from pathlib import Path

import numpy as np
import pytest
import screenshot
from scipy import stats
from test_repro import rbo_by_hand

import smarteval
import smarteval.api
from smarteval.render.diff import page

ROOT = Path(__file__).resolve().parent.parent
BM25, DENSE = ROOT / "sample_data" / "bm25.run", ROOT / "sample_data" / "dense.run"
NO_BROWSER = "needs Chromium (chromium on PATH): the page is checked in a real browser"


def _by_hand(sample, k: int, measure: str = "ndcg_cut.10", **options) -> dict[str, dict]:
    """Each shared query's diff, one query and one document at a time, from the rankings
    smarteval evaluates."""
    ev_a, ev_b = smarteval.evaluate(sample.qrels, [BM25, DENSE], measure,
                                    **options)
    name = ev_a.names[0]
    out = {}
    level = ev_a.settings.rel_level
    for q in sorted(set(ev_a.qids.tolist()) & set(ev_b.qids.tolist())):
        lists = {}
        for side, ev in (("a", ev_a), ("b", ev_b)):
            r = ev.ranked
            i = ev.qids.tolist().index(q)
            rows = range(r.offsets[i], r.offsets[i + 1])
            lists[side] = [(r.docno[j].decode(), int(r.rel[j])) for j in rows]
        top = {s: [d for d, _ in lists[s][:k]] for s in lists}
        rank = {s: {d: n for n, (d, _) in enumerate(lists[s], 1)} for s in lists}
        grade = {s: dict(lists[s]) for s in lists}
        union = top["a"] + [d for d in top["b"] if d not in top["a"]]
        x = [min(rank["a"].get(d, k + 1), k + 1) for d in union]
        y = [min(rank["b"].get(d, k + 1), k + 1) for d in union]
        tau = float(stats.kendalltau(x, y).statistic) if len(union) > 1 else math.nan

        def first(ranking):
            return next((n for n, (_, g) in enumerate(ranking, 1) if g >= level), 0)
        out[q] = {
            "a": float(ev_a.value(name, q)), "b": float(ev_b.value(name, q)),
            "first_rel_a": first(lists["a"]),
            "first_rel_b": first(lists["b"]), "tau": tau,
            "rbo": rbo_by_hand(top["a"], top["b"], 0.9, k),
            "rel_in": [d for d in top["b"] if d not in top["a"] and grade["b"][d] >= level],
            "rel_out": [d for d in top["a"] if d not in top["b"] and grade["a"][d] >= level],
            "unjudged_in": [d for d in top["b"] if d not in top["a"] and grade["b"][d] < 0],
            "other_a": [rank["b"].get(d, 0) for d in top["a"]],
            "other_b": [rank["a"].get(d, 0) for d in top["b"]]}
    return out


@pytest.mark.parametrize("k, options", [(10, {}), (3, {"rel_level": 2}), (40, {"complete": True}),
                                        (10, {"max_docs": 8})])
def test_each_query_is_its_plain_version(sample, k, options):
    d = smarteval.diff(sample.qrels, BM25, DENSE, depth=k, **options).result
    want = _by_hand(sample, k, **options)
    rows = d.rows()
    assert [r["query"] for r in rows] == sorted(want, key=lambda q: (
        -abs(want[q]["b"] - want[q]["a"]), q))
    for i, row in enumerate(rows):
        w = want[row["query"]]
        for key in ("a", "b", "first_rel_a", "first_rel_b", "rel_in", "rel_out", "unjudged_in"):
            assert row[key] == w[key], (row["query"], key)
        for key in ("tau", "rbo"):
            assert (math.isnan(row[key]) and math.isnan(w[key])) or \
                row[key] == pytest.approx(w[key], abs=1e-12), (row["query"], key)
        assert d.a.other[d.a.rows(i)].tolist() == w["other_a"]
        assert d.b.other[d.b.rows(i)].tolist() == w["other_b"]


@pytest.mark.parametrize("by", ["tau", "rbo"])
def test_the_lists_that_changed_most_come_first(sample, by):
    rows = smarteval.diff(sample.qrels, sample.runs[0], sample.runs[1], by=by,
                          limit=5).result.rows()
    values = [r[by] for r in rows]
    assert len(rows) == 5 and values == sorted(values)


def test_the_same_run_twice_agrees_everywhere(sample):
    rows = smarteval.diff(sample.qrels, sample.runs[0], sample.runs[0]).result.rows()
    assert all(r["tau"] == pytest.approx(1.0) and r["rbo"] == pytest.approx(1.0) and r["delta"] == 0
               and not (r["rel_in"] or r["rel_out"] or r["unjudged_in"]) for r in rows)


def test_the_frame_has_a_row_per_query(sample):
    frame = smarteval.diff(sample.qrels, BM25, DENSE, "P.10").frame()
    assert len(frame) == 15 and list(frame.columns)[:4] == ["query", "a", "b", "delta"]


# =========================================================================== the command

def test_one_measure_only(cli, sample):
    res = cli("diff", "-m", "map", "-m", "P.10", sample.qrels, *sample.runs[:2])
    assert res.exit_code == 2 and "diff compares one measure: give -m once" in res.stderr
    res = cli("diff", "-m", "P.5,10", sample.qrels, *sample.runs[:2])
    assert res.exit_code == 2 and "-m P.5,10 gives 2 values (P_5, P_10)" in res.stderr


def test_tsv_lists_the_documents_that_moved(cli, sample):
    res = cli("diff", "-f", "tsv", "--limit", "1", sample.qrels, BM25, DENSE)
    assert res.exit_code == 0, res.output
    head, row = res.stdout.splitlines()
    assert head.split("\t")[-3:] == ["rel_in", "rel_out", "unjudged_in"]
    fields = dict(zip(head.split("\t"), row.split("\t")))
    assert fields["query"] == "415" and fields["rel_in"].count("FT") == 3


def _docs_file(tmp_path: Path, sample) -> Path:
    lines = []
    for run in sample.runs:
        for line in run.read_text().splitlines():
            docno = line.split()[2]
            lines.append(f"{docno}\tThe text of {docno} <b>&amp; more</b>")
    path = tmp_path / "docs.tsv"
    path.write_text("\n".join(dict.fromkeys(lines)) + "\n")
    return path


def test_docs_give_the_page_each_documents_text(cli, sample, tmp_path):
    docs = _docs_file(tmp_path, sample)
    res = cli("diff", "-f", "html", "--limit", "2", "--docs", docs, sample.qrels,
              BM25, DENSE)
    assert res.exit_code == 0, res.output
    assert res.stdout.count("<details>") == 40
    assert "The text of FT937-02690 &lt;b&gt;&amp;amp; more&lt;/b&gt;" in res.stdout


def test_a_docs_line_without_a_tab_is_refused(cli, sample, tmp_path):
    bad = tmp_path / "docs.tsv"
    bad.write_text("D1\tfine\nD2 no tab here\n")
    res = cli("diff", "-f", "html", "--docs", bad, sample.qrels, *sample.runs[:2])
    assert res.exit_code == 1
    assert res.stderr.startswith(f"Error: {bad}:2: no TAB after the docno\n")


def test_docs_from_an_ir_datasets_collection(sample, monkeypatch):
    """The ir_datasets path, with a stand-in module (no collection is downloaded here)."""
    class Doc(tuple):
        def default_text(self):
            return f"text of {self[0]}"

    class Store:
        def get_many(self, ids):
            return {i: Doc((i,)) for i in ids if i.startswith("FT93")}

    class Dataset:
        def has_docs(self):
            return True

        def docs_store(self):
            return Store()

    def load(name):
        if name != "fake/collection":
            raise KeyError(name)
        return Dataset()
    monkeypatch.setitem(sys.modules, "ir_datasets", types.SimpleNamespace(load=load))
    d = smarteval.diff(sample.qrels, BM25, DENSE, docs="fake/collection")
    assert d.result.texts and all(t == f"text of {k}" for k, t in d.result.texts.items())
    with pytest.raises(smarteval.UsageError, match="no such file, nor an ir_datasets"):
        smarteval.diff(sample.qrels, BM25, DENSE, docs="no/such")
    monkeypatch.setitem(sys.modules, "ir_datasets", None)
    with pytest.raises(smarteval.UsageError, match=r"smarteval\[datasets\]"):
        smarteval.diff(sample.qrels, BM25, DENSE, docs="msmarco-passage")


# =========================================================================== the page

def _trec_sized(tmp_path: Path) -> tuple[Path, Path, Path]:
    """50 queries, 1000 documents a run, 300 judgements a query."""
    rng = np.random.default_rng(7)
    qrels, runs = [], [[], []]
    for q in range(301, 351):
        judged = rng.choice(20000, size=300, replace=False)
        qrels += [f"{q} 0 DOC-{d:06d} {rng.choice([0, 0, 0, 1, 2])}" for d in judged]
        for i, run in enumerate(runs):
            docs = rng.choice(20000, size=1000, replace=False)
            scores = np.sort(rng.random(1000))[::-1] * 20
            run += [f"{q} Q0 DOC-{d:06d} {r} {s:.4f} run{i}"
                    for r, (d, s) in enumerate(zip(docs, scores), 1)]
    paths = [tmp_path / "qrels", tmp_path / "a.run", tmp_path / "b.run"]
    for path, lines in zip(paths, [qrels, *runs]):
        path.write_text("\n".join(lines) + "\n")
    return paths[0], paths[1], paths[2]


def test_the_page_of_trec_sized_runs_is_small_and_self_contained(tmp_path):
    html = smarteval.diff(*_trec_sized(tmp_path)).render("html")
    assert len(html.encode()) < 1 << 20
    lowered = html.lower()
    for fetched in ("http:", "https:", "<script", "<link", "@import", "url(", "src="):
        assert fetched not in lowered, fetched
    assert html.count("<section class=q ") == 50


def test_the_page_in_docs_is_real_output(sample):
    """docs/diff.html, README's page (and docs/diff.png its picture), is what smarteval
    writes today: regenerate both as README says."""
    want = smarteval.diff(sample.qrels, BM25, DENSE).render("html")
    assert (ROOT / "docs" / "diff.html").read_text(encoding="utf-8") == want, \
        "docs/diff.html is out of date: smarteval diff -f html sample_data/qrels.txt " \
        "sample_data/bm25.run sample_data/dense.run -o docs/diff.html, then " \
        "python tools/screenshot.py docs/diff.html -o docs/diff.png"


@pytest.mark.skipif(screenshot.browser() is None, reason=NO_BROWSER)
def test_the_page_renders_in_a_browser(sample, tmp_path):
    d = smarteval.diff(sample.qrels, BM25, DENSE)
    path = tmp_path / "diff.html"
    path.write_text(d.render("html"), encoding="utf-8")
    dom = screenshot.dump_dom(path)
    rows = d.result.rows()
    # the summary table and a section a query, in the diff's order
    assert dom.count("<tr class=") == len(rows)
    sections = [s for s in dom.split('<section class="q" id="q-')[1:]]
    assert [s.split('"', 1)[0] for s in sections] == [r["query"] for r in rows]
    for i, section in enumerate(sections):
        a, b = section.split('<ol class="a">')[1].split('<ol class="b">')
        n_a, n_b = len(d.result.a.rows(i)), len(d.result.b.rows(i))
        assert a.count("<li ") == n_a and b.count("<li ") == n_b
        # every document the qrels do not judge is marked, and only those
        unjudged = int((d.result.a.grade[d.result.a.rows(i)] < 0).sum()
                       + (d.result.b.grade[d.result.b.rows(i)] < 0).sum())
        assert section.count('title="not judged"') == unjudged
        assert section.count('class="gn"') + section.count('class="gu"') == unjudged
        assert section.count("<path ") >= 1
    png = tmp_path / "diff.png"
    screenshot.screenshot(path, png)
    import matplotlib.image
    pixels = matplotlib.image.imread(png)
    assert pixels.shape[:2] == (1400, 1200)
    colours = np.unique((pixels[..., :3] * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 50                      # text, grades, lines: not a blank page
    white = np.all(pixels[..., :3] > 0.98, axis=-1).mean()
    assert white < 0.9


def test_the_page_is_built_from_the_rows(sample):
    d = smarteval.diff(sample.qrels, BM25, DENSE, limit=1).result
    html = page(d, d.rows())
    assert html.startswith("<!DOCTYPE html>\n<html lang=en>")
    assert "Query 415 <span class=win>+0.5430</span>" in html
    data = json.loads(smarteval.api.Diff(d).render("json"))
    assert data["queries"][0]["top_b"][0] == {"docno": "FT937-02690", "grade": 2,
                                             "rank_a": 98}


def test_a_missing_docs_file_is_named(cli, sample, tmp_path):
    res = cli("diff", "-f", "html", "--docs", tmp_path / "nope.tsv", sample.qrels,
              *sample.runs[:2])
    assert res.exit_code == 1 and res.stderr == f"Error: {tmp_path / 'nope.tsv'}: no such file\n"


@pytest.mark.parametrize("version", ["9", "10"])
def test_a_query_a_run_lacks_has_an_empty_list_under_c(cli, sample, tmp_path, version):
    run = tmp_path / "bm25.run"
    run.write_text("".join(ln for ln in BM25.read_text().splitlines(keepends=True)
                           if not ln.startswith("401 ")))
    res = cli("diff", "-c", "--trec-version", version, "-f", "json", sample.qrels, run, DENSE)
    assert res.exit_code == 0, res.output
    (q401,) = [q for q in json.loads(res.stdout)["queries"] if q["query"] == "401"]
    assert q401["top_a"] == [] and q401["a"] == 0.0 and len(q401["top_b"]) == 10
    assert all(d["rank_a"] is None for d in q401["top_b"])
