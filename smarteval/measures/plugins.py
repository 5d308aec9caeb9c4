"""Measures of one's own: the public ``@measure`` decorator, and loading plugins that use it.

A plugin is a Python module that registers measures with :func:`measure`. It is loaded
from the command line (``--plugin MODULE``: a module name, or the path of a ``.py``
file), from the entry-point group ``smarteval.measures`` of an installed package (loaded
with the measures, when the registry is first needed), or by :func:`load_plugin`. Its
measures are then used like smarteval's own: ``-m`` and its parameters, ``smarteval
measures``, every output format, ``compare``, ``plot`` and the Python API.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from smarteval.errors import SmartevalError, UsageError
from smarteval.measures.grammar import ALIASES, RANX_NAMES, nicknames
from smarteval.measures.registry import (
    ENTRY_POINTS,
    PLUGINS,
    REGISTRY,
    Measure,
    check_options,
    entry,
    load_modules,
)

#: The entry-point group whose modules are loaded as plugins.
ENTRY_POINT_GROUP = "smarteval.measures"

#: What a plugin measure's name may hold: ``.`` starts ``-m``'s parameters, and ``@``,
#: brackets and blanks belong to ir_measures' names and to ``-m``'s lists.
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*\Z")

#: The plugins being imported, innermost last: (key, label).
_loading: list[tuple[str, str]] = []


@dataclass(frozen=True)
class PluginMeasure(Measure):
    """The registry entry of a plugin's measure: pickled by name and plugin, so that a
    worker process (``-j``) that has not loaded the plugin loads it."""

    def __reduce__(self):
        return (restore, (self.name, self.plugin))


def restore(name: str, plugin: str | None) -> Measure:
    """The entry of a plugin measure unpickled in another process (its plugin loaded there)."""
    if name not in REGISTRY and plugin is not None:
        load_plugin(plugin)
    if name not in REGISTRY:
        raise UsageError(f"measure {name!r} of {plugin} is not registered in this process: "
                         "load it as a plugin (--plugin, or the smarteval.measures entry point)")
    return REGISTRY[name]


def measure(name: str, *, params: str = "none", default: Sequence = (), average: str = "mean",
            value: str = "float", per_query: bool = True, versions: Sequence[int] = (9, 10),
            needs_num_docs: bool = False,
            micro: Callable[..., tuple[np.ndarray, np.ndarray]] | None = None,
            ties: Callable[..., np.ndarray] | None = None, orders: bool = False,
            order_free: bool = False) -> Callable[[Callable], Callable]:
    """Register the decorated function as measure ``name``, as smarteval registers its own.

    The function takes a :class:`~smarteval.columns.Ranked`, every evaluated query of one
    run at once, and returns a numpy array of one value per query (``r.num_queries``), in
    the order of ``r.qids``. It loops over neither queries nor documents: it works on the
    flat columns, whose rows are the retrieved documents of every query in rank order,
    query ``q`` at rows ``r.offsets[q]:r.offsets[q + 1]``:

    * ``r.rel``: each document's grade; -1 when the qrels do not list it, -2 when they
      judge it below 0. ``r.is_rel``: grade at or above the relevance level ``-l``
      (``r.rel_level``). ``r.score``, ``r.docno``: as read (``r.docno`` as bytes).
    * ``r.rank`` (1-based), ``r.qindex`` (the query of each row), ``r.rel_so_far``
      (relevant documents at or above each row).
    * Per query: ``r.num_ret``, ``r.num_rel`` (judged relevant, R), ``r.num_rel_ret``,
      ``r.num_judged``, ``r.num_nonrel``; ``r.qrel_grades`` holds every judged grade of
      each query (0 or more, descending) at ``r.qrel_offsets``: the ideal ranking.
    * ``r.rel_rows``, ``r.rel_rank``, ``r.rel_k`` at ``r.rel_offsets``: the relevant
      documents retrieved, their ranks and their count so far.
    * ``r.num_docs``: the collection size ``-N`` (None when not given; register with
      ``needs_num_docs=True`` to require it). ``r.settings``: every other policy.
    * ``r.memo``: a dict shared by the measures of one evaluation, for values several of
      them need.

    :mod:`smarteval.measures.segments` holds the helpers that work on such segments:
    ``segment_sum``, ``in_top`` (sum of the first k rows of each query), ``seg_cumsum``,
    ``first_true_rank``, ``safe_div`` (0 where the denominator is 0) and ``positions``.

    The first paragraph of the docstring is the measure's help (``smarteval measures``).

    ``params`` says what ``-m name.PARAMS`` takes and how the outputs are named:
    ``none``; ``cutoffs`` (integers, one output each, ``name_K``: the function is called
    once per cut-off with ``k``); ``levels`` (floats, one output each, ``name_%.2f``,
    called with one level); ``floats``, ``gains`` (``rel=gain`` pairs) or ``int`` (one
    output, called with the whole parsed tuple). ``default`` holds the parameters of a
    plain ``-m name``. ``average`` is how the per-query values become the summary:
    ``mean``, ``gmean``, ``sum``, ``count``, ``tag``, ``none`` or ``reported`` (NaN is no
    value: the query is left out of the mean and of the per-query output); ``micro``, a function of
    the same arguments returning (numerators, denominators) per query, gives ``--average
    micro``. ``value`` is ``float``, ``int`` or ``str``; ``per_query=False`` leaves it out
    of ``-q``; ``versions`` the ``--trec-version`` values that offer it.

    Under ``--ties average`` a measure is refused unless it gives the exact average over
    the orders of tied documents: ``order_free=True`` (the order does not matter), a
    ``ties`` function of the same arguments computing that average, or ``orders=True``
    for a function taking ``o="exact"`` and written over
    ``smarteval.measures.tied.order_of(r, o)``.

    Under ``-c``, a query without results scores as trec_eval's measures do (0 under
    trec_eval 9; trec_eval 10's placeholder document under ``--trec-version 10``).

    A name must be new: one of smarteval's measures, another plugin's, a nickname
    (``official``) or an ir_measures or ranx name is refused, as is a name with
    characters other than letters, digits, ``_`` and ``-``.

    By example (``docs/example_plugin.py`` is a complete plugin)::

        import numpy as np

        from smarteval.measures import measure
        from smarteval.measures.segments import in_top, safe_div

        @measure("P_of_R", params="cutoffs", default=(10,))
        def precision_of_relevant(r, k):
            \"\"\"Relevant documents among the first k over min(k, R).\"\"\"
            return safe_div(in_top(r.is_rel, r.offsets, k), np.minimum(k, r.num_rel))
    """
    def register(func: Callable) -> Callable:
        load_modules()             # smarteval's names are taken, and listed first
        key, label = _loading[-1] if _loading else (func.__module__, f"module {func.__module__}")
        try:
            check_options(params, average, value)
        except ValueError as exc:
            raise UsageError(f"{label}: measure {name!r}: {exc}") from None
        _check_name(name, key, label)
        REGISTRY[name] = entry(
            PluginMeasure, name, _checked(func, name, label, value), params=params,
            default=default, average=average, value=value, per_query=per_query,
            versions=versions, origin="plugin", needs_num_docs=needs_num_docs,
            micro=None if micro is None else _checked(micro, name, label, "micro"),
            ties=None if ties is None else _checked(ties, name, label, value),
            orders=orders, order_free=order_free, plugin=key)
        return func

    return register


def _checked(func: Callable, name: str, label: str, value: str) -> Callable:
    """``func``, a plugin's function, run with standard output sent to standard error
    (its prints stay out of the results), an exception it raises made one
    :class:`~smarteval.errors.UsageError` naming the plugin, and its result checked
    (:func:`_check_result`)."""
    import contextlib
    import functools

    @functools.wraps(func)
    def run(r, *args, **kwargs):
        try:
            with contextlib.redirect_stdout(sys.stderr):
                out = func(r, *args, **kwargs)
        except SmartevalError:
            raise
        except (Exception, SystemExit) as exc:      # sys.exit() ends no evaluation
            raise UsageError(f"{label}: measure {name!r} failed: "
                             f"{_why(exc, _source(func))}") from None
        if value == "micro":
            if not isinstance(out, tuple) or len(out) != 2:
                raise UsageError(f"{label}: measure {name!r}'s micro function returned "
                                 f"{type(out).__name__}, not (numerators, denominators)")
            return tuple(_check_result(v, r, name, label, "float") for v in out)
        return _check_result(out, r, name, label, value)
    return run


def _source(func: Callable) -> str:
    code = getattr(func, "__code__", None)
    return code.co_filename if code is not None else ""


def _check_result(out, r, name: str, label: str, value: str) -> np.ndarray:
    """A plugin measure's result as an array of one value per query of ``r``: numbers
    (real and finite; whole numbers for ``value="int"``) or, for ``value="str"``, text."""
    def refuse(problem: str) -> UsageError:
        return UsageError(f"{label}: measure {name!r} returned {problem}: a measure returns "
                          f"one {'text' if value == 'str' else 'number'} per query, a numpy "
                          f"array of shape ({r.num_queries},)")
    if isinstance(out, np.ma.MaskedArray):
        out = np.ma.filled(out.astype(np.float64), np.nan)     # a masked value is no value
    try:
        arr = np.asarray(out)
    except (TypeError, ValueError):
        raise refuse(type(out).__name__) from None
    if arr.shape != (r.num_queries,):
        raise refuse(f"an array of shape {arr.shape}")
    kind = arr.dtype.kind
    if value == "str":
        if kind not in "US" and not (kind == "O" and all(isinstance(v, str) for v in arr)):
            raise refuse(f"values of type {arr.dtype}")
        return arr
    if kind not in "biuf":
        raise refuse(f"values of type {arr.dtype}")
    if kind == "f" and not np.isfinite(arr).all():
        q = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise UsageError(f"{label}: measure {name!r} returned {arr[q]} for query "
                         f"{r.qids[q]}: a measure's values are finite numbers")
    if value == "int" and kind == "f" and (arr != np.round(arr)).any():
        raise refuse("values that are not whole numbers (it is registered with value='int')")
    return arr


def _check_name(name: str, key: str, label: str) -> None:
    """Refuse a name a plugin may not take (see :func:`measure`)."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise UsageError(f"{label}: {name!r} cannot name a measure: use letters, digits, "
                         "'_' and '-' ('.' starts -m's parameters)")
    if name in nicknames(10):
        raise UsageError(f"{label}: {name!r} is a nickname of trec_eval's measures: give "
                         "your measure another name")
    if name in ALIASES or name in RANX_NAMES:
        kind = "an ir_measures" if name in ALIASES else "a ranx"
        raise UsageError(f"{label}: {name!r} is {kind} name -m reads: give your measure "
                         "another name")
    old = REGISTRY.get(name)
    if old is None or old.plugin == key:        # new, or its module run again
        return
    if old.plugin is None:
        raise UsageError(f"{label}: {name!r} is one of smarteval's measures: give yours "
                         "another name")
    raise UsageError(f"{label}: {name!r} is already a measure of plugin {old.plugin}: "
                     "give yours another name")


