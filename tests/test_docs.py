"""README, CHANGELOG and the version: generated parts current, real output real, one version."""

from __future__ import annotations

import re
from pathlib import Path

import docgen
import tomllib
from click.testing import CliRunner

from smarteval import __version__
from smarteval.cli import main
from smarteval.plot import KINDS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
CHANGELOG = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
REGENERATE = "out of date: regenerate with python tools/docgen.py"


def test_readme_measure_table_is_the_measures_command_output():
    begin = README.index(docgen.README_BEGIN)
    table = README[README.index("\n", begin) + 1:README.index(docgen.README_END)]
    printed = CliRunner().invoke(main, ["measures", "-f", "markdown"]).output
    assert table == printed, REGENERATE


def test_readme_console_blocks_are_real_output():
    """Every ``$ command`` in a console block prints, today, what README shows after it."""
    assert docgen.generated_readme(README) == README, REGENERATE


def test_readme_tour_has_the_essential_examples():
    blocks = re.findall(r"(?ms)^```console\n(.*?)^```$", README)
    commands = [ln for b in blocks for ln in b.splitlines() if ln.startswith("$ ")]
    assert any("evaluate" in c and "-f" not in c for c in commands)       # the SMART table
    assert any("-f tsv" in c and "| sort" in c for c in commands)         # TSV into sort
    assert any(" compare " in c and "-t " in c for c in commands)         # significance
    # the table of a paper, rendered (its markdown outside a code block), rerun by docgen
    assert re.search(r"^<!-- output: smarteval report .*-f markdown.* -->$", README, re.M)
    assert "_SMARTEVAL_COMPLETE=bash_source smarteval" in README
    for section in ("## Two commands", "## A tour", "## Python API", "## Measures",
                    "## Where smarteval differs from trec_eval",
                    "## smarteval, ranx and ir_measures"):
        assert section in README
    assert README.index("## Two commands") < README.index("## A tour")


def test_readme_images_are_committed_pngs():
    images = re.findall(r'src="(docs/[^"]+\.png)"', README)
    assert images
    for img in images:
        data = (ROOT / img).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", img
        # the command that draws it is next to it in README
        assert f"-o {img}" in README, img


def test_changelog_starts_with_this_version():
    first = re.search(r"^## \[([^\]]+)\] - (\S+)", CHANGELOG, re.M)
    assert first, "CHANGELOG.md needs '## [VERSION] - DATE' headings"
    assert first.group(1) == __version__
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}|unreleased", first.group(2))


def test_version_is_written_in_one_place():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in meta["project"]
    assert "version" in meta["project"]["dynamic"]
    assert meta["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "smarteval.__version__"}
    # the man page carries it too, but generated (test_manpage checks it is current)
    hard_coded = [p.relative_to(ROOT) for p in (ROOT / "smarteval").rglob("*.py")
                  if re.search(rf"['\"]{re.escape(__version__)}['\"]", p.read_text())]
    assert hard_coded == [Path("smarteval/__init__.py")]


def test_version_option():
    for flag in ("--version", "-V"):
        res = CliRunner().invoke(main, [flag])
        assert res.exit_code == 0
        assert res.output == f"smarteval, version {__version__}\n"


def test_shell_completion_offers_measure_names():
    from click.shell_completion import BashComplete
    comp = BashComplete(main, {}, "smarteval", "_SMARTEVAL_COMPLETE")
    names = [c.value for c in comp.get_completions(["evaluate", "-m"], "ndcg")]
    assert names == ["ndcg", "ndcg_cut", "ndcg_rel"]
    names = [c.value for c in comp.get_completions(["plot", "-m"], "nD")]
    assert names == ["nDCG"]
    commands = [c.value for c in comp.get_completions([], "")]
    assert {"evaluate", "measures", "plot"} <= set(commands)
    kinds = [c.value for c in comp.get_completions(["plot", "--kind"], "")]
    assert kinds == list(KINDS)
