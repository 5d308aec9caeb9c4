"""The gate of a CI job: the runs worse than their baseline (compare and report's
``--fail-if``) and the values past a bound (evaluate's ``--require``), each a line.

A gate never changes what a command prints: the command writes its output, then, when
a gate failed, says each failure on standard error and exits with
:data:`~smarteval.errors.REGRESSED` (:class:`~smarteval.errors.Regressed`).
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from smarteval.errors import RefusedMeasure, UsageError
from smarteval.numerals import decimal

#: What ``--fail-if`` takes, and what each fails on.
FAIL_IF = {
    "worse": "a run's mean below its baseline's by more than --tolerance",
    "significantly-worse": "a run significantly worse than its baseline (the adjusted p "
                           "below --alpha) and its mean below the baseline's by more than "
                           "--tolerance",
}

#: The comparisons ``--require`` takes, longest first (``>=`` before ``>``).
_OPERATORS = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}
_REQUIREMENT = re.compile(r"^\s*(?P<measure>[^<>=]+?)\s*(?P<op>>=|<=|>|<)\s*"
                          r"(?P<bound>[^<>=]+?)\s*$")


def check_gate(fail_if: str | None, tolerance: float) -> None:
    """Refuse a ``--fail-if`` or ``--tolerance`` that cannot work."""
    if fail_if is not None and fail_if not in FAIL_IF:
        raise UsageError(f"--fail-if {fail_if!r}: expected one of {', '.join(FAIL_IF)}")
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float, np.number)) \
            or not math.isfinite(tolerance) or tolerance < 0:
        raise UsageError(f"--tolerance must be a number, 0 or more, not {tolerance!r}")


def _value(v: float) -> str:
    return "undefined" if math.isnan(v) else f"{v:.4f}"


def _worse(run: str, base: str, measure: str, mean_run: float, mean_base: float,
           tolerance: float, significant: str = "") -> str:
    diff = mean_run - mean_base
    within = f"more than --tolerance {tolerance:g}" if tolerance else "--tolerance 0"
    how = f"significantly worse ({significant})" if significant else "worse"
    return (f"{run} is {how} than the baseline {base} on {measure}: {_value(mean_run)} "
            f"against {_value(mean_base)} ({diff:+.4g}, {within})")


def _below(mean_run: float, mean_base: float, tolerance: float) -> bool:
    return not (math.isnan(mean_run) or math.isnan(mean_base)) \
        and mean_run < mean_base - tolerance


def _undefined(run: str, base: str, measure: str, mean_run: float, mean_base: float) -> str:
    """The failure of a comparison without a mean (no query with a value in the run and
    the baseline): the gate cannot tell it is not worse, as --require fails an undefined
    value."""
    return (f"{run} cannot be compared with the baseline {base} on {measure}: "
            f"{_value(mean_run)} against {_value(mean_base)} (no query has a value in both)")


def _unknown(mean_run: float, mean_base: float) -> bool:
    return math.isnan(mean_run) or math.isnan(mean_base)


def comparison_failures(report, fail_if: str | None, tolerance: float = 0.0) -> list[str]:
    """The failures of ``compare --fail-if`` in ``report``
    (:class:`~smarteval.stats.report.Report`): one line per run and measure that fails,
    in the report's order; none without ``fail_if``."""
    check_gate(fail_if, tolerance)
    if fail_if is None:
        return []
    out = [_undefined(m["run"], m["baseline"], m["measure"], m["mean_run"], m["mean_baseline"])
           for m in report.merit if _unknown(m["mean_run"], m["mean_baseline"])]
    if fail_if == "worse":
        for m in report.merit:
            if _below(m["mean_run"], m["mean_baseline"], tolerance):
                out.append(_worse(m["run"], m["baseline"], m["measure"], m["mean_run"],
                                  m["mean_baseline"], tolerance))
        return out
    found: dict[tuple[str, str], list[dict]] = {}
    for row in report.rows:
        if row["significant"] and _below(row["mean_run"], row["mean_baseline"], tolerance):
            found.setdefault((row["run"], row["measure"]), []).append(row)
    for rows in found.values():
        r = rows[0]
        tests = "; ".join(f"{x['test']}, adjusted p {x['p_adjusted']:.2g} < {report.alpha:g}"
                          for x in rows)
        out.append(_worse(r["run"], r["baseline"], r["measure"], r["mean_run"],
                          r["mean_baseline"], tolerance, tests))
    return out


