"""The measure list of ``smarteval measures``, from the registry, in the formats of the registry."""

from __future__ import annotations

from smarteval.render.formats import readable, tabulate_table, writable, written

#: The formats of ``smarteval measures``: not trec_eval's (it has no such output), not HTML.
FORMATS = writable(but=("trec", "html"))
#: The columns of ``-f tsv``/``csv`` (and the keys of ``-f json``).
COLUMNS = ("measure", "default_parameters", "help")


def measure_rows(version: int | None = None) -> list[tuple[str, str, str]]:
    """(name, default parameters, help) of every measure ``-m`` accepts under ``version``."""
    from smarteval.measures import all_measures
    rows = []
    for m in all_measures().values():
        if version is not None and version not in m.versions:
            continue
        params = m.default_string if m.params != "none" else ""
        rows.append((m.name, params, m.help))
    return rows


def render_measures(fmt: str, version: int | None = None) -> str:
    """The measures in one of :data:`FORMATS`: ``smart`` one a line (its default
    parameters after a dot, then its help), the others a row each (README's table is
    ``-f markdown``)."""
    rows = measure_rows(version)
    return written(fmt, json=lambda: [dict(zip(COLUMNS, r, strict=True)) for r in rows],
                   tables=lambda: [(COLUMNS, rows)], table=lambda f: _table(rows, f))


def _table(rows: list[tuple[str, str, str]], fmt: str) -> str:
    if fmt != "smart":
        return readable(fmt, [tabulate_table(rows, ["measure", "default parameters",
                                                    "definition"], fmt)])
    out = []
    for name, params, help_ in rows:
        label = f"{name}.{params}" if params else name
        if len(label) > 28:
            out += [label, f"{'':28}  {help_}"]
        else:
            out.append(f"{label:<28}  {help_}")
    return readable(fmt, out)


def render_nicknames(version: int) -> str:
    """One line per nickname (official, all_trec, set): its name and the measures it stands
    for under trec_eval ``version``."""
    from smarteval.measures import nicknames
    return "".join(f"{name}: {' '.join(members)}\n"
                   for name, members in nicknames(version).items())
