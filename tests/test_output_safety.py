"""-o never destroys a file it should not, and an interruption leaves nothing behind.

-o onto a device, a FIFO or an open descriptor writes into it; onto a symbolic link,
through it (atomically); Ctrl-C and SIGTERM, during a write, while a run arrives on
standard input, while worker processes evaluate (-j 2) or in the middle of long numpy
work, exit 130 and 143 with one line and leave no temporary file.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time

import pytest
from click.testing import CliRunner

from smarteval.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n2 0 a 0\n2 0 d 1\n"
RUN = "1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0 tag\n2 Q0 d 1 5.0 tag\n2 Q0 a 2 4.0 tag\n"
MAP = "map                   \tall\t1.0000\n"
LINUX_ONLY = "Linux /proc and /dev"


def LINUX(test):
    """Skipped where there is no Linux /proc, in CI too."""
    skip = pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason=LINUX_ONLY)
    return pytest.mark.ci_skip_ok(LINUX_ONLY)(skip(test))


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    return tmp_path


def smarteval(*args, **kw):
    kw = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **kw}
    return subprocess.run([sys.executable, "-m", "smarteval", *map(str, args)], timeout=120,
                          **kw)


def leftovers(*dirs) -> list[str]:
    return sorted(name for d in dirs for name in os.listdir(d)
                  if name.startswith((".smarteval-", "smarteval-stdin-")))


# =========================================================================== where -o writes

@LINUX
@pytest.mark.parametrize("target,status,stderr", [
    ("/dev/null", 0, b""),
    ("/dev/full", 1, b"Error: /dev/full: cannot write: No space left on device\n"),
])
def test_devices_are_written_into_never_replaced(files, target, status, stderr):
    before = os.stat(target)
    res = smarteval("evaluate", "-f", "trec", "-m", "map", "-o", target, "q", "r")
    assert (res.returncode, res.stderr) == (status, stderr)
    after = os.stat(target)
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


@LINUX
@pytest.mark.parametrize("target", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_standard_output_by_name_keeps_the_redirection(files, target):
    """`-o /dev/stdout >> file` appends, as the shell set it up."""
    out = files / "out.txt"
    out.write_text("before\n")
    with open(out, "ab") as fh:
        res = smarteval("evaluate", "-f", "trec", "-m", "map", "-o", target, "q", "r",
                        stdout=fh, stderr=subprocess.PIPE)
    assert res.returncode == 0, res.stderr
    assert out.read_text() == "before\n" + MAP


@LINUX
def test_a_fifo_is_written_into(files):
    fifo = files / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    res = smarteval("evaluate", "-f", "trec", "-m", "map", "-o", fifo, "q", "r")
    reader.join(60)
    assert res.returncode == 0, res.stderr
    assert got == [MAP.encode()]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_symbolic_link_is_written_through(files):
    target = files / "results.txt"
    target.write_text("old\n")
    target.chmod(0o640)
    (files / "link").symlink_to("results.txt")
    res = CliRunner().invoke(main, ["evaluate", "-f", "trec", "-m", "map", "-o", "link",
                                    "q", "r"])
    assert res.exit_code == 0, res.output
    assert os.path.islink(files / "link")
    assert target.read_text() == MAP
    assert stat.S_IMODE(target.stat().st_mode) == 0o640        # its permissions kept
    assert leftovers(files) == []


def test_a_dangling_link_creates_its_target(files):
    (files / "link").symlink_to("new.txt")
    res = CliRunner().invoke(main, ["evaluate", "-f", "trec", "-m", "map", "-o", "link",
                                    "q", "r"])
    assert res.exit_code == 0, res.output
    assert os.path.islink(files / "link") and (files / "new.txt").read_text() == MAP


# =========================================================================== interruptions

@pytest.mark.parametrize("where", ["write", "evaluation"])
def test_ctrl_c_exits_130_with_one_line_and_nothing_left(files, monkeypatch, where):
    from smarteval import evaluation, output
    (files / "out.txt").write_text("older\n")

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    if where == "write":
        def half_then_interrupt(fh):
            fh.write(b"half")
            interrupt()
        real = output.write_atomic
        monkeypatch.setattr(output, "write_atomic",
                            lambda path, write, **kw: real(path, half_then_interrupt, **kw))
    else:
        monkeypatch.setattr(evaluation.Job, "evaluate", interrupt)
    res = CliRunner().invoke(main, ["evaluate", "-f", "trec", "-o", "out.txt", "q", "r"])
    assert res.exit_code == 130
    assert res.stderr == "Error: interrupted\n"
    assert (files / "out.txt").read_text() == "older\n"
    assert leftovers(files) == []


def _children(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return fh.read().split()
    except OSError:
        return []


def _wait_for(predicate, what: str) -> None:
    for _ in range(600):
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"never {what}")


@LINUX
@pytest.mark.parametrize("sig,status,line", [(signal.SIGINT, 130, b"Error: interrupted\n"),
                                             (signal.SIGTERM, 143, b"Error: terminated\n")])
def test_signal_while_a_run_arrives_on_standard_input(files, sig, status, line):
    spool = files / "tmp"
    spool.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "smarteval", "evaluate", "q", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "TMPDIR": str(spool)},
                            start_new_session=True)
    proc.stdin.write(RUN.encode())
    proc.stdin.flush()                       # standard input stays open: the read waits
    _wait_for(lambda: os.listdir(spool), "spooled")
    os.killpg(proc.pid, sig)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, err, out) == (status, line, b"")
    assert leftovers(spool) == []


@LINUX
@pytest.mark.parametrize("sig,status,line,group", [
    (signal.SIGINT, 130, b"Error: interrupted\n", True),      # Ctrl-C: every process
    (signal.SIGTERM, 143, b"Error: terminated\n", False),     # kill: the main one only
])
def test_signal_with_worker_processes(files, sig, status, line, group):
    """-j 3: the two forked workers and the main process wait on FIFOs no one writes; one
    line, no worker's traceback, no worker left."""
    runs = []
    for name in ("f1", "f2", "f3"):
        os.mkfifo(files / name)
        runs.append(str(files / name))
    proc = subprocess.Popen([sys.executable, "-m", "smarteval", "evaluate", "-j", "3", "q",
                             *runs], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    _wait_for(lambda: len(_children(proc.pid)) >= 2, "started two workers")
    workers = _children(proc.pid)
    time.sleep(0.5)                           # the workers are waiting on their runs
    if group:
        os.killpg(proc.pid, sig)
    else:
        os.kill(proc.pid, sig)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, err, out) == (status, line, b"")
    _wait_for(lambda: not any(os.path.exists(f"/proc/{w}") for w in workers), "stopped")


