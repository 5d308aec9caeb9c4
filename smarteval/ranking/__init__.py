"""Ranking: a run joined with the qrels and put in rank order; the residual collection."""

from __future__ import annotations

from smarteval.ranking.join import rank
from smarteval.ranking.residual import residual

__all__ = ["rank", "residual"]
