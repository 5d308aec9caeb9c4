"""Qrels by ir_datasets id (``msmarco-passage/dev/small``), as ir_measures' command line
takes them: the optional ``datasets`` extra (``pip install 'smarteval[datasets]'``).

A path wins over an id: only a name that no file or directory has is looked up, and only
then is ir_datasets imported. ir_datasets fetches a dataset's files on first use into
its home (``IR_DATASETS_HOME``, ``~/.ir_datasets`` by default) and reads them from there
afterwards; a dataset it cannot get is one message naming the id.
"""

from __future__ import annotations

import os
import re
from typing import Any

from smarteval.errors import InputError

#: What an ir_datasets id looks like: words with dashes and dots, joined by slashes
#: (``antique/test``, ``beir/scifact/test``, ``msmarco-passage/dev/small``).
_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)*$")
EXTRA = "pip install 'smarteval[datasets]'"


def is_dataset_id(source: Any) -> bool:
    """Whether ``source`` may be an ir_datasets id: a string shaped like one that names no
    file or directory (a path always wins)."""
    if not isinstance(source, (str, os.PathLike)):
        return False
    text = os.fspath(source)
    return isinstance(text, str) and text != "-" and _ID.match(text) is not None \
        and not os.path.lexists(text)


def dataset_qrels(source: Any) -> Any:
    """The qrels of the ir_datasets id ``source`` (read as records, named ``ID
    (ir_datasets)``), or ``source`` itself when it is no such id (a path, a DataFrame...:
    the readers word what is wrong with it). A name ir_datasets does not know is left to
    the readers too ("no such file"); one it knows but cannot give qrels of is refused."""
    if not is_dataset_id(source):
        return source
    text = os.fspath(source)
    try:
        import ir_datasets
    except ImportError:
        if "/" not in text or "." in text.rsplit("/", 1)[-1]:
            return source                   # a missing file, by the look of it
        raise InputError(text, None, "no such file; as an ir_datasets id it needs the "
                         f"datasets extra: {EXTRA}") from None
    if not _registered(ir_datasets, text):
        return source
    try:
        dataset = ir_datasets.load(text)
        if not dataset.has_qrels():
            raise InputError(text, None, "this ir_datasets dataset has no qrels")
        records = list(dataset.qrels_iter())
    except InputError:
        raise
    except Exception as exc:            # a download that failed, a file it cannot read...
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(text, None, f"ir_datasets cannot give its qrels: {why}",
                         extra="  ir_datasets downloads a dataset's files on first use into "
                               "IR_DATASETS_HOME (default ~/.ir_datasets), and reads them "
                               "from there afterwards") from None
    from smarteval.read.frames import qrels_from
    return qrels_from(records, name=f"{text} (ir_datasets)")


def _registered(ir_datasets: Any, text: str) -> bool:
    """Whether ir_datasets knows the id (its registry, patterns included)."""
    try:
        ir_datasets.registry[text]
    except KeyError:
        return False
    return True
