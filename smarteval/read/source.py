"""Sources: a file, standard input or bytes, opened as a binary stream and decompressed.

Compression (gzip, bzip2, xz, and zstd with the ``zstd`` extra) is recognised by magic
bytes, never by the file name, in one place for every reader: the fast run tokenizer
streams from :func:`open_binary`, the plain readers take everything at once from
:func:`read_bytes`. Either way the text is checked as it comes (:class:`TextGuard`), so
that what is read is bounded by what the input holds: a NUL byte (a binary file), a
line longer than :data:`MAX_LINE` or a stretch of blank space as long stop the reading
at once, naming the line, however much more a device or a decompressed bomb would give.
An input that is not a regular file (standard input, a FIFO, a device) is read once:
:class:`Spool` keeps its bytes for a second reader.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import stat
import sys
from typing import IO, Any, cast

from smarteval.columns import Qrels, Run
from smarteval.errors import InputError


def corrupt() -> tuple[type[BaseException], ...]:
    """What a damaged archive raises while it is read (``except corrupt():``). The
    decompressors' modules are imported only when a file is compressed so: an error of
    one that is not loaded cannot come."""
    errors: tuple[type[BaseException], ...] = (OSError, EOFError, ValueError)
    if "lzma" in sys.modules:
        errors += (sys.modules["lzma"].LZMAError,)
    if "zlib" in sys.modules:
        errors += (sys.modules["zlib"].error,)
    return errors


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


#: What each input of a command or a library call is, by the name of its parameter (the
#: command line's and the call's alike): messages name an input so.
INPUTS = {"qrels": "the qrels", "runs": "a run", "baseline": "the baseline run",
          "frozen": "the --frozen run", "full": "the --full run",
          "cutoffs_from": "the --cutoffs-from run", "results": "a results file",
          "zscores": "the -Z z-score file", "cwl_costs": "the --cwl-costs file",
          "risk_baseline": "the --risk-baseline run", "orig_run": "the original run",
          "repro_run": "the reproduction", "baseline_orig": "the --baseline-orig run",
          "baseline_repro": "the --baseline-repro run",
          "replicability": "the --replicability qrels", "run_a": "run A", "run_b": "run B",
          "docs": "the --docs file", "baseline_results": "the --baseline-results file"}


def read_once(given: dict[str, Any]) -> None:
    """Refuse standard input (``-``) given as two inputs: it can be read only once.

    ``given`` maps the parameters of :data:`INPUTS` to what each was given: a path, a list
    of paths or a ``{name: path}`` dict of runs (anything else, a table or a read run, is
    not standard input). The one check of the command line (before any work) and of
    every library call that reads (before anything is read)."""
    dashes = []
    for name in INPUTS:
        value = given.get(name)
        if isinstance(value, dict):
            value = list(value.values())
        for src in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(src, str) and src == "-":
                dashes.append(INPUTS[name])
    if len(dashes) > 1:
        from smarteval.errors import UsageError
        raise UsageError("standard input (-) is given twice (" + " and ".join(
            dict.fromkeys(dashes)) + "): it can be read only once")


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (the same path, a link to it, a hard link); ``-``
    names standard input, the file its descriptor 0 is open on. A link that cannot be
    followed (``/proc/1/fd/1``) names no file another path names."""
    try:
        sa, sb = (os.fstat(0) if p == "-" else os.stat(p) for p in (a, b))
        return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)
    except (OSError, ValueError):
        pass
    if "-" in (a, b):
        return False
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def display(name: str) -> str:
    """How a path is named in messages (``-`` is standard input)."""
    return "<stdin>" if name == "-" else name


#: The longest line read, and the longest stretch of blank lines and spaces (bytes): past
#: either the input is refused, naming the line (no file of lines has one; a device or a
#: decompression bomb would go on).
MAX_LINE = 32 << 20
#: Bytes read at a time where the size is not known beforehand.
_BLOCK = 1 << 20

_LEADING_BLANK = re.compile(rb"[ \t\n\x0b\x0c\r]*")


#: Bytes whose line ends are counted at a time by numpy (:func:`count_newlines`).
_COUNT_BLOCK = 1 << 18


