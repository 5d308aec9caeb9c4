"""Every command in every format it offers, and the two changes made most often: a format
added to the registry (render/formats.py), a ranking option added to the shared group
(cli/options.evaluation_flags).

A command's ``--format`` choices are its renderer's ``FORMATS``
(:func:`smarteval.render.formats.writable`): a new format is offered by every command at
once, and the run below fails until each renderer writes it. A new ranking option is a
field of Settings and one option in the group: every command that ranks runs takes it
and hands it to the library inside its ``settings``.
"""

from __future__ import annotations

import csv
import importlib
import io
import json
import re
from dataclasses import dataclass, fields

import click
import pytest
from fixtures import Sample, invoke
from test_blocks import unchecked

import smarteval.api
import smarteval.plot.build
from smarteval.cli import LazyGroup, main
from smarteval.cli import options as cli_options
from smarteval.render import table as report_table
from smarteval.render.formats import FORMATS, Format, escaped, is_table
from smarteval.settings import Settings, policy

#: The renderers, then the commands: rebuilt, in this order, after the test changed what
#: they are built from (as an edit of the source would), and again afterwards.
RENDERERS = ["smarteval.render.evaluation", "smarteval.render.compare",
             "smarteval.render.table", "smarteval.render.curves", "smarteval.render.correlate",
             "smarteval.render.measures", "smarteval.render.discpower",
             "smarteval.render.topicsets", "smarteval.render.repro", "smarteval.render.diff"]
COMMANDS = [LazyGroup.lazy[name] for name in sorted(LazyGroup.lazy)]


def command(name: str) -> click.Command:
    return main.get_command(click.Context(main), name)


def offered(name: str) -> list[str]:
    """The formats ``smarteval NAME -f`` accepts (none for a command without -f)."""
    fmt = [p for p in command(name).params if p.name == "fmt"]
    return list(fmt[0].type.choices) if fmt else []


def evaluated(sample: Sample, d, *more) -> list:
    """Evaluation results of ``sample``'s runs (trec_eval's text) in ``d``, for correlate
    (``more``: more measures)."""
    paths = []
    for run in sample.runs:
        res = invoke("evaluate", "-f", "trec", "-m", "map", "-m", "P.10", "-m", "recip_rank",
                     *more, sample.qrels, run)
        assert res.exit_code == 0, res.output
        paths.append(d / f"{run.stem}.eval")
        paths[-1].write_text(res.stdout)
    return paths


@pytest.fixture(scope="module")
def results(tmp_path_factory, sample):
    return evaluated(sample, tmp_path_factory.mktemp("results"))


def arguments(name: str, sample, results) -> list:
    """What each command that prints is run with here: a new command is added here."""
    return {
        "evaluate": ["-m", "map", "-m", "P.10", sample.qrels, *sample.runs],
        "compare": ["-m", "map", "-m", "P.10", sample.qrels, *sample.runs],
        "report": ["-m", "map", "-m", "P.10", sample.qrels, *sample.runs],
        "curve": [sample.qrels, *sample.runs[:2]],
        "correlate": results,
        "measures": [],
        "discpower": ["-m", "map", "-m", "P.10", "--samples", "200", sample.qrels, *sample.runs],
        "topics": ["-m", "map", "--diff", "0.05,0.1", sample.qrels, *sample.runs],
        "diff": ["-m", "P.10", sample.qrels, *sample.runs[:2]],
        "repro": ["-m", "map", "--cutoffs", "10", sample.qrels, *sample.runs[:2],
                  "--baseline-orig", sample.runs[0], "--baseline-repro", sample.runs[2]],
    }[name]


PRINTING = [name for name in sorted(LazyGroup.lazy) if offered(name)]


