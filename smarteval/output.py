"""Output: the one writer of results, to standard output or atomically to a file."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable
from typing import IO

from smarteval.errors import OutputError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: str, write: Callable[[IO[bytes]], None], *, suffix: str = "") -> None:
    """Call ``write`` on a temporary file beside ``path``, then rename it over ``path``.

    Nothing is left behind when writing fails (the temporary file is removed and the old
    ``path``, if any, is untouched); the new file gets the permissions a plain ``open``
    would give (0666 less the umask), not mkstemp's 0600.
    """
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".smarteval-", suffix=suffix, dir=directory)
    except OSError as exc:
        raise OutputError(path, exc) from None
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(path, exc) from None
        raise


def write_text(text: str, path: str | None) -> None:
    """Write ``text`` to standard output (``path`` None or ``-``) or atomically to ``path``.

    A reader that goes away early (``smarteval ... | head``) is not an error; standard
    output that cannot take the text (a full disk) is an :class:`OutputError`.
    """
    if path is None or path == "-":
        stream = sys.stdout
        try:
            stream.write(text)
            stream.flush()
        except OSError as exc:
            # what is still buffered cannot be written either: drop it, so that the
            # interpreter does not try again (and fail again) when it exits
            with contextlib.suppress(OSError, ValueError):      # no file descriptor
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            if not isinstance(exc, BrokenPipeError):
                raise OutputError("standard output", exc) from None
        return
    write_bytes(text.encode("utf-8"), path)


def write_bytes(data: bytes, path: str, *, suffix: str = "") -> None:
    """Write ``data`` (an image, encoded text) atomically to ``path``; ``suffix`` ends the
    temporary file's name (some readers look at it)."""
    def write(fh: IO[bytes]) -> None:
        fh.write(data)
    write_atomic(path, write, suffix=suffix)
