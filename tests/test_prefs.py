"""trec_eval's preference and judgement-group measures (-R prefs, qrels_prefs, qrels_jg).

Random preference files and runs against the literal oracle of tests/prefs_oracle.py
(trec_eval's own suite and the golden corpus check them against trec_eval itself); the
readers' refusals, each with file, line and problem; the -R rules.
"""

from __future__ import annotations

import math

import numpy as np
import prefs_oracle as PO
import pytest
from click.testing import CliRunner
from fixtures import examples, invoke
from hypothesis import given, settings
from hypothesis import strategies as st

from smarteval import evaluate
from smarteval.cli import main
from smarteval.measures import closure, prefs

LEVELS = [0.0, 1.0, 2.0, 3.0, 0.5, 2.5, -1.0]


@st.composite
def prefs_case(draw, max_docs=9):
    docs = [f"d{i}" for i in range(draw(st.integers(2, max_docs)))]
    lines, groups = [], {}
    for q in draw(st.lists(st.sampled_from(["1", "2", "10"]), min_size=1, max_size=3,
                           unique=True)):
        for g in range(draw(st.integers(1, 3))):
            pool = draw(st.lists(st.sampled_from(docs), min_size=2, max_size=len(docs),
                                 unique=True))
            base = {d: draw(st.sampled_from(LEVELS)) for d in pool}
            nsub = draw(st.integers(1, 3))
            zero_rel = {d for d in pool if base[d] == 0}
            for s in range(nsub):
                picked = pool if nsub == 1 else draw(
                    st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool),
                             unique=True))
                for d in picked:
                    lines.append((q, f"g{g}", f"s{s}", d, base[d]))
            if nsub > 1 and draw(st.booleans()):
                # a document at two adjacent levels of one sub-group (one a group: two
                # would contradict each other); no level lies between them
                d = draw(st.sampled_from(picked))
                lines.append((q, f"g{g}", f"s{nsub - 1}", d, base[d] - 0.25))
            groups[q, f"g{g}"] = zero_rel
    run = []
    for q in {ln[0] for ln in lines} | {"5"}:
        k = draw(st.integers(0, len(docs)))
        for d in draw(st.permutations(docs))[:k]:
            run.append((q, d, draw(st.sampled_from([1.0, 2.0, 3.0, 0.5]))))
    return lines, run


def oracle(lines, run, max_docs=None, version=9):
    """Per query (of both files) every preference measure, as trec_eval computes them."""
    out = {}
    pool = PO.RankPool()
    for q in sorted({ln[0] for ln in lines} & {r[0] for r in run}):
        key = (lambda s: float(np.float32(s))) if version == 9 else float
        ranked = sorted((r for r in run if r[0] == q), key=lambda r: (-key(r[2]), r[1]))
        if max_docs is not None:
            ranked = ranked[:max_docs]
        rows = [ln for ln in lines if ln[0] == q]
        judged = sorted({ln[3] for ln in rows})
        ret = [r[1] for r in ranked if r[1] in judged]
        docid = {d: i for i, d in enumerate(ret)}
        for d in judged:
            if d not in docid:
                docid[d] = len(docid)
        groups = []
        for g in sorted({ln[1] for ln in rows}):
            gr = [(ln[2], ln[4], docid[ln[3]]) for ln in rows if ln[1] == g]
            groups.append(PO.Group(gr, len(ret), len(judged)))
        pool.fill(groups, len(rows))
        out[q] = PO.values(groups, len(ret))
    return out


def _write(tmp_path, lines, run):
    p, r = tmp_path / "prefs", tmp_path / "run"
    p.write_text("".join(" ".join(map(str, ln)) + "\n" for ln in lines))
    r.write_text("".join(f"{q} Q0 {d} 0 {s} tag\n" for q, d, s in run) or "1 Q0 x 1 1 t\n")
    return p, r


