"""Reading: runs, qrels and results files (plain or compressed, or standard input) into columns."""

from __future__ import annotations

from smarteval.read.plain import read_bytes, read_qrels, read_run

__all__ = ["read_bytes", "read_qrels", "read_run"]
