"""The preferences of judgement groups stated through several sub-groups, closed transitively
in pieces of bounded size: trec_eval's preference arrays without the arrays.

In a group of the preference-array form each sub-group prefers every document to every
document of a lower level, and the group prefers what those preferences give
transitively. trec_eval squares a documents-by-documents matrix until it stops changing
(cubic in the documents, with a matrix per sub-group). Here the preferences are a graph
whose edges are as many as the judgement lines, of documents and of *classes* (the
documents of one sub-group at one level):

- a document depends on each class it is in: it is preferred to whatever that class is;
- a class depends on each document of the next lower class of its sub-group: it is
  preferred to that document and to whatever the document is preferred to.

Nodes are put in layers, each after every node it depends on (the nodes that depend on
nothing left peeled off in turn, one whole-array step per layer), and what a node is
preferred to is a row of bits, the OR of its dependencies' rows, computed layer by layer.
The bits are held for a *window* of each group's documents at a time, so memory stays
bounded whatever the groups' sizes: the nodes times the window's bytes, and the pairs are
read out of the bits in blocks. The work grows with the preferences that exist, not with
the cube of the documents.

A cycle through two documents is a contradiction (A preferred to B and B to A), which
trec_eval refuses. A document at two adjacent levels of one sub-group is preferred, from
its upper row, to what the lower class holds, itself apart: its upper membership then
depends on a node of its own, the lower class without it, so that it is no cycle.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from smarteval.columns import run_starts
from smarteval.ranking.join import concat_ranges, offsets_from_counts

#: bytes of bits held at once: the nodes times the window's bytes (the window narrows so)
BIT_BYTES = 1 << 25
#: (document, document) cells unpacked at once when pairs are read out of the bits
CELLS = 1 << 20


def _csr(src: np.ndarray, dst: np.ndarray, n: int):
    """Edges grouped by ``src``: (start, count) per node and the ``dst`` of each edge."""
    order = np.argsort(src, kind="stable")
    count = np.bincount(src, minlength=n)
    return offsets_from_counts(count)[:-1], count, dst[order]


class Closure:
    """The transitive preferences of some preference-array groups.

    Rows are judgement lines sorted by (group, sub-group, level descending, document):
    ``sub`` numbers the sub-groups (distinct across groups), ``doc`` is each line's
    document as an index into a table of (group, document) sorted by group then internal
    rank, where the group's documents are ``first .. first + size - 1`` (both per row).
    :attr:`contradiction` is (a, b), two such indices the group prefers both ways, or None.
    """

    def __init__(self, sub: np.ndarray, level: np.ndarray, doc: np.ndarray, first: np.ndarray,
                 size: np.ndarray) -> None:
        self.docs, node = np.unique(doc, return_inverse=True)
        node = node.reshape(-1).astype(np.int64)
        d = len(self.docs)
        self.num_docs = self.num_nodes = d
        self.first = np.zeros(d, dtype=np.int64)
        self.size = np.zeros(d, dtype=np.int64)
        self.first[node], self.size[node] = first, size
        self.local = self.docs - self.first
        #: node of the first document of each document's group
        self.group_node = np.searchsorted(self.docs, self.first)
        self.contradiction: tuple[int, int] | None = None
        m = len(doc)
        starts = run_starts(sub, level) if m else np.zeros(0, bool)
        cls = np.cumsum(starts) - 1
        k = int(cls[-1]) + 1 if m else 0
        cls_sub = sub[starts]
        has_next = np.zeros(k, dtype=bool)
        has_next[:-1] = cls_sub[1:] == cls_sub[:-1]
        # each (class, document) once: the class's documents, by internal rank
        keep = run_starts(cls, node) if m else starts
        mem_cls, mem_doc = cls[keep], node[keep]
        mem_count = np.bincount(mem_cls, minlength=k)
        mem_start = offsets_from_counts(mem_count)[:-1]
        dup_mem, dup_cls = self._adjacent_twice(mem_cls, mem_doc, cls_sub)
        if self.contradiction is not None:
            return
        # nodes: documents, classes, then the lower class of each document there twice
        # without that document
        s = len(dup_mem)
        self.num_nodes = v = d + k + s
        mem_dst = d + mem_cls
        mem_dst[dup_mem] = d + k + np.arange(s)
        nxt = np.flatnonzero(has_next)
        cnt = mem_count[nxt + 1]
        rows = concat_ranges(mem_start[nxt + 1], cnt)
        dup_cnt = mem_count[dup_cls + 1]
        dup_rows = concat_ranges(mem_start[dup_cls + 1], dup_cnt)
        dup_src = np.repeat(d + k + np.arange(s), dup_cnt)
        not_self = mem_doc[dup_rows] != np.repeat(mem_doc[dup_mem], dup_cnt)
        src = np.concatenate([mem_doc, np.repeat(d + nxt, cnt), dup_src[not_self]])
        dst = np.concatenate([mem_dst, mem_doc[rows], mem_doc[dup_rows][not_self]])
        self._fwd = _csr(src, dst, v)
        self._rev = _csr(dst, src, v)
        self._layers()

    def _adjacent_twice(self, mem_cls, mem_doc, cls_sub):
        """The memberships (class c, document x) where x is also in the next class of c's
        sub-group, and those classes; two documents in the same two classes contradict."""
        order = np.lexsort((mem_cls, mem_doc, cls_sub[mem_cls]))
        c, x = mem_cls[order], mem_doc[order]
        twice = (x[1:] == x[:-1]) & (c[1:] == c[:-1] + 1) & \
            (cls_sub[c[1:]] == cls_sub[c[:-1]]) if len(c) else np.zeros(0, bool)
        at = order[:-1][twice]
        upper = mem_cls[at]
        by = np.argsort(upper, kind="stable")
        same = np.flatnonzero(upper[by][1:] == upper[by][:-1])
        if len(same):
            i = int(same[0])
            self.contradiction = (int(self.docs[mem_doc[at[by[i]]]]),
                                  int(self.docs[mem_doc[at[by[i + 1]]]]))
        return at, upper

    def _layers(self) -> None:
        """Nodes in layers, each after what it depends on; a cycle is a contradiction."""
        start, count, _ = self._fwd
        rstart, rcount, rdst = self._rev
        left = count.copy()
        frontier = np.flatnonzero(left == 0)
        layers = []
        while len(frontier):
            layers.append(frontier)
            waiting = rdst[concat_ranges(rstart[frontier], rcount[frontier])]
            if not len(waiting):
                break
            nodes, k = np.unique(waiting, return_counts=True)
            left[nodes] -= k
            frontier = nodes[left[nodes] == 0]
        self.layers = layers
        self._edges: dict[bool, tuple] = {}
        if sum(len(x) for x in layers) < self.num_nodes:
            self._cycle(left)

    def _in_layers(self, reverse: bool):
        """The edges in the order the layers are worked (from the last layer back,
        ``reverse``): each edge's dependency, its node, whether it is its node's first,
        and each layer's range of edges (layers without edges left out)."""
        if reverse not in self._edges:
            start, count, dst = self._rev if reverse else self._fwd
            layers = self.layers[::-1] if reverse else self.layers
            nodes = np.concatenate(layers) if layers else np.zeros(0, np.int64)
            e = concat_ranges(start[nodes], count[nodes])
            owner = np.repeat(nodes, count[nodes])
            bounds = offsets_from_counts(count[nodes])[
                offsets_from_counts(np.array([len(x) for x in layers], dtype=np.int64))]
            lo, hi = bounds[:-1], bounds[1:]
            spans = list(zip(lo[hi > lo].tolist(), hi[hi > lo].tolist()))
            self._edges[reverse] = (dst[e], owner, run_starts(owner), spans)
        return self._edges[reverse]

    def _cycle(self, left: np.ndarray) -> None:
        """Two documents on a cycle of the nodes not put in layers (each has a dependency
        among them): from any of them, steps along those dependencies end on a cycle."""
        start, count, dst = self._fwd
        stuck = np.flatnonzero(left > 0)
        e = concat_ranges(start[stuck], count[stuck])
        owner = np.repeat(stuck, count[stuck])
        ok = left[dst[e]] > 0
        e, owner = e[ok], owner[ok]
        first = run_starts(owner)
        step = np.arange(self.num_nodes)
        step[owner[first]] = dst[e[first]]
        jump = step.copy()
        for _ in range(self.num_nodes.bit_length() + 1):
            jump = jump[jump]
        a = int(jump[stuck[0]])
        if a >= self.num_docs:
            a = int(step[a])
        b = int(step[step[a]])
        self.contradiction = (int(self.docs[a]), int(self.docs[b]))

    def window(self) -> int:
        """The widest window (documents) whose bits fit in :data:`BIT_BYTES`."""
        return max(8, BIT_BYTES // max(self.num_nodes, 1) * 8)

    def _bits(self, w0: np.ndarray, width: np.ndarray, reverse: bool) -> np.ndarray:
        """(nodes, bytes): per node, the documents of its group's window (local ranks
        ``w0 .. w0 + width - 1``, per document node) it is preferred to (``reverse``:
        that are preferred to it), one bit each."""
        nbytes = max((int(width.max(initial=0)) + 7) // 8, 1)
        bits = np.zeros((self.num_nodes, nbytes), dtype=np.uint8)
        dep, owner, first, spans = self._in_layers(reverse)
        # the bit each edge sets: its dependency's, where that is a document of the window
        pos = np.full(self.num_nodes, -1, dtype=np.int64)
        pos[:self.num_docs] = np.where((self.local >= w0) & (self.local < w0 + width),
                                       self.local - w0, -1)
        pos = pos[dep]
        per = max(1, BIT_BYTES // nbytes)
        for lo, hi in spans:
            for at in range(lo, hi, per):         # bounded blocks of a layer's edges
                end = min(at + per, hi)
                got = bits[dep[at:end]]
                p = pos[at:end]
                mark = np.flatnonzero(p >= 0)
                p = p[mark]
                got[mark, p >> 3] |= (np.uint8(1) << (p & 7).astype(np.uint8))
                seg = np.flatnonzero(first[at:end])
                if at > lo and not first[at]:
                    seg = np.r_[0, seg]
                bits[owner[at + seg]] |= np.bitwise_or.reduceat(got, seg, axis=0)
        return bits[:self.num_docs]

    def pairs(self, w0: np.ndarray, w1: np.ndarray,
              lower_in: bool = False) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The preferences (a preferred to b, document indices), in blocks, of the pairs
        with b in each group's window (local ranks ``w0 .. w1 - 1``, per document node);
        ``lower_in``: of the pairs whose lower-ranked document is in the window instead."""
        width = np.clip(np.minimum(w1, self.size) - w0, 0, None)
        full = (w0 <= 0) & (w1 >= self.size)
        yield from self._read(self._bits(w0, width, False), w0, width, False,
                              full if lower_in else None)
        if lower_in and not full.all():
            yield from self._read(self._bits(w0, width, True), w0, width, True, full)

    def _read(self, bits, w0, width, reverse, full):
        """The pairs of ``bits``' rows (a row's document preferred to its bits' documents,
        or, ``reverse``, its bits' documents preferred to it), ``lower_in`` as
        :meth:`pairs` reads it where ``full`` is given."""
        nbits = int(width.max(initial=0))
        if nbits == 0:
            return
        per = max(1, CELLS // nbits)
        for lo in range(0, self.num_docs, per):
            block = np.unpackbits(bits[lo:lo + per], axis=1, count=nbits,
                                  bitorder="little").view(bool)
            r, j = np.nonzero(block)
            x = lo + r
            y = self.group_node[x] + w0[x] + j
            a, b = (y, x) if reverse else (x, y)
            if full is not None:
                # lower rank in the window: from the rows, the row's document is the higher
                # one; from the reverse, the bits' documents are the lower ones
                keep = (self.local[b] > self.local[a]) & ~full[x] if reverse else \
                    full[x] | (self.local[a] > self.local[b])
                a, b = a[keep], b[keep]
            if len(a):
                yield self.docs[a], self.docs[b]
