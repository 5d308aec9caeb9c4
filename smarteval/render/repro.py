"""The reproduction report as text: tables (smart, markdown, latex), TSV/CSV rows or JSON."""

from __future__ import annotations

from smarteval.render.compare import UNDEFINED, p_text
from smarteval.render.formats import (
    Rows,
    chosen_table,
    fixed,
    full,
    readable,
    tabulate_table,
    writable,
    written,
)
from smarteval.stats.repro import Reproduction

#: The formats of ``repro``: not trec_eval's (it has no such output), not HTML.
FORMATS = writable(but=("trec", "html"))

#: The columns of ``-f tsv``/``csv``, which write one table, a level's: per pair and
#: measure (the default); per pair, query (``all``: the mean) and cut-off (``--ranking``);
#: per measure, with baselines (``--overall``). JSON holds every level.
RANKING_COLUMNS = ("pair", "orig", "repro", "query", "cutoff", "ktu", "rbo")
EFFECT_COLUMNS = ("pair", "orig", "repro", "measure", "mean_orig", "mean_repro", "rmse",
                  "nrmse", "test", "p_value", "queries_orig", "queries_repro")
OVERALL_COLUMNS = ("measure", "er", "delta_ri", "improvement_orig", "improvement_repro",
                   "ri_orig", "ri_repro")


def render_reproduction(rep: Reproduction, fmt: str, *, header: bool = True,
                        ranking: bool = False, overall: bool = False) -> str:
    """The reproduction in one of repro's formats (:data:`FORMATS`); TSV and CSV write the
    effectiveness level, or the level ``ranking`` or ``overall`` asks for."""
    return written(fmt, header=header, json=lambda: _json(rep),
                   tables=lambda: [_table(rep, fmt, ranking, overall)],
                   table=lambda f: _text(rep, f))


def ranking_rows(rep: Reproduction) -> list[list]:
    return [[r["pair"], *rep.names[r["pair"]], r["query"], r["cutoff"], r["ktu"], r["rbo"]]
            for r in rep.ranking]


def effect_rows(rep: Reproduction) -> list[list]:
    return [[r["pair"], *rep.names[r["pair"]], r["measure"], r["orig"], r["repro"], r["rmse"],
             r["nrmse"], rep.test, r["p_value"], r["queries_orig"], r["queries_repro"]]
            for r in rep.effects]


def overall_rows(rep: Reproduction) -> list[list]:
    return [[r[c] for c in ("measure", "er", "delta_ri", "improvement_orig",
                            "improvement_repro", "ri_orig", "ri_repro")] for r in rep.overall]


def _json(rep: Reproduction) -> dict:
    return {"kind": rep.kind, "test": rep.test,
            "runs": {p: {"orig": o, "repro": r} for p, (o, r) in rep.names.items()},
            "measures": rep.measures, "cutoffs": rep.cutoffs, "rbo_p": rep.rbo_p,
            "rbo_depth": rep.rbo_depth,
            "ranking": [dict(zip(RANKING_COLUMNS, row)) for row in ranking_rows(rep)],
            "effectiveness": [dict(zip(EFFECT_COLUMNS, row)) for row in effect_rows(rep)],
            "overall": [dict(zip(OVERALL_COLUMNS, row)) for row in overall_rows(rep)],
            "notes": rep.notes}


def _table(rep: Reproduction, fmt: str, ranking: bool, overall: bool) -> Rows:
    """The one table of ``-f tsv``/``csv``: the effectiveness level, or the level asked."""
    chosen = chosen_table(fmt, {"--ranking": ranking, "--overall": overall},
                          "effectiveness")
    cols, rows = {"effectiveness": (EFFECT_COLUMNS, effect_rows(rep)),
                  "--ranking": (RANKING_COLUMNS, ranking_rows(rep)),
                  "--overall": (OVERALL_COLUMNS, overall_rows(rep))}[chosen]
    return cols, [[full(v) for v in row] for row in rows]


def _p(v) -> str:
    """A p-value as compare prints one: "undefined" for NaN (the notes say why)."""
    return p_text(v, UNDEFINED)


def _text(rep: Reproduction, fmt: str) -> str:
    pairs = list(rep.names)
    what = "; ".join(f"{p}: {o} reproduced by {r}" for p, (o, r) in rep.names.items())
    out = [f"{rep.kind.capitalize()} ({what})", ""]
    if rep.ranking:
        queries = len({(r["pair"], r["query"]) for r in rep.ranking if r["query"] != "all"})
        out += [f"Ranking level: means over the queries ({queries // len(pairs)} a pair) of "
                "Kendall's tau Union (KTU) and rank-biased overlap (RBO, p = "
                f"{rep.rbo_p:g}, depth {rep.rbo_depth}) of each list cut at each cut-off", ""]
        means = {(r["pair"], r["cutoff"]): r for r in rep.ranking if r["query"] == "all"}
        head = ["cut-off"]
        for p in pairs:
            head += [f"KTU {p}", f"RBO {p}"] if len(pairs) > 1 else ["KTU", "RBO"]
        rows = [[str(k)] + [fixed(means[(p, k)][m]) for p in pairs for m in ("ktu", "rbo")]
                for k in rep.cutoffs]
        out += [tabulate_table(rows, head, fmt, ("right",) * len(head)), ""]
    rmse = "RMSE of the per-query values and nRMSE (normalised by the largest RMSE), " \
        if rep.paired else ""
    out += [f"Effectiveness level: means, {rmse}p-value of the two-sided {rep.test} test "
            "(original against reproduction)", ""]
    errors = {"RMSE": "rmse", "nRMSE": "nrmse"} if rep.paired else {}
    head = ["pair", "measure", "original", "reproduction", *errors, "p"]
    rows = [[r["pair"], r["measure"], fixed(r["orig"]), fixed(r["repro"])]
            + [fixed(r[k]) for k in errors.values()] + [_p(r["p_value"])]
            for r in rep.effects]
    out += [tabulate_table(rows, head, fmt, ("left", "left") + ("right",) * (len(head) - 2))]
    if rep.overall:
        out += ["", "Overall effects of the run over its baseline: effect ratio (ER: "
                "reproduced mean improvement / original), delta relative improvement "
                "(DeltaRI: original RI - reproduced RI)", ""]
        rows = [[r["measure"], fixed(r["er"]), fixed(r["delta_ri"]),
                 fixed(r["improvement_orig"]), fixed(r["improvement_repro"]),
                 fixed(r["ri_orig"]), fixed(r["ri_repro"])] for r in rep.overall]
        out.append(tabulate_table(rows, ["measure", "ER", "DeltaRI", "improvement orig",
                                         "improvement repro", "RI orig", "RI repro"], fmt,
                                  ("left",) + ("right",) * 6))
    if rep.notes:
        out += [""] + [f"Note: {n}" for n in rep.notes]
    return readable(fmt, out)
