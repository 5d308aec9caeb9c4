"""A plugin's measure that raises, prints or returns what is not one finite number per
query: one message naming the plugin (exit 2), never a traceback or a silent 0.0, and its
prints kept out of the results."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from smarteval.cli import main
from smarteval.measures.registry import PLUGINS, REGISTRY

QRELS = "1 0 a 1\n1 0 b 0\n2 0 a 0\n2 0 d 1\n"
RUN = "1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0 tag\n2 Q0 d 1 5.0 tag\n2 Q0 a 2 4.0 tag\n"

PLUGIN = '''
import sys

import numpy as np
from smarteval.measures import measure

print("loading")

def _one(name, body, **options):
    def func(r):
        """A hostile measure."""
        return body(r)
    func.__name__ = name
    measure(name, **options)(func)

def _raise(r):
    raise ValueError("oops")

def _chatty(r):
    print("computing")
    return np.zeros(r.num_queries)

_one("h_columns", lambda r: np.zeros((r.num_queries, 2)))
_one("h_complex", lambda r: np.ones(r.num_queries) * (1 + 2j))
_one("h_raises", _raise)
_one("h_short", lambda r: np.zeros(r.num_queries - 1))
_one("h_inf", lambda r: np.full(r.num_queries, np.inf))
_one("h_nan", lambda r: np.full(r.num_queries, np.nan))
_one("h_objects", lambda r: np.array([None] * r.num_queries))
_one("h_half", lambda r: np.full(r.num_queries, 0.5), value="int")
_one("h_chatty", _chatty)
_one("h_list", lambda r: [0.25] * r.num_queries)

def _exits(r):
    sys.exit(0)

_one("h_exits", _exits)
_one("h_masked", lambda r: np.ma.masked_all(r.num_queries))
'''


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    (tmp_path / "hostile.py").write_text(PLUGIN)
    yield tmp_path
    key = str(tmp_path / "hostile.py")
    for name in PLUGINS.pop(key, ()):
        REGISTRY.pop(name, None)


SHAPE = "a measure returns one number per query, a numpy array of shape (2,)"

#: (measure, exact message after "Error: plugin hostile.py: measure 'NAME' ")
CASES = [
    ("h_columns", f"returned an array of shape (2, 2): {SHAPE}"),
    ("h_complex", f"returned values of type complex128: {SHAPE}"),
    ("h_short", f"returned an array of shape (1,): {SHAPE}"),
    ("h_objects", f"returned values of type object: {SHAPE}"),
    ("h_half", "returned values that are not whole numbers (it is registered with "
               f"value='int'): {SHAPE}"),
    ("h_inf", "returned inf for query 1: a measure's values are finite numbers"),
    ("h_nan", "returned nan for query 1: a measure's values are finite numbers"),
    ("h_raises", "failed: ValueError: oops ({path}, line 17)"),
    # sys.exit(0) in a measure ended the command with status 0 and no output; a masked
    # array's values were what lay under the mask (-4.7e305)
    ("h_exits", "failed: SystemExit: 0 ({path}, line 35)"),
    ("h_masked", "returned nan for query 1: a measure's values are finite numbers"),
]


@pytest.mark.parametrize("name,message", CASES, ids=[c[0] for c in CASES])
def test_a_plugin_result_is_checked(files, name, message):
    res = CliRunner().invoke(main, ["evaluate", "--plugin", "hostile.py", "-f", "json",
                                    "-m", name, "q", "r"])
    assert "Traceback" not in res.output
    assert res.exit_code == 2
    path = files / "hostile.py"
    assert res.stderr == ("loading\nError: plugin hostile.py: measure "
                          f"'{name}' {message.format(path=path)}\n")
    assert res.stdout == ""


def test_a_plugin_prints_on_standard_error(files):
    res = CliRunner().invoke(main, ["evaluate", "--plugin", "hostile.py", "-f", "json",
                                    "-m", "h_chatty", "-m", "h_list", "q", "r"])
    assert res.exit_code == 0, res.output
    assert res.stderr == "loading\ncomputing\n"
    assert json.loads(res.stdout)[0]["summary"] == {"h_chatty": 0.0, "h_list": 0.25}


@pytest.mark.parametrize("code,status", [("sys.exit(3)", 3), ("sys.exit(0)", 0)])
def test_a_plugin_that_exits_while_imported(files, code, status):
    """Status 3 is --fail-if's regression: a plugin's sys.exit(3) passed for one, and its
    sys.exit(0) for success with nothing written."""
    (files / "quits.py").write_text(f"import sys\n{code}\n")
    res = CliRunner().invoke(main, ["evaluate", "--plugin", "quits.py", "q", "r"])
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == (f"Error: plugin quits.py: importing it failed: SystemExit: {status} "
                          f"({files / 'quits.py'}, line 2)\n")


def test_ctrl_c_while_a_plugin_loads(files):
    """The plugin is loaded before the command's handler is in place: click said
    "Aborted!" with exit 1, where Ctrl-C is "Error: interrupted" and 130 everywhere else."""
    (files / "slow.py").write_text("raise KeyboardInterrupt\n")
    res = CliRunner().invoke(main, ["evaluate", "--plugin", "slow.py", "q", "r"])
    assert (res.exit_code, res.stderr, res.stdout) == (130, "Error: interrupted\n", "")
