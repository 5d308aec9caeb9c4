"""Output: the one writer of results, to standard output or safely to a file.

Where ``-o FILE`` goes:

* a regular file, or a name not yet taken: written atomically (a temporary file beside
  it, renamed over it once complete), so that a failure or an interruption leaves the
  old file, if any, as it was and no temporary file behind; an existing file keeps its
  permissions. The temporary file (``.smarteval-PID-HOST-...``) names its process: one
  left by a process killed outright (SIGKILL, which nothing can catch) is removed by the
  next write into that directory;
* a name ending in ``/``: refused (it names a directory, never a file);
* a symbolic link: written through to its target, atomically, and the link stays;
* ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``: that open file descriptor, as a
  shell redirection set it up (appending stays appending);
* any other file that is not a regular file (a character device such as ``/dev/null``
  or ``/dev/full``, a FIFO): written into, never replaced.

Text is UTF-8; query ids and other names read from input files keep their bytes (a byte
that is not UTF-8 was read as a lone surrogate, ``surrogateescape``, and is written back
as that byte).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable
from typing import IO

from smarteval.errors import OutputError
from smarteval.records import record

#: How the temporary file of an atomic write starts its name, beside its target.
TEMPORARY_PREFIX = ".smarteval-"

#: How text is encoded on output: UTF-8, input bytes that are not UTF-8 given back as read.
ENCODING, ERRORS = "utf-8", "surrogateescape"

#: (compiled by ``re`` on first use: most commands write to standard output)
_FD_PATH = r"/dev/fd/(\d+)|/proc/(?:self|thread-self|\d+)/fd/(\d+)"
_STD_PATHS = {"/dev/stdout": 1, "/dev/stderr": 2}


def encode(text: str) -> bytes:
    """``text`` as the bytes written (UTF-8; bytes read from input given back as read)."""
    return text.encode(ENCODING, ERRORS)


@record(frozen=True)
class Target:
    """Where ``-o`` writes: ``kind`` "file" (atomically, at ``path``), "fd" (into open file
    descriptor ``fd``) or "special" (into the non-regular file at ``path``)."""

    kind: str
    path: str
    fd: int = -1
    mode: int | None = None          # an existing regular file's permission bits


def _fd_of(path: str) -> int | None:
    """The file descriptor a ``/dev/stdout``-like name stands for, or None."""
    absolute = os.path.abspath(path)
    if absolute in _STD_PATHS:
        return _STD_PATHS[absolute]
    match = re.fullmatch(_FD_PATH, absolute)
    if match is None:
        return None
    proc = re.match(r"/proc/(\d+)/", absolute)
    if proc is not None and int(proc.group(1)) != os.getpid():
        return None
    return int(match.group(1) or match.group(2))


def target(path: str) -> Target:
    """Where writing to ``path`` goes (see the module docstring); :class:`OutputError`
    when it cannot be written: a directory, a missing or unwritable directory."""
    if path.endswith(("/", os.sep)):     # a directory's name: never a file named so
        raise OutputError(path, IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR)))
    fd = _fd_of(path)
    if fd is not None:
        try:
            os.fstat(fd)
        except OSError as exc:
            raise OutputError(path, exc) from None
        return Target("fd", path, fd)
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(path, exc) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(path, IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR)))
    if st is not None and not stat.S_ISREG(st.st_mode):
        return Target("special", real)
    directory = os.path.dirname(real) or "."
    if not os.path.exists(directory):
        raise OutputError(path, FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT)))
    if not os.path.isdir(directory):
        raise OutputError(path, NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR)))
    if not os.access(directory, os.W_OK | os.X_OK) or (
            st is not None and not os.access(real, os.W_OK)):
        raise OutputError(path, PermissionError(errno.EACCES, os.strerror(errno.EACCES)))
    return Target("file", real, mode=None if st is None else stat.S_IMODE(st.st_mode))


def check_writable(path: str | None) -> None:
    """Refuse, before any work, an output that cannot be written (``None``, ``-``: standard
    output, always fine here). Nothing is created or opened."""
    if path is not None and path != "-":
        target(path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: str, write: Callable[[IO[bytes]], None], *, suffix: str = "") -> None:
    """Call ``write`` on the stream ``path`` stands for (see the module docstring).

    A regular file is written as a temporary file beside it (beside a symbolic link's
    target), then renamed over it: nothing is left behind when writing fails or is
    interrupted (the temporary file is removed and the old file, if any, is untouched).
    A new file gets the permissions a plain ``open`` would give (0666 less the umask), an
    existing one keeps its own.
    """
    where = target(path)
    if where.kind == "fd":
        _write_into(path, lambda: os.fdopen(os.dup(where.fd), "wb"), write)
        return
    if where.kind == "special":
        _write_into(path, lambda: open(where.path, "wb"), write)  # noqa: SIM115
        return
    from smarteval.read.source import temporary  # not at import: read/ loads numpy
    directory = os.path.dirname(where.path)
    try:
        # named with this process's id: one left by a process killed outright (SIGKILL)
        # is removed by the next write into the directory
        fd, tmp = temporary(directory, TEMPORARY_PREFIX, suffix)
    except OSError as exc:
        raise OutputError(path, exc) from None
    try:
        os.chmod(tmp, 0o666 & ~_umask() if where.mode is None else where.mode)
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.replace(tmp, where.path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(path, exc) from None
        raise


def _write_into(path: str, opener: Callable[[], IO[bytes]],
                write: Callable[[IO[bytes]], None]) -> None:
    """Write into a stream that is not replaced (a device, a FIFO, an open descriptor)."""
    if path in _STD_PATHS or _fd_of(path) == 1:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
    try:
        with opener() as fh:
            write(fh)
    except BrokenPipeError:
        pass                                    # the reader went away: not an error
    except OSError as exc:
        raise OutputError(path, exc) from None


def write_text(text: str | Iterable[str], path: str | None) -> None:
    """Write ``text`` to standard output (``path`` None or ``-``) or to ``path``.

    ``text`` may come in pieces (an iterable of strings, written as they come: a long
    output is never in hand at once; into a file atomically, the file appearing whole or
    not at all). A reader that goes away early (``smarteval ... | head``) is not an
    error, and no more pieces are made for it; standard output that cannot take the text
    (a full disk) is an :class:`OutputError`.
    """
    pieces = [text] if isinstance(text, str) else text
    if path is not None and path != "-":
        def write(fh: IO[bytes]) -> None:
            for piece in pieces:
                fh.write(encode(piece))
        write_atomic(path, write)
        return
    stream = sys.stdout
    if stream is None:                      # closed (>&-)
        raise OutputError("standard output",
                          OSError(errno.EBADF, "it is closed (give -o FILE)"))
    for piece in pieces:
        if not _to_stdout(stream, piece):
            return                          # the reader went away: nothing more to write


def _to_stdout(stream, text: str) -> bool:
    """Write ``text`` to standard output; False when its reader has gone away."""
    try:
        buffer = getattr(stream, "buffer", None)
        if buffer is None:                  # a text-only stream: it encodes as it can
            stream.write(text)
        else:
            stream.flush()
            buffer.write(encode(text))
            buffer.flush()
        stream.flush()
    except OSError as exc:
        # what is still buffered cannot be written either: drop it, so that the
        # interpreter does not try again (and fail again) when it exits
        with contextlib.suppress(OSError, ValueError):      # no file descriptor
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        if not isinstance(exc, BrokenPipeError):
            raise OutputError("standard output", exc) from None
        return False
    return True


def write_bytes(data: bytes, path: str, *, suffix: str = "") -> None:
    """Write ``data`` (an image, encoded text) to ``path`` (see :func:`write_atomic`);
    ``suffix`` ends the temporary file's name (some readers look at it)."""
    def write(fh: IO[bytes]) -> None:
        fh.write(data)
    write_atomic(path, write, suffix=suffix)
