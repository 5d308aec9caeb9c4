"""``@record`` makes the dataclass ``@dataclasses.dataclass`` makes (fields, defaults,
equality, hash, repr, frozenness, ``replace``, the errors of a bad call), without
compiling its methods; the modules every evaluation imports declare theirs so."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from dataclasses import field
from pathlib import Path

import pytest

from smarteval.records import record


def _classes(decorate, frozen: bool, eq: bool, repr: bool):
    options = {"frozen": frozen, "eq": eq, "repr": repr}

    @decorate(**options)
    class Point:
        """A class with every kind of field."""

        x: int
        y: str
        items: list = field(default_factory=list)
        z: int = 3
        hidden: int = field(default=5, compare=False, repr=False)
        later: int = field(default=7, init=False)

    @decorate(**options)
    class Checked:
        """A class that checks itself after __init__."""

        a: int
        b: int = 1

        def __post_init__(self):
            if self.a < 0:
                raise ValueError("a < 0")

    @decorate(**options)
    class Own:
        """A class with its own repr."""

        a: int

        def __repr__(self):
            return "own"

    class Watched(Checked):          # no dataclass: its own __setattr__ sees what is set
        def __setattr__(self, name, value):
            object.__setattr__(self, "seen", (*getattr(self, "seen", ()), name))
            object.__setattr__(self, name, value)

    return Point, Checked, Own, Watched


def _outcomes(Point, Checked, Own, Watched):
    calls = [
        lambda: repr(Point(1, "a")), lambda: repr(Point(1, "a", [Point(2, "b")])),
        lambda: Point(1, "a") == Point(1, "a"), lambda: Point(1, "a") == Point(1, "b"),
        lambda: Point(1, "a", hidden=9) == Point(1, "a"), lambda: Point(1, "a") == (1, "a"),
        lambda: hash(Point(1, "a", ())) == hash(Point(1, "a", ())),
        lambda: Point.__hash__ is None, lambda: Point(1), lambda: Point(),
        lambda: Point(1, "a", [], 4, 5, 6), lambda: Point(1, x=2), lambda: Point(1, "a", w=1),
        lambda: Point(1, "a", later=1), lambda: setattr(Point(1, "a"), "x", 2) or "set",
        lambda: delattr(Point(1, "a"), "x") or "deleted",
        lambda: setattr(Point(1, "a"), "other", 2) or "set",
        lambda: repr(dataclasses.replace(Point(1, "a"), z=9)),
        lambda: [(f.name, f.init, f.repr, f.compare) for f in dataclasses.fields(Point)],
        lambda: Point.__match_args__, lambda: Point(1, "a").later, lambda: Point.z,
        lambda: Point(1, "a").items is not Point(1, "a").items,
        lambda: (Point.__dataclass_params__.frozen, Point.__dataclass_params__.eq,
                 Point.__dataclass_params__.repr, Point.__dataclass_params__.init),
        lambda: repr(Checked(2)), lambda: Checked(-1), lambda: Checked(1, 2, 3),
        lambda: repr(Own(1)), lambda: Own(1) == Own(1), lambda: Point.__doc__,
        lambda: getattr(Watched(1, 2), "seen", None), lambda: repr(Watched(1)),
    ]
    out = []
    for call in calls:
        try:
            value = call()
        except Exception as exc:        # the kind and the words of each refusal
            value = (type(exc).__name__, str(exc))
        if isinstance(value, str):          # object's repr: no address
            value = re.sub(r" at 0x[0-9a-f]+", "", value)
        out.append(value)
    return out


@pytest.mark.parametrize("frozen", [False, True])
@pytest.mark.parametrize("eq", [False, True])
@pytest.mark.parametrize("repr", [False, True])
def test_a_record_is_the_dataclass(frozen, eq, repr):
    want = _outcomes(*_classes(dataclasses.dataclass, frozen, eq, repr))
    assert _outcomes(*_classes(record, frozen, eq, repr)) == want


def test_a_record_compiles_nothing():
    code = ("import builtins, json, sys\n"
            "made = []\n"
            "real = builtins.exec\n"
            "def exec_(source, *a, **k):\n"
            "    if isinstance(source, str) and source.startswith('def __create_fn__'):\n"
            "        made.append(source)\n"
            "    return real(source, *a, **k)\n"
            "builtins.exec = exec_\n"
            "from smarteval.records import record\n"
            "@record(frozen=True)\n"
            "class Point:\n"
            "    '''A point.'''\n"
            "    x: int\n"
            "    y: int = 0\n"
            "print(json.dumps([len(made), repr(Point(1))]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert json.loads(done.stdout) == [0, "Point(x=1, y=0)"]


def test_the_modules_every_evaluation_imports_declare_records():
    """The data model, the registry and grammar, the evaluation, the run reader, the
    formats, the output and the api results (their dataclasses took most of an
    evaluation's start but numpy's)."""
    from smarteval import api, columns, evaluation, output, settings
    from smarteval.measures import gains, grammar, registry, tied, trec
    from smarteval.ranking import programs
    from smarteval.read import fast
    from smarteval.render import formats
    for module in (api, columns, evaluation, output, settings, gains, grammar, registry,
                   tied, trec, programs, fast, formats):
        source = Path(module.__file__).read_text(encoding="utf-8")
        assert "@dataclass" not in source, module.__name__
        assert "@record" in source, module.__name__
