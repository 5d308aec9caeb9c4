"""Numbers written as text (options, lists of levels, a bound): the one strict grammar.

Python's ``int`` and ``float`` take more than a number: ``1_0`` (read as 10), digits of
other scripts (``١٠``, fullwidth ``１０``), surrounding white space, ``inf`` and ``nan``.
trec_eval reads ``-M 1_0`` with ``atol`` as 1, so taking it would silently give another
number than the program smarteval mirrors: a value that cannot be honoured exactly is
refused. Here a whole number is an optional sign and ASCII digits; a decimal number may
add a fraction and an exponent (``0.25``, ``.5``, ``1e-3``), and is finite.
"""

from __future__ import annotations

import math
import re

#: What a whole number and a decimal number are, in the messages that refuse one.
WHOLE_NUMBER = "a whole number (ASCII digits, an optional sign)"
NUMBER = "a finite number (ASCII digits; an optional sign, fraction and exponent)"

_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def is_whole(text: str) -> bool:
    """Whether ``text`` is a whole number of the grammar (``-3``, ``+10``, ``007``)."""
    return _WHOLE.fullmatch(text) is not None


def whole(text: str) -> int:
    """``text`` as a whole number of the grammar; ValueError if it is not one."""
    if not isinstance(text, str) or not is_whole(text):
        raise ValueError(f"not a whole number: {text!r}")
    return int(text)


def is_decimal(text: str) -> bool:
    """Whether ``text`` is a decimal number of the grammar (``-0.5``, ``.5``, ``1e-3``; it
    may still be too large for a double)."""
    return _DECIMAL.fullmatch(text) is not None


def decimal(text: str) -> float:
    """``text`` as a finite number of the grammar; ValueError if it is not one (or is too
    large for a double)."""
    if not isinstance(text, str) or not is_decimal(text):
        raise ValueError(f"not a number: {text!r}")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {text!r}")
    return value


def pieces(text: str, separators: str = ",") -> list[str]:
    """The items of a list such as ``0.1, 0.5,1``: split at each of ``separators``, the
    spaces around an item dropped (never those inside one: ``1 0`` stays one item, which
    no number matches), empty items kept (each caller says whether it takes them)."""
    for sep in separators[1:]:
        text = text.replace(sep, separators[0])
    return [item.strip(" ") for item in text.split(separators[0])]