def check_written(name: str, fmt: str, res) -> None:
    """``res`` is ``smarteval NAME -f FMT``'s success, and its output is well formed."""
    assert res.exception is None or isinstance(res.exception, SystemExit), \
        f"{name} -f {fmt}: {res.exception!r}"
    assert res.exit_code == 0, f"{name} -f {fmt}: {res.output}"
    text = res.stdout
    assert text.strip() and text.endswith("\n"), f"{name} -f {fmt}: nothing printed"
    if fmt == "json":
        json.loads(text)
    elif FORMATS[fmt].one_table:
        # one table, no blank line: what pandas, a database or sort reads as it comes
        dialect = {"delimiter": "\t", "quoting": csv.QUOTE_NONE} if fmt == "tsv" else {}
        rows = list(csv.reader(io.StringIO(text), **dialect))
        assert all(rows), f"{name} -f {fmt}: a blank line (more than one table)"
        assert len({len(row) for row in rows}) == 1, f"{name} -f {fmt}: ragged rows"
    elif fmt == "trec":
        assert all(len(line.split("\t")) == 3 for line in text.splitlines())


def run_everywhere(formats, sample, results) -> list[tuple[str, str, str]]:
    """Each command that prints, in each of ``formats`` it offers: what failed, and how."""
    failed = []
    for name in PRINTING:
        for fmt in formats:
            if fmt not in offered(name):
                continue
            try:
                check_written(name, fmt, invoke(name, "-f", fmt, arguments(name, sample, results),
                                                catch_exceptions=True))
            except AssertionError as exc:
                failed.append((name, fmt, str(exc).splitlines()[0]))
    return failed


# =========================================================================== every format

def test_every_command_that_prints_is_run_here(sample, results):
    assert set(PRINTING) == {"evaluate", "compare", "report", "curve", "correlate", "measures",
                             "discpower", "topics", "repro", "diff"}
    for name in PRINTING:
        arguments(name, sample, results)


@pytest.mark.parametrize("name, fmt", [(n, f) for n in PRINTING for f in offered(n)])
def test_every_command_writes_every_format_it_offers(name, fmt, sample, results):
    check_written(name, fmt, invoke(name, "-f", fmt, *arguments(name, sample, results)))


def test_every_format_is_written_by_some_command():
    assert set(FORMATS) == {f for name in PRINTING for f in offered(name)}


def test_the_help_names_each_format_in_the_registrys_words():
    for name in PRINTING:
        (fmt,) = [p for p in command(name).params if p.name == "fmt"]
        for f in fmt.type.choices:
            assert f"{f} ({FORMATS[f].help})" in fmt.help, (name, f)


def test_the_tables_refuse_per_query_values(cli, sample):
    for fmt in offered("evaluate"):
        res = cli("evaluate", "-f", fmt, "-q", sample.qrels, sample.runs[0])
        assert res.exit_code == (2 if is_table(fmt) else 0), (fmt, res.output)
    res = cli("evaluate", "-f", "latex", "-q", "-n", sample.qrels, sample.runs[0])
    assert res.stderr == ("Error: -q/--per-query and -n/--no-summary: the latex table prints "
                          "the averages only; per-query values are printed by -f trec, tsv, "
                          "csv and json\n")


# =========================================================================== hostile names

#: A run's tag, a query id and a docno full of every format's markup and control
#: characters a terminal obeys (each holds a word found nowhere else: ``zqrun``,
#: ``zqquery``, ``zqdoc``); the other runs' tags end so.
HOSTILE = {"run": r"<b>zqrun</b>&\input{x}%$#_{}~^|*`[l](u)&amp;" + "\x1b[2J\x07",
           "query": r"q&_$%#{}\^~|*<i>zqquery",
           "docno": "<script>zqdoc</script>&lt;_x_"}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, sample):
    """The sample with a hostile run tag in each run, its first query and one document
    renamed so (the qrels too), and its evaluation results for correlate (naming the
    runs by their tags)."""
    d = tmp_path_factory.mktemp("hostile")

    def renamed(path, tag: str = ""):
        text = path.read_text().replace("FT938-00311", HOSTILE["docno"])
        lines = [line.split() for line in text.splitlines()]
        for words in lines:
            words[0] = HOSTILE["query"] if words[0] == "401" else words[0]
            words[-1] = tag or words[-1]
        (d / path.name).write_text("".join(" ".join(w) + "\n" for w in lines))
        return d / path.name
    runs = tuple(renamed(run, prefix + HOSTILE["run"])
                 for run, prefix in zip(sample.runs, ("", "2", "3"), strict=True))
    named = Sample(renamed(sample.qrels), runs)
    return named, evaluated(named, d, "-m", "runid")


