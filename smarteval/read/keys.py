"""Id columns: fixed-width or variable-length, their byte-order sort keys and 64-bit hashes.

Ids (docnos, query ids) are kept as a fixed-width numpy ``S`` column when their lengths
allow (the common case: every operation is then a vectorised pass over 8-byte words),
and as a variable-length column, an object array of ``bytes``, when one long id would
make the fixed width cost far more than the ids themselves (a 20,000-byte docno among
short ones). Both compare as their bytes compare (C's ``strcmp``: ids hold no NUL byte),
so every caller orders, joins and tells ids apart alike whatever the representation;
:func:`sort_key_words` and :func:`docno_hash` give each its keys.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

#: The bytes that separate fields in a text file, as C's ``isspace`` (trec_eval's): space,
#: tab, LF, VT, FF and CR. Every other byte, a control byte too, is part of a field, so an
#: id read from a text file never holds one of these; an id given in a table or in memory
#: that holds one is refused (it could not be written back as text).
SEPARATORS = b" \t\n\x0b\x0c\r"
IS_SEPARATOR = np.zeros(256, dtype=bool)
IS_SEPARATOR[list(SEPARATORS)] = True

#: How ids (query ids, run tags) are decoded: UTF-8, and a byte that is not UTF-8 as a lone
#: surrogate, so that two ids are equal exactly when their bytes are, and the writer gives
#: them back byte for byte (:mod:`smarteval.output`).
ID_ERRORS = "surrogateescape"

#: Ids up to this many bytes are always kept at a fixed width.
FIXED_WIDTH_MAX = 64
#: Bytes a variable-length column spends on an id besides its own: the pointer and the
#: bytes object's header, rounded as the allocator rounds.
VARLEN_ROW_BYTES = 56


def fixed_width_pays(width: int, count: int, total: Callable[[], int]) -> bool:
    """Whether ``count`` ids, the longest ``width`` bytes, are kept at a fixed width: when
    it is short, or costs at most twice a variable-length column. ``total`` gives the
    ids' bytes, all together (asked only when the width is long)."""
    return width <= FIXED_WIDTH_MAX or width * count <= 2 * (total() + VARLEN_ROW_BYTES * count)


def is_varlen(ids: np.ndarray) -> bool:
    """Whether ``ids`` is a variable-length column (an object array of bytes or text)."""
    return ids.dtype.kind == "O"


def id_lengths(ids: np.ndarray) -> np.ndarray:
    """(n,) int64 length of each id (bytes; characters for text)."""
    if is_varlen(ids):
        return np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
    return np.char.str_len(ids).astype(np.int64)


def as_varlen(ids: np.ndarray) -> np.ndarray:
    """``ids`` as a variable-length column (a fixed-width one loses its NUL padding)."""
    return ids if is_varlen(ids) else ids.astype(object)


def fitted(ids: np.ndarray, like: np.dtype) -> np.ndarray:
    """``ids`` as ids of type ``like``, to compare or hash with such ids: variable
    length, or ``like``'s fixed width, where an id longer than that width (which can
    equal none of them) becomes ``b""``."""
    if like.kind == "O":
        return as_varlen(ids)
    width = like.itemsize
    if is_varlen(ids) or ids.dtype.itemsize > width:
        ids = np.where(id_lengths(ids) <= width, ids, b"")
    return ids.astype(like)


def fits(ids: np.ndarray, like: np.dtype) -> np.ndarray | None:
    """Where ``ids`` may equal an id of type ``like`` by length (None: everywhere)."""
    if like.kind == "O" or (not is_varlen(ids) and ids.dtype.itemsize <= like.itemsize):
        return None
    return id_lengths(ids) <= like.itemsize


def iter_key_words(docnos: np.ndarray) -> Iterator[np.ndarray]:
    """The words of :func:`sort_key_words` one at a time: each is copied out of the docnos
    as it is needed, so a long docno costs one word's column at a time, not all of them."""
    if is_varlen(docnos):
        yield dictionary_codes(docnos)
        return
    n, width = len(docnos), docnos.dtype.itemsize
    docnos = np.ascontiguousarray(docnos)
    as_bytes = docnos.view(np.uint8).reshape(n, width)
    for at in range(0, width, 8):
        part = as_bytes[:, at:at + 8]
        if part.shape[1] < 8:               # the last, partial word: NUL-padded
            whole = np.zeros((n, 8), dtype=np.uint8)
            whole[:, :part.shape[1]] = part
            part = whole
        yield part.view(">u8")[:, 0].astype(np.uint64)


