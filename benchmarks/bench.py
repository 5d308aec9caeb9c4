#!/usr/bin/env python3
"""Time whole evaluations: smarteval against trec_eval-compatible tools.

Every tool runs as its own process (``python -m smarteval evaluate ...``, a worker
mode of this script for the Python libraries, a ``trec_eval`` binary if one is on
PATH), several times; the table gives median wall time, user and system CPU time and
peak RSS of each process (``os.wait4`` rusage of the child, so nothing of this
script is counted), and the ratio of each tool to smarteval::

    python benchmarks/generate.py --size 7M            # data first (benchmarks/data)
    python benchmarks/bench.py                          # every size found, 5 repeats
    python benchmarks/bench.py --sizes 7M --tools smarteval,pytrec_eval -r 3
    python benchmarks/bench.py --phases --sizes 7M      # smarteval's phases in-process
    python benchmarks/bench.py --smoke                  # tiny data, 1 run each, tiny
                                                        # --graded/--diversity, --memory (CI)
    python benchmarks/bench.py --memory                 # peak RSS on odd inputs, bounded?
    python benchmarks/bench.py --report                 # the table of a paper, 30 runs
    python benchmarks/bench.py --stats                  # compare -t randomization at 7M,
                                                        # randomised Tukey at 30 runs
    python benchmarks/bench.py --graded --sizes 7M      # official vs + ERR@10, exp nDCG@10
    python benchmarks/bench.py --diversity              # diversity measures beside ndeval
    /venv/bin/python benchmarks/bench.py --installed    # the smarteval pip installed in
                                                        # that Python, as users run it
    python benchmarks/generate.py --wide 1M,10M --wide-interleaved --wide-pair
    python benchmarks/bench.py --wide --sizes 1M,10M --trec-eval /path/to/trec_eval
                                                        # the "million queries" shape

Tools (those not installed are skipped):

* ``smarteval``   ``python -m smarteval evaluate -m official -f trec QRELS RUN``
* ``pytrec_eval`` parse both files in Python (dicts, the usual way) + RelevanceEvaluator
  with trec_eval's official measures + aggregation
* ``ir_measures`` ``ir_measures.calc_aggregate`` with the closest official measures
  (its own file readers; no gm_map)
* ``ranx``        ``Qrels/Run.from_file`` + ``ranx.evaluate`` (map, mrr, r-precision,
  bpref, precision@k; no iprec_at_recall / gm_map); numba's JIT cache is warmed by an
  untimed first run
* ``trec_eval``   the executable given by ``--trec-eval PATH``, else ``trec_eval`` on PATH
* ``smarteval-j1`` (only when asked) smarteval with ``-j 1``: several runs in one process
* ``smarteval-tuned`` (only when asked) smarteval with glibc's malloc keeping freed
  memory and numpy's huge-page madvise off (environment variables)

Data sets: ``msmarco-{1M,3.5M,7M,14M}`` (one run, one qrels); ``trec-1run`` (the first
TREC-sized run, 50 queries x 1,000 documents, against the ~87,000-line qrels);
``trec-sweep`` (20 processes in a row, one per run file, against one qrels: the
shell-loop usage; times are the sum, memory the max); ``trec-sweep-1proc`` (the 20 runs
in one call; trec_eval, which takes one run a call, runs its 20 calls in a row); and
``qrels-1M`` (``pool/``: a 50-query run against a pooled qrels of 1,000,000 lines, whose
reading ``--phases`` times on its own). The columns ``time / trec_eval`` and ``RSS /
trec_eval`` compare each tool with the trec_eval on PATH on the same data.

``--graded`` times ``smarteval evaluate -f trec -m official`` against the same with
``-m ERR@10 -m "nDCG(dcg='exp-log2')@10"`` (gdeval's ERR@10 and nDCG@10 with gains
2^grade - 1; ``gd_err.10`` and ``gd_ndcg.10`` in trec form) on each msmarco run of
``--sizes``, interleaved, and prints the ratio. ``--diversity`` writes seeded diversity
qrels (QUERY SUBTOPIC DOCNO REL: 50 topics, 10 subtopics, 300 judged documents a topic)
and a run of 50 topics x 1,000 documents, and times ``smarteval evaluate -R
qrels_diversity`` with alpha-nDCG.20, ERR-IA.20, NRBP, nNRBP, P-IA.20, MAP-IA and strec.20
beside ndeval itself (an ``ndeval`` executable on PATH, e.g. compiled from the
``ndeval.c`` in pyndeval's source distribution: ``cc -O2 -o ndeval ndeval.c -lm``) and
pyndeval's Python call (a worker process reading the same files), interleaved. Both are
also run, tiny, by ``--smoke``.

``--wide`` times the runs of ``generate.py --wide`` (the shape of ranx's "million
queries" benchmark: SIZE / 100 queries x 100 documents, 1-3 relevant each; ``--sizes
1M,10M,30M,100M`` in lines, default every ``wide-SIZE.run`` found), smallest first, one
timed process a row unless ``-r``: each tool of ``--tools`` (trec_eval, pytrec_eval,
ir_measures and ranx where they fit), then smarteval alone with ``-q -f trec``, ``-q -f
tsv``, ``curve``, ``compare`` of the ``.b.run`` against the run, and on the
``.interleaved.run`` (the same lines not grouped by query). Every process runs under
``--limit`` seconds (default 900: "not finished in 900 s") and ``--mem-cap`` GiB of
address space (RLIMIT_AS, default half the RAM: "did not fit in N GiB"); a tool whose
estimated peak (WIDE_NEEDS) is over the cap is not started ("skipped: needs ~X GiB"),
and a command that ran out of time or memory is not tried on the larger sizes. The
output column compares smarteval's ``-f trec`` output with trec_eval's byte for byte
("identical" / "DIFFERS"); ratios are to trec_eval's evaluation of the same size.

The command lines are in TOOLS below; adapt them when smarteval's CLI changes.
``--phases`` imports smarteval and times read_qrels / read_run / ranking / measures /
render separately (see PHASES: a loose adapter to smarteval's internal API).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

OFFICIAL_PYTREC = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                   "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"]
CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000]


# ---------------------------------------------------------------------------
# Tools: a command line per (qrels, run); None when the tool is not available
# ---------------------------------------------------------------------------

def _py() -> list[str]:
    return [sys.executable]


def _importable(module: str) -> bool:
    env = _env()
    p = subprocess.run(_py() + ["-c", f"import {module}"], env=env, cwd=_cwd(),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p.returncode == 0


#: ``--installed``: time the smarteval installed in this interpreter (``pip install .``, as
#: users run it) instead of this checkout's sources
INSTALLED = False


def _env() -> dict:
    env = dict(os.environ)
    if not INSTALLED:
        env["PYTHONPATH"] = REPO + (os.pathsep + env["PYTHONPATH"]
                                    if env.get("PYTHONPATH") else "")
    return env


def _cwd() -> str:
    """The children's working directory: the checkout, or one with no smarteval in it."""
    return tempfile.gettempdir() if INSTALLED else REPO


def _package_dir() -> str:
    """The directory of the smarteval package the children import."""
    if not INSTALLED:
        return os.path.join(REPO, "smarteval")
    p = subprocess.run(_py() + ["-c", "import os, smarteval; "
                                "print(os.path.dirname(smarteval.__file__))"],
                       capture_output=True, text=True, env=_env(), cwd=_cwd(), check=True)
    return p.stdout.strip()


#: ``--trec-eval PATH``: the trec_eval executable to time (else ``trec_eval`` on PATH)
TREC_EVAL: str | None = None


def _trec_eval() -> str | None:
    """The trec_eval executable timed: --trec-eval's, or the one on PATH, or None."""
    if TREC_EVAL:
        return TREC_EVAL if os.access(TREC_EVAL, os.X_OK) else None
    return shutil.which("trec_eval")


