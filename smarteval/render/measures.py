"""The measure list of ``smarteval measures``: text, TSV or markdown, from the registry."""

from __future__ import annotations

from smarteval.measures import all_measures, nicknames


def measure_rows(version: int | None = None) -> list[tuple[str, str, str]]:
    """(name, default parameters, help) of every measure ``-m`` accepts under ``version``."""
    rows = []
    for m in all_measures().values():
        if version is not None and version not in m.versions:
            continue
        params = m.default_string if m.params != "none" else ""
        rows.append((m.name, params, m.help))
    return rows


def render_measures(fmt: str, version: int | None = None) -> str:
    rows = measure_rows(version)
    if fmt == "tsv":
        return "".join("\t".join(r) + "\n" for r in
                       [("measure", "default_parameters", "help"), *rows])
    if fmt == "markdown":
        from tabulate import tabulate
        return tabulate(rows, headers=["measure", "default parameters", "definition"],
                        tablefmt="github") + "\n"
    out = []
    for name, params, help_ in rows:
        label = f"{name}.{params}" if params else name
        if len(label) > 28:
            out += [label, f"{'':28}  {help_}"]
        else:
            out.append(f"{label:<28}  {help_}")
    return "\n".join(out) + "\n"


def render_nicknames(version: int) -> str:
    """One line per nickname (official, all_trec, set): its name and the measures it stands
    for under trec_eval ``version``."""
    return "".join(f"{name}: {' '.join(members)}\n"
                   for name, members in nicknames(version).items())
