"""Run scores parsed in a chunk (``parse_decimal``) against float(), bit for bit, and
against the column-by-column parser, for every shape of field; refused fields give the
index of the first of them."""

from __future__ import annotations

import numpy as np
import pytest
from fixtures import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smarteval.read import fast
from smarteval.read.fast import PAD, _decimal_columns, parse_decimal

digits = st.text("0123456789", min_size=1, max_size=20)
sign = st.sampled_from(["", "", "-", "+"])
finite = st.floats(allow_nan=False, allow_infinity=False)
fixed = st.one_of(
    st.tuples(st.floats(-1e9, 1e9, allow_nan=False), st.integers(0, 12)),
    st.tuples(finite, st.integers(0, 12)),
).map(lambda xn: f"{xn[0]:.{xn[1]}f}")
parts = st.tuples(sign, digits, digits).map(lambda p: f"{p[0]}{p[1]}.{p[2]}")
short = st.tuples(sign, st.text("0123456789", min_size=1, max_size=8),
                  st.text("0123456789", min_size=1, max_size=8)).map(
    lambda p: f"{p[0]}{p[1]}.{p[2]}")
odd = st.sampled_from(["0.0", "-0.000", "+0.0", "00000.5", "-0000001.00000001",
                       "9999999.99999999", "-999999.99999999", "99999999.9", "1", "-7",
                       "1.", ".5", "-.5", "1e5", "1.5E-3", "inf", "-inf", "nan"])
long = st.tuples(sign, st.text("0123456789", min_size=1, max_size=7),
                 st.text("0123456789", min_size=9, max_size=16)).map(
    lambda p: f"{p[0]}{p[1]}.{p[2]}")
number = st.one_of(fixed, parts, short, short, long, odd).map(str.encode)
bad = st.sampled_from([b"1.2x", b"1..2", b".", b"-", b"+", b"--1.5", b"1.2.3", b"x1.5",
                       b"1.5-", b"+-1.0", b"abc", b"1,5", b"0x1.8"])
# what comes before a field on its line: separators, and bytes that look like a score
before = st.sampled_from([b" ", b"\t", b"Q0 12 ", b"d.1.2 3\t", b"9999999999 ", b"-. "])


def chunk(fields: list[bytes], lead: list[bytes]):
    """A chunk buffer holding ``fields`` (the first at the start of its data, the last
    at its end) and their (start, end) offsets."""
    data = bytearray()
    start, end = [], []
    for i, f in enumerate(fields):
        if i:
            data += lead[i % len(lead)]
        start.append(PAD + len(data))
        data += f
        end.append(PAD + len(data))
        if i + 1 < len(fields):
            data += b" tag\n1"
    buf = bytearray(b" " * PAD + data + b" " * PAD)
    return buf, np.array(start, np.int64), np.array(end, np.int64)


def expected(fields: list[bytes]):
    """float() of each field, and the index of the first that float() refuses (or that
    holds an underscore, which no score grammar has), or -1."""
    vals = []
    for i, f in enumerate(fields):
        try:
            if b"_" in f:
                raise ValueError(f)
            vals.append(float(f))
        except ValueError:
            return None, i
    return np.array(vals), -1


def check(fields: list[bytes], lead: list[bytes], scratch: dict | None):
    buf, start, end = chunk(fields, lead)
    want, want_bad = expected(fields)
    vals, got_bad = parse_decimal(buf, start, end, scratch)
    cols, cols_bad = _decimal_columns(buf, start, end, None)
    assert got_bad == want_bad == cols_bad
    if want is not None:
        assert vals.view(np.uint64).tolist() == want.view(np.uint64).tolist()
        assert cols.view(np.uint64).tolist() == want.view(np.uint64).tolist()


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(number, min_size=1, max_size=60), st.lists(before, min_size=1, max_size=4),
       st.booleans(), st.sampled_from([1, 3, 7, fast._SHORT_BLOCK]))
def test_scores_are_float_bit_for_bit(fields, lead, keep, block):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fast, "_SHORT_BLOCK", block)
        check(fields, lead, {} if keep else None)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(short, min_size=1, max_size=60).map(lambda fs: [f.encode() for f in fs]),
       st.lists(before, min_size=1, max_size=4))
def test_fields_of_several_k_in_one_chunk(fields, lead):
    check(fields, lead, {})


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(number, min_size=1, max_size=40), st.data())
def test_a_refused_field_is_named_first(fields, data):
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(fields)))
        fields.insert(at, data.draw(bad))
    check(fields, [b" "], {})


