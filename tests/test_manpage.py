"""man/smarteval.1: up to date with the code, complete, and rendered by groff without a warning."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import click
import docgen
import pytest
import tomllib

from smarteval import __version__
from smarteval.cli import main
from smarteval.measures import ALIASES, all_measures, nicknames

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "man" / "smarteval.1"
SOURCE = PAGE.read_text(encoding="utf-8")


def unroff(text: str) -> str:
    """Enough of roff undone to search the page as a reader sees it."""
    text = re.sub(r"\\\[u([0-9A-F]{4,5})\]", lambda m: chr(int(m.group(1), 16)), text)
    text = re.sub(r"\\f[BIRP]", "", text)
    return (text.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")
            .replace("\\(aq", "'").replace("\\~", " "))


def commands():
    ctx = click.Context(main, info_name="smarteval")
    for name in main.list_commands(ctx):
        yield name, main.get_command(ctx, name)


def section(text: str, title: str) -> str:
    """The text of a .SS section up to the next heading, or of a .SH section up to the next .SH."""
    start = text.index(title)
    stop = r"^\.SH " if title.startswith(".SH") else r"^\.S[SH] "
    end = re.compile(stop, re.M).search(text, text.index("\n", start))
    return text[start:end.start() if end else len(text)]


PLAIN = unroff(SOURCE)


def test_generated_blocks_are_up_to_date():
    assert docgen.generated_man(SOURCE) == SOURCE, \
        "man/smarteval.1 is out of date: run python tools/docgen.py"


def test_every_command_has_a_synopsis_and_a_section():
    synopsis = section(PLAIN, ".SH SYNOPSIS")
    for name, _ in commands():
        assert re.search(rf"^\.B {re.escape(name)}$", synopsis, re.M), name
        assert f'.SS "smarteval {name} ' in PLAIN, name
    assert "--version" in synopsis


def test_every_option_of_every_command_is_in_its_section():
    missing = []
    for name, cmd in commands():
        text = section(PLAIN, f'.SS "smarteval {name} ')
        for p in cmd.params:
            if isinstance(p, click.Option):
                for flag in (*p.opts, *p.secondary_opts):
                    if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text):
                        missing.append(f"{name} {flag}")
    assert not missing


def test_every_option_has_help():
    """A man page entry with nothing after the flag helps no one."""
    bare = [f"{name} {p.opts[0]}" for name, cmd in commands() for p in cmd.params
            if isinstance(p, click.Option) and not p.help]
    assert not bare


def test_every_measure_nickname_and_alias_is_defined():
    text = section(SOURCE, ".SH MEASURES")
    for name, m in all_measures().items():
        tag = rf"^\.TP\n\\fB{re.escape(docgen.roff(name))}\\fR"
        assert re.search(tag, text, re.M), name
        # the definition is the registry's help line, word for word
        assert " ".join(m.help.replace("``", "").split()) in " ".join(unroff(text).split()), \
            name
    for name in nicknames(10):
        assert re.search(rf"^\\fB{re.escape(name)}\\fR$", text, re.M), name
    for alias in ALIASES:
        assert re.search(rf"^\\fB{re.escape(docgen.roff(alias))}\\fR$", text, re.M), alias


@pytest.mark.parametrize("heading", [
    "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "MEASURES", "OUTPUT FORMATS",
    "STATISTICAL TESTS", "EXIT STATUS", "ENVIRONMENT", "SHELL COMPLETION", "FILES", "EXAMPLES",
    "DIFFERENCES FROM TREC_EVAL", "SEE ALSO"])
def test_the_page_has_its_sections(heading):
    assert re.search(rf"^\.SH \"?{re.escape(heading)}\"?$", SOURCE, re.M)


def test_every_test_says_what_it_assumes():
    from smarteval.stats.significance import ALL_PAIRS_TESTS, ASSUMES, TESTS
    tests = section(PLAIN, ".SH STATISTICAL TESTS")
    for name in (*TESTS, *ALL_PAIRS_TESTS):
        entry = re.search(rf"^\.TP\n{re.escape(name)}\n(.*)$", tests, re.M)
        assert entry, name
        assert " ".join(f"Assumes {ASSUMES[name]}.".split()) in entry.group(1), name


def test_exit_statuses_and_completion_are_documented():
    status = section(PLAIN, ".SH EXIT STATUS")
    for code in ("0", "1", "2"):
        assert re.search(rf"^\.B {code}$", status, re.M)
    assert "_SMARTEVAL_COMPLETE=bash_source smarteval" in PLAIN
    assert "NO_COLOR" in PLAIN


def test_version_is_the_package_version():
    th = SOURCE.splitlines()[0]
    assert th.startswith(".TH SMARTEVAL 1 ")
    assert f'"smarteval {__version__}"' in th


def test_page_is_installed_with_the_package():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    files = meta["tool"]["setuptools"]["data-files"]["share/man/man1"]
    assert "man/smarteval.1" in files


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed")
def test_groff_renders_without_warnings():
    res = subprocess.run(["groff", "-man", "-Tutf8", "-ww", str(PAGE)],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0
    assert res.stderr == ""
    assert "smarteval" in res.stdout


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed")
def test_rendered_page_shows_every_option_as_typed():
    """Dashes must come out as ASCII minus signs, so that a copied option works."""
    res = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-rLL=400n", "-P-cbou",
                          str(PAGE)], capture_output=True, text=True, timeout=60)
    for _, cmd in commands():
        for p in cmd.params:
            if isinstance(p, click.Option):
                for flag in p.opts:
                    assert flag in res.stdout, flag


@pytest.mark.parametrize("text, roff", [
    ("use --judged-only", "use \\-\\-judged\\-only"),
    ("a RUN of '-'", "a RUN of '\\-'"),
    ("utility.1.0,-1.0", "utility.1.0,\\-1.0"),
    ("non-relevant, 1 - x", "non-relevant, 1 \\- x"),
    ("Σr_i · 2", "\\[u03A3]r_i \\[u00B7] 2"),
    (".5 starts a line", "\\&.5 starts a line"),
    ("``rbp.p=0.95``", "\\fBrbp.p=0.95\\fR"),
    ("a\\b", "a\\eb"),
])
def test_roff_escaping(text, roff):
    assert docgen.roff(text) == roff