def count_newlines(buf: bytes | bytearray, start: int, end: int) -> int:
    """The LF bytes of ``buf[start:end]``: numpy's vectorised compare a block at a time
    for a long stretch (bytes.count takes a byte at a time, five times as long)."""
    if end - start < _COUNT_BLOCK:
        return buf.count(b"\n", start, end)
    import numpy as np  # (loaded already with the columns)
    b = np.frombuffer(buf, dtype=np.uint8)
    return sum(int(np.count_nonzero(b[lo:min(end, lo + _COUNT_BLOCK)] == 10))
               for lo in range(start, end, _COUNT_BLOCK))


class TextGuard:
    """Checks text as it is read, block after block in file order: a NUL byte (a binary
    file), a line longer than :data:`MAX_LINE` and blank space as long are refused at once,
    naming the line, so that no reader takes more than the input holds.

    ``what`` names what the file should be in the refusal ("a run file"), ``expected``
    is the message's expected line.
    """

    def __init__(self, name: str, what: str = "a text file", expected: str | None = None):
        self.name, self.what, self.expected = name, what, expected
        self.lines = 0              # line ends before the next block
        self.since = 0              # bytes since the last line end
        self.blank = 0              # blank bytes just before the next block
        self.blank_line = 1         # the line they start on

    def _refuse(self, line: int, problem: str) -> InputError:
        return InputError(self.name, line, problem, expected=self.expected)

    def _long(self, line: int) -> InputError:
        return self._refuse(line, f"a line longer than {MAX_LINE >> 20} MiB: not {self.what}")

    def _blank(self, line: int) -> InputError:
        return self._refuse(line, f"more than {MAX_LINE >> 20} MiB of blank lines and spaces "
                                  f"from this line on: not {self.what}")

    def check(self, buf: bytes | bytearray, start: int = 0, end: int | None = None) -> None:
        """Check ``buf[start:end]``, the next block of the text."""
        end = len(buf) if end is None else end
        if start >= end:
            return
        nul = buf.find(b"\x00", start, end)
        if nul >= 0:
            raise self._refuse(self.lines + buf.count(b"\n", start, nul) + 1,
                               f"binary file (NUL byte), not {self.what}")
        limit = MAX_LINE
        first = buf.find(b"\n", start, end)
        if (end if first < 0 else first) - start + self.since > limit:
            raise self._long(self.lines + 1)
        lead = _LEADING_BLANK.match(buf, start, end).end() - start    # type: ignore[union-attr]
        if self.blank + lead > limit:
            raise self._blank(self.blank_line)
        if end - start > limit // 2:
            self._within(buf, start, end, limit)
        newlines = count_newlines(buf, start, end)
        if lead == end - start:                 # all blank
            self.blank += lead
        else:
            tail = _trailing_blank(buf, start, end)
            self.blank = tail
            b0 = end - tail                     # the line after the one it ends
            self.blank_line = self.lines + newlines - buf.count(b"\n", b0, end) \
                + (1 if b0 > start and buf[b0 - 1] == 10 else 2)
        self.lines += newlines
        self.since = self.since + end - start if first < 0 \
            else end - 1 - buf.rfind(b"\n", start, end)
        if self.since > limit:
            raise self._long(self.lines + 1)

    def _within(self, buf: bytes | bytearray, start: int, end: int, limit: int) -> None:
        """The lines and blank stretches inside a block longer than half the limit: each
        window of half the limit holds a line end and a byte that is not blank, or the
        line or stretch around it is measured (a few windows a block, whatever its lines)."""
        half = max(limit // 2, 1)
        for p in range(start, end - half + 1, half):
            q = p + half
            if buf.find(b"\n", p, q) < 0:
                s0 = buf.rfind(b"\n", start, p) + 1 or start
                e0 = buf.find(b"\n", q, end)
                length = (end if e0 < 0 else e0) - s0 + (self.since if s0 == start else 0)
                if length > limit:
                    raise self._long(self.lines + buf.count(b"\n", start, s0) + 1)
            if _LEADING_BLANK.match(buf, p, q).end() == q:         # type: ignore[union-attr]
                back = bytes(buf[max(start, p - limit - 1):p])
                b0 = p - (len(back) - len(back.rstrip(_SEPARATORS)))
                e1 = _LEADING_BLANK.match(buf, q, end).end()        # type: ignore[union-attr]
                if e1 - b0 + (self.blank if b0 == start else 0) > limit:
                    line = self.blank_line if b0 == start else \
                        self.lines + buf.count(b"\n", start, b0) + (1 if buf[b0 - 1] == 10 else 2)
                    raise self._blank(line)


_SEPARATORS = b" \t\n\x0b\x0c\r"


def _trailing_blank(buf: bytes | bytearray, start: int, end: int) -> int:
    """How many blank bytes end ``buf[start:end]``, read backwards in windows that double:
    a block's blank tail may be longer than any one window, and where it starts is the
    line a refusal of blank space names."""
    size = 4096
    while True:
        low = max(start, end - size)
        window = bytes(buf[low:end])
        tail = len(window) - len(window.rstrip(_SEPARATORS))
        if tail < len(window) or low == start:
            return tail
        size *= 2

#: Compressions not read, by their magic bytes: the refusal names them.
_UNREAD = ((b"PK\x03\x04", "a zip archive"), (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
           (b"Rar!\x1a\x07", "a RAR archive"), (b"\x04\x22\x4d\x18", "lz4-compressed"),
           (b"\x1f\x9d", "compressed by compress (.Z)"), (b"LZIP", "lzip-compressed"),
           (b"\x89LZO", "lzop-compressed"))
_ZSTD = b"\x28\xb5\x2f\xfd"
READ_COMPRESSIONS = "plain text, gzip, bzip2, xz and zstd"


#: What each decompressor says of a file that ends inside its stream (gzip's, bz2's and
#: lzma's EOFError); a truncated zstd file is refused in the same words.
TRUNCATED = "Compressed file ended before the end-of-stream marker was reached"

#: The sizes of a zstd frame header's optional fields, by the flags of its descriptor:
#: the dictionary id's by its flag, the content size's by its flag and the single
#: segment flag (RFC 8878, 3.1.1.1)
_ZSTD_DICT = (0, 1, 2, 4)
_ZSTD_SIZE = ((0, 1), (2, 2), (4, 4), (8, 8))


def _skippable(magic: bytes) -> bool:
    """Whether ``magic`` (4 bytes) opens a zstd skippable frame (0x184D2A50 to 5F)."""
    return magic[1:] == b"\x2a\x4d\x18" and magic[0] & 0xF0 == 0x50


class _ZstdFrames:
    """A zstd file's compressed bytes as zstandard reads them, walked frame by frame
    (headers and block sizes only, never the blocks' contents): zstandard's reader takes a
    file that ends inside a frame for a clean end, and so a truncated file for a shorter
    one; here it is refused (EOFError, as gzip, bz2 and lzma refuse theirs)."""

    def __init__(self, raw: Any):
        self._raw = raw
        self._head = b""
        self._skip = 0
        self._want, self._on = 4, self._magic
        self._walking = True            # False past what is not a frame: zstandard words it
        self._checksum = 0

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        if not data:
            if self._walking and (self._on != self._magic or self._head or self._skip):
                raise EOFError(TRUNCATED)
            return data
        i, n = 0, len(data)
        while self._walking and i < n:
            if self._skip:
                k = min(self._skip, n - i)
                self._skip -= k
                i += k
                continue
            k = min(self._want - len(self._head), n - i)
            self._head += data[i:i + k]
            i += k
            if len(self._head) == self._want:
                head, self._head = self._head, b""
                self._on(head)
        return data

    def _next(self, want: int, on: Any, skip: int = 0) -> None:
        self._want, self._on, self._skip = want, on, skip

    def _magic(self, head: bytes) -> None:
        if head == _ZSTD:
            self._next(1, self._descriptor)
        elif _skippable(head):
            self._next(4, self._skippable)          # a skippable frame: its size follows
        else:
            self._walking = False

    def _skippable(self, head: bytes) -> None:
        self._next(4, self._magic, int.from_bytes(head, "little"))

    def _descriptor(self, head: bytes) -> None:
        d = head[0]
        single = (d >> 5) & 1
        self._checksum = 4 if d & 4 else 0
        self._next(3, self._block, (1 - single) + _ZSTD_DICT[d & 3] + _ZSTD_SIZE[d >> 6][single])

    def _block(self, head: bytes) -> None:
        h = int.from_bytes(head, "little")
        kind, size = (h >> 1) & 3, h >> 3
        if kind == 3:
            self._walking = False                   # reserved: zstandard refuses it
        elif h & 1:                                 # the last block, then the checksum
            self._next(4, self._magic, (1 if kind == 1 else size) + self._checksum)
        else:
            self._next(3, self._block, 1 if kind == 1 else size)


class _ZstdStream(io.RawIOBase):
    """zstandard's decompressing reader, its errors raised as ValueError (a damaged file)
    and a file that ends inside a frame as EOFError (:class:`_ZstdFrames`)."""

    def __init__(self, buffered: Any):
        import zstandard
        self._error = zstandard.ZstdError
        self._reader = zstandard.ZstdDecompressor().stream_reader(
            cast(IO[bytes], _ZstdFrames(buffered)), read_across_frames=True)

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        try:
            return self._reader.readinto(b)
        except self._error as exc:
            raise ValueError(str(exc)) from None

    def close(self) -> None:
        self._reader.close()
        super().close()


def _zstd(buffered: Any, name: str) -> IO[bytes]:
    try:
        stream = _ZstdStream(buffered)
    except ImportError:
        raise InputError(name, None, "zstd-compressed: reading it needs the zstandard package "
                         "(pip install 'smarteval[zstd]'), or decompress it first "
                         "(zstd -d)") from None
    return cast(IO[bytes], io.BufferedReader(stream, _BLOCK))


def decompressing(f: IO[bytes], name: str = "-") -> IO[bytes]:
    """``f`` itself, or a stream decompressing it when it starts with a known magic number.

    A compression that is not read (zip, 7-Zip, lz4...) is refused by its name, and zstd
    without the zstandard package with the extra that brings it.
    """
    buffered: Any = f if hasattr(f, "peek") else io.BufferedReader(f)
    try:
        head = buffered.peek(6)[:6]
    except OSError as exc:                  # EIO (/proc/self/mem), and such
        raise InputError(display(name), None, f"cannot read: {exc.strerror or exc}") from None
    # each decompressor is imported when a file needs it (a plain text file needs none)
    if head[:2] == b"\x1f\x8b":
        import gzip
        return cast(IO[bytes], gzip.GzipFile(fileobj=buffered, mode="rb"))
    if head[:3] == b"BZh":
        import bz2
        return cast(IO[bytes], bz2.BZ2File(buffered, "rb"))
    if head[:6] == b"\xfd7zXZ\x00":
        import lzma
        return cast(IO[bytes], lzma.LZMAFile(buffered, "rb"))
    if head[:4] == _ZSTD or _skippable(head[:4]):     # pzstd's files open with a skippable
        return _zstd(buffered, display(name))
    for magic, what in _UNREAD:
        if head.startswith(magic):
            raise InputError(display(name), None, f"{what}: smarteval reads "
                             f"{READ_COMPRESSIONS} files; extract or decompress it first")
    return cast(IO[bytes], buffered)


def is_compressed(stream: IO[bytes]) -> bool:
    """Whether ``stream`` (from :func:`decompressing`) decompresses what it reads."""
    # a decompressor whose module was never imported made no stream
    kinds = tuple(getattr(sys.modules[name], kind) for name, kind in _DECOMPRESSORS
                  if name in sys.modules)
    return isinstance(stream, kinds) or isinstance(getattr(stream, "raw", None), _ZstdStream)


#: The decompressing file classes of the standard library, by module.
_DECOMPRESSORS = (("gzip", "GzipFile"), ("bz2", "BZ2File"), ("lzma", "LZMAFile"))


def standard_input() -> IO[bytes]:
    """Standard input as a binary stream; refused when it is closed (``<&-``)."""
    stdin = sys.stdin
    buffer = getattr(stdin, "buffer", None)
    closed = buffer is None or buffer.closed
    if not closed:
        try:
            os.fstat(stdin.fileno())
        except (io.UnsupportedOperation, AttributeError):
            pass                    # a stream with no descriptor (a test's, say)
        except (OSError, ValueError):
            closed = True           # its descriptor is closed (<&-)
    if closed:
        raise InputError("<stdin>", None, "standard input is closed: give a file, or "
                         "redirect it (< FILE)")
    return cast(IO[bytes], buffer)


def open_binary(path: str) -> IO[bytes]:
    """A binary stream of ``path``'s decompressed contents (``-``: standard input).

    Raises OSError as ``open`` does; :func:`read_bytes` words it for the user.
    """
    f = standard_input() if path == "-" else open(path, "rb")  # noqa: SIM115
    try:
        return decompressing(f, path)
    except BaseException:
        if path != "-":
            f.close()
        raise


def is_stream(path: str) -> bool:
    """Whether ``path`` is read once: standard input, a FIFO, a device or a socket (not a
    file that can be read again; a missing file or a directory is left to the reader to
    word)."""
    if path == "-":
        return True
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or \
        stat.S_ISSOCK(mode)


def open_input(name: str, shown: str | None = None) -> IO[bytes]:
    """The file ``name`` opened to be read (``-``: standard input), or InputError naming it
    (``shown``) and why it cannot be: missing, a directory, unreadable, a socket or a
    device without its driver."""
    shown = shown or display(name)
    try:
        return standard_input() if name == "-" else open(name, "rb")  # noqa: SIM115
    except FileNotFoundError:
        raise InputError(shown, None, "no such file") from None
    except IsADirectoryError:
        raise InputError(shown, None, "is a directory, not a file") from None
    except PermissionError:
        raise InputError(shown, None, "permission denied") from None
    except OSError as exc:
        raise InputError(shown, None, f"cannot read: {exc.strerror or exc}") from None


def read_bytes(path: str | os.PathLike, *, data: bytes | None = None,
               what: str = "a text file", expected: str | None = None,
               shown: str | None = None) -> bytes:
    """The decompressed contents of ``path`` (``-`` is standard input), or of ``data``,
    checked as they come (:class:`TextGuard`; ``what`` and ``expected`` word its refusals).

    Errors name the file (as ``shown``, when given): missing, a directory, unreadable, or
    a corrupt archive.
    """
    name = str(path)
    shown = shown or display(name)
    f = io.BytesIO(data) if data is not None else open_input(name, shown)
    try:
        stream = decompressing(f, shown)
    except BaseException:
        if name != "-":
            f.close()
        raise
    guard = TextGuard(shown, what, expected)
    try:
        if data is not None and not is_compressed(stream):
            out = data
            guard.check(out)
        elif not is_compressed(stream) and not is_stream(name):
            out = stream.read()         # as much as the file holds
            guard.check(out)
        else:
            blocks = []
            while True:
                block = stream.read(_BLOCK)
                if not block:
                    break
                guard.check(block)
                blocks.append(block)
            out = b"".join(blocks)
            del blocks
        return out
    except corrupt() as exc:
        raise unreadable(exc, shown, stream) from None
    finally:
        if name != "-" or data is not None:     # standard input stays open
            stream.close()


def unreadable(exc: BaseException, shown: str, stream: IO[bytes]) -> InputError:
    """What went wrong reading ``stream`` (``except corrupt()``), worded for its file
    ``shown``: a damaged archive, or a file that could not be read."""
    if isinstance(exc, OSError) and not is_compressed(stream):
        return InputError(shown, None, f"cannot read: {exc.strerror or exc}")
    return InputError(shown, None, f"corrupt compressed file: {exc}")


def read_padded(path: str | os.PathLike, pad: int, *, what: str = "a text file",
                expected: str | None = None) -> tuple[bytearray, int] | None:
    """The text of ``path`` when it is a regular file, not compressed: a buffer of ``pad``
    NUL bytes, the file's bytes, ``pad`` NUL bytes, and the file's size (read straight
    into place: a vectorised reader may then load 8 bytes from any byte of the text
    without copying it first). Checked as :func:`read_bytes` checks it. None for any
    other input (standard input, a device, a compressed file, one that cannot be opened
    or that changed while read), which :func:`read_bytes` reads or words the error of."""
    name = str(path)
    if name == "-":
        return None
    try:
        # a FIFO or a device is never opened here: it is read once, by read_bytes
        if not stat.S_ISREG(os.stat(name).st_mode):
            return None
        f = open(name, "rb")  # noqa: SIM115
    except (OSError, ValueError):
        return None
    shown = display(name)
    with f:
        try:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode) or decompressing(f, shown) is not f:
                return None
            size = info.st_size
            buf = bytearray(pad + size + pad)
            with memoryview(buf) as view:
                got = 0
                while got < size:
                    step = f.readinto(view[pad + got:pad + size])
                    if not step:
                        break
                    got += step
            if got != size or f.read(1):
                return None                 # the file changed while it was read
        except OSError:
            return None
    TextGuard(shown, what, expected).check(buf, pad, pad + size)
    return buf, size


# --------------------------------------------------------------------------- temporary files

def _host_mark() -> str:
    import socket
    import zlib
    return f"{zlib.crc32(socket.gethostname().encode('utf-8', 'replace')):08x}"


def temporary(directory: str | None, prefix: str, suffix: str = "") -> tuple[int, str]:
    """A new temporary file (descriptor, path) in ``directory`` (None: the system's),
    named ``PREFIX<pid>-<host>-<random>SUFFIX`` so that a later run can tell one left by
    a process killed outright (SIGKILL) and remove it (:func:`remove_stale`), which it
    does first."""
    import tempfile
    where = tempfile.gettempdir() if directory is None else directory
    remove_stale(where, prefix)
    return tempfile.mkstemp(prefix=f"{prefix}{os.getpid()}-{_host_mark()}-", suffix=suffix,
                            dir=where)


_STALE = r"(\d+)-([0-9a-f]{8})-"     # compiled by ``re`` on first use


def remove_stale(directory: str, prefix: str) -> None:
    """Remove the temporary files :func:`temporary` named in ``directory`` whose process,
    on this host, no longer runs (a process killed outright leaves its file)."""
    try:
        names = [n for n in os.listdir(directory) if n.startswith(prefix)]
    except OSError:
        return
    host = _host_mark()
    for name in names:
        match = re.match(_STALE, name[len(prefix):])
        if match is None or match.group(2) != host or int(match.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(match.group(1)), 0)
            continue                                # still running
        except ProcessLookupError:
            pass
        except (OSError, OverflowError, ValueError):
            continue                                # another user's, or not a pid
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(directory, name))