#: smarteval's command line, saying "entered" on standard error when the function named
#: (python -c _MARKED OWNER FUNCTION ARGS...) is first called
_MARKED = """
import sys
from smarteval.measures import closure, prefs
owner = closure.Closure if sys.argv[1] == "Closure" else prefs
name = sys.argv[2]
first = getattr(owner, name)
def marked(*args, **kwargs):
    setattr(owner, name, first)
    sys.stderr.write("entered\\n")
    sys.stderr.flush()
    return first(*args, **kwargs)
setattr(owner, name, marked)
sys.argv = ["smarteval", *sys.argv[3:]]
from smarteval.__main__ import run
run()
"""


@pytest.fixture(scope="module")
def long_chain(tmp_path_factory):
    """A judgement group preferring each of 60,000 documents to the next: 1.8 billion
    preferences, closed and counted in some minutes (in blocks of bounded memory)."""
    path = tmp_path_factory.mktemp("chain")
    n = 60_000
    (path / "prefs").write_text("".join(f"1 g s{i} d{i} 2\n1 g s{i} d{i + 1} 1\n"
                                        for i in range(n)))
    (path / "run").write_text("".join(f"1 Q0 d{i} {i} {n - i} t\n" for i in range(0, n, 2)))
    return path


@LINUX
@pytest.mark.parametrize("owner,phase", [("Closure", "_layers"), ("Closure", "_bits"),
                                         ("prefs", "_tally")])
def test_sigterm_in_the_middle_of_long_numpy_work(long_chain, owner, phase):
    """SIGTERM as each phase of minutes of numpy work starts (putting the graph's nodes in
    layers, working out their bits, counting the pairs read out of them): the work goes
    in blocks of bounded size, between which the signal is taken, so the command ends
    with its line and status at once (a matrix product of minutes took it only once
    done; the timeout, far below the work left, is only there so that a failure cannot
    hang the suite)."""
    proc = subprocess.Popen([sys.executable, "-c", _MARKED, owner, phase, "evaluate", "-R",
                             "prefs", "-m", "all_prefs", "prefs", "run"], cwd=long_chain,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        assert proc.stderr.readline() == b"entered\n"
        os.kill(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (proc.returncode, err, out) == (143, b"Error: terminated\n", b"")
