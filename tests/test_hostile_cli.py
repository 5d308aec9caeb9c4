"""Hostile use of the command line: never a lost file, never a traceback, and every
terminating signal cleans up.

An output that is standard input, a plugin's source or the other output of the command;
standard input given twice; a name ending in ``/``; a link that cannot be followed;
standard output closed or full (``--help`` into ``/dev/full``); a --baseline path that is
another run's tag; SIGHUP and SIGQUIT while standard input is spooled; temporary files of
a process killed outright.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner
from fixtures import files_in, linux

import smarteval
from smarteval.cli import main
from smarteval.read.source import SPOOL_PREFIX, _host_mark

QRELS = "1 0 a 1\n1 0 b 0\n2 0 a 0\n2 0 d 1\n"
RUN = "1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0 tag\n2 Q0 d 1 5.0 tag\n2 Q0 a 2 4.0 tag\n"
OTHER = RUN.replace(" tag", " other").replace("3.0", "1.0")
PLUGIN = ('import numpy as np\nfrom smarteval.measures import measure\n\n\n'
          '@measure("hostile_zero")\ndef zero(r):\n    """Zero."""\n'
          '    return np.zeros(r.num_queries)\n')
NEVER = "and smarteval never writes over its input: give another output file"


@pytest.fixture
def files(tmp_path, monkeypatch):
    return files_in(tmp_path, monkeypatch, q=QRELS, r=RUN, s=OTHER, plug__py=PLUGIN)


def smarteval_cli(*args, **kw):
    kw = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "timeout": 120, **kw}
    return subprocess.run([sys.executable, "-m", "smarteval", *map(str, args)], **kw)


def shell(command: str):
    return subprocess.run(["bash", "-c", command.replace("smarteval",
                                                         f"'{sys.executable}' -m smarteval")],
                          capture_output=True, timeout=120)


#: (name, arguments, file given as standard input, exit status, exact standard error);
#: nothing is written, every file stays as it was
REFUSED = [
    ("-o onto the run read from standard input", ["evaluate", "-o", "r", "q", "-"], "r", 2,
     f"Error: -o r: this file is a run (standard input), {NEVER}\n"),
    ("-o onto the qrels read from standard input", ["evaluate", "-o", "q", "-", "r"], "q", 2,
     f"Error: -o q: this file is the qrels (standard input), {NEVER}\n"),
    ("standard input twice", ["evaluate", "-", "-"], "q", 2,
     "Error: standard input (-) is given twice (the qrels and a run): it can be read only "
     "once\n"),
    ("-o onto a plugin's source", ["evaluate", "--plugin", "plug.py", "-m", "hostile_zero",
                                   "-o", "plug.py", "q", "r"], None, 2,
     f"Error: -o plug.py: this file is a --plugin module's source ({{tmp}}/plug.py), "
     f"{NEVER}\n"),
    ("--plot and -o one file", ["compare", "--plot", "same.png", "-o", "same.png", "q", "r",
                                "s"], None, 2,
     "Error: -o same.png and --plot same.png name one file: the second would replace the "
     "first; give two\n"),
    # with --baseline-results no BASELINE is given: the first argument is a run
    ("standard input twice, a stored baseline", ["compare", "--baseline-results", "-", "q",
                                                 "-"], "q", 2,
     "Error: standard input (-) is given twice (a run and the --baseline-results file): it "
     "can be read only once\n"),
    ("-o onto the first run, a stored baseline", ["compare", "--baseline-results", "q", "-o",
                                                  "r", "q", "r"], None, 2,
     f"Error: -o r: this file is a run, {NEVER}\n"),
    # topics' QRELS and RUNS were one argument the checks did not know: -o replaced a run
    ("topics -o onto a run", ["topics", "--diff", "0.1", "-o", "r", "q", "r", "s"], None, 2,
     f"Error: -o r: this file is a run, {NEVER}\n"),
    ("topics -o onto the qrels", ["topics", "--diff", "0.1", "-o", "q", "q", "r", "s"], None,
     2, f"Error: -o q: this file is the qrels, {NEVER}\n"),
    ("topics, standard input twice", ["topics", "--diff", "0.1", "q", "-", "-"], "r", 2,
     "Error: standard input (-) is given twice (a run): it can be read only once\n"),
    ("-o a directory's name", ["evaluate", "-o", "newdir/", "q", "r"], None, 1,
     "Error: newdir/: cannot write: Is a directory\n"),
]


@pytest.mark.parametrize("name,args,stdin,status,stderr", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_before_any_work(files, name, args, stdin, status, stderr):
    before = {p.name: p.read_bytes() for p in files.iterdir()}
    if stdin is None:
        res = smarteval_cli(*args, cwd=files)
    else:
        with open(files / stdin, "rb") as fh:
            res = smarteval_cli(*args, cwd=files, stdin=fh)
    assert (res.returncode, res.stderr.decode(), res.stdout) == (
        status, stderr.format(tmp=files), b"")
    assert {p.name: p.read_bytes() for p in files.iterdir()} == before


@pytest.mark.parametrize("out", ["sub", "sub/", "newdir/"])
@pytest.mark.parametrize("command,flag,args", [("evaluate", "-o", []), ("plot", "-o", []),
                                               ("compare", "--plot", ["r"])])
def test_an_output_that_is_a_directory(files, command, flag, args, out):
    """A directory named as the output, existing or not, is one message and exit 1 (an
    existing one was click's "File 'sub' is a directory." and exit 2)."""
    (files / "sub").mkdir()
    res = smarteval_cli(command, *args, flag, out, "q", "r", cwd=files)
    assert (res.returncode, res.stderr.decode(), res.stdout) == (
        1, f"Error: {out}: cannot write: Is a directory\n", b"")
    assert list((files / "sub").iterdir()) == [] and not (files / "newdir").exists()


def _twice(inputs: str) -> str:
    return f"standard input (-) is given twice ({inputs}): it can be read only once"


#: (name, a library call given standard input twice, exact message): refused by the
#: command line's own check, before anything is read
API_STDIN_TWICE = [
    ("evaluate", lambda: smarteval.evaluate("-", "-"), _twice("the qrels and a run")),
    ("evaluate, two runs", lambda: smarteval.evaluate("q", ["r", "-", "-"]), _twice("a run")),
    ("evaluate, runs by name", lambda: smarteval.evaluate("-", {"x": "-"}),
     _twice("the qrels and a run")),
    ("evaluate -Z", lambda: smarteval.evaluate("q", "-", zscores="-"),
     _twice("a run and the -Z z-score file")),
    ("evaluate --frozen", lambda: smarteval.evaluate("q", "-", frozen="-", frozen_depth=1),
     _twice("a run and the --frozen run")),
    ("evaluate --risk-baseline", lambda: smarteval.evaluate("q", "-", risk_baseline="-"),
     _twice("a run and the --risk-baseline run")),
    ("evaluate --cwl-costs", lambda: smarteval.evaluate("-", "r", cwl_costs="-"),
     _twice("the qrels and the --cwl-costs file")),
    ("compare", lambda: smarteval.compare("-", "-", ["r"]),
     _twice("the qrels and the baseline run")),
    ("report", lambda: smarteval.report("q", ["-", "r", "-"]), _twice("a run")),
    ("discpower", lambda: smarteval.discpower("-", ["r", "-"]), _twice("the qrels and a run")),
    ("curve --full", lambda: smarteval.curve("q", "-", full="-"),
     _twice("a run and the --full run")),
    ("curve --cutoffs-from", lambda: smarteval.curve("-", "r", cutoffs_from="-"),
     _twice("the qrels and the --cutoffs-from run")),
    ("correlate", lambda: smarteval.correlate(["-", "-"]), _twice("a results file")),
    ("topics", lambda: smarteval.topics(0.1, qrels="-", runs=["r", "-"]),
     _twice("the qrels and a run")),
    ("calc_aggregate", lambda: smarteval.calc_aggregate(["AP"], "-", "-"),
     _twice("the qrels and a run")),
]


@pytest.mark.parametrize("name,call,message", API_STDIN_TWICE,
                         ids=[c[0] for c in API_STDIN_TWICE])
def test_standard_input_twice_through_the_library(files, name, call, message):
    with pytest.raises(smarteval.UsageError) as err:
        call()
    assert str(err.value) == message


@linux
def test_a_link_that_cannot_be_followed(files):
    """/proc/1/fd/1 is a link no other process may follow: a message, never a traceback."""
    res = smarteval_cli("evaluate", "-o", "x", "q", "/proc/1/fd/1", cwd=files)
    assert res.returncode == 1 and res.stderr.startswith(b"Error: /proc/1/fd/1: ")
    assert b"Traceback" not in res.stderr and not (files / "x").exists()
    res = smarteval_cli("evaluate", "-o", "/proc/1/fd/1", "q", "r", cwd=files)
    assert res.returncode == 1 and res.stderr.startswith(b"Error: /proc/1/fd/1: cannot write: ")
    assert b"Traceback" not in res.stderr


#: (shell command, exit status, exact standard error)
STREAMS = [
    ("smarteval evaluate q r >&-", 1,
     b"Error: standard output: cannot write: it is closed (give -o FILE)\n"),
    ("smarteval --help > /dev/full", 1,
     b"Error: standard output: cannot write: No space left on device\n"),
    ("smarteval --version > /dev/full", 1,
     b"Error: standard output: cannot write: No space left on device\n"),
    ("smarteval evaluate --help > /dev/full", 1,
     b"Error: standard output: cannot write: No space left on device\n"),
    ("smarteval evaluate -f trec -m map q r > /dev/full", 1,
     b"Error: standard output: cannot write: No space left on device\n"),
    ("smarteval --help | head -c 1 > /dev/null", 0, b""),
]


@linux
@pytest.mark.parametrize("command,status,stderr", STREAMS, ids=[c[0] for c in STREAMS])
def test_standard_output_closed_or_full(files, command, status, stderr):
    res = shell(f"cd '{files}' && {command}")
    assert (res.returncode, res.stderr) == (status, stderr)


#: (name, arguments, exit status, exact standard error): a control character a user gave is shown
#: escaped, as a quoted line's are (an escape sequence in a name cleared the terminal)
ESCAPED = [
    ("a measure's name", ["evaluate", "-m", "\x1b[2J", "q", "r"], 2,
     "Error: unknown measure:\n  \\x1b[2J\n  'smarteval measures' lists them all\n"),
    ("a file's name", ["evaluate", "q", "r\x1b[2J\r"], 1, "Error: r\\x1b[2J\\r: no such file\n"),
    ("a --require", ["evaluate", "--require", "map\x07>=1", "q", "r"], 2,
     "Error: unknown measure:\n  map\\x07 (did you mean map, gm_map?)\n  'smarteval "
     "measures' lists them all\n"),
]


@pytest.mark.parametrize("name,args,status,stderr", ESCAPED, ids=[c[0] for c in ESCAPED])
def test_control_characters_in_messages_are_escaped(files, name, args, status, stderr):
    res = CliRunner().invoke(main, args)
    assert (res.exit_code, res.stderr, res.stdout) == (status, stderr, "")


def test_a_baseline_path_is_that_file_not_another_runs_tag(files):
    """y.run's tag is x.run: -b x.run is the file x.run all the same."""
    (files / "x.run").write_text(OTHER)
    (files / "y.run").write_text(RUN.replace(" tag", " x.run"))
    table = smarteval.report("q", ["y.run", "x.run"], baselines=["x.run"]).table
    assert table.runs[table.baselines[0]] == "other"
    res = CliRunner().invoke(main, ["report", "-f", "tsv", "-b", "x.run", "q", "y.run",
                                    "x.run"])
    assert res.exit_code == 0, res.output


def test_json_carries_an_infinite_z_score_as_inf_and_tsv_as_inf(files):
    """A -Z line 1e-320 gives z = inf, which trec_eval prints as inf (JSON has none: the
    string "inf", every command's rule)."""
    (files / "z").write_text("1 map 0.1 1e-320\n2 map 0.1 1e-320\n")
    res = CliRunner().invoke(main, ["evaluate", "-f", "json", "-Z", "z", "-m", "map", "q", "r"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)[0]["summary"] == {"Zmap": "inf"}
    res = CliRunner().invoke(main, ["evaluate", "-f", "tsv", "-Z", "z", "-m", "map", "q", "r"])
    assert res.stdout.splitlines()[1] == "tag\tall\tZmap\tinf"


# =========================================================================== temporary files

def test_a_temporary_file_of_a_killed_process_is_removed(files):
    host = _host_mark()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = files / f".smarteval-{dead.pid}-{host}-abcd1234"
    elsewhere = files / f".smarteval-{dead.pid}-00000000-abcd1234"      # another host's
    alive = files / f".smarteval-{os.getpid()}-{host}-abcd1234"          # a running one's
    for path in (stale, elsewhere, alive):
        path.write_text("half")
    res = CliRunner().invoke(main, ["evaluate", "-o", "out.txt", "q", "r"])
    assert res.exit_code == 0, res.output
    assert not stale.exists() and elsewhere.exists() and alive.exists()


@linux
@pytest.mark.parametrize("sig,status,line", [
    (signal.SIGHUP, 129, b"Error: terminated by SIGHUP\n"),
    (signal.SIGQUIT, 131, b"Error: terminated by SIGQUIT\n"),
])
def test_every_terminating_signal_removes_the_spool(files, sig, status, line):
    spool = files / "tmp"
    spool.mkdir()
    # the signal's default action in the child, whatever this process inherited (under
    # nohup SIGHUP is ignored, and a command keeps a signal ignored when it starts)
    proc = subprocess.Popen([sys.executable, "-m", "smarteval", "evaluate", "q", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "TMPDIR": str(spool)},
                            preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
    try:
        proc.stdin.write(RUN.encode())
        proc.stdin.flush()                   # standard input stays open: the read waits
        for _ in range(600):
            if spooled(spool):
                break
            time.sleep(0.05)
        assert spooled(spool), "never spooled"
        os.kill(proc.pid, sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(60)
    assert (proc.returncode, err, out) == (status, line, b"")
    assert spooled(spool) == []


def spooled(directory) -> list[str]:
    """The spools of standard input in ``directory`` (a loaded machine may show another
    program's temporary file there first)."""
    return [n for n in os.listdir(directory) if n.startswith(SPOOL_PREFIX)]


def test_an_unworded_os_error_names_its_file_not_standard_output(files, monkeypatch):
    """An OSError no reader worded reached smarteval.__main__, which took every OSError for
    standard output failing; the command's handler names its file."""
    import errno

    import smarteval.api

    def failing(*args, **kwargs):
        raise OSError(errno.EIO, "Input/output error", "some.file")

    monkeypatch.setattr(smarteval.api, "evaluate", failing)
    res = CliRunner().invoke(main, ["evaluate", "q", "r"])
    assert (res.exit_code, res.stderr, res.stdout) == (
        1, "Error: some.file: Input/output error\n", "")