TOOLS = {
    "smarteval": {
        "available": lambda: _importable("smarteval.cli"),
        "cmd": lambda qrels, run: _py() + ["-m", "smarteval", "evaluate", "-m", "official",
                                           "-f", "trec", qrels, run],
        "multi": lambda qrels, runs: _py() + ["-m", "smarteval", "evaluate", "-m", "official",
                                              "-f", "trec", qrels, *runs],
    },
    # the runs of one call in this one process (-j 1), not one process per CPU (the
    # default for several small runs)
    "smarteval-j1": {
        "available": lambda: _importable("smarteval.cli"),
        "cmd": lambda qrels, run: TOOLS["smarteval"]["cmd"](qrels, run) + ["-j", "1"],
        "multi": lambda qrels, runs: TOOLS["smarteval"]["multi"](qrels, runs) + ["-j", "1"],
        "default": False,
    },
    # the same command with glibc malloc told to keep freed memory (no page faults for
    # every fresh numpy temporary) and numpy's transparent-huge-page madvise off; what
    # smarteval's CLI could set for itself (mallopt via ctypes, numpy's
    # _set_madvise_hugepage(False)); see NOTES.md
    "smarteval-tuned": {
        "available": lambda: _importable("smarteval.cli"),
        "cmd": lambda qrels, run: TOOLS["smarteval"]["cmd"](qrels, run),
        "multi": lambda qrels, runs: TOOLS["smarteval"]["multi"](qrels, runs),
        "env": {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=33554432:"
                                  "glibc.malloc.trim_threshold=1073741824",
                "NUMPY_MADVISE_HUGEPAGE": "0"},
        "default": False,
    },
    "pytrec_eval": {
        "available": lambda: _importable("pytrec_eval"),
        "cmd": lambda qrels, run: _py() + [__file__, "--worker", "pytrec_eval", qrels, run],
        "multi": lambda qrels, runs: _py() + [__file__, "--worker", "pytrec_eval", qrels, *runs],
    },
    "ir_measures": {
        "available": lambda: _importable("ir_measures"),
        "cmd": lambda qrels, run: _py() + [__file__, "--worker", "ir_measures", qrels, run],
    },
    "ranx": {
        "available": lambda: _importable("ranx"),
        "cmd": lambda qrels, run: _py() + [__file__, "--worker", "ranx", qrels, run],
        "warmup": True,     # numba compiles (and caches) on the first run
        "sweep": False,     # ~10-20 s a process (import + JIT): 20 of them say nothing new
    },
    "trec_eval": {
        "available": lambda: _trec_eval() is not None,
        "cmd": lambda qrels, run: [_trec_eval() or "trec_eval", qrels, run],
        "one_run_a_call": True,     # trec-sweep-1proc: its 20 calls in a row
    },
}


# ---------------------------------------------------------------------------
# Workers (run in their own process by the commands above)
# ---------------------------------------------------------------------------

def _read_qrels_dict(path):
    qrels = {}
    with open(path) as f:
        for line in f:
            t = line.split()
            if t:
                qrels.setdefault(t[0], {})[t[2]] = int(t[3])
    return qrels


def _read_run_dict(path):
    run = {}
    tag = ""
    with open(path) as f:
        for line in f:
            t = line.split()
            if t:
                run.setdefault(t[0], {})[t[2]] = float(t[4])
                tag = tag or t[5]
    return run, tag


def worker_pytrec_eval(qrels_path, *run_paths):
    import pytrec_eval
    qrels = _read_qrels_dict(qrels_path)
    measures = {m for m in OFFICIAL_PYTREC if m in pytrec_eval.supported_measures}
    ev = pytrec_eval.RelevanceEvaluator(qrels, measures)
    for run_path in run_paths:
        run, _ = _read_run_dict(run_path)
        res = ev.evaluate(run)
        names = sorted(next(iter(res.values())).keys()) if res else []
        for m in names:
            agg = pytrec_eval.compute_aggregated_measure(m, [r[m] for r in res.values()])
            print(f"{m}\tall\t{agg:.4f}")


def worker_ir_measures(qrels_path, run_path):
    import ir_measures
    from ir_measures import AP, RR, Bpref, IPrec, NumQ, NumRel, NumRelRet, NumRet, P, Rprec
    measures = [NumQ, NumRet, NumRel, NumRelRet, AP, Rprec, Bpref, RR]
    measures += [IPrec @ (i / 10) for i in range(11)] + [P @ k for k in CUTOFFS]
    qrels = ir_measures.read_trec_qrels(qrels_path)
    run = ir_measures.read_trec_run(run_path)
    for m, v in sorted(ir_measures.calc_aggregate(measures, qrels, run).items(), key=str):
        print(f"{m}\tall\t{v:.4f}")


def worker_ranx(qrels_path, run_path):
    from ranx import Qrels, Run, evaluate
    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    metrics = ["map", "mrr", "r-precision", "bpref"] + [f"precision@{k}" for k in CUTOFFS]
    for m, v in evaluate(qrels, run, metrics, make_comparable=True).items():
        print(f"{m}\tall\t{v:.4f}")


WORKERS = {"pytrec_eval": worker_pytrec_eval, "ir_measures": worker_ir_measures,
           "ranx": worker_ranx}


# ---------------------------------------------------------------------------
# Timing whole processes
# ---------------------------------------------------------------------------

def run_once(cmd: list[str], env: dict | None = None) -> dict:
    """Run a command; wall time, CPU times and peak RSS of that child alone.

    Linux folds the parent's RSS at fork/exec time into the child's ru_maxrss, so
    this script imports nothing heavy (its own RSS, ~10 MiB, is the floor)."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err,
                             env={**_env(), **(env or {})}, cwd=_cwd())
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        msg = err.read().decode("utf-8", "replace").strip()
    return {"wall": wall, "user": ru.ru_utime, "sys": ru.ru_stime,
            "rss_mib": ru.ru_maxrss / 1024, "rc": p.returncode,
            "error": msg.splitlines()[-1] if p.returncode and msg else ""}


def run_series(cmds: list[list[str]], env: dict | None = None) -> dict:
    """Several processes in a row (the sweep): summed times, max memory."""
    out = {"wall": 0.0, "user": 0.0, "sys": 0.0, "rss_mib": 0.0, "rc": 0, "error": ""}
    for cmd in cmds:
        r = run_once(cmd, env)
        for k in ("wall", "user", "sys"):
            out[k] += r[k]
        out["rss_mib"] = max(out["rss_mib"], r["rss_mib"])
        if r["rc"]:
            return r
    return out


def datasets(data_dir: str, sizes: list[str], sweep: bool) -> list[tuple[str, str, list[str]]]:
    """(name, qrels, [runs]) for the data found."""
    out = []
    for s in sizes:
        run = os.path.join(data_dir, f"msmarco-{s}.run")
        qrels = os.path.join(data_dir, f"msmarco-{s}.qrels")
        if os.path.exists(run) and os.path.exists(qrels):
            out.append((f"msmarco-{s}", qrels, [run]))
    sub = "trec-tiny" if sizes == ["tiny"] else "trec"
    tq = os.path.join(data_dir, sub, "qrels.txt")
    rd = os.path.join(data_dir, sub, "runs")
    if os.path.exists(tq) and os.path.isdir(rd):
        runs = sorted(os.path.join(rd, f) for f in os.listdir(rd) if f.endswith(".txt"))
        if runs:
            out.append(("trec-1run", tq, runs[:1]))       # the common case: one small run
        if sweep and runs:
            out.append(("trec-sweep", tq, runs))          # one process per run
            out.append(("trec-sweep-1proc", tq, runs))    # one process for all runs
    pool = os.path.join(data_dir, "pool-tiny" if sizes == ["tiny"] else "pool")
    pq, pr = os.path.join(pool, "qrels.txt"), os.path.join(pool, "run.txt")
    if os.path.exists(pq) and os.path.exists(pr):
        out.append(("qrels-tiny" if sizes == ["tiny"] else "qrels-1M", pq, [pr]))
    return out


def bench(data, tools, repeat, warmup=True, log=print):
    rows = []
    for name, qrels, runs in data:
        for tool in tools:
            spec = TOOLS[tool]
            if name.startswith("trec-sweep") and not spec.get("sweep", True):
                continue
            if name.endswith("-1proc"):
                if "multi" in spec:
                    cmds = [spec["multi"](qrels, runs)]
                elif spec.get("one_run_a_call"):
                    cmds = [spec["cmd"](qrels, r) for r in runs]
                else:
                    continue
            else:
                cmds = [spec["cmd"](qrels, r) for r in runs]
            env = spec.get("env")
            if warmup or spec.get("warmup"):
                first = run_once(cmds[0], env)
                if first["rc"]:
                    rows.append({"data": name, "tool": tool, "error": first["error"]})
                    log(f"  {name:14s} {tool:12s} FAILED: {first['error']}")
                    continue
            res = []
            for _ in range(repeat):
                r = run_series(cmds, env)
                if r["rc"]:
                    res = []
                    rows.append({"data": name, "tool": tool, "error": r["error"]})
                    log(f"  {name:14s} {tool:12s} FAILED: {r['error']}")
                    break
                res.append(r)
            if not res:
                continue
            row = {"data": name, "tool": tool, "runs": len(runs), "repeat": len(res),
                   "wall": statistics.median(r["wall"] for r in res),
                   "wall_min": min(r["wall"] for r in res),
                   "user": statistics.median(r["user"] for r in res),
                   "sys": statistics.median(r["sys"] for r in res),
                   "rss_mib": max(r["rss_mib"] for r in res)}
            rows.append(row)
            log(f"  {name:14s} {tool:12s} {row['wall']:8.2f} s  {row['rss_mib']:7.0f} MiB")
    return rows


def table(rows: list[dict], baseline: str = "smarteval", reference: str = "trec_eval") -> str:
    """The rows, with each tool's ratios to ``baseline`` and, when it ran, to ``reference``."""
    base = {r["data"]: r for r in rows if r["tool"] == baseline and "error" not in r}
    ref = {r["data"]: r for r in rows if r["tool"] == reference and "error" not in r}
    head = ["data", "tool", "wall s (median)", "min s", "user s", "sys s", "peak RSS MiB",
            f"time / {baseline}", f"RSS / {baseline}"]
    head += [f"time / {reference}", f"RSS / {reference}"] if ref else []

    def ratios(r: dict, to: dict | None) -> list[str]:
        return [f"{r['wall'] / to['wall']:.2f}x" if to else "-",
                f"{r['rss_mib'] / to['rss_mib']:.2f}x" if to else "-"]

    body = []
    for r in rows:
        if "error" in r:
            body.append([r["data"], r["tool"], "failed: " + r["error"][:60]]
                        + [""] * (len(head) - 3))
            continue
        body.append([r["data"], r["tool"], f"{r['wall']:.3f}", f"{r['wall_min']:.3f}",
                     f"{r['user']:.3f}", f"{r['sys']:.3f}", f"{r['rss_mib']:.0f}",
                     *ratios(r, base.get(r["data"]))]
                    + (ratios(r, ref.get(r["data"])) if ref else []))
    try:
        from tabulate import tabulate
        return tabulate(body, head, tablefmt="github", disable_numparse=True)
    except ImportError:
        w = [max(len(str(x)) for x in col) for col in zip(head, *body)]
        line = lambda row: "  ".join(str(x).ljust(n) for x, n in zip(row, w))  # noqa: E731
        return "\n".join([line(head), line(["-" * n for n in w])] + [line(r) for r in body])