def _equal_the_oracle(tmp_path, case, max_docs, version):
    lines, run = case
    p, r = _write(tmp_path, lines, run)
    want = oracle(lines, run, max_docs, version)
    if not want:
        return
    res = evaluate(str(p), str(r), ["all_prefs"], qrels_format="prefs", max_docs=max_docs,
                   trec_version=version)
    ev = res[0]
    assert list(ev.qids) == sorted(want)
    for name in PO.MEASURES:
        got = ev.per_query[name]
        for i, q in enumerate(ev.qids):
            w = want[q][name]
            assert math.isclose(got[i], w, rel_tol=1e-12, abs_tol=1e-12), (name, q, got[i], w)


@settings(max_examples=examples(120), deadline=None)
@given(prefs_case(), st.sampled_from([None, 0, 2, 4]), st.sampled_from([9, 10]))
def test_prefs_equal_the_oracle(tmp_path_factory, case, max_docs, version):
    _equal_the_oracle(tmp_path_factory.mktemp("p"), case, max_docs, version)


@settings(max_examples=examples(120), deadline=None)
@given(prefs_case(max_docs=20), st.sampled_from([None, 2]), st.sampled_from([9, 10]))
def test_the_smallest_blocks_change_no_number(tmp_path_factory, case, max_docs, version):
    """The preferences are closed, counted and gathered into pairs in blocks of bounded
    work; in the smallest (windows of 8 documents, a few preferences or cells a block,
    a layer's edges one at a time) every number is still the oracle's."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(prefs, "_BLOCK", 3)
        mp.setattr(prefs, "BIT_BYTES", 1)
        mp.setattr(closure, "BIT_BYTES", 1)
        mp.setattr(closure, "CELLS", 3)
        _equal_the_oracle(tmp_path_factory.mktemp("p"), case, max_docs, version)


def test_qrels_read_as_preferences_equal_qrels_prefs(tmp_path):
    """Without -R, the measures read the qrels as -R qrels_prefs does when every line has
    the same second field and no grade is negative."""
    q = tmp_path / "qrels"
    q.write_text("1 0 a 2\n1 0 b 0\n1 0 c 1\n1 0 d 0\n2 0 a 1\n2 0 e 0\n")
    r = tmp_path / "run"
    r.write_text("1 Q0 b 1 3 t\n1 Q0 a 2 2 t\n1 Q0 x 3 1 t\n1 Q0 d 4 0.5 t\n2 Q0 e 1 1 t\n")
    plain = evaluate(str(q), str(r), ["all_prefs"])[0]
    as_prefs = evaluate(str(q), str(r), ["all_prefs"], qrels_format="qrels_prefs")[0]
    for name in PO.MEASURES:
        assert np.allclose(plain.per_query[name], as_prefs.per_query[name]), name


def test_qrels_read_as_preferences_with_a_query_judged_only_below_0(tmp_path):
    """Without -R, a query judged only below 0 has no judgement group (every measure 0),
    and the queries after it keep their own groups' values."""
    q = tmp_path / "qrels"
    q.write_text("1 0 a 2\n1 0 b 0\n2 0 a -1\n3 0 a 1\n3 0 b 0\n3 0 c 2\n")
    r = tmp_path / "run"
    r.write_text("1 Q0 b 1 3 t\n1 Q0 a 2 2 t\n2 Q0 a 1 1 t\n3 Q0 b 1 3 t\n3 Q0 c 2 2 t\n")
    got = evaluate(str(q), str(r), ["all_prefs"])[0]
    alone = tmp_path / "alone"
    alone.write_text("3 0 a 1\n3 0 b 0\n3 0 c 2\n")
    want = evaluate(str(alone), str(r), ["all_prefs"])[0]
    for name in PO.MEASURES:
        assert got.per_query[name][1] == 0, name
        assert got.per_query[name][2] == want.per_query[name][0], name
    assert got.per_query["prefs_num_prefs_poss"].tolist() == [1, 0, 3]