def table_failures(table, fail_if: str | None, tolerance: float = 0.0) -> list[str]:
    """The failures of ``report --fail-if`` in ``table``
    (:class:`~smarteval.stats.table.Table`): each run but the baselines against each
    baseline, one line per run, baseline and measure that fails; none without
    ``fail_if``."""
    check_gate(fail_if, tolerance)
    if fail_if is None:
        return []
    if not table.baselines:
        raise UsageError("--fail-if compares runs with a baseline: give --baseline RUN or "
                         "--baseline-results FILE")
    out = []
    for m, measure in enumerate(table.measures):
        for k, (a, b) in enumerate(table.pairs.tolist()):
            if a in table.baselines:            # a baseline is not a run under test
                continue
            mean_run, mean_base = float(table.means[a, m]), float(table.means[b, m])
            if _unknown(mean_run, mean_base):
                out.append(_undefined(table.runs[a], table.runs[b], measure, mean_run,
                                      mean_base))
                continue
            if not _below(mean_run, mean_base, tolerance):
                continue
            if fail_if == "worse":
                out.append(_worse(table.runs[a], table.runs[b], measure, mean_run, mean_base,
                                  tolerance))
            elif table.better[k, m] < 0:
                out.append(_worse(table.runs[a], table.runs[b], measure, mean_run, mean_base,
                                  tolerance, f"{table.test}, adjusted p "
                                  f"{table.p_adjusted[k, m]:.2g} < {table.alpha:g}"))
    return out


# --------------------------------------------------------------------------- --require

@dataclass(frozen=True)
class Requirement:
    """A bound a summary value must keep (``--require "map>=0.25"``): ``measure`` as given
    (without the suffix of an output of ``--unjudged range``: ``map`` of ``map_min``),
    ``name`` the output it names (``P.10`` names ``P_10``, ``P.10_min`` ``P_10_min``).
    ``unknown`` is the grammar's refusal of a name that is no measure's: it may still be a
    name the evaluation prints, looked up there, and the refusal is said if it is not."""

    text: str
    measure: str
    name: str
    op: str
    bound: float
    unknown: str | None = None

    def holds(self, value: float) -> bool:
        return not math.isnan(value) and bool(_OPERATORS[self.op](value, self.bound))


def parse_requirement(text: str, version: int = 9) -> Requirement:
    """``MEASURE OP NUMBER`` (``map>=0.25``, ``P.10 > 0.3``, ``nDCG@10>=0.4``) into a
    :class:`Requirement`; a measure that names one value, an operator of ``>=``, ``>``,
    ``<=``, ``<``, a finite number."""
    from smarteval.measures.grammar import RANGE_SUFFIXES, parse_measures
    found = _REQUIREMENT.match(text)
    if found is None:
        raise UsageError(f"--require {text!r}: expected MEASURE>=NUMBER (or >, <=, <), such "
                         "as map>=0.25")
    measure, op, bound = found.group("measure", "op", "bound")
    try:
        number = decimal(bound)
    except ValueError:
        raise UsageError(f"--require {text!r}: {bound!r} is not a finite number") from None
    suffix = ""
    try:
        requests = parse_measures([measure], version)
    except RefusedMeasure:
        raise
    except UsageError as exc:
        # --unjudged range's outputs of a measure: map_min, P.10_max, ndcg_if_relevant
        suffix = next((s for s in RANGE_SUFFIXES if measure.endswith(s)
                       and len(measure) > len(s)), "")
        try:
            if not suffix:
                raise
            requests = parse_measures([measure[:-len(suffix)]], version)
        except RefusedMeasure:
            raise
        except UsageError:
            # a name the evaluation may still print, looked up there
            return Requirement(text, measure, measure, op, number, unknown=str(exc))
    measure = measure[:len(measure) - len(suffix)]
    outputs = [o.name + suffix for rq in requests for o in rq.outputs()]
    if len(outputs) != 1:
        raise UsageError(f"--require {text!r}: {measure} gives {len(outputs)} values ("
                         + ", ".join(outputs) + "): name one (P.10, not P)")
    return Requirement(text, measure, outputs[0], op, number)


def _range_hint(name: str) -> str:
    """What else a required output of ``--unjudged range`` needs: the option, and for a
    bound a measure that has one."""
    from smarteval.measures.grammar import RANGE_SUFFIXES
    suffix = next((s for s in RANGE_SUFFIXES if name.endswith(s)), None)
    if suffix is None:
        return ""
    if suffix == "_judged":
        return " --unjudged range"
    return (" --unjudged range (which gives NAME_min and NAME_max of the measures it "
            "bounds, NAME_if_relevant of the others: the man page's UNJUDGED DOCUMENTS)")


def requirement_failures(evaluations: Iterable, requirements: Sequence[Requirement]
                         ) -> list[str]:
    """The failures of ``evaluate --require``: each run whose summary value of a required
    measure is past its bound (or undefined), one line each. A required measure the
    evaluations do not give is refused (:class:`~smarteval.errors.UsageError`)."""
    out = []
    for ev in evaluations:
        labels: dict[str, Any] = {}
        for o in ev.outputs:
            if o.measure.value != "str":
                labels.setdefault(o.name, o)
                labels.setdefault(ev.label(o), o)
        for req in requirements:
            o = labels.get(req.name)
            if o is None and req.unknown is not None:
                raise UsageError(req.unknown)
            if o is None or ev.summary[o.name] is None:
                raise UsageError(f"--require {req.text!r}: {req.name} is not among the "
                                 "measures evaluated: add -m " + req.measure
                                 + _range_hint(req.name))
            value = float(ev.summary[o.name])
            if not req.holds(value):
                out.append(f"{ev.name} fails --require {req.text!r}: its {ev.label(o)} is "
                           f"{_value(value)}")
    return out