# ---------------------------------------------------------------------------
# smarteval's phases, in-process (adapt PHASES to smarteval's internal API)
# ---------------------------------------------------------------------------

def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _machine() -> str:
    """CPU, cores, RAM, python, numpy (its version as installed: this process stays small
    and imports no numpy), load average and this process's RSS."""
    import importlib.metadata
    import platform
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name")), cpu)
    except OSError:
        pass
    try:
        ram = f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.1f} GiB RAM"
    except (ValueError, OSError):
        ram = "RAM unknown"
    try:
        numpy = importlib.metadata.version("numpy")
    except importlib.metadata.PackageNotFoundError:
        numpy = "not installed"
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"{cpu}, {os.cpu_count()} cores, {ram}, python {sys.version.split()[0]}, numpy "
            f"{numpy}, load average {load}, this process {_maxrss_mib():.0f} MiB")


def _phase_read_qrels(ctx):
    from smarteval.read import plain as readers
    ctx["qrels"] = readers.read_qrels(ctx["qrels_path"])


def _phase_read_run(ctx):
    from smarteval.read import plain as readers
    ctx["run"] = readers.read_run(ctx["run_path"])


def _phase_rank(ctx):
    from smarteval.ranking import join as ranking
    from smarteval.settings import Settings
    ctx["ranked"] = ranking.rank(ctx["run"], ctx["qrels"], settings=Settings())


def _phase_measures(ctx):
    # as smarteval.evaluation.Job.evaluate computes them
    from smarteval.aggregate import complete_values, summarize
    from smarteval.measures import parse_measures
    r = ctx["ranked"]                   # ties and averaging: its settings'
    outputs = [o for rq in parse_measures(["official"], 9) for o in rq.outputs()]
    per_query, summary = {}, {}
    for out in outputs:
        per_query[out.name] = complete_values(out, out.compute(r), r)
        summary[out.name] = summarize(out, per_query[out.name], r)
    ctx["outputs"], ctx["per_query"], ctx["summary"] = outputs, per_query, summary


def _phase_render(ctx):
    from smarteval.aggregate import averaged_over
    from smarteval.evaluation import Evaluation, RunInfo
    from smarteval.render.evaluation import render
    r, run = ctx["ranked"], ctx["run"]
    ev = Evaluation(name=run.tag, path=run.path, tag=run.tag, qids=r.qids, in_run=r.in_run,
                    outputs=ctx["outputs"], per_query=ctx["per_query"], summary=ctx["summary"],
                    ranked=r, run_info=RunInfo(run.path, run.tag),
                    averaged_over=averaged_over(r))
    ctx["text"] = render([ev], "trec", per_query=False, summary=True)


def _phase_api(ctx):
    """The whole evaluation through the public API, for comparison with the sum."""
    import smarteval
    ctx["api"] = smarteval.evaluate(ctx["qrels_path"], ctx["run_path"], ["official"])


def _phase_lab_reader(ctx):
    sys.path.insert(0, HERE)
    import lab_reader
    ctx["lab_run"] = lab_reader.read_run(ctx["run_path"])


PHASES = [("read_qrels", _phase_read_qrels), ("read_run", _phase_read_run),
          ("rank", _phase_rank), ("measures", _phase_measures), ("render", _phase_render),
          ("api.evaluate (all)", _phase_api), ("lab_reader.read_run", _phase_lab_reader)]


def phases_worker(qrels_path: str, run_path: str) -> None:
    """Run in a fresh process: time each phase, print JSON."""
    t0 = time.perf_counter()
    import numpy  # noqa: F401
    try:
        import smarteval  # noqa: F401
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"import": f"failed: {type(e).__name__}: {e}"}))
        return
    out = {"import_s": time.perf_counter() - t0, "phases": []}
    ctx = {"qrels_path": qrels_path, "run_path": run_path}
    for name, fn in PHASES:
        t = time.perf_counter()
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        try:
            fn(ctx)
            err = ""
        except Exception as e:  # noqa: BLE001
            err = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        out["phases"].append({"phase": name, "s": time.perf_counter() - t,
                              "cpu_s": r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime,
                              "maxrss_mib": _maxrss_mib(), "error": err})
    print(json.dumps(out))


def phases(data, repeat: int) -> str:
    lines = []
    for name, qrels, runs in data:
        if name.startswith("trec-sweep"):
            continue
        results = []
        for _ in range(repeat):
            p = subprocess.run(_py() + [__file__, "--phases-worker", qrels, runs[0]],
                               capture_output=True, text=True, env=_env(), cwd=_cwd())
            if p.returncode:
                lines.append(f"{name}: phases worker failed: {p.stderr.strip()[-300:]}")
                break
            results.append(json.loads(p.stdout))
        if not results:
            continue
        if "import" in results[0]:
            lines.append(f"{name}: smarteval import {results[0]['import']}")
            continue
        lines.append(f"{name}: import {statistics.median(r['import_s'] for r in results):.3f} s")
        for i, ph in enumerate(results[0]["phases"]):
            if ph["error"]:
                lines.append(f"  {ph['phase']:22s} n/a ({ph['error'][:80]})")
                continue
            s = statistics.median(r["phases"][i]["s"] for r in results)
            c = statistics.median(r["phases"][i]["cpu_s"] for r in results)
            m = max(r["phases"][i]["maxrss_mib"] for r in results)
            lines.append(f"  {ph['phase']:22s} {s:7.3f} s  cpu {c:6.3f} s"
                         f"  peak RSS so far {m:6.0f} MiB")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Peak memory on inputs whose shape, not size, costs memory
# ---------------------------------------------------------------------------

#: Peak RSS allowed on the inputs below: the interpreter and numpy, plus a constant
#: factor of the input's size, whatever the lengths of its ids and lines.
MEMORY_BASE_MIB = 100
MEMORY_FACTOR = 8


def _run_lines(queries: list[str]) -> list[str]:
    """1,000 lines a query, short docnos, scores descending."""
    return [f"{qid} Q0 FT9{q:02d}-{d:05d} {d + 1} {1000 - d}.5 tag\n"
            for q, qid in enumerate(queries) for d in range(1000)]


#: A query id of 20,000 bytes (in the qrels too, see memory()).
LONG_QID = "Q" * 20_000


def _memory_input(docno_bytes: int = 0, long_qid: bool = False, spaces: int = 0):
    """A maker of a run of 15 queries x 1,000 lines (~0.5 MB), with one docno of
    ``docno_bytes`` bytes, a 16th query whose id is :data:`LONG_QID`, or only one line
    followed by a line of ``spaces`` spaces."""
    def make(path: str) -> None:
        lines = _run_lines([str(401 + q) for q in range(15)] + [LONG_QID] * long_qid)
        if docno_bytes:
            lines[5000] = f"406 Q0 {'L' * docno_bytes} 1 9999.5 tag\n"
        if spaces:
            lines = [lines[0], " " * spaces + "\n"]
        with open(path, "w") as fh:
            fh.writelines(lines)
    return make


