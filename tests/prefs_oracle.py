"""A slow, direct oracle for trec_eval's preference measures (one query at a time).

It follows the counting rules of trec_eval's ``form_prefs_counts.c`` and ``m_prefs_*.c``
literally: per judgement group, the equivalence-classes form (one sub-group) or the
preference array (several sub-groups, closed transitively by repeated products), then
the counts and ratios, element by element; ``recalculate`` reads its new last class
from a :class:`RankPool`, trec_eval's buffer of ranks kept from query to query. Used by
``tests/smart_helpers.ORACLES`` (the qrels read as one judgement group per query) and by
``tests/test_prefs.py`` (random preference files).
"""

from __future__ import annotations

import math
from collections import defaultdict

MEASURES = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
            "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
            "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret",
            "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")


#: what trec_eval reads where it wrote nothing: a rank after every judged document
UNWRITTEN = math.inf


class RankPool:
    """trec_eval's ``rank_pool``: the ranks of a query's equivalence-classes groups one
    after the other, in a buffer reused from query to query and made anew (unwritten)
    when a query has more lines than it holds, at its size plus that query's lines."""

    def __init__(self):
        self.buf: list = []

    def fill(self, groups: list[Group], num_lines: int) -> None:
        """Write one query's groups, as ``form_prefs_counts`` does before its measures."""
        if num_lines > len(self.buf):
            self.buf = [UNWRITTEN] * (len(self.buf) + num_lines)
        at = 0
        for g in groups:
            if g.pa_form:
                continue
            g.pool, g.last_at = self, at + len(g.rows) - len(g.ecs[-1][1])
            for _, _, d in g.rows:
                self.buf[at] = d
                at += 1

    def read(self, at: int, n: int) -> list:
        return [self.buf[i] if i < len(self.buf) else UNWRITTEN for i in range(at, at + n)]


class Group:
    """One judgement group: rows (jsg, level, docid) sorted as trec_eval sorts them."""

    def __init__(self, rows, njr, nj):
        self.rows = sorted(rows, key=lambda r: (r[0], -r[1], r[2]))
        self.njr, self.nj = njr, nj
        self.pa_form = len({r[0] for r in rows}) > 1
        if self.pa_form:
            self._array()
        else:
            self._classes()

    def _classes(self):
        self.ecs = []
        for _, level, d in self.rows:
            if not self.ecs or self.ecs[-1][0] != level:
                self.ecs.append((level, []))
            self.ecs[-1][1].append(d)
        n = self.njr
        self.fr = self.pr = self.fi = self.pi = self.no = 0
        self.nrel = self.nrel_ret = self.nnon = self.nnon_ret = 0
        self.pairs = []
        for i, (level, docs) in enumerate(self.ecs):
            ret = sum(1 for d in docs if d < n)
            if level > 0:
                self.nrel += len(docs)
                self.nrel_ret += ret
            else:
                self.nnon += len(docs)
                self.nnon_ret += ret
            for _, docs2 in self.ecs[i + 1:]:
                for a in docs:
                    for b in docs2:
                        assert a != b
                        self._count(a, b)
        self.pr += self.fr
        self.pi += self.fi

    def _count(self, a, b):
        n = self.njr
        self.pairs.append((a, b))
        if a < b:
            if b < n:
                self.fr += 1
            elif a < n:
                self.fi += 1
            else:
                self.no += 1
        else:
            if a < n:
                self.pr += 1
            elif b < n:
                self.pi += 1
            else:
                self.no += 1

    def _array(self):
        nj, n = self.nj, self.njr
        pa = [[0] * nj for _ in range(nj)]
        self.rel = [-1.0] * nj
        rows = self.rows
        for i, (jsg, level, d) in enumerate(rows):
            old = self.rel[d]
            assert not ((old > 0 and level == 0) or (old == 0 and level > 0))
            self.rel[d] = level
            for jsg2, level2, d2 in rows[i + 1:]:
                if jsg2 == jsg and level2 < level:
                    pa[d][d2] = 1
        for i in range(nj):
            pa[i][i] = 1
        while True:
            new = [[1 if any(pa[i][k] and pa[k][j] for k in range(nj)) else 0
                    for j in range(nj)] for i in range(nj)]
            if new == pa:
                break
            pa = new
        for i in range(nj):
            pa[i][i] = 0
        assert not any(pa[i][j] and pa[j][i] for i in range(nj) for j in range(nj))
        self.pa = pa
        self.fr = self.pr = self.fi = self.pi = self.no = 0
        self.pairs = []
        for i in range(nj):
            for j in range(nj):
                if pa[i][j]:
                    self._count(i, j)
        self.pr += self.fr
        self.pi += self.fi
        self.nrel = sum(1 for v in self.rel if v > 0)
        self.nrel_ret = sum(1 for v in self.rel[:n] if v > 0)
        self.nnon = sum(1 for v in self.rel if v == 0)
        self.nnon_ret = sum(1 for v in self.rel[:n] if v == 0)

    def recalculate(self, ret_only):
        n = self.njr
        ful = poss = 0
        if not self.pa_form:
            keep = self.nrel_ret if ret_only else self.nrel
            # R ranks from where the last class starts, as trec_eval reads them (past
            # the class when it holds fewer)
            new = self.pool.read(self.last_at, keep)
            if ret_only:
                new = new[:next((i for i, b in enumerate(new) if b >= n), len(new))]
            pairs = [(a, b) for i, (_, docs) in enumerate(self.ecs)
                     for _, docs2 in self.ecs[i + 1:len(self.ecs) - 1]
                     for a in docs for b in docs2]
            pairs += [(a, b) for _, docs in self.ecs for a in docs for b in new]
            for a, b in pairs:
                if ret_only and (a >= n or b >= n):
                    continue
                if a < b and (ret_only or a < n):
                    ful += 1
                else:
                    poss += 1
            return ful, poss + ful
        seen, first = 0, (n if ret_only else self.nj)
        for i in range(n if ret_only else self.nj):
            if self.rel[i] == 0:
                seen += 1
                if seen == self.nrel + 1:
                    first = i
                    break

        def out(i):
            return i >= first and self.rel[i] == 0

        for i in range(self.nj):
            for j in range(self.nj):
                if not self.pa[i][j] or out(i) or out(j):
                    continue
                if ret_only and (i >= n or j >= n):
                    continue
                if i < j and i < n:
                    ful += 1
                else:
                    poss += 1
        return ful, poss + ful