#: The commands that print no run, query or document of their input.
NAMELESS = {"measures", "topics"}
#: What a command needs besides :func:`arguments` to print the names (discpower's pairs).
NAMING = {"discpower": ["--pairs"]}


def test_every_name_is_escaped_in_every_format_for_people(hostile):
    """Every command in every format for people it offers writes a hostile run tag, query id
    and docno through its format's one escaping (:func:`escaped`): once each is replaced,
    nothing of them is left (a raw one, or one escaped by other rules, would leave its
    word), nor any control character, and each command that prints names printed one."""
    named, evals = hostile
    shown = set()
    for name in PRINTING:
        for fmt in (f for f in offered(name) if is_table(f)):
            res = invoke(name, "-f", fmt, NAMING.get(name, []), arguments(name, named, evals))
            check_written(name, fmt, res)
            text = res.stdout
            for what, raw in HOSTILE.items():
                if escaped(fmt, raw) in text:
                    shown.add((name, fmt))
                text = text.replace(escaped(fmt, raw), what)
            assert not {"zqrun", "zqquery", "zqdoc"} & set(re.findall(r"zq[a-z]+", text)), \
                (name, fmt, text)
            assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text), (name, fmt)
    assert shown == {(n, f) for n in PRINTING if n not in NAMELESS
                     for f in offered(n) if is_table(f)}


# =========================================================================== a new format

@pytest.fixture
def rebuilt(monkeypatch):
    """``rebuild()`` makes the renderers and commands anew from what the test changed, as
    an edit of the source would; they are made anew from the source after the test."""
    def rebuild():
        for module in RENDERERS + COMMANDS:
            importlib.reload(importlib.import_module(module))
        monkeypatch.setattr(main, "commands", {})       # LazyGroup keeps the commands made
    yield rebuild
    monkeypatch.undo()
    for module in RENDERERS + COMMANDS:
        importlib.reload(importlib.import_module(module))


def test_a_new_format_is_offered_everywhere_and_fails_until_written(rebuilt, monkeypatch,
                                                                    sample, results):
    """A table format added to the registry: every command offers it at once; report,
    whose styles name each format for people, fails until it has one for it. Then the
    format is one registry entry and one style (a renderer's branch)."""
    monkeypatch.setitem(FORMATS, "rst", Format("rst", "reStructuredText", True, "rst"))
    rebuilt()
    assert all("rst" in offered(name) for name in PRINTING)
    failed = run_everywhere(["rst"], sample, results)
    assert [(name, fmt) for name, fmt, _ in failed] == [("report", "rst")]
    assert "KeyError('rst')" in failed[0][2]

    table = importlib.import_module("smarteval.render.table")

    class Rst(table.Style):
        name = "rst"
    monkeypatch.setitem(table.STYLES, "rst", Rst())
    assert run_everywhere(["rst"], sample, results) == []


def test_a_new_data_format_fails_until_written(rebuilt, monkeypatch, sample, results):
    monkeypatch.setitem(FORMATS, "jsonl", Format("jsonl", "JSON Lines", False))
    rebuilt()
    failed = run_everywhere(["jsonl"], sample, results)
    assert sorted(name for name, _, _ in failed) == PRINTING


def test_a_renderer_declares_only_formats_of_the_registry():
    from smarteval.render.formats import writable
    with pytest.raises(ValueError, match="not formats of the registry: rst"):
        writable(but=("rst",))
    assert tuple(n for n in FORMATS if n != "trec") == report_table.FORMATS



# =========================================================================== capabilities