#: How the spool of standard input (or of another input that is not a regular file) is
#: named in the temporary directory.
SPOOL_PREFIX = "smarteval-stdin-"


class Spool:
    """An input that is not a regular file (standard input, a FIFO, a device), read once:
    :attr:`stream` gives its raw bytes and keeps a copy of each in a temporary file as it
    is read; :meth:`path` copies the rest there and names that file, for a second
    reader. The file is removed on :meth:`close`, whatever happened."""

    def __init__(self, source: str):
        self.source = source
        self._raw: Any = None
        self._copy: Any = None
        self._path = ""

    def _open(self) -> None:
        """Open the input and the temporary file (done on entering the ``with`` block, so
        that a signal arriving in between cannot leave the file behind)."""
        self._raw = open_input(self.source)
        fd, self._path = temporary(None, SPOOL_PREFIX)
        try:
            self._copy = os.fdopen(fd, "wb")
            self.stream = io.BufferedReader(cast(Any, _Tee(self._raw, self._copy)), _BLOCK)
        except BaseException:
            self.close()
            raise

    def path(self) -> str:
        """The temporary file holding every byte of the input (the rest read now)."""
        # every byte read so far went through the copy (the buffered stream reads through
        # it): the rest comes straight from the input
        while True:
            block = self._raw.read(_BLOCK)
            if not block:
                break
            self._copy.write(block)
        self._copy.flush()
        return self._path

    def close(self) -> None:
        with contextlib.suppress(OSError, AttributeError):
            self._copy.close()
        if self.source != "-":
            with contextlib.suppress(OSError, AttributeError):
                self._raw.close()
        if self._path:
            with contextlib.suppress(OSError):
                os.unlink(self._path)

    def __enter__(self) -> Spool:
        self._open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Tee(io.RawIOBase):
    """A raw stream that writes what it reads to ``copy``."""

    def __init__(self, raw: Any, copy: IO[bytes]):
        self._raw, self._copy = raw, copy

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = self._raw.readinto(b)
        if n:
            self._copy.write(memoryview(b)[:n])
        return n or 0


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
    except corrupt():
        return None             # the text reader words a damaged archive
    return "jsonl" if head.startswith(b"{") else None