def _is_path(spec: str) -> bool:
    return spec.endswith(".py") or "/" in spec or os.sep in spec


def load_plugin(spec: str, label: str | None = None) -> tuple[str, ...]:
    """Load the plugin ``spec``, a module name or the path of a ``.py`` file; the names
    of the measures it registered. Loading a plugin again changes nothing.

    Any problem (no such module or file, an error while importing it, a name it may not
    take, no measure registered) is one :class:`~smarteval.errors.UsageError` naming the
    plugin (``label``: how messages name it; by default ``plugin SPEC``).
    """
    path = _is_path(spec)
    key = os.path.abspath(spec) if path else spec
    if key in PLUGINS:
        return PLUGINS[key]
    label = label or f"plugin {spec}"
    if path and not os.path.isfile(key):
        raise UsageError(f"{label}: no such file" if not os.path.isdir(key)
                         else f"{label}: a directory, not a .py file")
    _loading.append((key, label))
    try:
        import contextlib
        with contextlib.redirect_stdout(sys.stderr):    # its prints stay out of the results
            if path:
                _exec_file(key)
            else:
                importlib.import_module(spec)
    except SmartevalError:
        _forget(key)
        raise
    except ModuleNotFoundError as exc:
        _forget(key)
        if not path and exc.name is not None and (spec + ".").startswith(exc.name + "."):
            raise UsageError(f"{label}: no module named {spec!r} (give an importable module's "
                             "name, or the path of a .py file)") from None
        raise UsageError(f"{label}: importing it failed: {_why(exc, key)}") from None
    except (Exception, SystemExit) as exc:          # sys.exit() ends no command
        _forget(key)
        raise UsageError(f"{label}: importing it failed: {_why(exc, key)}") from None
    finally:
        _loading.pop()
    names = tuple(n for n, m in REGISTRY.items() if m.plugin == key)
    if not names:
        raise UsageError(f"{label}: it registers no measure (decorate a function with "
                         "smarteval.measures.measure)")
    PLUGINS[key] = names
    return names


