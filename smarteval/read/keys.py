"""Docno keys: byte-order sort words and 64-bit hashes of fixed-width docnos, vectorised."""

from __future__ import annotations

import numpy as np


def sort_key_words(docnos: np.ndarray) -> list[np.ndarray]:
    """Big-endian uint64 words of fixed-width docnos: comparing them compares the bytes."""
    width = docnos.dtype.itemsize
    nwords = (width + 7) // 8
    padded = np.zeros((len(docnos), nwords * 8), dtype=np.uint8)
    padded[:, :width] = docnos.view(np.uint8).reshape(len(docnos), width)
    words = padded.view(">u8")
    return [words[:, i].astype(np.uint64) for i in range(nwords)]


def docno_hash(docnos: np.ndarray, width: int) -> np.ndarray:
    """A 64-bit hash of fixed-width docnos (as ``width`` bytes), vectorised."""
    if docnos.dtype.itemsize != width:
        docnos = docnos.astype(f"S{width}")
    h = np.zeros(len(docnos), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for w in sort_key_words(docnos):
            h = (h ^ w) * np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(29)
    return h
