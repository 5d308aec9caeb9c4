"""Document texts for the diff page: a DOCNO TAB TEXT file, or an ir_datasets collection.

Only the documents asked for are kept: a file is read line by line (plain or compressed,
as every input), an ir_datasets collection looked up by docno in its document store
(the ``datasets`` extra, ``pip install 'smarteval[datasets]'``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from smarteval.errors import InputError, UsageError
from smarteval.read.plain import naming_the_file_out_of_memory
from smarteval.read.source import (
    TextGuard,
    corrupt,
    display,
    open_binary,
    read_bytes,
    unreadable,
)

#: The bytes read at a time.
_READ = 1 << 20
#: What a line of a --docs file holds.
DOCS_EXPECTED = "DOCNO TAB TEXT (the text up to the end of the line)"


#: An ir_datasets id: names of letters, digits, ``.``, ``-`` and ``_`` joined by ``/``.
_DATASET_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)*")


def is_dataset_id(source: str) -> bool:
    """Whether ``source`` names an ir_datasets collection (``msmarco-passage/dev``): no
    such file, and an id's shape."""
    return not os.path.exists(source) and _DATASET_ID.fullmatch(source) is not None


@naming_the_file_out_of_memory
def read_texts(source: str, wanted: Iterable[str]) -> dict[str, str]:
    """The texts of the ``wanted`` docnos that ``source`` has (a file's path, or an
    ir_datasets id): ``{docno: text}``; a docno it lacks is left out."""
    wanted = set(wanted)
    if is_dataset_id(source):
        return _dataset_texts(source, wanted)
    try:
        stream = open_binary(source)
    except OSError:
        read_bytes(source)      # fails as the file did, worded as for every input
        raise
    texts: dict[str, str] = {}
    shown = display(source)
    # read in blocks checked as every input is (a NUL byte, a line or blank stretch past
    # the limit stop it: /dev/zero is one endless line), a line at a time kept
    guard = TextGuard(shown, "a --docs file", DOCS_EXPECTED)
    number, head = 0, []
    try:
        with stream:
            while block := stream.read(_READ):
                guard.check(block)
                if b"\n" not in block:
                    head.append(block)
                    continue
                lines = (b"".join(head) + block).split(b"\n")
                head = [lines.pop()]
                for raw in lines:
                    number += 1
                    _keep(raw, number, shown, wanted, texts)
            if head and head[0]:
                _keep(b"".join(head), number + 1, shown, wanted, texts)
    except corrupt() as exc:
        raise unreadable(exc, shown, stream) from None
    return texts


def _keep(raw: bytes, number: int, shown: str, wanted: set[str], texts: dict[str, str]) -> None:
    """Line ``number`` of a --docs file: its text kept in ``texts`` when its docno is
    wanted."""
    line = raw.decode("utf-8", "replace").rstrip("\r")
    if not line.strip():
        return
    docno, tab, text = line.partition("\t")
    if not tab:
        raise InputError(shown, number, "no TAB after the docno", line[:80], DOCS_EXPECTED)
    if docno in wanted:
        texts[docno] = text


def _dataset_texts(name: str, wanted: set[str]) -> dict[str, str]:
    try:
        import ir_datasets
    except ImportError:
        raise UsageError(f"--docs {name}: no such file; read as an ir_datasets id, it needs "
                         "the datasets extra (pip install 'smarteval[datasets]')") from None
    try:
        dataset = ir_datasets.load(name)
    except KeyError:
        raise UsageError(f"--docs {name}: no such file, nor an ir_datasets collection") \
            from None
    if not dataset.has_docs():
        raise UsageError(f"--docs {name}: this ir_datasets collection has no documents")
    found = dataset.docs_store().get_many(sorted(wanted))
    return {docno: _text(doc) for docno, doc in found.items()}


def _text(doc) -> str:
    """A document's text: ir_datasets' ``default_text()``, else its ``text`` field, else
    its fields after the id joined."""
    if hasattr(doc, "default_text"):
        return str(doc.default_text())
    if hasattr(doc, "text"):
        return str(doc.text)
    return " ".join(str(v) for v in tuple(doc)[1:])