def plugin_files() -> list[str]:
    """The source files of the plugins loaded (a file given, or a module's file)."""
    files = []
    for key in PLUGINS:
        if os.path.isabs(key):
            files.append(key)
            continue
        module = sys.modules.get(key)
        origin = getattr(module, "__file__", None)
        if origin:
            files.append(origin)
    return files


def _forget(key: str) -> None:
    """Drop what a plugin that failed to load registered."""
    for name in [n for n, m in REGISTRY.items() if m.plugin == key]:
        del REGISTRY[name]


def _why(exc: BaseException, key: str) -> str:
    """An exception in one line, with the file and line of the plugin's code it came from."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{type(exc).__name__}: {exc.msg} ({exc.filename}, line {exc.lineno})"
    import traceback
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not f.filename.startswith("<frozen") and f.filename != __file__]
    frames = [f for f in frames if f.filename == key] or frames     # a .py file's own line
    if frames:
        text += f" ({frames[-1].filename}, line {frames[-1].lineno})"
    return text


def _exec_file(path: str) -> None:
    """Import the ``.py`` file at ``path`` as a module of its own (in ``sys.modules``, under
    its file name when that name is free)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    name = stem if stem.isidentifier() and stem not in sys.modules else \
        f"smarteval_plugin_{len(sys.modules)}_{abs(hash(path))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"plugin {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise


def load_entry_points() -> None:
    """Load the plugins of the entry-point group ``smarteval.measures`` of the installed
    packages (each entry point names a module: ``name = package.module``), once."""
    if ENTRY_POINTS["loaded"]:
        return
    ENTRY_POINTS["loaded"] = True
    from importlib.metadata import entry_points
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(ep, "dist", None)
        where = f" of {dist.name}" if dist is not None else ""
        load_plugin(ep.module, f"plugin {ep.module} (entry point {ep.name!r}{where})")