MEMORY_INPUTS = {"long-docno": _memory_input(docno_bytes=20_000),
                 "huge-docno": _memory_input(docno_bytes=5_000_000),
                 "long-qid": _memory_input(long_qid=True),
                 "long-line": _memory_input(spaces=30_000_000)}


def memory(log=print) -> int:
    """Peak RSS of ``smarteval evaluate`` on each input of MEMORY_INPUTS, against the bound
    MEMORY_BASE_MIB + MEMORY_FACTOR x input size; 1 when one is over it."""
    tmp = tempfile.mkdtemp(prefix="smarteval_memory_")
    qrels = os.path.join(tmp, "qrels")
    with open(qrels, "w") as fh:
        fh.writelines(f"{401 + q} 0 FT9{q:02d}-{d:05d} {d % 3}\n"
                      for q in range(15) for d in range(0, 1000, 7))
        # judgements of the long query id, and a judged docno of 20,000 bytes
        fh.writelines(f"{LONG_QID} 0 FT915-{d:05d} {d % 3}\n" for d in range(0, 1000, 7))
        fh.write(f"405 0 {'J' * 20_000} 1\n")
    rows, over = [], 0
    for name, make in MEMORY_INPUTS.items():
        run = os.path.join(tmp, f"{name}.run")
        make(run)
        size = os.path.getsize(run) / 2**20
        r = run_once(TOOLS["smarteval"]["cmd"](qrels, run))
        bound = MEMORY_BASE_MIB + MEMORY_FACTOR * size
        ok = r["rc"] == 0 and r["rss_mib"] <= bound
        over += not ok
        rows.append([name, f"{size:.1f}", f"{r['rss_mib']:.0f}", f"{r['wall']:.2f}",
                     f"{bound:.0f}", "ok" if ok else ("OVER" if r["rc"] == 0
                                                       else f"failed: {r['error'][:50]}")])
    shutil.rmtree(tmp, ignore_errors=True)
    head = ["input", "MiB", "peak RSS MiB", "wall s", "bound MiB", ""]
    w = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    for row in [head, *rows]:
        log("  ".join(str(x).ljust(n) for x, n in zip(row, w)))
    return 1 if over else 0


# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# DataFrame and Parquet inputs (--frames): the same run in memory and as Parquet
# ---------------------------------------------------------------------------

def _parquet_beside(run: str) -> str:
    """``run`` as a Parquet file beside it (written once, with pyarrow's CSV reader)."""
    out = os.path.splitext(run)[0] + ".parquet"
    if not os.path.exists(out):
        import pyarrow as pa
        import pyarrow.csv as pcsv
        import pyarrow.parquet as pq
        names = ["qid", "Q0", "docno", "rank", "score", "tag"]
        table = pcsv.read_csv(run, read_options=pcsv.ReadOptions(column_names=names),
                              parse_options=pcsv.ParseOptions(delimiter=" "),
                              convert_options=pcsv.ConvertOptions(column_types={
                                  "qid": pa.string(), "docno": pa.string()}))
        pq.write_table(table, out)
    return out


def frames_worker(qrels: str, run: str, parquet: str, repeat: str) -> None:
    """In one process: median seconds of ``smarteval.evaluate`` (official measures) on the
    text run, on the same run as a pandas DataFrame (built before the clock starts) and
    on the Parquet file; printed as JSON."""
    import pandas as pd

    import smarteval
    q = smarteval.read_qrels(qrels)
    frame = pd.read_parquet(parquet)
    out = {}
    for label, source in (("text file", run), ("DataFrame", frame), ("Parquet file", parquet)):
        times = []
        for _ in range(int(repeat)):
            t = time.perf_counter()
            smarteval.evaluate(q, source, ["official"])
            times.append(time.perf_counter() - t)
        out[label] = statistics.median(times)
    print(json.dumps(out))


def frames_bench(data_dir: str, sizes: list[str], repeat: int) -> str:
    """Rows for a run given as text, as a DataFrame and as Parquet (see frames_worker),
    and whole ``smarteval evaluate`` processes on the text and the Parquet file."""
    lines = ["| data | input | evaluate (in-process) | / text | whole process | RSS |",
             "|---|---|---|---|---|---|"]
    for s in sizes:
        run = os.path.join(data_dir, f"msmarco-{s}.run")
        qrels = os.path.join(data_dir, f"msmarco-{s}.qrels")
        if not (os.path.exists(run) and os.path.exists(qrels)):
            continue
        parquet = _parquet_beside(run)
        got = subprocess.run(_py() + [__file__, "--frames-worker", qrels, run, parquet,
                                      str(repeat)], check=True, capture_output=True,
                             text=True).stdout
        inproc = json.loads(got.strip().splitlines()[-1])
        procs = {}
        for label, path in (("text file", run), ("Parquet file", parquet)):
            res = [run_series([TOOLS["smarteval"]["cmd"](qrels, path)]) for _ in range(repeat)]
            procs[label] = (statistics.median(r["wall"] for r in res),
                            max(r["rss_mib"] for r in res))
        for label, secs in inproc.items():
            wall, rss = procs.get(label, (None, None))
            lines.append(f"| msmarco-{s} | {label} | {secs:.2f} s | "
                         f"{secs / inproc['text file']:.2f}x | "
                         + (f"{wall:.2f} s | {rss:.0f} MiB |" if wall is not None else " | |"))
    return "\n".join(lines)


def _report_data(out: str, runs: int = 30, queries: int = 50, depth: int = 100) -> list[str]:
    """``runs`` TREC runs of ``queries`` x ``depth`` documents and their qrels, written
    into ``out`` (seeded; the runs' quality rises with their number)."""
    import numpy as np
    rng = np.random.default_rng(0)
    docs = 2000
    relevant = [rng.choice(docs, size=int(rng.integers(5, 60)), replace=False)
                for _ in range(queries)]
    with open(os.path.join(out, "qrels"), "w") as f:
        for q, rel in enumerate(relevant):
            f.writelines(f"{q + 1} 0 D{d} {1 + d % 2}\n" for d in sorted(rel))
    paths = []
    for r in range(runs):
        path = os.path.join(out, f"run{r:02d}.run")
        with open(path, "w") as f:
            for q, rel in enumerate(relevant):
                boost = np.zeros(docs)
                boost[rel] = 1.0 + r / runs
                score = rng.standard_normal(docs) + boost
                top = np.argsort(-score)[:depth]
                f.writelines(f"{q + 1} Q0 D{d} {i + 1} {score[d]:.6f} run{r:02d}\n"
                             for i, d in enumerate(top))
        paths.append(path)
    return [os.path.join(out, "qrels"), *paths]


REPORT_ARGS = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "recip_rank", "-m",
               "bpref", "-t", "randomization", "--samples", "10000"]


def report_worker(qrels: str, *runs: str) -> None:
    """In one process: seconds to evaluate the runs and to build their table (every pair,
    randomization test), printed as JSON."""
    import smarteval
    from smarteval.stats.table import build_table
    t = time.perf_counter()
    evs = smarteval.evaluate(qrels, list(runs), REPORT_ARGS[1:10:2])
    evaluated = time.perf_counter() - t
    names = ["map", "P_10", "ndcg_cut_10", "recip_rank", "bpref"]
    t = time.perf_counter()
    table = build_table(evs, names, test="randomization", samples=10000)
    built = time.perf_counter() - t
    print(json.dumps({"evaluate": evaluated, "table": built, "family": table.family}))


