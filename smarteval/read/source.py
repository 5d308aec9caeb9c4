"""Sources: a file, standard input or bytes, opened as a binary stream and decompressed.

Compression (gzip, bzip2, xz) is recognised by magic bytes, never by the file name, in
one place for every reader: the fast run tokenizer streams from :func:`open_binary`,
the plain readers take everything at once from :func:`read_bytes`.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import stat
import sys
import zlib
from typing import IO, Any, cast

from smarteval.columns import Qrels, Run
from smarteval.errors import InputError

#: What a damaged archive raises while it is read.
CORRUPT = (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error)


#: How much smaller a compressed run file is than its text, roughly.
COMPRESSION = {".gz": 5, ".bz2": 7, ".xz": 7}


def text_size(path: str | os.PathLike) -> int:
    """The bytes of text in file ``path``, guessed from its size and name (0 for standard
    input or a file that cannot be seen)."""
    name = os.fspath(path)
    if name == "-":
        return 0
    try:
        size = os.path.getsize(name)
    except (OSError, TypeError, ValueError):
        return 0
    return size * COMPRESSION.get(os.path.splitext(name)[1].lower(), 1)


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (the same path, a link to it, a hard link)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def display(name: str) -> str:
    """How a path is named in messages (``-`` is standard input)."""
    return "<stdin>" if name == "-" else name


def decompressing(f: IO[bytes]) -> IO[bytes]:
    """``f`` itself, or a stream decompressing it when it starts with a known magic number."""
    buffered: Any = f if hasattr(f, "peek") else io.BufferedReader(f)
    head = buffered.peek(6)[:6]
    if head[:2] == b"\x1f\x8b":
        return cast(IO[bytes], gzip.GzipFile(fileobj=buffered, mode="rb"))
    if head[:3] == b"BZh":
        return cast(IO[bytes], bz2.BZ2File(buffered, "rb"))
    if head[:6] == b"\xfd7zXZ\x00":
        return cast(IO[bytes], lzma.LZMAFile(buffered, "rb"))
    return cast(IO[bytes], buffered)


def open_binary(path: str) -> IO[bytes]:
    """A binary stream of ``path``'s decompressed contents (``-``: standard input).

    Raises OSError as ``open`` does; :func:`read_bytes` words it for the user.
    """
    f = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    return decompressing(f)


def read_bytes(path: str | os.PathLike, *, data: bytes | None = None) -> bytes:
    """The decompressed contents of ``path`` (``-`` is standard input), or of ``data``.

    Errors name the file: missing, a directory, unreadable, or a corrupt archive.
    """
    name = str(path)
    shown = display(name)
    try:
        stream = decompressing(io.BytesIO(data)) if data is not None else open_binary(name)
    except FileNotFoundError:
        raise InputError(name, None, "no such file") from None
    except IsADirectoryError:
        raise InputError(name, None, "is a directory, not a file") from None
    except PermissionError:
        raise InputError(name, None, "permission denied") from None
    except OSError as exc:
        raise InputError(name, None, f"cannot read: {exc.strerror or exc}") from None
    try:
        return stream.read()
    except CORRUPT as exc:
        if isinstance(exc, OSError) and not _compressed(stream):
            raise InputError(shown, None, f"cannot read: {exc.strerror or exc}") from None
        raise InputError(shown, None, f"corrupt compressed file: {exc}") from None
    finally:
        if name != "-" or data is not None:     # standard input stays open
            stream.close()


def _compressed(stream: IO[bytes]) -> bool:
    return isinstance(stream, (gzip.GzipFile, bz2.BZ2File, lzma.LZMAFile))


#: Names of table files (any compression for JSON Lines), told apart from TREC text files.
_PARQUET_SUFFIXES = (".parquet", ".pq")
_JSONL_SUFFIXES = (".jsonl", ".ndjson")
_COMPRESSED = ("", ".gz", ".bz2", ".xz")


def is_in_memory(obj: object) -> bool:
    """Whether ``obj`` is a run or qrels given in memory (not a path, not read columns)."""
    return not isinstance(obj, (str, bytes, os.PathLike, Run, Qrels))


def table_format(path: str | os.PathLike) -> str | None:
    """``"parquet"`` or ``"jsonl"`` when ``path`` names such a file (by its name, else by
    its first bytes, for a regular file), None for a text file (or one that cannot be
    opened: the text reader words that)."""
    name = str(path)
    if name == "-":
        return None
    low = name.lower()
    if low.endswith(_PARQUET_SUFFIXES):
        return "parquet"
    if any(low.endswith(s + c) for s in _JSONL_SUFFIXES for c in _COMPRESSED):
        return "jsonl"
    try:
        if not stat.S_ISREG(os.stat(name).st_mode):
            return None             # a pipe or a device is read once, by the text reader
        with open(name, "rb") as f:
            if f.read(4) == b"PAR1":
                return "parquet"
        with open_binary(name) as stream:
            head = stream.read(256).lstrip()
    except (OSError, EOFError, ValueError):
        return None
    return "jsonl" if head.startswith(b"{") else None
