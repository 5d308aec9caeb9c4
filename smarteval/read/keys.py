"""Docno keys: byte-order sort words and 64-bit hashes of fixed-width docnos, vectorised."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np


def iter_key_words(docnos: np.ndarray) -> Iterator[np.ndarray]:
    """The words of :func:`sort_key_words` one at a time: each is copied out of the docnos
    as it is needed, so a long docno costs one word's column at a time, not all of them."""
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
    """Big-endian uint64 words of fixed-width docnos: comparing them compares the bytes."""
    return list(iter_key_words(docnos))


def docno_hash(docnos: np.ndarray, width: int) -> np.ndarray:
    """A 64-bit hash of fixed-width docnos (as ``width`` bytes), vectorised; the docnos'
    words are taken one at a time."""
    if docnos.dtype.itemsize != width:
        docnos = docnos.astype(f"S{width}")
    h = np.zeros(len(docnos), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for w in iter_key_words(docnos):
            h = (h ^ w) * np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(29)
    return h