def report_bench(repeat: int) -> str:
    """``smarteval report`` of 30 runs x 5 measures x 50 queries, every pair compared by
    a randomization test of 10,000 samples: whole processes, and the stages in one."""
    tmp = tempfile.mkdtemp(prefix="smarteval_report_")
    try:
        files = _report_data(tmp)
        whole = [run_once(_py() + ["-m", "smarteval", "report", *files, *REPORT_ARGS])
                 for _ in range(repeat)]
        if any(r["rc"] for r in whole):
            return f"report failed: {whole[0]['error']}"
        stages = [json.loads(subprocess.run(
            _py() + [__file__, "--report-worker", *files], check=True, capture_output=True,
            text=True, cwd=_cwd(), env=_env()).stdout.strip().splitlines()[-1])
            for _ in range(repeat)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    med = statistics.median
    return ("| data | whole process | user CPU | RSS | evaluate | table (tests) |\n"
            "|---|---|---|---|---|---|\n"
            f"| 30 runs x 5 measures x 50 queries, every pair ({stages[0]['family']} "
            f"comparisons), randomization 10,000 samples | {med(r['wall'] for r in whole):.2f} s"
            f" | {med(r['user'] for r in whole):.2f} s | "
            f"{max(r['rss_mib'] for r in whole):.0f} MiB | "
            f"{med(s['evaluate'] for s in stages):.2f} s | "
            f"{med(s['table'] for s in stages):.2f} s |")


# ---------------------------------------------------------------------------
# The statistics' cost (--stats): the paired randomization test on the 7M run, the
# randomised Tukey HSD on 30 runs
# ---------------------------------------------------------------------------

def perturbed(run: str) -> str:
    """A copy of ``run`` beside it whose scores are moved by seeded noise (uniform in
    [-1, 1]) and whose tag is ``perturbed``: a second run of the same queries, as a user
    comparing two systems has. Written once; the same every time."""
    import numpy as np
    out = run[:-len(".run")] + ".perturbed.run"
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(run):
        return out
    rng = np.random.default_rng(7)
    tmp = out + ".tmp"
    with open(run, "rb") as f, open(tmp, "wb") as g:
        while True:
            lines = f.readlines(1 << 24)
            if not lines:
                break
            noise = rng.uniform(-1, 1, len(lines))
            for line, e in zip(lines, noise):
                q, z, doc, rank, score, _ = line.split()
                g.write(b"%s %s %s %s %.4f perturbed\n" % (q, z, doc, rank, float(score) + e))
    os.replace(tmp, out)
    return out


def tukey_worker(runs: str, topics: str, samples: str) -> None:
    """In one process: seconds of the randomised Tukey HSD (and of the blocked one) of a
    seeded runs x topics matrix, printed as JSON."""
    import numpy as np

    from smarteval.stats.tukey import randomized_tukey, tukey_hsd
    x = np.random.default_rng(0).random((int(runs), int(topics))).round(4)
    x += np.linspace(0, 0.1, int(runs))[:, None]
    tukey_hsd(x[:3, :3])                            # scipy's import, once
    out = {}
    for name, call in (("randomized", lambda: randomized_tukey(x, samples=int(samples))),
                       ("blocked", lambda: tukey_hsd(x))):
        t = time.perf_counter()
        call()
        out[name] = time.perf_counter() - t
    print(json.dumps(out))


def stats_bench(data_dir: str, repeat: int) -> str:
    """``compare -t randomization`` on the 7M-line run and a perturbed copy (6,980 queries),
    beside ``compare -t t`` (the evaluation's own peak) and ``report -t randomization`` on
    the same pair, interleaved; and the randomised Tukey HSD of 30 runs x 50 topics x
    10,000 permutations, in one process and as ``report -t randomized-tukey`` (5 measures)."""
    lines = []
    run = os.path.join(data_dir, "msmarco-7M.run")
    qrels = os.path.join(data_dir, "msmarco-7M.qrels")
    if os.path.exists(run):
        other = perturbed(run)
        base = _py() + ["-m", "smarteval"]
        cmds = {"compare -t t": base + ["compare", "-t", "t", qrels, run, other],
                "compare -t randomization": base + ["compare", "-t", "randomization", qrels,
                                                    run, other],
                "report -m map -t randomization": base + ["report", "-m", "map", "-t",
                                                          "randomization", qrels, run, other]}
        res = interleaved(cmds, repeat)
        floor = res["compare -t t"].get("rss_mib")
        lines += ["| msmarco-7M, two runs (6,980 queries) | wall | user CPU | RSS | RSS above "
                  "compare -t t |", "|---|---|---|---|---|"]
        for label, r in res.items():
            lines.append(f"| {label} | " + (" | ".join(
                [f"{r['wall']:.2f} s", f"{r['user']:.2f} s", f"{r['rss_mib']:.0f} MiB",
                 f"{r['rss_mib'] - floor:+.0f} MiB" if floor else ""])
                if "error" not in r else f"failed: {r['error'][:60]} | | |") + " |")
        lines.append("")
    else:
        lines += [f"(no {run}: python benchmarks/generate.py --size 7M)", ""]
    inproc = [json.loads(subprocess.run(
        _py() + [__file__, "--tukey-worker", "30", "50", "10000"], check=True,
        capture_output=True, text=True, cwd=_cwd(), env=_env()).stdout.strip().splitlines()[-1])
        for _ in range(repeat)]
    tmp = tempfile.mkdtemp(prefix="smarteval_tukey_")
    try:
        files = _report_data(tmp)
        measures = REPORT_ARGS[:REPORT_ARGS.index("-t")]
        whole = {label: [run_once(_py() + ["-m", "smarteval", "report", *files, *measures,
                                           "-t", test, "--samples", "10000"])
                         for _ in range(repeat)]
                 for label, test in (("report -t randomized-tukey", "randomized-tukey"),
                                     ("report -t tukey", "tukey"))}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    med = statistics.median
    lines += ["| 30 runs x 50 topics | time | RSS |", "|---|---|---|",
              f"| randomised Tukey HSD, 10,000 permutations, one measure (in process) | "
              f"{med(r['randomized'] for r in inproc):.2f} s | |",
              f"| Tukey's HSD blocked by topic, one measure (in process) | "
              f"{med(r['blocked'] for r in inproc):.3f} s | |"]
    for label, rs in whole.items():
        bad = [r for r in rs if r["rc"]]
        lines.append(f"| {label}, 5 measures (whole process) | " + (
            f"failed: {bad[0]['error'][:60]} |" if bad else
            f"{med(r['wall'] for r in rs):.2f} s | {max(r['rss_mib'] for r in rs):.0f} MiB |"))
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Graded measures on the msmarco runs (--graded); diversity beside ndeval (--diversity)
# ---------------------------------------------------------------------------

def interleaved(cmds: dict[str, list[str]], repeat: int, warmup: bool = True) -> dict:
    """Each command of ``cmds`` once a round, ``repeat`` rounds (after an untimed round
    when ``warmup``): label -> median wall and user time, max RSS, or the error."""
    res: dict[str, list[dict]] = {label: [] for label in cmds}
    errors: dict[str, str] = {}
    for _ in range(repeat + warmup):
        for label, cmd in cmds.items():
            if label not in errors:
                r = run_once(cmd)
                if r["rc"]:
                    errors[label] = r["error"] or f"exit status {r['rc']}"
                res[label].append(r)
    out = {}
    for label, rs in res.items():
        rs = rs[warmup:]
        out[label] = ({"error": errors[label]} if label in errors else
                      {"wall": statistics.median(r["wall"] for r in rs),
                       "user": statistics.median(r["user"] for r in rs),
                       "rss_mib": max(r["rss_mib"] for r in rs)})
    return out


def _cell(r: dict) -> str:
    if "skipped" in r:
        return f"not run: {r['skipped']}"
    return (f"failed: {r['error'][:60]}" if "error" in r
            else f"{r['wall']:.3f} s (user {r['user']:.3f} s), {r['rss_mib']:.0f} MiB")


#: gdeval's ERR@10 and nDCG@10 with exponential gains, by their ir_measures names.
GRADED_MEASURES = ["ERR@10", "nDCG(dcg='exp-log2')@10"]


def graded_bench(data_dir: str, sizes: list[str], repeat: int,
                 warmup: bool = True) -> tuple[str, bool]:
    """``smarteval evaluate -m official`` against the same with GRADED_MEASURES added, on
    each msmarco run found, interleaved; the table and whether smarteval failed."""
    lines = ["| data | -m official | official + " + " + ".join(GRADED_MEASURES)
             + " | ratio (wall, user) |", "|---|---|---|---|"]
    failed = False
    extra = [a for m in GRADED_MEASURES for a in ("-m", m)]
    for s in sizes:
        run = os.path.join(data_dir, f"msmarco-{s}.run")
        qrels = os.path.join(data_dir, f"msmarco-{s}.qrels")
        if not (os.path.exists(run) and os.path.exists(qrels)):
            continue
        base = TOOLS["smarteval"]["cmd"](qrels, run)
        r = interleaved({"official": base, "graded": base[:4] + extra + base[4:]},
                        repeat, warmup)
        failed |= any("error" in v for v in r.values())
        ratio = ("-" if failed else ", ".join(
            f"{r['graded'][k] / r['official'][k]:.2f}x" for k in ("wall", "user")))
        lines.append(f"| msmarco-{s} | {_cell(r['official'])} | {_cell(r['graded'])} | "
                     f"{ratio} |")
    return "\n".join(lines), failed


#: The diversity measures timed by --diversity: smarteval's names, pyndeval's names.
DIVERSITY_MEASURES = {"alpha-nDCG.20": "alpha-nDCG@20", "ERR-IA.20": "ERR-IA@20",
                      "NRBP": "NRBP", "nNRBP": "nNRBP", "P-IA.20": "P-IA@20",
                      "MAP-IA": "MAP-IA", "strec.20": "strec@20"}


def diversity_data(out: str, topics: int = 50, subtopics: int = 10, judged: int = 300,
                   depth: int = 1000, seed: int = 0) -> tuple[str, str]:
    """Diversity qrels (QUERY SUBTOPIC DOCNO REL: every judged document once for each
    subtopic, relevant to each with a chance of 5-30% set a subtopic) and a run of
    ``topics`` x ``depth`` documents that retrieves most judged ones, written into
    ``out`` (seeded; with the random module, so that this process stays small)."""
    import random
    rng = random.Random(seed)
    pool = 5 * depth
    qrels, run = os.path.join(out, "qrels.diversity"), os.path.join(out, "diversity.run")
    with open(qrels, "w") as fq, open(run, "w") as fr:
        for t in range(1, topics + 1):
            chance = [rng.uniform(0.05, 0.3) for _ in range(subtopics)]
            score = [rng.gauss(0.0, 1.0) for _ in range(pool)]
            for d in rng.sample(range(pool), judged):
                rel = [int(rng.random() < c) for c in chance]
                fq.writelines(f"{t} {s + 1} D{t}-{d} {r}\n" for s, r in enumerate(rel))
                score[d] += 1.0 + sum(rel)
            top = sorted(range(pool), key=lambda d: -score[d])[:depth]
            fr.writelines(f"{t} Q0 D{t}-{d} {i + 1} {score[d]:.6f} div\n"
                          for i, d in enumerate(top))
    return qrels, run


def diversity_worker(qrels_path: str, run_path: str) -> None:
    """pyndeval on the files: read them, evaluate DIVERSITY_MEASURES, print the means."""
    import pyndeval
    with open(qrels_path) as f:
        qrels = [(t[0], t[1], t[2], int(t[3])) for t in map(str.split, f) if t]
    with open(run_path) as f:
        run = [(t[0], t[2], float(t[4])) for t in map(str.split, f) if t]
    res = pyndeval.ndeval(qrels, run, list(DIVERSITY_MEASURES.values()))
    for m in DIVERSITY_MEASURES.values():
        print(f"{m}\tall\t{statistics.mean(r[m] for r in res.values()):.4f}")


def diversity_bench(repeat: int, topics: int = 50, subtopics: int = 10, judged: int = 300,
                    depth: int = 1000, warmup: bool = True) -> tuple[str, bool]:
    """smarteval's diversity measures on generated data (see diversity_data) beside ndeval
    (an ``ndeval`` on PATH, built from its C source) and pyndeval's Python call, whole
    processes interleaved; the table and whether smarteval failed."""
    tmp = tempfile.mkdtemp(prefix="smarteval_diversity_")
    try:
        qrels, run = diversity_data(tmp, topics, subtopics, judged, depth)
        cmds = {"smarteval": _py() + ["-m", "smarteval", "evaluate", "-R", "qrels_diversity",
                                      *(a for m in DIVERSITY_MEASURES for a in ("-m", m)),
                                      "-f", "trec", qrels, run]}
        ndeval = shutil.which("ndeval")
        if ndeval:
            cmds["ndeval"] = [ndeval, qrels, run]
        if _importable("pyndeval"):
            cmds["pyndeval"] = _py() + [__file__, "--diversity-worker", qrels, run]
        r = interleaved(cmds, repeat, warmup)
        with open(qrels) as f:
            lines = sum(1 for _ in f)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    data = (f"{topics} topics x {depth:,} documents, {subtopics} subtopics, "
            f"{judged} judged a topic ({lines:,} qrels lines)")
    s = r["smarteval"]
    missing = {"ndeval": "not on PATH", "pyndeval": "not importable"}
    others = [(name, r.get(name, {"skipped": why})) for name, why in missing.items()]
    head = "| data | smarteval | " + " | ".join(
        f"{n} | smarteval / {n}" for n, _ in others) + " |"
    row = f"| {data} | {_cell(s)} | " + " | ".join(
        f"{_cell(o)} | " + (f"{s['wall'] / o['wall']:.2f}x" if "wall" in s and "wall" in o
                            else "-") for _, o in others) + " |"
    return "\n".join([head, "|---" * (2 + 2 * len(others)) + "|", row]), "error" in s


# ---------------------------------------------------------------------------
# The "million queries" shape (--wide): queries x 100 documents, 1-3 relevant each
# (generate.py --wide); every process under a time limit and an address-space cap
# ---------------------------------------------------------------------------

#: Peak RSS a tool needs on a wide run: (MiB, bytes a line of the run), a line through
#: its peaks on wide-1M and wide-10M (2026-11-27, NOTES.md), rounded up. A tool whose
#: estimate is over --mem-cap is not run at that size.
WIDE_NEEDS = {"smarteval": (100, 50), "trec_eval": (10, 90), "pytrec_eval": (50, 240),
              "ir_measures": (50, 270), "ranx": (400, 370)}

#: Words of a failed process's last error lines that say it ran out of memory.
OUT_OF_MEMORY = ("MemoryError", "out of memory", "Cannot allocate memory", "bad_alloc",
                 "Cannot malloc", "Cannot copy", "failed to map segment")


def run_limited(cmd: list[str], limit: float | None, cap: int | None = None,
                out: str | None = None, env: dict | None = None) -> dict:
    """run_once under a time limit (the process group killed past ``limit`` seconds) and
    an address-space cap of ``cap`` bytes (RLIMIT_AS, set in the child before exec);
    standard output to the file ``out`` (else discarded). Adds ``timed_out``."""
    import signal
    import threading

    def cap_memory():
        if cap:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    timed_out = threading.Event()
    with tempfile.TemporaryFile() as err, open(out or os.devnull, "wb") as sink:
        t0 = time.perf_counter()
        # no thread of this process is running here: preexec_fn is safe
        p = subprocess.Popen(cmd, stdout=sink, stderr=err, env={**_env(), **(env or {})},
                             cwd=_cwd(), preexec_fn=cap_memory, start_new_session=True)

        def kill():
            timed_out.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)

        timer = threading.Timer(limit, kill) if limit else None
        if timer:
            timer.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        except BaseException:
            kill()
            raise
        finally:
            if timer:
                timer.cancel()
                timer.join()
        wall = time.perf_counter() - t0
        rc = os.waitstatus_to_exitcode(status)
        err.seek(0)
        msg = err.read().decode("utf-8", "replace").strip().splitlines()
    return {"wall": wall, "user": ru.ru_utime, "sys": ru.ru_stime,
            "rss_mib": ru.ru_maxrss / 1024, "rc": rc, "timed_out": timed_out.is_set(),
            "error": " / ".join(msg[-2:]) if rc else ""}


