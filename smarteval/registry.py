"""The measure registry: one entry per measure, its parameter grammar, nicknames and aliases."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from smarteval.errors import UsageError

#: How a measure's parameter string is read and how its output is named.
#:   none     no parameters                               map
#:   cutoffs  integer list, one output each, name_K       P.5,10 -> P_5 P_10
#:   levels   float list, one output each, name_%.2f      iprec_at_recall..1,.5 -> iprec_at_recall_0.10
#:   floats   float list, one output, name or name_RAW    11pt_avg..25,.5 ; utility.2,-1,0,0
#:   gains    rel=gain pairs, one output, name_RAW        ndcg.1=3,2=9
#:   int      one integer, one output, name or name_RAW   relstring.20
PARAM_SHAPES = ("none", "cutoffs", "levels", "floats", "gains", "int")

#: How per-query values become the summary value.
#:   mean   sum over queries / number of queries    gmean  exp(mean(log(max(v, 1e-5))))
#:   sum    sum over queries                        count  number of queries (num_q)
#:   tag    the run tag (runid)                     none   no summary line (relstring)
AVERAGES = ("mean", "gmean", "sum", "count", "tag", "none")

GMEAN_FLOOR = 1e-5


@dataclass(frozen=True)
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
    family: str = "trec"            # trec | smart | ir (ir_measures names trec_eval lacks)
    needs_num_docs: bool = False
    micro: Callable[..., tuple[np.ndarray, np.ndarray]] | None = None
    ties: Callable[..., np.ndarray] | None = None   # exact expectation over tied orders
    order_free: bool = False        # the value does not depend on the order of the ranking
    help: str = ""
    doc: str = ""

    def __reduce__(self):
        # measures travel to worker processes by name (their entries hold lambdas)
        return (_registered, (self.name,))

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


def _registered(name: str) -> "Measure":
    """The registry entry of ``name`` (how a pickled measure is restored)."""
    _load_measures()
    return REGISTRY[name]


def measure(name: str, *, params: str = "none", default: Sequence = (), average: str = "mean",
            value: str = "float", per_query: bool = True, versions: Sequence[int] = (9, 10),
            family: str = "trec", needs_num_docs: bool = False,
            micro: Callable | None = None, ties: Callable | None = None,
            order_free: bool = False):
    """Register the decorated function as measure ``name``; the decorator is the registry entry.

    The function receives a :class:`~smarteval.columns.Ranked` and, for ``cutoffs`` and
    ``levels``, one parameter value; for ``floats``, ``gains`` and ``int`` the whole
    parsed parameter tuple. It returns one value per query. The first line of its
    docstring is the help text.
    """
    if params not in PARAM_SHAPES:
        raise ValueError(f"unknown parameter shape {params!r}")
    if average not in AVERAGES:
        raise ValueError(f"unknown average {average!r}")

    def register(func):
        doc = (func.__doc__ or "").strip()
        if name in REGISTRY:
            raise ValueError(f"measure {name!r} registered twice")
        REGISTRY[name] = Measure(
            name=name, func=func, params=params, default=tuple(default), average=average,
            value=value, per_query=per_query, versions=frozenset(versions), family=family,
            needs_num_docs=needs_num_docs, micro=micro, ties=ties, order_free=order_free,
            help=doc.splitlines()[0] if doc else "", doc=_dedent(doc))
        return func

    return register


def _dedent(doc: str) -> str:
    import inspect
    return inspect.cleandoc(doc)


# --------------------------------------------------------------------------- requests

@dataclass(frozen=True)
class Output:
    """One printed measure: its output name and how to compute it."""

    name: str
    measure: Measure
    param: object = None           # the single cutoff/level, or the whole parameter tuple
    rel_level: int | None = None   # per-measure relevance level (ir_measures' rel=)

    def compute(self, ranked) -> np.ndarray:
        r = ranked if self.rel_level is None else ranked.at_level(self.rel_level)
        m = self.measure
        func = m.func
        if getattr(r.settings, "ties", "docno") == "average" and not m.order_free:
            # the exact mean over every order of each group of tied scores
            if m.ties is None:
                raise UsageError(
                    f"--ties average: {m.name} has no exact average over the orders of "
                    "tied documents (it is not linear in the ranks); use --ties docno "
                    "or --ties random")
            func = m.ties
        if m.params == "none":
            return func(r)
        return func(r, self.param)


@dataclass
class Request:
    """A measure asked for, with its parameters (``raw`` is None for the defaults)."""

    measure: Measure
    params: tuple
    raw: str | None = None
    rel_level: int | None = None
    label: str | None = None      # output name base for alias requests with rel=

    def outputs(self) -> list[Output]:
        m = self.measure
        base = self.label or m.name
        if m.params in ("cutoffs", "levels"):
            outs = []
            for k in self.params:
                suffix = str(k) if m.params == "cutoffs" else f"{k:3.2f}"
                sep = "@" if self.label else "_"      # ir_measures style keeps its own name
                outs.append(Output(f"{base}{sep}{suffix}", m, k, self.rel_level))
            return outs
        if m.params == "none":
            return [Output(base, m, None, self.rel_level)]
        name = base if self.raw is None else f"{base}_{self.raw}"
        return [Output(name, m, self.params, self.rel_level)]


NICKNAMES_9 = {
    "official": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"],
    "all_trec": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
                 "recall", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg",
                 "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
                 "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                 "set_F", "num_nonrel_judged_ret"],
    "set": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"],
}


def nicknames(version: int = 9) -> dict[str, list[str]]:
    """The measure nicknames of trec_eval ``version`` (data, not code)."""
    out = {k: list(v) for k, v in NICKNAMES_9.items()}
    if version >= 10:
        out["all_trec"] += ["rbp", "rbp_resid", "unj"]
    return out


# ir_measures-style names: NAME, NAME@k, NAME(rel=r)@k, NAME(rel=r)
_ALIAS = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                    r"(?:\((?P<args>[^)]*)\))?(?:@(?P<cut>[0-9.]+))?$")

#: ir_measures name -> (measure without cutoff, measure with cutoff)
ALIASES: dict[str, tuple[str | None, str | None]] = {
    "AP": ("map", "map_cut"),
    "MAP": ("map", "map_cut"),
    "GMAP": ("gm_map", None),
    "P": (None, "P"),
    "R": (None, "recall"),
    "Recall": (None, "recall"),
    "nDCG": ("ndcg", "ndcg_cut"),
    "NDCG": ("ndcg", "ndcg_cut"),
    "RR": ("recip_rank", "recip_rank_cut"),
    "MRR": ("recip_rank", "recip_rank_cut"),
    "Rprec": ("Rprec", None),
    "RPrec": ("Rprec", None),
    "Bpref": ("bpref", None),
    "BPref": ("bpref", None),
    "Success": (None, "success"),
    "NumRet": ("num_ret", None),
    "NumRel": ("num_rel", None),
    "NumRelRet": ("num_rel_ret", None),
    "NumQ": ("num_q", None),
    "infAP": ("infAP", None),
    "InfAP": ("infAP", None),
    "SetP": ("set_P", None),
    "SetR": ("set_recall", None),
    "SetF": ("set_F", None),
    "SetAP": ("set_map", None),
    "IPrec": (None, "iprec_at_recall"),
    "RBP": ("rbp", None),
    "Judged": (None, "judged"),
}


def _parse_params(m: Measure, raw: str, spec: str) -> tuple:
    """Read a trec_eval parameter string for measure ``m``."""
    try:
        if m.params == "cutoffs":
            # trec_eval reads each cutoff with atol: "23.4" is 23
            vals = sorted({int(float(x)) for x in raw.split(",") if x != ""})
            if not vals or any(v <= 0 for v in vals):
                raise ValueError
            return tuple(vals)
        if m.params == "levels":
            vals = sorted({float(x) for x in raw.split(",") if x != ""})
            if not vals:
                raise ValueError
            return tuple(vals)
        if m.params == "floats":
            return tuple(float(x) for x in raw.split(","))
        if m.params == "gains":
            pairs = []
            for item in raw.split(","):
                a, b = item.split("=")
                pairs.append((int(a), float(b)))
            return tuple(pairs)
        if m.params == "int":
            return (int(float(raw)),)
    except ValueError:
        pass
    hint = {"cutoffs": "positive integers, e.g. P.5,10",
            "levels": "numbers, e.g. iprec_at_recall..1,.5",
            "floats": "numbers separated by commas",
            "gains": "rel=gain pairs, e.g. ndcg.1=3,2=9",
            "int": "one integer, e.g. relstring.20",
            "none": "no parameters"}[m.params]
    raise UsageError(f"bad parameters in measure {spec!r}: expected {hint}")


def parse_measures(specs: Sequence[str], version: int = 9) -> list[Request]:
    """Turn ``-m`` arguments into requests in registry order.

    Accepts trec_eval's ``name``, ``name.params`` and nicknames, and ir_measures'
    ``NAME@k`` / ``NAME(rel=r)@k``. Every unknown name is reported at once, with close
    matches (exit 2).
    """
    _load_measures()
    nick = nicknames(version)
    available = {n: m for n, m in REGISTRY.items() if version in m.versions}
    order = {n: i for i, n in enumerate(REGISTRY)}
    requests: dict[tuple, Request] = {}
    unknown: list[str] = []

    def add(m: Measure, params: tuple, raw: str | None, rel_level=None, label=None,
            explicit=True):
        key = (m.name, rel_level, label)
        old = requests.get(key)
        if old is not None and not explicit:
            return
        if (old is not None and old.raw is not None and raw is not None
                and m.params in ("cutoffs", "levels")):
            params = tuple(sorted(set(old.params) | set(params)))
        requests[key] = Request(m, params, raw, rel_level, label)

    for spec_group in specs:
        for spec in _split_specs(spec_group):
            if spec in nick:
                for n in nick[spec]:
                    if n in available:
                        m = available[n]
                        add(m, m.default, None, explicit=False)
                continue
            name, dot, raw = spec.partition(".")
            if name in available:
                m = available[name]
                if dot and raw != "" and m.params != "none":
                    add(m, _parse_params(m, raw, spec), raw)
                elif dot and raw != "" and m.params == "none":
                    raise UsageError(f"measure {name!r} takes no parameters (got {spec!r})")
                else:
                    add(m, m.default, None)
                continue
            alias = _alias(spec, available)
            if alias is not None:
                add(*alias)
                continue
            unknown.append(spec)
    if unknown:
        names = list(available) + list(nick) + list(ALIASES)
        lines = []
        for u in unknown:
            close = difflib.get_close_matches(u.partition(".")[0].split("@")[0], names, n=3)
            lines.append(f"  {u}" + (f" (did you mean {', '.join(close)}?)" if close else ""))
        raise UsageError("unknown measure" + ("s" if len(unknown) > 1 else "") + ":\n"
                         + "\n".join(lines) + "\n  'smarteval measures' lists them all")
    return sorted(requests.values(), key=lambda r: (order[r.measure.name], r.label or ""))


def _split_specs(group: str) -> list[str]:
    # "-m P.5,10" is one spec; several specs may be given space-separated in one argument
    return [s for s in group.split() if s]


def _alias(spec: str, available: dict[str, Measure]):
    mt = _ALIAS.match(spec)
    if not mt or mt.group("name") not in ALIASES:
        return None
    plain, cut_name = ALIASES[mt.group("name")]
    rel_level = None
    if mt.group("args"):
        for arg in mt.group("args").split(","):
            key, _, val = arg.partition("=")
            if key.strip() != "rel":
                return None
            try:
                rel_level = int(val)
            except ValueError:
                return None
    label = spec.split("@")[0] if rel_level is not None else None
    cut = mt.group("cut")
    if cut is None:
        if plain is None or plain not in available:
            return None
        m = available[plain]
        return (m, m.default, None, rel_level, label)
    if cut_name is None or cut_name not in available:
        return None
    m = available[cut_name]
    return (m, _parse_params(m, cut, spec), cut, rel_level, label)


_LOADED = False


def _load_measures() -> None:
    """Import the measure modules (their decorators fill the registry)."""
    global _LOADED
    if not _LOADED:
        import smarteval.measures  # noqa: F401
        _LOADED = True


def all_measures() -> dict[str, Measure]:
    _load_measures()
    return REGISTRY
