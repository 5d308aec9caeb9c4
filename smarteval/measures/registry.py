"""The measure registry: one entry per measure, filled by the decorators of the measure modules.

Pure data: :mod:`smarteval.measures` imports trec_eval's measure module, and the others
when a name is not found among those loaded or every measure is listed
(:func:`load_modules`); :mod:`smarteval.measures.grammar` reads ``-m`` arguments
against it.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from smarteval.errors import UsageError
from smarteval.ranking.programs import PROGRAMS
from smarteval.records import record

#: How a measure's parameter string is read and how its output is named.
#:   none     no parameters                               map
#:   cutoffs  integer list, one output each, name_K       P.5,10 -> P_5 P_10
#:   levels   float list, one output each, name_%.2f      iprec_at_recall..1,.5
#:                                                        -> iprec_at_recall_0.10
#:   floats   float list, one output, name or name_RAW    11pt_avg..25,.5 ; utility.2,-1,0,0
#:   gains    rel=gain pairs, one output, name_RAW        ndcg.1=3,2=9
#:   int      one integer, one output, name or name_RAW   relstring.20
PARAM_SHAPES = ("none", "cutoffs", "levels", "floats", "gains", "int")

#: How per-query values become the summary value.
#:   mean   sum over queries / number of queries    gmean  exp(mean(log(max(v, 1e-5))))
#:   sum    sum over queries                        count  number of queries (num_q)
#:   tag    the run tag (runid)                     none   no summary line (relstring)
#:   reported  mean over the queries that have a value: NaN is "no value" (the measure's
#:          program reports none for the query), left out of the mean and not printed
#:          for the query (smarteval.aggregate.has_value)
AVERAGES = ("mean", "gmean", "sum", "count", "tag", "none", "reported")

GMEAN_FLOOR = 1e-5

@record(frozen=True)
class Origin:
    """Whose definition a measure follows (its entry's ``origin``), and each behaviour of
    smarteval's that this decides, named."""

    name: str
    #: how the man page and README say where the measure comes from
    words: str
    #: the program whose order of documents its measures read unless their entry names
    #: another (:data:`smarteval.ranking.programs.PROGRAMS`)
    program: str
    #: trec_eval's own rules: parameters read with C's atof (NaN and infinities as it
    #: makes them), a level given twice in a ``gains`` list accepted, and the ranking's
    #: checks of trec_eval's names applied
    trec_eval_rules: bool = False
    #: ``-c`` scores a query without results on its empty ranking (not trec_eval's rules)
    scores_empty_ranking: bool = False
    #: every value is one query's alone, computed from plain qrels: runs may be read in
    #: blocks of whole queries
    one_query_alone: bool = False
    #: every distinct parameter set asked for (``floats``, ``gains``, ``int``) is a
    #: request of its own
    set_per_request: bool = False
    #: reads diversity qrels' subtopics; the one order ``--order-by rank`` is for
    reads_subtopics: bool = False
    #: reads cwl_eval's gains, which may be fractional, and ``--cwl-costs``
    reads_gains: bool = False


#: The origins a measure may name, each what it switches; the ``@measure`` decorator
#: refuses any other. Pick the program whose numbers the measure must give: ``trec``
#: (trec_eval's own), ``smart`` (smarteval's, from the SMART literature), ``ir``
#: (ir_measures' names trec_eval lacks: the entry names its ``program``), ``ntcir``,
#: ``ndeval``, ``cwl``, ``sample``; ``plugin`` is every plugin's.
ORIGINS: dict[str, Origin] = {o.name: o for o in (
    Origin("trec", "trec_eval", "trec_eval", trec_eval_rules=True, one_query_alone=True),
    Origin("smart", "SMART", "smarteval", scores_empty_ranking=True, one_query_alone=True,
           set_per_request=True),
    Origin("ir", "as in ir_measures", "smarteval", one_query_alone=True),
    Origin("ndeval", "as in ndeval", "ndeval", reads_subtopics=True),
    Origin("cwl", "as in cwl_eval", "cwl_eval", set_per_request=True, reads_gains=True),
    Origin("sample", "as in sample_eval (-R sample_qrels)", "sample_eval"),
    Origin("ntcir", "as in NTCIREVAL", "ntcireval", one_query_alone=True,
           set_per_request=True),
    Origin("plugin", "a plugin's", "smarteval"),
)}


def _of_origin(switch: str) -> property:
    """A measure's property: ``switch``, a field of :class:`Origin`, of its origin."""
    return property(lambda m: getattr(ORIGINS[m.origin], switch),
                    doc=f":attr:`Origin.{switch}` of its origin.")


def check_origin(origin: str) -> None:
    """Refuse an origin :data:`ORIGINS` does not hold."""
    if origin not in ORIGINS:
        raise ValueError(f"unknown origin {origin!r} (one of {', '.join(ORIGINS)})")


@record(frozen=True)
class Measure:
    """A registry entry: the function that computes a measure for all queries and its metadata."""

    name: str
    func: Callable[..., np.ndarray]
    params: str = "none"
    default: tuple = ()
    average: str = "mean"
    value: str = "float"            # float | int | str
    per_query: bool = True          # printed per query under -q
    versions: frozenset = frozenset({9, 10})
    #: whose definition it follows: a name of :data:`ORIGINS`, which says what it switches
    origin: str = "trec"
    needs_num_docs: bool = False
    micro: Callable[..., tuple[np.ndarray, np.ndarray]] | None = None
    ties: Callable[..., np.ndarray] | None = None   # its own exact expectation over tied orders
    orders: bool = False            # written over an order object: takes o="exact"|"expected"
    order_free: bool = False        # the value does not depend on the order of the ranking
    #: the judgements it reads under trec_eval's -R: qrels (any qrels format), prefs
    #: (-R prefs or qrels_prefs), qrels_jg, or sample_eval (-R sample_qrels; with other
    #: qrels, one stratum); under another -R it is refused
    rel_info: str = "qrels"
    help: str = ""
    doc: str = ""
    #: the plugin that registered it (a module name or a .py file's path); None for
    #: smarteval's own measures
    plugin: str | None = None
    #: other per-query numbers the function gives through its ``quantity`` keyword, each
    #: asked for as ``NAME_QUANTITY`` (cwl_eval's ``INST_ETU``: :meth:`quantity`)
    quantities: tuple[str, ...] = ()
    #: the quantity this entry computes, for an entry made by :meth:`quantity`
    of: str | None = None
    #: the reference program whose order of documents the measure reads
    #: (:data:`smarteval.ranking.programs.PROGRAMS`); its origin's by default
    program: str = ""
    #: its outputs' names as its program prints them, where they are not smarteval's
    #: (``iP{}``: sample_eval's iP10 for cut-off 10); given to the requests of its own -R
    #: format (:func:`smarteval.measures.grammar.printed_as`), where no name of trec_eval's
    #: can clash with them
    label: str = ""
    #: the summary value when it is not the average or sum of the per-query values:
    #: ``total(ranked, values, n)``, n the number of queries averaged over (sample_eval's
    #: totals over every topic of its qrels, or summed in the order it sums them)
    total: Callable[..., object] | None = None
    #: the names a ``gains`` measure's pairs may hold besides grades (trec_eval 10.0's rbp:
    #: ``p``; NTCIREVAL's: ``beta``, ``k``...); ``L`` lets a grade be written as
    #: NTCIREVAL's level, ``L2=3``
    keys: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_origin(self.origin)
        if not self.program:
            object.__setattr__(self, "program", ORIGINS[self.origin].program)
        if self.program not in PROGRAMS:
            raise ValueError(f"{self.name}: unknown program {self.program!r} (one of "
                             f"{', '.join(PROGRAMS)})")

    def __reduce__(self):
        # measures travel to worker processes by name (their entries hold lambdas)
        return (_restore, (self.name,))

    def quantity(self, q: str) -> Measure:
        """The entry computing quantity ``q`` of this measure, named ``NAME_q``: the same
        function, called with ``quantity=q`` (the registry keeps one entry per measure)."""
        if q not in self.quantities:
            raise ValueError(f"{self.name} has no quantity {q!r}")
        return replace(self, name=f"{self.name}_{q}",
                       func=functools.partial(self.func, quantity=q), quantities=(),
                       of=self.name, help=f"{q} of {self.name}: {self.help}")

    #: what its origin switches (:class:`Origin`), asked of the measure
    trec_eval_rules = _of_origin("trec_eval_rules")
    scores_empty_ranking = _of_origin("scores_empty_ranking")
    reads_subtopics = _of_origin("reads_subtopics")
    reads_gains = _of_origin("reads_gains")

    @property
    def set_per_request(self) -> bool:
        """Whether each distinct parameter set asked for is a request of its own: its
        origin's :attr:`Origin.set_per_request`, for a measure of one parameter set."""
        return ORIGINS[self.origin].set_per_request and self.params in ("floats", "gains", "int")

    @property
    def blockable(self) -> bool:
        """Whether its values may be computed a block of whole queries at a time: its
        origin's are one query's alone (:attr:`Origin.one_query_alone`), it reads plain
        qrels and has no total over the qrels."""
        return (ORIGINS[self.origin].one_query_alone and self.total is None
                and self.rel_info == "qrels")

    @property
    def tie_average(self) -> bool:
        """Whether the measure has an exact average over the orders of tied documents."""
        return self.order_free or self.orders or self.ties is not None

    def check_ties(self, ties: str) -> None:
        """Refuse ``--ties average`` for a measure without an exact average over tied orders."""
        if ties == "average" and not self.tie_average:
            raise UsageError(
                f"--ties average: {self.name} has no exact average over the orders of "
                "tied documents (it is not linear in the ranks); use --ties docno "
                "or --ties random")

    def function(self, ties: str) -> Callable[..., np.ndarray]:
        """The function computing this measure under the ``ties`` policy."""
        if ties != "average" or self.order_free:
            return self.func
        self.check_ties(ties)
        if self.orders:
            return functools.partial(self.func, o="expected")
        assert self.ties is not None
        return self.ties

    @property
    def default_string(self) -> str:
        return ",".join(_fmt_default(v) for v in self.default)


def _fmt_default(v) -> str:
    if isinstance(v, tuple):
        return f"{v[0]}={_num(v[1])}"
    return _num(v)


def _num(v) -> str:
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return repr(v)
    return str(v)


REGISTRY: dict[str, Measure] = {}

#: The measure modules, in the order their measures are listed (trec_eval's first, the
#: plugins' after all of them). trec_eval's is imported with the package; the others
#: only when needed (a measure of trec_eval's alone starts without them). A module is
#: where a measure is written, not its origin: ``extra`` holds ``ir`` and ``smart`` ones.
MODULES = ("trec", "prefs", "smart", "extra", "swets", "web", "diversity", "cwl", "sample",
           "ntcir")
#: whether every module of MODULES was imported
MODULES_LOADED: dict[str, bool] = {"loaded": False}


def load_modules() -> None:
    """Import every measure module of MODULES (once): the registry is then complete,
    but for the plugins."""
    if MODULES_LOADED["loaded"]:
        return
    MODULES_LOADED["loaded"] = True
    for module in MODULES:
        importlib.import_module(f"smarteval.measures.{module}")


def _rank(m: Measure) -> int:
    """Where a measure's module comes in MODULES (plugins after all of them)."""
    package, _, module = m.func.__module__.rpartition(".")
    if m.plugin is None and package == __package__ and module in MODULES:
        return MODULES.index(module)
    return len(MODULES)


def _keep_module_order(new: Measure) -> None:
    """Put the registry back in MODULES order when ``new``'s module was imported before
    one listed ahead of it (a module importing another's measure module)."""
    items = list(REGISTRY.values())
    if len(items) > 1 and _rank(items[-2]) > _rank(new):
        ordered = sorted(items, key=_rank)          # stable: each module's own order kept
        REGISTRY.clear()
        REGISTRY.update((m.name, m) for m in ordered)

#: plugin (module name or .py file's absolute path) -> the measures it registered, in order
PLUGINS: dict[str, tuple[str, ...]] = {}
#: whether the installed packages' ``smarteval.measures`` entry points were looked up
#: (once, and only when a name is not found or every measure is listed: it costs a scan
#: of every installed distribution)
ENTRY_POINTS: dict[str, bool] = {"loaded": False}
#: how they are looked up (:func:`smarteval.measures.plugins.load_entry_points`, set when
#: the package is imported), so that the grammar can ask without importing it
LOADERS: list[Callable[[], None]] = []


def load_installed_plugins() -> None:
    """Look up the installed packages' plugins (once; see ``ENTRY_POINTS``)."""
    load_modules()
    for load in LOADERS:
        load()

#: What a measure's per-query values are.
VALUES = ("float", "int", "str")

#: The judgements a measure reads (see ``Measure.rel_info``).
REL_INFOS = ("qrels", "prefs", "qrels_jg", "sample_eval")


def _restore(name: str) -> Measure:
    """The entry of a measure unpickled by name (every measure module imported if needed;
    for a quantity ``NAME_Q``, its measure's)."""
    if name not in REGISTRY:
        load_modules()
    m = REGISTRY.get(name) or quantity_entry(name)
    assert m is not None, name
    return m


def quantity_entry(name: str) -> Measure | None:
    """The entry of ``NAME_QUANTITY`` (:meth:`Measure.quantity`), None when ``name`` is not
    one."""
    base, _, q = name.rpartition("_")
    m = REGISTRY.get(base)
    return m.quantity(q) if m is not None and q in m.quantities else None


def measure(name: str, *, params: str = "none", default: Sequence = (), average: str = "mean",
            value: str = "float", per_query: bool = True, versions: Sequence[int] = (9, 10),
            origin: str = "trec", needs_num_docs: bool = False,
            micro: Callable | None = None, ties: Callable | None = None,
            orders: bool = False, order_free: bool = False, rel_info: str = "qrels",
            quantities: Sequence[str] = (), program: str = "", label: str = "",
            total: Callable | None = None, keys: Sequence[str] = ()):
    """Register the decorated function as measure ``name``; the decorator is the registry entry.

    The function receives a :class:`~smarteval.columns.Ranked` and, for ``cutoffs`` and
    ``levels``, one parameter value; for ``floats``, ``gains`` and ``int`` the whole
    parsed parameter tuple. It returns one value per query. The first line of its
    docstring is the help text. The measures of plugins register through
    :func:`smarteval.measures.measure`, which checks what a plugin may name.
    """
    check_options(params, average, value)
    try:
        check_origin(origin)
    except ValueError as exc:
        raise ValueError(f"measure {name!r}: {exc}") from None
    if rel_info not in REL_INFOS:
        raise ValueError(f"unknown rel_info {rel_info!r} (one of {', '.join(REL_INFOS)})")

    def register(func):
        if name in REGISTRY:
            raise ValueError(f"measure {name!r} registered twice")
        REGISTRY[name] = entry(
            Measure, name, func, params=params, default=default, average=average,
            value=value, per_query=per_query, versions=versions, origin=origin,
            needs_num_docs=needs_num_docs, micro=micro, ties=ties, orders=orders,
            order_free=order_free, rel_info=rel_info, quantities=tuple(quantities),
            program=program, label=label, total=total, keys=tuple(keys))
        _keep_module_order(REGISTRY[name])
        return func

    return register


def check_options(params: str, average: str, value: str) -> None:
    """Refuse a parameter shape, average or kind of value the registry does not know."""
    if params not in PARAM_SHAPES:
        raise ValueError(f"unknown parameter shape {params!r} (one of {', '.join(PARAM_SHAPES)})")
    if average not in AVERAGES:
        raise ValueError(f"unknown average {average!r} (one of {', '.join(AVERAGES)})")
    if value not in VALUES:
        raise ValueError(f"unknown kind of value {value!r} (one of {', '.join(VALUES)})")


def entry(cls: type[Measure], name: str, func: Callable, *, default: Sequence = (),
          versions: Sequence[int] = (9, 10), **fields) -> Measure:
    """The registry entry (of class ``cls``) of ``func`` as measure ``name``: its help is
    the first paragraph of the docstring, its documentation the whole docstring."""
    doc = (func.__doc__ or "").strip()
    return cls(name=name, func=func, default=tuple(default), versions=frozenset(versions),
               help=_summary(doc), doc=_dedent(doc), **fields)


def _summary(doc: str) -> str:
    """The help line: the docstring's first paragraph, joined into one line."""
    return " ".join(doc.split("\n\n")[0].split()) if doc else ""


def _dedent(doc: str) -> str:
    import inspect
    return inspect.cleandoc(doc)