def sort_key_words(docnos: np.ndarray) -> list[np.ndarray]:
    """uint64 words that compare as the ids' bytes compare, first word first: big-endian
    words of a fixed-width column; one word, each id's place among the distinct ids in
    byte order, of a variable-length one (valid within this column only)."""
    return list(iter_key_words(docnos))


def descending_keys(docnos: np.ndarray) -> tuple[np.ndarray, ...]:
    """Keys for ``np.lexsort`` (last one first) that put ids in descending byte order:
    trec_eval's order of documents with equal scores."""
    return tuple(~w for w in reversed(sort_key_words(docnos)))


def dictionary_codes(ids: np.ndarray) -> np.ndarray:
    """(n,) uint64 index of each id among the distinct ids sorted by their bytes."""
    if not len(ids):
        return np.zeros(0, dtype=np.uint64)
    return np.unique(ids, return_inverse=True)[1].reshape(-1).astype(np.uint64)


#: Rows hashed at a time: the temporaries stay in the cache.
HASH_BLOCK = 1 << 15
_HASH_MUL = np.uint64(0x9E3779B97F4A7C15)
_HASH_SHIFT = np.uint64(29)


def docno_hash(docnos: np.ndarray, width: int | None = None) -> np.ndarray:
    """A 64-bit hash of each id, vectorised. A fixed-width column is hashed as ``width``
    bytes (its own width by default), an 8-byte word at a time in the machine's byte
    order, :data:`HASH_BLOCK` rows at a time into the one output array; a
    variable-length one by each id's bytes. Hashes are compared within one process
    only (the qrels' and a run's are made alike)."""
    if is_varlen(docnos):
        return np.fromiter(map(hash, docnos), dtype=np.int64, count=len(docnos)).view(np.uint64)
    if width is not None and docnos.dtype.itemsize != width:
        docnos = docnos.astype(f"S{width}")
    n, size = len(docnos), docnos.dtype.itemsize
    words = max(1, (size + 7) // 8)
    out = np.empty(n, dtype=np.uint64)
    docnos = np.ascontiguousarray(docnos)
    whole = docnos.view(np.uint64).reshape(n, words) if size % 8 == 0 and size else None
    tmp = np.empty(min(n, HASH_BLOCK), dtype=np.uint64)
    for lo in range(0, n, HASH_BLOCK):
        hi = min(n, lo + HASH_BLOCK)
        if whole is not None:
            block = whole[lo:hi]
        else:                                   # NUL-padded to whole words
            padded = np.zeros((hi - lo, 8 * words), dtype=np.uint8)
            padded[:, :size] = docnos[lo:hi].view(np.uint8).reshape(hi - lo, size)
            block = padded.view(np.uint64)
        h, t = out[lo:hi], tmp[:hi - lo]
        h[:] = block[:, 0]
        for w in range(words):
            if w:
                h ^= block[:, w]
            h *= _HASH_MUL
            np.right_shift(h, _HASH_SHIFT, out=t)
            h ^= t
    return out


def key_table(keys: np.ndarray):
    """A hash table of the 64-bit ``keys`` (hashes already) for :func:`find_keys`, or None
    when two keys are equal.

    Each key's row sits in a direct-address table on the key's top bits, at most half
    of whose slots are taken; the rows that find their slot held by another row (some
    one in six) go, sorted by key, to a short side list. Built without sorting every
    key: for the qrels of a TREC run, a fifth of the time of ``np.argsort``.
    """
    n = len(keys)
    bits = max(10, n.bit_length() + 1)
    shift = np.uint64(64 - bits)
    slot = (keys >> shift).astype(np.intp)
    index = np.int32 if n < 2**31 else np.int64
    rows = np.arange(n, dtype=index)
    table = np.full(1 << bits, -1, dtype=index)
    table[slot] = rows                  # of the rows of one slot, one is kept there
    others = np.flatnonzero(table[slot] != rows)
    del rows
    side_keys, side_rows, crowded = keys[:0], others, None
    if len(others):
        # an equal key shares the slot: with the row kept there, or in the side list
        if (keys[table[slot[others]]] == keys[others]).any():
            return None
        order = np.argsort(keys[others])
        side_keys, side_rows = keys[others][order], others[order]
        if (side_keys[1:] == side_keys[:-1]).any():
            return None
        crowded = np.zeros(1 << bits, dtype=bool)
        crowded[slot[others]] = True
    return table, shift, side_keys, side_rows, crowded


def find_keys(table, keys: np.ndarray, probe: np.ndarray) -> np.ndarray:
    """The row of ``keys`` (whose :func:`key_table` is ``table``) holding each key of
    ``probe``, -1 where none does: the slot's row, else a search in the side list for
    the keys of slots that more than one row aimed at."""
    slots, shift, side_keys, side_rows, crowded = table
    if not len(keys):
        return np.full(len(probe), -1, dtype=slots.dtype)
    slot = (probe >> shift).astype(np.intp)
    row = slots[slot]
    miss = keys[np.maximum(row, 0)] != probe
    miss |= row < 0
    row = np.where(miss, -1, row)
    if crowded is not None:
        look = np.flatnonzero(miss & crowded[slot])
        if len(look):
            wanted = probe[look]
            order = np.argsort(wanted)          # in order, numpy bounds each search by the last
            look, wanted = look[order], wanted[order]
            at = np.minimum(np.searchsorted(side_keys, wanted), len(side_keys) - 1)
            found = side_keys[at] == wanted
            row[look[found]] = side_rows[at[found]]
    return row


def decode_ids(raw: np.ndarray, errors: str = "strict") -> np.ndarray:
    """Ids as text (UTF-8): a fixed-width ``U`` column, or an object array of ``str`` when
    the ids are variable-length or the fixed width would not pay (a ``U`` character
    takes 4 bytes). Raises UnicodeDecodeError as ``bytes.decode`` does."""
    if not is_varlen(raw) and (not len(raw) or fixed_width_pays(
            4 * raw.dtype.itemsize, len(raw), lambda: 4 * int(id_lengths(raw).sum()))):
        if not len(raw) or int(raw.view(np.uint8).max()) < 0x80:
            return raw.astype(f"U{max(raw.dtype.itemsize, 1)}")   # ASCII: the same text
        return np.char.decode(raw, "utf-8", errors)
    out = np.empty(len(raw), dtype=object)
    out[:] = [b.decode("utf-8", errors) for b in raw.tolist()]
    return out


def encode_ids(text: np.ndarray, errors: str = "strict") -> np.ndarray:
    """The UTF-8 bytes of text ids, in :func:`decode_ids`'s representation."""
    if not is_varlen(text):
        return np.char.encode(text, "utf-8", errors)
    out = np.empty(len(text), dtype=object)
    out[:] = [t.encode("utf-8", errors) for t in text.tolist()]
    return out


def joined_dtype(parts: list[np.ndarray]) -> np.dtype:
    """The type of id columns put one after another: the widest fixed width while it
    pays, else variable-length."""
    if not any(is_varlen(p) for p in parts):
        width = max((p.dtype.itemsize for p in parts), default=1)
        if width <= FIXED_WIDTH_MAX or len({p.dtype.itemsize for p in parts}) == 1:
            return np.dtype(f"S{width}")
        count = sum(len(p) for p in parts)
        if fixed_width_pays(width, count, lambda: sum(int(id_lengths(p).sum()) for p in parts)):
            return np.dtype(f"S{width}")
    return np.dtype(object)


def concat_ids(parts: list[np.ndarray]) -> np.ndarray:
    """Id columns one after another, in :func:`joined_dtype`'s type."""
    if joined_dtype(parts).kind == "O":
        return np.concatenate([as_varlen(p) for p in parts])
    return np.concatenate(parts)


def compact_ids(ids: np.ndarray) -> np.ndarray:
    """A variable-length column at a fixed width when that pays (bytes: ``S``, text:
    ``U``, 4 bytes a character), else as it is."""
    if not is_varlen(ids) or not len(ids):
        return ids
    lengths = id_lengths(ids)
    width = int(lengths.max())
    unit = 4 if isinstance(ids[0], str) else 1
    if fixed_width_pays(unit * width, len(ids), lambda: unit * int(lengths.sum())):
        return ids.astype(f"{'U' if unit == 4 else 'S'}{max(width, 1)}")
    return ids