def _wide_sizes(data_dir: str, sizes: list[str] | None) -> list[str]:
    """The sizes asked for (else every ``wide-SIZE.run`` found), smallest file first."""
    if not sizes:
        sizes = [f[len("wide-"):-len(".run")] for f in os.listdir(data_dir)
                 if f.startswith("wide-") and f.endswith(".run")
                 and not f.endswith((".interleaved.run", ".b.run"))]

    def size_of(s):
        path = os.path.join(data_dir, f"wide-{s}.run")
        return os.path.getsize(path) if os.path.exists(path) else 0
    return sorted(sizes, key=size_of)


def _scan(path: str) -> tuple[int, int]:
    """(lines, runs of equal first fields) of a file, read in 1 MiB pieces (this also
    brings a run into the page cache before the first timed process reads it)."""
    lines = groups = 0
    last = None
    with open(path, "rb") as f:
        if path.endswith(".qrels"):
            for line in f:
                lines += 1
                first = line.split(None, 1)[0] if line.strip() else last
                groups += first != last
                last = first
        else:
            while buf := f.read(1 << 20):
                lines += buf.count(b"\n")
    return lines, groups


def _ranx_warmup(tmp: str, qrels: str, run: str) -> None:
    """One ranx process on the first 2,000 lines of the run (numba compiles and caches
    its functions there, not in a timed process)."""
    small = {}
    for name, path, n in (("q", qrels, 200), ("r", run, 2000)):
        small[name] = os.path.join(tmp, f"warmup.{name}")
        with open(path, "rb") as f, open(small[name], "wb") as g:
            g.writelines(line for _, line in zip(range(n), f))
    run_once(TOOLS["ranx"]["cmd"](small["q"], small["r"]))


def _wide_outcome(rs: list[dict], limit: float, cap_gib: float) -> tuple[str, str]:
    """('ok', '') or (kind, cell) for the first failed process of ``rs``."""
    bad = next((r for r in rs if r["rc"] or r["timed_out"]), None)
    if bad is None:
        return "ok", ""
    if bad["timed_out"]:
        return "limit", f"not finished in {limit:.0f} s"
    if bad["rc"] < 0 or any(w in bad["error"] for w in OUT_OF_MEMORY):
        return "memory", f"did not fit in {cap_gib:g} GiB"
    return "failed", f"failed: {bad['error'][:70]}"


