"""The C library's memory: freed memory handed back to the system, malloc tuned for small
inputs and numpy's huge pages turned off for large ones, where the C library can say so
(ctypes imported when called)."""

from __future__ import annotations

import contextlib
import os
import sys


def give_back() -> None:
    """Hand the memory that is free in the heap back to the system (glibc's
    ``malloc_trim``; nothing elsewhere). Reading a large qrels or run leaves many freed
    temporaries whose pages malloc keeps for later; a long evaluation in blocks calls
    this between its phases, so that its peak is what it holds, not what it once held.
    A few milliseconds."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    with contextlib.suppress(OSError, AttributeError):     # another C library: nothing
        ctypes.CDLL(None).malloc_trim(0)


#: Inputs of at most this many bytes in all are small (TREC-sized runs): see
#: :func:`reuse_freed_memory`.
SMALL_INPUTS = 256 << 20


def reuse_freed_memory(paths) -> None:
    """For small inputs, have glibc's malloc keep freed memory for the next arrays; for
    large ones, have numpy ask for ordinary pages, not huge ones.

    By default an array above 128 KiB is mapped fresh from the kernel and handed back
    when freed, so every temporary faults its pages in again; with mmap above 32 MiB
    only and the heap trimmed above 1 GiB only, twenty TREC runs take a fifth of the page
    faults (and a seventh less time). Large inputs keep malloc's defaults, which return
    memory at once (their peak memory comes first). Nothing changes on other C libraries.

    numpy advises the kernel to back arrays of 4 MiB and more with huge pages. The
    columns of a large run are such arrays, each touched fresh once; a huge page is
    zeroed (and, in a virtual machine, often first backed by the host) whole, and on
    the 7M-line run the system time of these faults varied from 0.2 to 1 s from process
    to process, against a steady 0.5-0.7 s with ordinary pages (medians 0.25 s faster).
    """
    total = 0
    for path in paths:
        try:
            total += os.path.getsize(path)
        except (OSError, TypeError, ValueError):     # standard input, say: size unknown
            return
    if total > SMALL_INPUTS:
        _no_huge_pages()
        return
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(-3, 32 << 20)           # M_MMAP_THRESHOLD
    mallopt(-1, 1 << 30)            # M_TRIM_THRESHOLD


def _no_huge_pages() -> None:
    """Turn numpy's huge-page advice off (as ``NUMPY_MADVISE_HUGEPAGE=0`` does), where
    this numpy has the switch."""
    import numpy as np
    core = getattr(np, "_core", None) or getattr(np, "core", None)
    switch = getattr(getattr(core, "multiarray", None), "_set_madvise_hugepage", None)
    if switch is not None:
        switch(False)
