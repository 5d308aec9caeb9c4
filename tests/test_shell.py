"""The shell: completion without a space after names that take parameters, suggestions for
mistyped commands and options, wording, the HTML report's numbers aligned in a browser
(headless Chromium) and LaTeX's, --standalone LaTeX, and plots that mark the points of
the --unranked assumption."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from click.shell_completion import get_completion_class
from fixtures import ROOT, invoke

from smarteval.cli import complete, main

# =========================================================================== completion


@pytest.fixture
def completing(monkeypatch):
    """smarteval's completion classes in click's place, as when a shell asks; click's
    own afterwards."""
    import click.shell_completion as shell
    monkeypatch.setattr(shell, "_available_shells", dict(shell._available_shells))
    complete.register()
    return lambda shell_name: get_completion_class(shell_name)(
        main, {}, "smarteval", "_SMARTEVAL_COMPLETE")


def test_the_scripts_are_smartevals(completing):
    assert complete.PATCHED                  # click's scripts are as this version expects
    bash = completing("bash").source()
    assert "compopt -o nospace" in bash
    zsh = completing("zsh").source()
    assert "compadd -U -S '' -V unsorted -a nospace" in zsh


@pytest.mark.parametrize("incomplete, words", [
    ("ndcg_c", [("nospace", "ndcg_cut")]),
    ("ma", [("plain", "map"), ("plain", "map_avgjg"), ("nospace", "map_cut")]),
    ("nD", [("nospace", "nDCG")]),
    ("offi", [("plain", "official")]),
    ("gm_b", [("plain", "gm_bpref")]),
])
def test_names_that_take_parameters_are_completed_without_a_space(completing, incomplete,
                                                                     words):
    comp = completing("bash")
    got = [(c.type, c.value) for c in comp.get_completions(["evaluate", "-m"], incomplete)]
    assert got == words
    formatted = [comp.format_completion(c)
                 for c in comp.get_completions(["evaluate", "-m"], incomplete)]
    assert formatted == [f"{t},{v}" for t, v in words]
    # fish decides the space itself: plain words
    fish = completing("fish")
    assert all(line.startswith("plain,") for line in
               (fish.format_completion(c) for c in fish.get_completions(["evaluate", "-m"],
                                                                         incomplete)))


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_asks_for_no_space_after_a_name_with_parameters(tmp_path):
    """The script as bash runs it: ``compopt -o nospace`` for ndcg_cut, not for map
    (compopt only works while bash completes: a stand-in records its calls)."""
    prog = tmp_path / "smarteval"
    prog.write_text(f"#!/bin/sh\nexec {sys.executable} -c "
                    "\"import sys; sys.argv[0] = 'smarteval'; from smarteval.__main__ import "
                    "run; run()\" \"$@\"\n")
    prog.chmod(0o755)
    script = textwrap.dedent(f"""
        compopt() {{ echo "compopt $*" >> {tmp_path}/calls; }}
        source <(_SMARTEVAL_COMPLETE=bash_source {prog})
        for word in ndcg_c map_a; do
            : > {tmp_path}/calls
            COMPREPLY=()
            COMP_WORDS=(smarteval evaluate -m "$word"); COMP_CWORD=3
            _smarteval_completion {prog}
            echo "$word: ${{COMPREPLY[*]}} [$(tr '\\n' ' ' < {tmp_path}/calls)]"
        done
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120,
                         env=env, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "ndcg_c: ndcg_cut [compopt -o nospace ]\nmap_a: map_avgjg []\n"


# =========================================================================== suggestions

@pytest.mark.parametrize("args, message", [
    (["evaluat"], "Error: No such command 'evaluat'. Did you mean 'evaluate'?"),
    (["repot"], "Error: No such command 'repot'. Did you mean 'report'?"),
    (["frobnicate"], "Error: No such command 'frobnicate'."),
    (["evaluate", "--formt", "tsv"], "Error: No such option '--formt'. Did you mean "
                                     "'--format'?"),
    (["evaluate", "--zscore", "z"], "Error: No such option '--zscore'. Did you mean "
                                    "'--zscores'?"),
    (["compare", "--tie-tol", "1"], "Error: No such option '--tie-tol'. Did you mean "
                                    "'--tie-tolerance'?"),
    (["report", "--standlone"], "Error: No such option '--standlone'. Did you mean "
                                "'--standalone'?"),
    (["evaluate", "--qqqq"], "Error: No such option '--qqqq'."),
])
def test_a_mistyped_command_or_option_is_named_with_the_closest(args, message):
    res = invoke(*args)
    assert res.exit_code == 2
    assert res.stderr.rstrip("\n").splitlines()[-1] == message


# =========================================================================== wording

