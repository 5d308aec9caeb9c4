"""The same numbers whatever SIMD kernels numpy dispatches to: every measure, on the sample
data, and the golden cases that print NaN or an infinity, evaluated again in a process whose
numpy has every optional CPU feature switched off (``NPY_DISABLE_CPU_FEATURES``), as on a CPU
without AVX-512 or AVX2, must give the same bits as here.

CI also runs the whole golden corpus and trec_eval's own suite so (``.ci/run``). Run as a
script, this module prints what :func:`every_measure` gives, as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data"
#: the settings every measure is evaluated under: N for the SMART measures, the generality
#: adj_prec adjusts to, -l -1 (under trec_eval 10.0), which makes NaN and infinities of
#: several of trec_eval's measures, and the tie average (expected values over tie orders)
SETTINGS = (("-N", "4000", "--target-generality", "0.01"),
            ("-N", "4000", "--target-generality", "0.01", "-l", "-1", "--trec-version", "10"),
            ("-N", "4000", "--target-generality", "0.01", "--ties", "average"))


def optional_features() -> list[str]:
    """numpy's dispatch targets this CPU has (its baseline cannot be switched off)."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:                             # numpy 1.x
        from numpy.core import _multiarray_umath as umath
    return [f for f in umath.__cpu_dispatch__ if umath.__cpu_features__.get(f)]


def every_measure() -> dict[str, str]:
    """``evaluate -q -f json`` of the sample runs under each of SETTINGS with every measure
    ``smarteval measures`` lists that its trec_eval version has, in one call: the text,
    to the last digit."""
    from click.testing import CliRunner

    from smarteval.cli import main
    from smarteval.errors import UsageError
    from smarteval.measures.grammar import parse_measures
    runner = CliRunner()
    names = [line.split("\t")[0] for line in
             runner.invoke(main, ["measures", "-f", "tsv"]).stdout.splitlines()[1:]]
    runs = sorted(str(p) for p in SAMPLE.glob("*.run"))
    out = {}
    for setting in SETTINGS:
        version = 10 if "10" in setting else 9
        asked = []
        for name in names:
            try:
                requests = parse_measures([name], version)
            except UsageError:
                continue
            if "average" not in setting or all(rq.measure.tie_average for rq in requests):
                asked += ["-m", name]
        res = runner.invoke(main, ["evaluate", "-q", "-f", "json", *setting, *asked,
                                   str(SAMPLE / "qrels.txt"), *runs])
        assert res.exit_code == 0, res.stderr
        out[" ".join(setting)] = res.stdout
        out[f"{' '.join(setting)}: measures"] = str(len(asked) // 2)
    return out


def flat(evaluations: list[dict]) -> dict[tuple, object]:
    """Each value of ``evaluate -q -f json``'s output by (run, query or "all", measure)."""
    out: dict[tuple, object] = {}
    for ev in evaluations:
        out.update(((ev["run"], "all", m), v) for m, v in ev["summary"].items())
        out.update(((ev["run"], q, m), v) for q, values in ev["queries"].items()
                   for m, v in values.items())
    return out


def reduced(args: list[str]) -> subprocess.CompletedProcess:
    """``python ARGS`` with every optional CPU feature of numpy's switched off."""
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(optional_features())}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900)


NO_FEATURES = "numpy dispatches to no optional CPU feature here"


def needs_features(test):
    """The test, skipped (in CI too) where numpy has no optional feature to switch off."""
    return pytest.mark.ci_skip_ok(NO_FEATURES)(
        pytest.mark.skipif(not optional_features(), reason=NO_FEATURES)(test))


@needs_features
def test_the_features_are_switched_off_in_the_child():
    res = reduced(["-c", "import json, tests.test_dispatch as t; "
                         "print(json.dumps(t.optional_features()))"])
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == []


@needs_features
def test_every_measure_gives_the_same_bits_under_every_dispatch():
    res = reduced([__file__])
    assert res.returncode == 0, res.stderr[-2000:]
    theirs, ours = json.loads(res.stdout), every_measure()
    assert theirs.keys() == ours.keys()
    for key in ours:
        if ours[key] != theirs[key]:
            a, b = flat(json.loads(ours[key])), flat(json.loads(theirs[key]))
            differ = [(k, a[k], b.get(k)) for k in a if a[k] != b.get(k)]
            raise AssertionError(f"{key}: {len(differ)} values differ (here, there): "
                                 + "; ".join(map(str, differ[:5])))
    assert int(ours[f"{' '.join(SETTINGS[0])}: measures"]) > 140


@needs_features
def test_the_golden_cases_with_nan_or_infinity_under_every_dispatch():
    from test_golden import CASES
    ids = [case["id"] for _, case in CASES if any(
        w in case.get("stdout", "") for w in ("nan", "inf"))]
    assert len(ids) > 10
    res = reduced(["-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                   "tests/test_golden.py", "-k", " or ".join(ids)])
    assert res.returncode == 0 and " passed" in res.stdout, res.stdout[-3000:]


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print(json.dumps(every_measure()))
