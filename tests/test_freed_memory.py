"""evaluate's memory policy: freed memory kept for reuse on small inputs only, no huge
pages for large ones."""

from __future__ import annotations

import ctypes

import pytest

from smarteval import memory


@pytest.fixture
def calls(monkeypatch):
    seen: list[tuple[int, int]] = []

    class Libc:
        def mallopt(self, param, value):
            seen.append((param, value))
            return 1
    monkeypatch.setattr(ctypes, "CDLL", lambda name: Libc())
    return seen


def test_small_inputs_keep_freed_memory(tmp_path, calls):
    path = tmp_path / "qrels"
    path.write_text("1 0 d 1\n")
    memory.reuse_freed_memory([str(path), str(path)])
    assert calls == [(-3, 32 << 20), (-1, 1 << 30)]


def test_large_or_unknown_inputs_keep_the_defaults(tmp_path, calls, monkeypatch):
    import numpy as np
    advice: list[bool] = []
    monkeypatch.setattr(np._core.multiarray, "_set_madvise_hugepage", advice.append)
    path = tmp_path / "qrels"
    path.write_text("1 0 d 1\n")
    memory.reuse_freed_memory([str(path), "-"])               # standard input: size unknown
    assert advice == []
    monkeypatch.setattr(memory, "SMALL_INPUTS", 4)
    memory.reuse_freed_memory([str(path)])                    # 8 bytes: large here
    assert calls == []
    assert advice == [False]                                   # no huge pages for them