def test_one_query_is_a_query(cli, tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 t\n")
    out = cli("evaluate", "-m", "map", tmp_path / "q", tmp_path / "r").stdout
    assert out.startswith("Averages over 1 query\n\nmeasure ")
    out = cli("evaluate", "-m", "map", "-m", "iprec_at_recall.0.5", tmp_path / "q",
              tmp_path / "r").stdout
    assert "\nREC. " in out                       # REC. above recall levels only


@pytest.mark.parametrize("superiority, shown", [(-0.4, "0"), (0.4, "0"), (-0.6, "-1"),
                                                (73.3, "+73"), (None, "-")])
def test_superiority_is_never_minus_zero(superiority, shown):
    from smarteval.render.compare import _sup
    assert _sup({"superiority": superiority}) == shown


def test_standalone_latex_has_no_leftover_comment(sample):
    doc = invoke("report", "-f", "latex", "--standalone", "-m", "map", sample.qrels,
                 *sample.runs).stdout
    assert "% needs" not in doc and doc.startswith("\\documentclass{article}\n")
    alone = invoke("report", "-f", "latex", "-m", "map", sample.qrels, *sample.runs).stdout
    assert alone.startswith("% needs \\usepackage{booktabs}\n")


def test_latex_means_end_at_one_place(sample):
    """Each mean is followed by the room of its column's widest mark, its own mark set
    over it: the numbers of a column end at one place, marks or none."""
    tex = invoke("report", "-f", "latex", "-t", "tukey", "-m", "map", "-m", "P.10",
                 sample.qrels, *sample.runs).stdout
    rows = [line for line in tex.splitlines() if re.match(r"^[abc] & ", line)]
    for column in (2, 3):
        cells = [row.rstrip(" \\").split(" & ")[column] for row in rows]
        tails = {re.sub(r"^.*?(\\hphantom\{.*\})$", r"\1", c) for c in cells}
        assert len(tails) == 1, cells
    assert re.search(r"\\rlap\{\\textsuperscript\{(\w\w)\}\}\\hphantom\{\\textsuperscript"
                     r"\{\1\}\}", tex)


# =========================================================================== HTML in a browser

def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


#: Measures, in the page, where each number of the table ends (its text, not its marks).
MEASURE = """<script>
const rows = [];
document.querySelectorAll('tbody tr').forEach(tr => {
  const row = [];
  tr.querySelectorAll('td').forEach(td => {
    const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walker.nextNode())) {
      if (node.parentElement.closest('sup')) continue;
      const m = node.textContent.match(/\\d+\\.\\d+/);
      if (m) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const box = range.getBoundingClientRect();
        row.push([box.left, box.right]);
        break;
      }
    }
  });
  rows.push(row);
});
document.body.setAttribute('data-numbers', JSON.stringify(rows));
</script>"""


@pytest.mark.skipif(_chromium() is None, reason="chromium is not installed")
@pytest.mark.parametrize("args", [["-t", "tukey"], ["-t", "tukey", "--ci", "t", "--second"],
                                  ["-b", "bm25", "-b", "bm25_rm3"]],
                         ids=["letters", "intervals", "daggers"])
def test_the_html_report_keeps_numbers_aligned_in_a_browser(sample, tmp_path, args):
    html = invoke("report", "-f", "html", "--standalone", "-m", "map", "-m", "P.10", *args,
                  sample.qrels, *sample.runs).stdout
    assert "<sup>" in html                        # marks, some cells without
    page = tmp_path / "report.html"
    page.write_text(html.replace("</body>", MEASURE + "</body>"))
    res = subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
         page.as_uri()], capture_output=True, text=True, timeout=120)
    found = re.search(r'data-numbers="([^"]*)"', res.stdout)
    assert found, res.stderr[-2000:]
    rows = json.loads(found.group(1).replace("&quot;", '"'))
    assert len(rows) == 3 and all(len(row) == 2 for row in rows)
    for column in range(2):
        rights = [row[column][1] for row in rows]
        assert max(rights) - min(rights) < 0.5, (column, rights)     # one right edge
    # and the marks are there, after the numbers
    assert re.search(r">\s*<sup>[^<]+</sup>", html)


# =========================================================================== plots

needs_mpl = pytest.mark.skipif(
    __import__("importlib").util.find_spec("matplotlib") is None,
    reason="matplotlib (the plot extra) is not installed")


def _open_points(fig) -> list[tuple[float, ...]]:
    """The x of every point drawn with an open (white) marker, line by line."""
    out = []
    for line in fig.axes[0].get_lines():
        if line.get_markerfacecolor() in ("white", "w", (1.0, 1.0, 1.0, 1.0)) \
                and len(line.get_xdata()) and line.get_marker() not in ("None", "none", ""):
            every = line.get_markevery()
            x = np.asarray(line.get_xdata(), dtype=float)
            out.append(tuple(x[every] if every is not None else x))
    return out


@needs_mpl
def test_plots_mark_the_points_of_the_unranked_assumption_and_agree_on_the_range(sample):
    from smarteval.plot.build import PlotOptions, figure
    from smarteval.settings import Settings
    qrels, runs = str(sample.qrels), [str(p) for p in sample.runs]
    settings = Settings(num_docs=4000)
    pr = figure(qrels, runs, settings, PlotOptions(kind="pr", method="pseudo"))
    fo = figure(qrels, runs, settings, PlotOptions(kind="fallout"))
    for fig in (pr, fo):
        labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert "past the recall of the run's lists:\n--unranked expected, N = 4000" in labels
    # the two plots mark the same points: past each run's reach, where the curves go on
    # only because --unranked places the unretrieved relevant documents
    assert _open_points(pr) == _open_points(fo) and _open_points(pr)
    # without N the points past the reach are 0 (never found), and said so
    fig = figure(qrels, runs, Settings(), PlotOptions(kind="pr"))
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "past the recall of the run's lists:\nnot found without -N" in labels


def test_the_reach_is_the_recall_of_the_lists():
    from smart_helpers import make_ranked

    from smarteval.plot.data import list_reach
    # query 1: 2 of 3 relevant retrieved; query 2: 1 of 1; query 3: nothing relevant
    r = make_ranked([[1, 0, 1], [0, 1], [0]], [[1, 1, 1, 0], [1, 0], [0]], num_docs=50)
    assert list_reach(r, "macro") == pytest.approx((2 / 3 + 1) / 2)
    assert list_reach(r, "micro") == pytest.approx(3 / 4)
    assert list_reach(r, "median") == pytest.approx((2 / 3 + 1) / 2)
