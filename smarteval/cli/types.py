"""click's types of the command line: numbers in smarteval's one grammar; input and output
paths."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from smarteval.numerals import NUMBER, WHOLE_NUMBER, decimal, pieces, whole


def _strict(parse: Callable[[str], Any], kind: type) -> Callable[[Any], Any]:
    """``parse`` for a value typed on the command line, ``kind`` for a default."""
    def number(value):
        return parse(value) if isinstance(value, str) else kind(value)
    return number


class _Bounded:
    """What :class:`StrictInt` and :class:`StrictFloat` share: click's range type, shown as
    click's plain type (``INTEGER``, ``FLOAT``, no range in the help) without bounds."""

    plain = ""
    grammar = ""                    # what a number is, in messages
    min: Any
    max: Any

    def __init__(self, min=None, max=None, min_open=False, max_open=False, clamp=False):
        super().__init__(min, max, min_open, max_open, clamp)
        if min is None and max is None:
            self.name = self.plain

    def _describe_range(self) -> str:
        bounded = self.min is not None or self.max is not None
        return super()._describe_range() if bounded else ""  # type: ignore[misc]

    def convert(self, value, param, ctx):
        """The number, or the option refused with what a number is here (click's own
        words, "not a valid integer range", say nothing of it)."""
        try:
            number = self._number_class(value)
        except ValueError:
            self.fail(f"{value!r} is not {self.grammar}.", param, ctx)
        return super().convert(number, param, ctx)     # its bounds: the number, not read again


class StrictInt(_Bounded, click.IntRange):
    """click's ``IntRange`` (its bounds, messages and help), the number written as
    :mod:`smarteval.numerals` writes it: ``1_0``, `` 10``, ``１０`` are refused as not
    valid integers (exit 2)."""

    plain = "integer"
    grammar = WHOLE_NUMBER
    _number_class = staticmethod(_strict(whole, int))  # type: ignore[assignment]


class StrictFloat(_Bounded, click.FloatRange):
    """click's ``FloatRange`` over :mod:`smarteval.numerals`' decimal numbers: finite,
    written in ASCII (no ``inf``, ``nan``, ``1_0.5``, surrounding spaces)."""

    plain = "float"
    grammar = NUMBER
    _number_class = staticmethod(_strict(decimal, float))  # type: ignore[assignment]


class Numbers(click.ParamType):
    """Text holding numbers (``--levels 0.1,0.5,1``, ``--size 5,3.8``): each item (split
    at ``separators``, spaces beside a separator dropped, none at either end of the text)
    in :mod:`smarteval.numerals`' grammar, whole numbers only where ``integers``, else
    refused naming the option (exit 2). The text goes on as given, to the parser of the
    stage that reads it (with the same grammar); empty items are that parser's to take or
    refuse."""

    name = "text"

    def __init__(self, separators: str = ",", *, integers: bool = False):
        self.separators = separators
        self.integers = integers

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        parse = whole if self.integers else decimal
        kind = WHOLE_NUMBER if self.integers else NUMBER
        if value != value.strip():
            self.fail(f"{value!r} is not {kind}: a space at an end.", param, ctx)
        for item in pieces(value, self.separators):
            try:
                if item:
                    parse(item)
            except ValueError:
                where = "" if item == value else f"{value!r}: "
                self.fail(f"{where}{item!r} is not {kind}.", param, ctx)
        return value


def input_path(*, allow_dash: bool = False) -> click.Path:
    """The type of an input file argument: every check is the reader's, so that a missing,
    unreadable or directory input is one message and exit 1 in every command."""
    return click.Path(dir_okay=True, readable=False, allow_dash=allow_dash)


def output_path() -> click.Path:
    """The type of an output file option: every check is
    :func:`~smarteval.cli.edge.check_paths`', so that a directory named as the output,
    existing or not, is one message and exit 1."""
    return click.Path()