def test_judgement_groups_average_over_groups(tmp_path):
    q = tmp_path / "jg"
    q.write_text("1 u1 a 1\n1 u1 b 0\n1 u2 a 0\n1 u2 b 1\n1 u2 c 1\n")
    r = tmp_path / "run"
    r.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n")
    ev = evaluate(str(q), str(r), ["map_avgjg", "P_avgjg.1,2"],
                  qrels_format="qrels_jg")[0]
    # u1: AP 1; u2: b at 2, c at 3 -> (1/2 + 2/3) / 2
    assert ev.per_query["map_avgjg"][0] == pytest.approx((1 + (0.5 + 2 / 3) / 2) / 2)
    assert ev.per_query["P_avgjg_1"][0] == pytest.approx((1 + 0) / 2)
    assert ev.per_query["P_avgjg_2"][0] == pytest.approx((0.5 + 0.5) / 2)


def _cli(tmp_path, fmt, text, run="1 Q0 a 1 1 t\n", extra=()):
    q = tmp_path / "judgements"
    q.write_bytes(text.encode())
    r = tmp_path / "run"
    r.write_text(run)
    return invoke(["evaluate", "-f", "trec", "-R", fmt, *extra, str(q),
                                     str(r)])


@pytest.mark.parametrize("fmt, text, message", [
    ("prefs", "1 g s a 1\n1 g s b\n",
     "judgements:2: prefs line has 4 fields, not 5"),
    ("prefs", "1 g s a 1 extra\n",
     "judgements:1: prefs line has 6 fields, not 5"),
    ("prefs", "1 g s a 1\n\n1 g s b 0\n",
     "judgements:2: blank line: every prefs line holds 5 fields"),
    ("prefs", "1 g s a one\n",
     "judgements:1: relevance level 'one' is not a number"),
    ("prefs", "1 g s a 1.5abc\n",
     "judgements:1: relevance level '1.5abc' is not a number"),
    ("prefs", "1 g s a inf\n",
     "judgements:1: relevance level 'inf' is not a finite number"),
    ("qrels_prefs", "1 0 a 1\n1 0 b\n",
     "judgements:2: qrels_prefs line has 3 fields, not 4"),
    ("qrels_prefs", "1 0 a 1 x\n",
     "judgements:1: qrels_prefs line has 5 fields, not 4"),
    ("qrels_jg", "1 u1 a 1\n1 u1 b 1.5\n",
     "judgements:2: relevance '1.5' is not an integer\n    1 u1 b 1.5\n  expected: "
     "QUERY_ID JG DOC_ID REL"),
    ("qrels_jg", "1 u1 a 1\n1 u2 a 0\n1 u1 a 0\n",
     "judgements:3: document judged twice in judgement group 'u1' of query 1 (first at "
     "line 1)"),
    ("qrels_jg", "1 u1 a\n",
     "judgements:1: qrels_jg line has 3 fields, not 4"),
])
def test_malformed_lines_name_file_and_line(tmp_path, fmt, text, message):
    res = _cli(tmp_path, fmt, text)
    assert res.exit_code == 1, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert message in res.stderr, res.stderr


@pytest.mark.parametrize("text, run, message", [
    # an equivalence-classes group: one document at two levels
    ("1 g s a 1\n1 g s a 2\n1 g s b 0\n", "1 Q0 a 1 1 t\n",
     "judgements:2: document a judged at two levels in one judgement group (lines 1 and 2)"),
    # a preference-array group: 0 in one sub-group, above 0 in another
    ("1 g s1 a 0\n1 g s1 b 1\n1 g s2 a 2\n1 g s2 c 1\n", "1 Q0 a 1 1 t\n",
     "document a has both 0 and a level above 0 in one judgement group"),
    # contradicting sub-groups: trec_eval aborts
    ("1 g s1 a 2\n1 g s1 b 1\n1 g s2 b 2\n1 g s2 a 1\n", "1 Q0 a 1 1 t\n",
     "the judgement group prefers"),
    # a document retrieved twice among those ranked
    ("1 g s a 1\n1 g s b 0\n", "1 Q0 a 1 1 t\n1 Q0 a 2 0.5 t\n",
     "document a is retrieved twice for query 1"),
])
def test_inconsistent_preferences_are_refused(tmp_path, text, run, message):
    res = _cli(tmp_path, "prefs", text, run)
    assert res.exit_code == 1, res.output
    assert message in res.stderr, res.stderr


