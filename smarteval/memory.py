"""Memory freed by the program handed back to the system, where the C library can say so."""

from __future__ import annotations

import contextlib
import ctypes
import sys


def give_back() -> None:
    """Hand the memory that is free in the heap back to the system (glibc's
    ``malloc_trim``; nothing elsewhere). Reading a large qrels or run leaves many freed
    temporaries whose pages malloc keeps for later; a long evaluation in blocks calls
    this between its phases, so that its peak is what it holds, not what it once held.
    A few milliseconds."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):     # another C library: nothing
        ctypes.CDLL(None).malloc_trim(0)
