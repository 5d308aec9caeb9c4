"""Rendering: results into text, one module per kind of result, one registry of formats."""

from __future__ import annotations

from smarteval.render.formats import FORMATS, Format, delimited, is_table, writable

__all__ = ["FORMATS", "Format", "delimited", "is_table", "writable"]