def values(groups: list[Group], njr: int) -> dict[str, float]:
    """Every preference measure of one query from its judgement groups."""
    out: dict[str, float] = {}
    s = {k: sum(getattr(g, k) for g in groups) for k in ("fr", "pr", "fi", "pi", "no")}
    out["prefs_num_prefs_poss"] = s["pr"] + s["pi"] + s["no"]
    out["prefs_num_prefs_ful"] = s["fr"] + s["fi"]
    out["prefs_num_prefs_ful_ret"] = s["fr"]

    def ratio(f, p):
        return f / p if p else 0.0

    out["prefs_simp"] = ratio(s["fr"] + s["fi"], s["pr"] + s["pi"] + s["no"])
    out["prefs_simp_ret"] = ratio(s["fr"], s["pr"])
    out["prefs_simp_imp"] = ratio(s["fr"] + s["fi"], s["pr"] + s["pi"])

    def avg(parts):
        total = 0.0
        for f, p in parts:
            if p:
                total += f / p
        return total / len(groups) if total > 0 else 0.0

    out["prefs_avgjg"] = avg((g.fr + g.fi, g.pr + g.pi + g.no) for g in groups)
    out["prefs_avgjg_ret"] = avg((g.fr, g.pr) for g in groups)
    out["prefs_avgjg_imp"] = avg((g.fr + g.fi, g.pr + g.pi) for g in groups)

    def rnonrel(ret_only):
        total = 0.0
        for g in groups:
            R, N = (g.nrel_ret, g.nnon_ret) if ret_only else (g.nrel, g.nnon)
            if R >= N:
                if ret_only:
                    f = g.fr + g.nrel_ret * (R - N)
                    p = g.pr + g.nrel * (R - N)
                else:
                    f = g.fr + g.fi + g.nrel_ret * (R - N)
                    p = g.pr + g.pi + g.no + g.nrel * (R - N)
            else:
                f, p = g.recalculate(ret_only)
            total += f / p if p else math.nan
        return total / len(groups) if total > 0 else 0.0

    out["prefs_avgjg_Rnonrel"] = rnonrel(False)
    out["prefs_avgjg_Rnonrel_ret"] = rnonrel(True)
    counts: dict = defaultdict(int)
    for g in groups:
        for a, b in g.pairs:
            counts[a, b] += 1
    nj = max([g.nj for g in groups], default=0)

    def pair(blocks):
        total, num = 0.0, 0
        spans = [((0, njr), (None, njr)), ((0, njr), (njr, nj)), ((njr, nj), (None, nj))]
        for b, ((i0, i1), (j0, j1)) in enumerate(spans[:blocks]):
            for i in range(i0, i1):
                for j in range(i + 1 if j0 is None else j0, j1):
                    cij, cji = counts[i, j], counts[j, i]
                    if cij or cji:
                        num += 1
                        if b < 2:
                            total += cij / (cij + cji)
        return total / num if num else 0.0

    out["prefs_pair"] = pair(3)
    out["prefs_pair_ret"] = pair(1)
    out["prefs_pair_imp"] = pair(2)
    return out


def from_qrels(codes, grades) -> dict[str, float]:
    """The measures of one query whose qrels are read as one judgement group: each judged
    document (grade 0 or more) at its grade; retrieved ones first, in rank order."""
    judged_ret = [c for c in codes if c >= 0]
    njr = len(judged_ret)
    left = sorted(g for g in grades if g >= 0)
    for c in judged_ret:
        left.remove(c)
    rows = [(0, float(c), d) for d, c in enumerate(judged_ret)]
    rows += [(0, float(g), njr + i) for i, g in enumerate(left)]
    if not rows:
        return {m: 0.0 for m in MEASURES}
    group = Group(rows, njr, len(rows))
    RankPool().fill([group], len(rows))
    return values([group], njr)