def test_other_measures_are_refused_under_prefs_formats(tmp_path):
    res = _cli(tmp_path, "prefs", "1 g s a 1\n", extra=("-m", "map"))
    assert res.exit_code == 2
    assert "map is not computed from -R prefs judgements (their measures: -m all_prefs)" \
        in res.stderr
    res = _cli(tmp_path, "qrels_jg", "1 g a 1\n", extra=("-m", "prefs_simp"))
    assert res.exit_code == 2
    assert "-m qrels_jg" in res.stderr


def test_defaults_under_prefs_formats(tmp_path):
    res = _cli(tmp_path, "prefs", "1 g s a 1\n1 g s b 0\n")
    assert res.exit_code == 0, res.output
    names = [ln.split()[0] for ln in res.stdout.splitlines()]
    assert names == ["runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
                     "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"]
    res = _cli(tmp_path, "qrels_jg", "1 g a 1\n1 h a 0\n")
    assert res.exit_code == 0, res.output
    assert [ln.split()[0] for ln in res.stdout.splitlines()][2:4] == ["map_avgjg", "P_avgjg_5"]


def test_results_format_is_trec_eval_s_only_one(tmp_path):
    res = _cli(tmp_path, "prefs", "1 g s a 1\n", extra=("-T", "trec_results"))
    assert res.exit_code == 0
    res = _cli(tmp_path, "prefs", "1 g s a 1\n", extra=("-T", "other"))
    assert res.exit_code == 2


@pytest.mark.parametrize("fmt", ["prefs", "qrels_prefs", "qrels_jg"])
def test_a_long_docno_changes_nothing(tmp_path, fmt):
    """A 20,000-byte docno (a variable-length id column) gives the numbers of a short one
    that sorts at the same place."""
    rows = {"prefs": ["1 g s1 d1 2", "1 g s1 d3 1", "1 g s2 d3 1", "1 g s2 d2 0",
                      "1 h s d3 0", "1 h s d1 1", "2 g s d3 1", "2 g s d9 0"],
            "qrels_prefs": ["1 g d1 2", "1 g d3 1", "1 g d2 0", "1 h d3 0", "1 h d1 1",
                            "2 g d3 1", "2 g d9 0"],
            "qrels_jg": ["1 g d1 2", "1 g d3 1", "1 g d2 0", "1 h d3 0", "1 h d1 1",
                         "2 g d3 1", "2 g d9 0"]}[fmt]
    run = ["1 Q0 d3 1 3 t", "1 Q0 d2 2 2 t", "1 Q0 d1 3 2 t", "2 Q0 d9 1 1 t",
           "2 Q0 d3 2 1 t"]
    measures = ["-m", "qrels_jg"] if fmt == "qrels_jg" else ["-m", "all_prefs"]
    outs = []
    for name in ("d3", "d3" + "x" * 20_000):
        q, r = tmp_path / f"q{len(name)}", tmp_path / f"r{len(name)}"
        q.write_text("".join(ln.replace("d3", name) + "\n" for ln in rows))
        r.write_text("".join(ln.replace("d3", name) + "\n" for ln in run))
        res = CliRunner().invoke(main, ["evaluate", "-f", "trec", "-q", "-R", fmt, *measures,
                                        str(q), str(r)])
        assert res.exit_code == 0, res.output
        outs.append(res.stdout)
    assert outs[0] == outs[1]