def test_scratch_kept_between_chunks_of_other_sizes():
    scratch: dict = {}
    for fields in ([b"25.330062"] * 500, [b"-1.5", b"2.25", b"+0.125"], [b"7.0"] * 50,
                   [b"1.2x"] * 3, [b"12.5", b"1.2345678", b"3e1"] * 100):
        check(fields, [b" "], scratch)


def test_the_same_fields_anywhere_in_the_chunk():
    fields = [b"25.330062", b"-3.25", b"1234567.1", b"0.00000001"]
    for pad in range(9):
        check([b"1.0"] * pad + fields, [b"\t" * (pad + 1)], {})


def test_an_underscore_is_refused():
    check([b"1.5", b"2.25", b"1_0.5", b"3.0"], [b" "], {})


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(short, min_size=1, max_size=60).map(lambda fs: [f.encode() for f in fs]),
       st.lists(before, min_size=1, max_size=4))
def test_short_fields_are_read_a_word_at_a_time(fields, lead):
    """Fields of up to 7 bytes before the dot and 1 to 8 digits after it, signed or
    not, of any mix of k, never reach the column-by-column parser."""
    fields = [f for f in fields if len(f.split(b".")[0]) <= 7]
    if not fields:
        return
    buf, start, end = chunk(fields, lead)

    def refuse(*args):
        raise AssertionError("a short field went to the column parser")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fast, "_decimal_columns", refuse)
        vals, bad = parse_decimal(buf, start, end, {})
    assert bad == -1
    assert vals.view(np.uint64).tolist() == expected(fields)[0].view(np.uint64).tolist()


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 7), st.lists(st.tuples(sign, st.text("0123456789", max_size=7),
                                             st.text("0123456789", min_size=8, max_size=8)),
                                   min_size=1, max_size=60),
       st.lists(before, min_size=1, max_size=4), st.sampled_from([2, fast._SHORT_BLOCK]))
def test_fields_of_one_k_and_nine_bytes_are_read_in_one_word(k, parts, lead, block):
    """``%.Nf`` scores of up to 8 bytes besides the dot (N <= 7) never reach the
    two-word or the column-by-column parser."""
    fields = [f"{s}{i}.{f[:k]}".encode() for s, i, f in parts]
    fields = [f for f in fields if len(f) <= 9] or [b"1.5"]
    buf, start, end = chunk(fields, lead)

    def refuse(*args):
        raise AssertionError("a short field went to another parser")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fast, "_SHORT_BLOCK", block)
        mp.setattr(fast, "_decimal_columns", refuse)
        mp.setattr(fast, "_decimal_words", refuse)
        vals, bad = parse_decimal(buf, start, end, {})
    assert bad == -1
    assert vals.view(np.uint64).tolist() == expected(fields)[0].view(np.uint64).tolist()


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(long, long, short, st.floats(-1e6, 1e6).map(lambda x: f"{x:.16g}")),
                min_size=1, max_size=60),
       st.lists(before, min_size=1, max_size=4))
def test_long_fields_are_read_three_words_at_a_time(fields, lead):
    """Fields of 9 to 16 digits after the dot and up to 7 bytes before it (``%.14f``,
    ``%.16g``), of any mix of k, reach the column-by-column parser only when their
    mantissa reaches 2**53 (where M / 10**k would round twice) or they have more than 16
    digits after the dot (``%.16g`` of a number below 0.01), and all fields do when the
    first has: those are read there, and every value is float()'s, bit for bit."""
    fields = [f.encode() for f in fields if "." in f and len(f.split(".")[0]) <= 7
              and "e" not in f and "n" not in f]
    if not fields:
        return
    buf, start, end = chunk(fields, lead)
    def slow(f: bytes) -> bool:
        return int(f.replace(b".", b"").lstrip(b"+-")) >= 2 ** 53 \
            or not 1 <= len(f.split(b".")[1]) <= 16
    big = fields if not 1 <= len(fields[0].split(b".")[1]) <= 16 else \
        [f for f in fields if slow(f)]
    seen = []

    def columns(buf, start, end, scratch):
        seen.extend(bytes(buf[s:e]) for s, e in zip(start.tolist(), end.tolist()))
        return _decimal_columns(buf, start, end, scratch)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fast, "_decimal_columns", columns)
        vals, bad = parse_decimal(buf, start, end, {})
    assert bad == -1
    assert vals.view(np.uint64).tolist() == expected(fields)[0].view(np.uint64).tolist()
    assert sorted(set(seen)) == sorted(set(big))


def test_a_mantissa_at_two_to_the_53_is_read_by_strtod():
    """9007199254740993 / 10**k rounds twice through a double: it is float()'s there."""
    fields = [b"0.9007199254740993", b"90.07199254740993", b"9.007199254740992",
              b"-9.007199254740993", b"0.0000000000000001", b"1.0000000000000002"]
    check(fields, [b" "], {})