def wide_bench(data_dir: str, sizes: list[str] | None, tools: list[str], repeat: int,
               limit: float, cap_gib: float, extras: bool = True,
               log=print) -> tuple[str, list[dict], bool]:
    """The wide runs (generate.py --wide): each tool of ``tools`` on each size, then
    smarteval alone with -q, -q -f tsv, curve, compare (with the .b.run) and on the
    interleaved run; smarteval's -f trec output compared byte for byte with
    trec_eval's. The table, its rows, and whether a smarteval row failed or differed."""
    cap = int(cap_gib * 2**30)
    tmp = tempfile.mkdtemp(prefix="smarteval_wide_")
    rows: list[dict] = []
    gave_up: dict[str, str] = {}
    warmed = False
    try:
        for size in _wide_sizes(data_dir, sizes):
            stem = os.path.join(data_dir, f"wide-{size}")
            run, qrels = stem + ".run", stem + ".qrels"
            if not (os.path.exists(run) and os.path.exists(qrels)):
                log(f"  no {run}: python benchmarks/generate.py --wide {size}")
                continue
            t = time.perf_counter()
            lines, _ = _scan(run)
            _, queries = _scan(qrels)
            log(f"  wide-{size}: {lines:,} lines, {queries:,} queries (read once before "
                f"timing: {time.perf_counter() - t:.1f} s)")
            data = {"data": f"wide-{size}", "lines": lines, "queries": queries}

            def timed(label, tool, cmd, out=None, data=data):
                rs = []
                for _ in range(repeat):
                    rs.append(run_limited(cmd, limit, cap, out))
                    if rs[-1]["rc"] or rs[-1]["timed_out"]:
                        break
                kind, cell = _wide_outcome(rs, limit, cap_gib)
                row = {**data, "command": label, "tool": tool, "outcome": kind}
                if kind != "ok":
                    row.update(cell=cell, error=rs[-1]["error"])
                else:
                    row.update(repeat=len(rs),
                               wall=statistics.median(r["wall"] for r in rs),
                               user=statistics.median(r["user"] for r in rs),
                               sys=statistics.median(r["sys"] for r in rs),
                               rss_mib=max(r["rss_mib"] for r in rs))
                if out and kind == "ok":
                    row["out"] = out
                if kind in ("limit", "memory"):         # not tried again on a larger size
                    gave_up[label] = f"{cell} at {data['data']}"
                rows.append(row)
                log(f"  {row['data']} {label:44s} " + (cell or f"{row['wall']:8.2f} s "
                                                        f"{row['rss_mib']:8.0f} MiB"))
                return row

            def skipped(label, tool, runs=1, data=data):
                """The reason not to run ``label`` at this size (its tool's estimate over the
                cap, or too much time or memory at a smaller size), a row made for it."""
                mib, per_line = WIDE_NEEDS.get(tool, (100, 250))
                need = (mib * 2**20 + runs * per_line * data["lines"]) / 2**30
                skip = (f"not run: {gave_up[label]}" if label in gave_up else
                        f"skipped: needs ~{need:.1f} GiB" if need > cap_gib else "")
                if skip:
                    rows.append({**data, "command": label, "tool": tool,
                                 "outcome": "skipped", "cell": skip})
                    log(f"  {data['data']} {label:44s} {skip}")
                return skip

            for tool in tools:
                spec = TOOLS[tool]
                label = ("smarteval evaluate -m official -f trec" if tool == "smarteval"
                         else tool)
                if skipped(label, tool):
                    continue
                if spec.get("warmup") and not warmed:
                    _ranx_warmup(tmp, qrels, run)
                    warmed = True
                out = (os.path.join(tmp, f"{size}.{tool}.out")
                       if tool in ("smarteval", "trec_eval") else None)
                timed(label, tool, spec["cmd"](qrels, run), out)
            if extras and "smarteval" in tools:
                se = _py() + ["-m", "smarteval"]
                more = [("smarteval evaluate -m official -q -f trec",
                         se + ["evaluate", "-m", "official", "-q", "-f", "trec", qrels, run]),
                        ("smarteval evaluate -m official -q -f tsv",
                         se + ["evaluate", "-m", "official", "-q", "-f", "tsv", qrels, run]),
                        ("smarteval curve", se + ["curve", qrels, run])]
                if os.path.exists(stem + ".b.run"):
                    more.append(("smarteval compare (the .b.run against it)",
                                 se + ["compare", qrels, run, stem + ".b.run"]))
                if os.path.exists(stem + ".interleaved.run"):
                    more.append(("smarteval evaluate -m official -f trec, interleaved run",
                                 TOOLS["smarteval"]["cmd"](qrels, stem + ".interleaved.run")))
                for label, cmd in more:
                    if not skipped(label, "smarteval", runs=1 + ("compare" in label)):
                        timed(label, "smarteval", cmd, os.path.join(
                            tmp, f"{size}.interleaved.out") if "interleaved" in label else None)
            _check_outputs([r for r in rows if r["data"] == data["data"]])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    failed = any(r["tool"] == "smarteval" and (r["outcome"] == "failed"
                                               or "DIFFERS" in r.get("output", ""))
                 for r in rows)
    return wide_table(rows), rows, failed


def _check_outputs(rows: list[dict]) -> None:
    """Set ``output`` of the rows of one size that kept their output (``out``): smarteval's
    trec output byte for byte against trec_eval's, or, without trec_eval, the
    interleaved run's against the grouped run's."""
    ref = next((r["out"] for r in rows if r["tool"] == "trec_eval" and "out" in r), None)
    grouped = next((r["out"] for r in rows if r["tool"] == "smarteval" and "out" in r), None)
    for r in rows:
        mine = r.pop("out", None)
        if r["tool"] == "trec_eval":
            r["output"] = "reference" if mine else "-"
            continue
        against = ref or (grouped if "interleaved" in r["command"] else None)
        if not mine:
            continue
        if not against or against == mine:
            r["output"] = "not checked (no trec_eval)"
            continue
        with open(mine, "rb") as f, open(against, "rb") as g:
            same = f.read() == g.read()
        r["output"] = ("identical" if same else "DIFFERS") + (
            "" if ref else " to smarteval's on the grouped run")


def wide_table(rows: list[dict]) -> str:
    """The wide rows as a markdown table, each with its ratios to trec_eval on its size."""
    ref = {r["data"]: r for r in rows if r["tool"] == "trec_eval" and r["outcome"] == "ok"}
    lines = ["| data | lines | queries | command | time | user / sys | peak RSS | "
             "time / trec_eval | RSS / trec_eval | output |", "|---" * 10 + "|"]
    for r in rows:
        head = f"| {r['data']} | {r['lines']:,} | {r['queries']:,} | {r['command']} | "
        if r["outcome"] != "ok":
            lines.append(head + f"{r['cell']} | | | | | |")
            continue
        t = ref.get(r["data"])
        ratio = (f"{r['wall'] / t['wall']:.2f}x | {r['rss_mib'] / t['rss_mib']:.2f}x"
                 if t else "- | -")
        lines.append(head + f"{r['wall']:.2f} s | {r['user']:.2f} / {r['sys']:.2f} s | "
                     f"{r['rss_mib']:,.0f} MiB | {ratio} | {r.get('output', '-')} |")
    errors = [f"* {r['data']} {r['command']}: {r['error']}" for r in rows
              if r["outcome"] in ("memory", "failed") and r.get("error")]
    return "\n".join(lines + ([""] + errors if errors else []))


#: The wide size --smoke generates and times (200 queries x 100 documents).
SMOKE_WIDE = "20k"


def _half_ram_gib() -> int:
    """Half the machine's RAM in whole GiB (8 when it cannot be told)."""
    try:
        return max(1, int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**31))
    except (ValueError, OSError):
        return 8


def _tools(a, ap) -> tuple[list[str], list[str]]:
    """The tools of --tools that are available, and those that are not (usage error for
    an unknown one)."""
    tools = [t for t in a.tools.split(",") if t]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown:
        ap.error(f"unknown tools: {', '.join(unknown)}")
    available = [t for t in tools if TOOLS[t]["available"]()]
    return available, [t for t in tools if t not in available]