def read_back_failures(formats, sample, d) -> list[tuple[str, str]]:
    """Each of ``formats`` that evaluate writes and correlate (its summaries) and a stored
    baseline (its per-query values, for an exact format) read back: what failed, and how.
    Read back, the leaderboard is the one of trec_eval's text."""
    def leaderboard(paths) -> tuple[dict, str]:
        """Correlate's pairs of measures, each with its rank correlations, and the error."""
        res = invoke("correlate", "-f", "json", paths, catch_exceptions=True)
        if res.exit_code != 0:
            return {}, str(res.exception or res.stderr)
        return {frozenset((c["measure_a"], c["measure_b"])): (c["kendall"], c["swaps"])
                for c in json.loads(res.stdout)["correlations"]}, ""
    failed = []
    board, _ = leaderboard(evaluated(sample, d))
    for fmt in formats:
        exact = FORMATS[fmt].exact
        paths = []
        for run in sample.runs:
            res = invoke("evaluate", "-f", fmt, "-m", "map", "-m", "P.10", "-m",
                         "recip_rank", ["-q"] if exact else [], sample.qrels, run,
                         catch_exceptions=True)
            if res.exit_code != 0:
                failed.append((fmt, f"evaluate: {res.exception or res.stderr}"))
                break
            paths.append(d / f"{run.stem}.{fmt}")
            paths[-1].write_text(res.stdout)
        else:
            read, error = leaderboard(paths)
            if read != board:
                failed.append((fmt, f"correlate: {error or read}"))
            if exact:
                res = invoke("compare", "-m", "map", "--baseline-results", paths[0],
                             sample.qrels, *sample.runs[1:], catch_exceptions=True)
                if res.exit_code != 0:
                    failed.append((fmt, f"--baseline-results: {res.exception or res.stderr}"))
    return failed


def test_the_readers_read_back_what_the_registry_declares(sample, tmp_path):
    """Every format declared readable back (``Format.reads_back``, ``exact``) is read
    back by correlate and --baseline-results, and the readers name those formats."""
    from smarteval.read.results import READ_BACK, READ_EXACTLY
    from smarteval.render.formats import having
    assert having("reads_back") == READ_BACK and having("exact") == READ_EXACTLY
    assert set(READ_EXACTLY) <= set(READ_BACK)
    assert read_back_failures(having("reads_back"), sample, tmp_path) == []


def test_a_format_declared_readable_back_fails_until_read(rebuilt, monkeypatch, sample,
                                                          tmp_path):
    from smarteval.read.results import READ_BACK
    from smarteval.render.formats import having
    monkeypatch.setitem(FORMATS, "jsonl", Format("jsonl", "JSON Lines", False, typed=True,
                                                 reads_back=True, exact=True))
    rebuilt()
    assert having("reads_back") != READ_BACK
    assert [fmt for fmt, _ in read_back_failures(["jsonl"], sample, tmp_path)] == ["jsonl"]


#: The options of each command that each ask a format of one table for a table of its own.
TWO_TABLES = {"report": ["--pairs", "--anova"], "compare": ["--magnitudes", "--tau"],
              "repro": ["--ranking", "--overall"]}


@pytest.mark.parametrize("one_table", [True, False])
def test_a_new_data_format_writes_every_table_or_refuses(rebuilt, monkeypatch, sample,
                                                         results, one_table):
    """A data format of one table (``Format.one_table``) is refused where two options ask
    for two tables, by name and before any work, as tsv and csv are; one that holds every
    table (json) writes them all; and a format without a writer is never written as
    another (no command prints anything for it). The help of each such option names it."""
    monkeypatch.setitem(FORMATS, "psv", Format("psv", "pipe-separated", False,
                                               one_table=one_table, streams=one_table))
    rebuilt()
    for name, options in TWO_TABLES.items():
        for fmt in [f for f in offered(name) if FORMATS[f].one_table or FORMATS[f].typed]:
            res = invoke(name, "-f", fmt, options, arguments(name, sample, results))
            if FORMATS[fmt].one_table:
                assert res.exit_code == 2, (name, fmt, res.output)
                assert f"{' and '.join(options)}: -f {fmt} writes one table" in res.stderr
                assert not res.stdout
            else:
                check_written(name, fmt, res)
        helps = [p.help for p in command(name).params if p.name in
                 [o.lstrip("-") for o in options]]
        assert all(("psv" in h) == one_table for h in helps), (name, helps)
    tables = json.loads(invoke("report", "-f", "json", "--pairs", "--anova",
                               arguments("report", sample, results)).stdout)
    assert {"comparisons", "anova"} <= set(tables), sorted(tables)
    for name in PRINTING:
        res = invoke(name, "-f", "psv", arguments(name, sample, results), catch_exceptions=True)
        assert res.exit_code != 0 and not res.stdout, (name, res.stdout[:200])
        assert "-f psv" in str(res.exception) + res.stderr, (name, res.exception)


