"""Generated documentation: the man page's synopsis, commands and measures, and README's
measure table.

The man page (``man/smarteval.1``) is roff written by hand, with blocks between
``.\\" BEGIN GENERATED name`` and ``.\\" END GENERATED name`` that this module writes
from click's commands and the measure registry; README's table lies between
``<!-- measures:begin`` and ``<!-- measures:end -->``. Regenerate both with::

    python tools/docgen.py            # rewrite the blocks in place
    python tools/docgen.py --check    # exit 1 if any block is out of date (CI)

The tests run the check, so the page and the table cannot drift from the code.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
MAN_PAGE = ROOT / "man" / "smarteval.1"
README = ROOT / "README.md"
CHANGELOG = ROOT / "CHANGELOG.md"

README_BEGIN = "<!-- measures:begin"
README_END = "<!-- measures:end -->"
_BLOCK = re.compile(r'(?ms)^\.\\" BEGIN GENERATED (?P<name>[\w-]+)[^\n]*\n(?P<body>.*?)'
                    r'^\.\\" END GENERATED (?P=name)[^\n]*$')


# --------------------------------------------------------------------------- roff

def roff(text: str) -> str:
    """Plain text as roff: backslashes, option dashes, literals, non-ASCII and leading dots.

    ``-`` starting an option or a negative number, and every ``-`` inside an option name,
    becomes ``\\-`` (a minus that copies and pastes as one); other hyphens stay hyphens.
    ````x```` becomes bold. Characters past ASCII become ``\\[uXXXX]`` so that groff
    needs no input encoding.
    """
    text = text.replace("\\", "\\e")
    text = re.sub(r"``([^`]+)``", lambda m: "\x00B" + m.group(1) + "\x00R", text)
    text = re.sub(r"(?<![\w.\\])--?[A-Za-z][\w-]*",
                  lambda m: m.group(0).replace("-", "\\-"), text)
    text = re.sub(r"(?<![\w\\])-(?=[\d.]|\s|'|$)", r"\\-", text)
    text = text.replace("\x00B", "\\fB").replace("\x00R", "\\fR")
    text = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in text)
    lines = [("\\&" + ln) if ln.startswith((".", "'")) else ln for ln in text.split("\n")]
    return "\n".join(lines)


def _paragraphs(text: str) -> list[str]:
    return [p.strip("\n") for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]


def _help_body(text: str, continue_macro: str = ".PP") -> list[str]:
    """click help text as roff: paragraphs, and ``\\b`` blocks kept line for line."""
    import inspect
    out: list[str] = []
    for i, para in enumerate(_paragraphs(inspect.cleandoc(text))):
        if i:
            out.append(continue_macro)
        if para.startswith("\b"):
            lines = [ln.rstrip() for ln in para.split("\n")[1:]]
            while lines and not lines[-1]:
                lines.pop()
            out += [".RS 4", ".nf"]
            out += [roff(ln) for ln in lines]
            out += [".fi", ".RE"]
        else:
            out.append(roff(" ".join(ln.strip() for ln in para.split("\n"))))
    return out


def _option_tag(opts: str) -> str:
    """``-m, --measure MEASURE`` as roff: names bold, metavars italic."""
    parts = []
    for alias in opts.split(" / "):
        pieces = []
        for name in alias.split(", "):
            flag, _, meta = name.partition(" ")
            piece = f"\\fB{roff(flag)}\\fR"
            if meta:
                piece += f" \\fI{roff(meta)}\\fR"
            pieces.append(piece)
        parts.append(", ".join(pieces))
    return " / ".join(parts)


def _commands(main: click.Group):
    # contexts as click makes them, with each command's context_settings (-h for --help)
    ctx = click.Context(main, info_name="smarteval", **main.context_settings)
    for name in main.list_commands(ctx):
        cmd = main.get_command(ctx, name)
        if cmd is None or cmd.hidden:
            continue
        yield name, cmd, click.Context(cmd, info_name=name, parent=ctx, **cmd.context_settings)


def synopsis_block(main: click.Group) -> list[str]:
    out = [".SY smarteval", ".B \\-\\-version", ".YS", ".SY smarteval", ".B \\-\\-help", ".YS"]
    for name, cmd, ctx in _commands(main):
        out += [".SY smarteval", f".B {name}"]
        for piece in cmd.collect_usage_pieces(ctx):
            if piece == "[OPTIONS]":
                out.append(".RI [ options ]")
            elif piece.endswith("..."):
                out.append(f".IR {roff(piece[:-3].lower())} ...")
            else:
                out.append(f".I {roff(piece.lower())}")
        out.append(".YS")
    return out


def commands_block(main: click.Group) -> list[str]:
    out: list[str] = []
    for name, cmd, ctx in _commands(main):
        usage = " ".join(cmd.collect_usage_pieces(ctx))
        out += [f'.SS "smarteval {name} {roff(usage)}"']
        out += _help_body(cmd.help or "")
        options = [p for p in cmd.get_params(ctx)
                   if isinstance(p, click.Option) and not p.hidden]
        if options:
            out += [".PP", "Options:"]
        for p in options:
            record = p.get_help_record(ctx)
            if record is None:
                continue
            opts, help_ = record
            out += [".TP", _option_tag(opts), roff(help_.replace("  [", " [")) if help_ else ""]
            if not help_:
                out.pop()
    return out


_SHAPES = {
    "cutoffs": "parameters: cut-offs k (NAME.5,10 prints NAME_5 and NAME_10)",
    "levels": "parameters: recall levels (NAME..1,.5 prints NAME_0.10 and NAME_0.50)",
    "floats": "parameters: numbers separated by commas",
    "gains": "parameters: grade=gain pairs (NAME.1=3,2=9)",
    "int": "parameter: one integer",
}
_AVERAGES = {
    "mean": "summary: mean over queries",
    "gmean": "summary: geometric mean over queries",
    "sum": "summary: sum over queries",
    "count": "summary: number of queries",
    "tag": "summary: the run tag",
    "none": "per query only, no summary",
    "reported": "summary: mean over the queries it has a value for",
}


def _facts(m) -> str:
    from smarteval.measures.registry import ORIGINS
    origin = ORIGINS[m.origin].words
    if m.origin == "trec":
        origin += " " + " and ".join(str(v) for v in sorted(m.versions))
    facts = [origin, _AVERAGES[m.average]]
    if m.params in _SHAPES:
        facts.append(_SHAPES[m.params].replace("NAME", m.name))
    if m.keys:
        facts.append("the pairs may also give " + ", ".join(
            "a grade as a level (L2=3)" if k == "L" else f"{k}=" for k in m.keys))
    if m.needs_num_docs:
        facts.append("needs -N")
    if m.micro is not None:
        facts.append("micro average")
    if m.tie_average:
        facts.append("--ties average")
    facts.append(f"documents in {m.program}'s order")
    from smarteval.measures.bounds import DIVIDED, MONOTONE
    if m.name in MONOTONE:
        facts.append("--unjudged range bounds it by its two readings (it never falls as a "
                     "document becomes relevant" + (", for a weight of 0 or more"
                                                    if m.name == "set_F" else "") + ")")
    elif m.name in DIVIDED:
        facts.append("--unjudged range bounds it over every grading"
                     + (" (no gain pairs)" if m.name == "ndcg" else ""))
    return "; ".join(facts) + "."


def measures_block() -> list[str]:
    from smarteval.measures import ALIASES, all_measures, nicknames
    out: list[str] = []
    for m in all_measures().values():
        if m.plugin is not None:          # a plugin installed here is not smarteval's
            continue
        tag = f"\\fB{roff(m.name)}\\fR"
        if m.params != "none" and m.default:
            tag += f".\\fI{roff(m.default_string)}\\fR"
        out += [".TP", tag]
        out += _help_body(m.doc or m.help, ".IP")
        out += [".IP", f"\\fI{roff(_facts(m))}\\fR"]
    from smarteval.ranking.programs import PROGRAMS
    out += [".SS The order of documents", roff(
        "Each measure reads a query's documents in the order of the program whose numbers "
        "it gives (an ir_measures name: the provider that computes it), whatever "
        "--trec-version says unless that program is trec_eval. --ties random and "
        "--ties average replace every program's order of equal scores; -M and -J act on "
        "trec_eval's ranking first. A query's lines need not be consecutive in a run: "
        "smarteval reads them as one list wherever they stand, as trec_eval, pytrec_eval "
        "and gdeval do; cwl_eval, pyndeval and ir_measures' cwl_eval and pyndeval "
        "providers take each block of consecutive lines as a list of its own (cwl_eval and "
        "the providers report the query once per block, pyndeval keeps the last block's "
        "values), so their numbers match smarteval's on runs grouped by query.")]
    for name, p in PROGRAMS.items():
        out += [".TP", f"\\fB{roff(name)}\\fR", roff(f"{p.help}: {p.describe}.")]
    out += [".SS Nicknames"]
    for name, members in nicknames(10).items():
        out += [".TP", f"\\fB{roff(name)}\\fR", roff(" ".join(members))]
    only10 = sorted(set(nicknames(10)["all_trec"]) - set(nicknames(9)["all_trec"]))
    out += [".PP", roff("Under --trec-version 9, all_trec leaves out " + ", ".join(only10) + ".")]
    out += [".SS ir_measures names", roff(
        "NAME, NAME@k, NAME(rel=r) and NAME(rel=r)@k select these measures; rel=r sets the "
        "relevance level of that measure alone and names its output NAME(rel=r).")]
    for alias, (plain, cut) in ALIASES.items():
        forms = []
        if plain:
            forms.append(f"{alias} = {plain}")
        if cut:
            forms.append(f"{alias}@k = {cut}.k")
        out += [".TP", f"\\fB{roff(alias)}\\fR", roff("; ".join(forms))]
    return out


def tests_block() -> list[str]:
    """Each significance test: what it is and what it assumes (stats.significance)."""
    from smarteval.stats.significance import ALL_PAIRS_TESTS, ASSUMES, TEST_HELP
    out = []
    for name, what in {**TEST_HELP, **ALL_PAIRS_TESTS}.items():
        scope = "every pair of runs at once (report)" if name in ALL_PAIRS_TESTS else \
            "paired, one run against another (compare, report)"
        out += [".TP", f"\\fB{roff(name)}\\fR",
                roff(f"{what[0].upper()}{what[1:]}; {scope}. Assumes {ASSUMES[name]}.")]
    return out


def exit_status_block() -> list[str]:
    """Each exit status and what it means (smarteval.errors, their one home)."""
    from smarteval.errors import EXIT_STATUSES
    out = []
    for code, what in EXIT_STATUSES.items():
        out += [".TP", f".B {code}", roff(what)]
    return out


def version_line() -> str:
    """The .TH line: the version from smarteval.__version__, the date from CHANGELOG.md."""
    from smarteval import __version__
    date = "unreleased"
    if CHANGELOG.exists():
        mt = re.search(rf"^## \[{re.escape(__version__)}\] - (\S+)", CHANGELOG.read_text(),
                       re.M)
        if mt:
            date = mt.group(1)
    return f'.TH SMARTEVAL 1 "{date}" "smarteval {__version__}" "User Commands"'


# --------------------------------------------------------------------------- files

def generated_man(text: str) -> str:
    """The man page ``text`` with its .TH line and generated blocks rewritten."""
    from smarteval.cli import main
    blocks = {"synopsis": synopsis_block(main), "commands": commands_block(main),
              "measures": measures_block(), "tests": tests_block(),
              "exit-status": exit_status_block()}
    seen = set()

    def fill(mt: re.Match) -> str:
        name = mt.group("name")
        if name not in blocks:
            raise SystemExit(f"{MAN_PAGE}: unknown generated block {name!r}")
        seen.add(name)
        head = mt.group(0).split("\n", 1)[0]
        return "\n".join([head, *blocks[name], f'.\\" END GENERATED {name}'])

    out = _BLOCK.sub(fill, text)
    missing = set(blocks) - seen
    if missing:
        raise SystemExit(f"{MAN_PAGE}: no generated block for {', '.join(sorted(missing))}")
    lines = out.split("\n")
    th = [i for i, ln in enumerate(lines) if ln.startswith(".TH ")]
    if th:
        lines[th[0]] = version_line()
    return "\n".join(lines)


def measures_markdown() -> str:
    """``smarteval measures -f markdown``, exactly as the command prints it."""
    from click.testing import CliRunner

    from smarteval.cli import main
    result = CliRunner().invoke(main, ["measures", "-f", "markdown"])
    if result.exit_code != 0:
        raise RuntimeError(result.output)
    return result.output


def generated_readme(text: str, console: bool = True) -> str:
    """README with its measure table and (``console``) the output of its console blocks redone."""
    start = text.index(README_BEGIN)
    head_end = text.index("\n", start) + 1
    end = text.index(README_END, head_end)
    text = text[:head_end] + measures_markdown() + text[end:]
    if console:
        text = _CONSOLE.sub(lambda m: "```console\n" + rerun(m.group("body")) + "```", text)
        text = _OUTPUT.sub(lambda m: output_block(m.group("cmd")), text)
        text = _NOTEBOOK.sub(lambda m: notebook_block(), text)
    return text


NOTEBOOK = ROOT / "docs" / "notebook.py"
#: README's copy of docs/notebook.py and what it prints (tests/test_api.py runs it).
_NOTEBOOK = re.compile(r'(?ms)^```python\n"""smarteval in a notebook.*?^```\n\nprints\n\n'
                       r'```text\n.*?^```$')


def notebook_block() -> str:
    """docs/notebook.py and its output, as README shows them."""
    import os
    import subprocess
    script = NOTEBOOK.read_text(encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    printed = subprocess.run([sys.executable, str(NOTEBOOK.relative_to(ROOT))], cwd=ROOT,
                             env=env, capture_output=True, text=True, check=True,
                             timeout=300).stdout
    return f"```python\n{script}```\n\nprints\n\n```text\n{printed}```"


_CONSOLE = re.compile(r"(?ms)^```console\n(?P<body>.*?)^```$")
#: A command whose output README shows as it is (a markdown table, rendered), generated
#: between ``<!-- output: COMMAND -->`` and ``<!-- output end -->`` after the command.
_OUTPUT = re.compile(r"(?ms)^<!-- output: (?P<cmd>[^\n]*?) -->\n.*?^<!-- output end -->$")


def output_block(command: str) -> str:
    """The generated block of an output README shows as it is: the command, its output."""
    (printed,) = outputs([command])
    return (f"<!-- output: {command} -->\n```sh\n{command}\n```\n\n{printed.rstrip()}\n"
            "<!-- output end -->")


def rerun(block: str) -> str:
    """A console block with each ``$ command`` followed by what it prints now."""
    commands = [ln[2:] for ln in block.splitlines() if ln.startswith("$ ")]
    out = []
    for cmd, printed in zip(commands, outputs(commands), strict=True):
        out.append(f"$ {cmd}")
        if printed:                 # (a command that prints nothing: the next follows it)
            out.append(printed.rstrip("\n"))
    return "\n".join(out).rstrip("\n") + "\n"


def outputs(commands: list[str]) -> list[str]:
    """What each shell command prints, run in the checkout with its smarteval."""
    import os
    import subprocess
    import tempfile
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        # `smarteval` in the block is this checkout's, whatever PATH holds
        wrapper = Path(tmp) / "smarteval"
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m smarteval "$@"\n')
        wrapper.chmod(0o755)
        env = {**os.environ, "PATH": f"{tmp}{os.pathsep}{os.environ.get('PATH', '')}",
               "LC_ALL": "C", "COLUMNS": "100", "NO_COLOR": "1"}
        for cmd in commands:
            res = subprocess.run(cmd, shell=True, cwd=ROOT, env=env, capture_output=True,
                                 text=True, timeout=300)
            if res.returncode != 0:
                raise RuntimeError(f"README command failed ({res.returncode}): {cmd}\n"
                                   f"{res.stderr}")
            out.append(res.stdout)
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    check = "--check" in argv
    stale = []
    for path, make in ((MAN_PAGE, generated_man), (README, generated_readme)):
        old = path.read_text(encoding="utf-8")
        new = make(old)
        if new != old:
            stale.append(path)
            if not check:
                path.write_text(new, encoding="utf-8")
    if check and stale:
        print("out of date: " + ", ".join(str(p.relative_to(ROOT)) for p in stale)
              + "\n  regenerate with: python tools/docgen.py", file=sys.stderr)
        return 1
    for p in stale:
        print(f"rewrote {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
