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
from smarteval.read.source import open_binary, read_bytes

#: What a line of a --docs file holds.
DOCS_EXPECTED = "DOCNO TAB TEXT (the text up to the end of the line)"


#: An ir_datasets id: names of letters, digits, ``.``, ``-`` and ``_`` joined by ``/``.
_DATASET_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)*")


def is_dataset_id(source: str) -> bool:
    """Whether ``source`` names an ir_datasets collection (``msmarco-passage/dev``): no
    such file, and an id's shape."""
    return not os.path.exists(source) and _DATASET_ID.fullmatch(source) is not None


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
    with stream:
        for number, raw in enumerate(stream, 1):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if not line.strip():
                continue
            docno, tab, text = line.partition("\t")
            if not tab:
                raise InputError(source, number, "no TAB after the docno", line[:80],
                                 DOCS_EXPECTED)
            if docno in wanted:
                texts[docno] = text
    return texts


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