# =========================================================================== settings

#: Where each command that ranks runs hands its settings to the library, and how.
LIBRARY = {"evaluate": (smarteval.api, "evaluate"), "compare": (smarteval.api, "compare"),
           "report": (smarteval.api, "report"), "curve": (smarteval.api, "curve"),
           "plot": (smarteval.plot.build, "picture"), "discpower": (smarteval.api, "discpower"),
           "topics": (smarteval.api, "topics"), "repro": (smarteval.api, "repro"),
           "diff": (smarteval.api, "diff")}


def needed(name: str, tmp_path) -> list:
    """What a command needs besides QRELS and RUNS to reach the library."""
    return {"plot": ["-o", tmp_path / "out.png"], "topics": ["--diff", "0.1"]}.get(name, [])


class Handed(Exception):
    """The library was called: the command's work stops here."""


@pytest.fixture
def handed(monkeypatch):
    """The settings each command hands to the library (which is not run)."""
    seen: dict[str, Settings] = {}

    def recorder(name):
        def call(*args, **kwargs):
            seen[name] = kwargs["settings"] if "settings" in kwargs else args[3]
            raise Handed
        return call
    for name, (module, function) in LIBRARY.items():
        monkeypatch.setattr(module, function, recorder(name))
    return seen


def ranking(name: str) -> bool:
    """Whether the command takes the shared ranking flags (cli/options.evaluation_flags)."""
    return any(p.name == "rel_level" for p in command(name).params)


def test_the_commands_that_rank_runs_are_these():
    assert sorted(n for n in LazyGroup.lazy if ranking(n)) == sorted(LIBRARY)


def test_every_setting_option_names_a_field_of_settings():
    names = {f.name for f in fields(Settings)}
    for name in LazyGroup.lazy:
        for p in command(name).params:
            if isinstance(p, cli_options.SettingOption):
                assert p.name in names, (name, p.name)


@pytest.mark.parametrize("name", sorted(LIBRARY))
def test_options_become_settings_once(name, handed, tmp_path, sample):
    # -N 0 is trec_eval's default, N unknown; curve needs N of at least 1
    n, num_docs = ("40", 40) if name == "curve" else ("0", None)
    res = invoke(name, "-l", "2", "-N", n, "-M", "5", "--trec-version", "10", "-J",
                 needed(name, tmp_path), sample.qrels, sample.runs[:2], catch_exceptions=True)
    assert isinstance(res.exception, Handed), res.output
    s = handed[name]
    assert (s.rel_level, s.num_docs, s.max_docs, s.trec_version, s.judged_only) == \
        (2, num_docs, 5, 10, True)
    assert type(s.trec_version) is int


def test_a_new_ranking_option_reaches_every_command_that_ranks(rebuilt, monkeypatch, handed,
                                                              tmp_path, sample):
    """``--min-score``: a field of Settings (a :func:`~smarteval.settings.policy`, which
    says whether runs evaluated in blocks serve it) and one option in the shared group;
    every command that ranks runs then takes it and hands it on in its settings, and
    tests/test_blocks.py fails until blocks and whole runs are compared under it."""
    @dataclass(frozen=True)
    class WithMinScore(Settings):
        min_score: float | None = policy(None)

    assert unchecked(WithMinScore) == ["min_score"]

    shared = cli_options.evaluation_flags

    def evaluation_flags(**help_texts):
        return cli_options.group(shared(**help_texts),
                                 cli_options.setting("--min-score", type=float, default=None))
    monkeypatch.setattr(cli_options, "Settings", WithMinScore)
    monkeypatch.setattr(cli_options, "evaluation_flags", evaluation_flags)
    rebuilt()
    for name in LIBRARY:
        res = invoke(name, "--min-score", "2.5", needed(name, tmp_path),
                     sample.qrels, sample.runs[:2], catch_exceptions=True)
        assert isinstance(res.exception, Handed), (name, res.output)
        assert handed[name].min_score == 2.5, name