def wide_main(a, ap) -> int:
    """--wide: the machine line, the tools, the table (and --json rows); 1 when a
    smarteval row failed or its output differed from trec_eval's."""
    available, missing = _tools(a, ap)
    cap = a.mem_cap or _half_ram_gib()
    te = _trec_eval()
    version = ""
    if te:
        p = subprocess.run([te, "-v"], capture_output=True, text=True)
        version = (p.stdout + p.stderr).strip().splitlines()[0] if p.stdout + p.stderr else ""
    print(_machine())
    print(f"tools: {', '.join(available)}"
          + (f" (not available: {', '.join(missing)})" if missing else "")
          + (f"; trec_eval: {te} ({version})" if te else "; no trec_eval")
          + f"; limit {a.limit:.0f} s and {cap:g} GiB of address space a process")
    if "smarteval" in available:
        subprocess.run(_py() + ["-m", "compileall", "-q", _package_dir()],
                       check=True, stdout=subprocess.DEVNULL)
    sizes = a.sizes.split(",") if a.sizes else None
    text, rows, failed = wide_bench(a.data, sizes, available, max(1, a.repeat or 1),
                                    a.limit, cap, extras=not a.no_extras)
    print()
    print(text)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 1 if failed or not rows else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(HERE, "data"))
    ap.add_argument("--sizes", default=None,
                    help="comma list (default: 1M,3.5M,7M,14M; with --wide, every "
                         "wide-SIZE.run under --data)")
    default_tools = ",".join(t for t, s in TOOLS.items() if s.get("default", True))
    ap.add_argument("--tools", default=default_tools,
                    help=f"comma list of {', '.join(TOOLS)} (default: {default_tools})")
    ap.add_argument("-r", "--repeat", type=int, default=None,
                    help="timed processes a row (default 5; 1 with --wide)")
    ap.add_argument("--no-sweep", action="store_true")
    ap.add_argument("--no-warmup", action="store_true")
    ap.add_argument("--phases", action="store_true", help="also time smarteval's phases")
    ap.add_argument("--smoke", action="store_true",
                    help="tiny generated data, one run per tool, tiny --graded and --diversity "
                         "rows, then --memory; fails if smarteval fails or is over a memory "
                         "bound")
    ap.add_argument("--memory", action="store_true",
                    help="peak RSS on runs with one 20,000-byte or 5 MB docno, a 20,000-byte "
                         "query id or a 30 MB line of spaces, against a bound (exit 1 when "
                         "over it)")
    ap.add_argument("--frames", action="store_true",
                    help="time the msmarco runs given as text, a DataFrame and Parquet "
                         "(needs pandas and pyarrow)")
    ap.add_argument("--report", action="store_true",
                    help="time smarteval report on 30 generated runs x 5 measures x 50 "
                         "queries, every pair, randomization with 10,000 samples")
    ap.add_argument("--stats", action="store_true",
                    help="compare -t randomization on the 7M run and a perturbed copy (time "
                         "and memory beside compare -t t and report), and the randomised "
                         "Tukey HSD of 30 runs x 50 topics x 10,000 permutations")
    ap.add_argument("--graded", action="store_true",
                    help=f"time -m official against official + {' + '.join(GRADED_MEASURES)} "
                         "on the msmarco runs of --sizes")
    ap.add_argument("--diversity", action="store_true",
                    help="time smarteval's diversity measures on 50 generated topics x 1,000 "
                         "documents with 10 subtopics beside ndeval (on PATH) and pyndeval")
    ap.add_argument("--wide", action="store_true",
                    help="the wide runs of generate.py --wide (queries x 100 documents): "
                         "each tool under --limit and --mem-cap, then smarteval's -q, -q -f "
                         "tsv, curve, compare and interleaved rows; smarteval's output "
                         "compared with trec_eval's")
    ap.add_argument("--no-extras", action="store_true",
                    help="--wide: leave out smarteval's -q, tsv, curve, compare and "
                         "interleaved rows")
    ap.add_argument("--trec-eval", metavar="PATH",
                    help="the trec_eval executable to time (default: trec_eval on PATH)")
    ap.add_argument("--limit", type=float, default=900,
                    help="--wide: seconds a process may take before it is killed "
                         "(default 900)")
    ap.add_argument("--mem-cap", type=float, default=None, metavar="GIB",
                    help="--wide: address space a process may take (RLIMIT_AS), and tools "
                         "estimated to need more are not run (default: half the RAM)")
    ap.add_argument("--installed", action="store_true",
                    help="time the smarteval installed in this Python (pip install ., not "
                         "editable) instead of this checkout's sources")
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--phases-worker", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--frames-worker", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument("--report-worker", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--diversity-worker", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--tukey-worker", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    global INSTALLED, TREC_EVAL
    INSTALLED = a.installed
    if a.trec_eval:
        if not os.access(a.trec_eval, os.X_OK):
            ap.error(f"--trec-eval {a.trec_eval}: not an executable file")
        TREC_EVAL = os.path.abspath(a.trec_eval)
    if a.wide and not (a.smoke or a.worker):
        return wide_main(a, ap)
    a.sizes = a.sizes or "1M,3.5M,7M,14M"
    a.repeat = 5 if a.repeat is None else a.repeat
    if a.worker:
        WORKERS[a.worker[0]](*a.worker[1:])
        return 0
    if a.phases_worker:
        phases_worker(*a.phases_worker)
        return 0
    if a.memory:
        return memory()
    if a.frames_worker:
        frames_worker(*a.frames_worker)
        return 0
    if a.report_worker:
        report_worker(*a.report_worker)
        return 0
    if a.diversity_worker:
        diversity_worker(*a.diversity_worker)
        return 0
    if a.tukey_worker:
        tukey_worker(*a.tukey_worker)
        return 0
    if a.stats:
        print(_machine())
        print(stats_bench(a.data, max(1, a.repeat)))
        return 0
    if (a.graded or a.diversity) and not a.smoke:
        print(_machine())
        bad_rows = False
        for wanted, make in ((a.graded, lambda: graded_bench(a.data, a.sizes.split(","),
                                                               max(1, a.repeat))),
                             (a.diversity, lambda: diversity_bench(max(1, a.repeat)))):
            if wanted:
                text, bad = make()
                bad_rows |= bad
                print()
                print(text)
        return 1 if bad_rows else 0
    if a.report:
        print(report_bench(max(1, a.repeat if not a.smoke else 1)))
        return 0
    if a.frames:
        print(frames_bench(a.data, a.sizes.split(","), max(1, a.repeat)))
        return 0

    if a.smoke:
        if a.tools == default_tools:               # quick tools only, unless asked
            a.tools = "smarteval,pytrec_eval" + (",trec_eval" if _trec_eval() else "")
        tmp = tempfile.mkdtemp(prefix="smarteval_smoke_")
        # in a child: this process stays small (a child's peak RSS counts its parent's
        # RSS at fork time on Linux, so the parent must stay below what it measures)
        subprocess.run(_py() + [os.path.join(HERE, "generate.py"), "--out", tmp,
                                "--size", "tiny", "--wide", SMOKE_WIDE, "--wide-interleaved",
                                "--wide-pair"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        a.data, a.sizes, a.repeat = tmp, "tiny", 1
    available, skipped = _tools(a, ap)
    data = datasets(a.data, a.sizes.split(","), sweep=not a.no_sweep)
    if not data:
        print(f"no data under {a.data}: run benchmarks/generate.py first", file=sys.stderr)
        return 2
    print(f"{_machine()}; tools: {', '.join(available)}"
          + (f" (not available: {', '.join(skipped)})" if skipped else ""))
    if "smarteval" in available:
        # compiled as an installed package is: a warm-up run cannot write the bytecode when
        # PYTHONDONTWRITEBYTECODE is set, and every timed run would compile every module
        subprocess.run(_py() + ["-m", "compileall", "-q", _package_dir()],
                       check=True, stdout=subprocess.DEVNULL)
    rows = bench(data, available, a.repeat, warmup=not (a.no_warmup or a.smoke))
    print()
    print(table(rows))
    if a.phases and "smarteval" in available:
        print()
        print(phases(data, max(1, min(a.repeat, 3))))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    if a.smoke:
        failed = [r for r in rows if r["tool"] == "smarteval" and "error" in r]
        if "smarteval" not in available:
            shutil.rmtree(a.data, ignore_errors=True)
            print("smoke: smarteval is not importable yet (skipped)")
            return 0
        # the --wide rows, tiny: 200 queries x 100 documents
        print()
        wide, wide_rows, wide_failed = wide_bench(a.data, [SMOKE_WIDE], available, 1,
                                                  limit=300, cap_gib=_half_ram_gib(),
                                                  log=lambda *x: None)
        print(wide)
        wide_failed |= any(r["tool"] == "smarteval" and r["outcome"] != "ok"
                           for r in wide_rows)
        # the --graded and --diversity rows, tiny: the run of 50 x 100, 5 topics x 100
        print()
        graded, graded_failed = graded_bench(a.data, ["tiny"], 1, warmup=False)
        shutil.rmtree(a.data, ignore_errors=True)
        print(graded)
        print()
        diverse, diverse_failed = diversity_bench(1, topics=5, subtopics=3, judged=30,
                                                  depth=100, warmup=False)
        print(diverse)
        print()
        over = memory()
        return 1 if failed or over or graded_failed or diverse_failed or wide_failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
