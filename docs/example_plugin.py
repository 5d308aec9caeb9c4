"""A smarteval plugin: graded precision, a measure of one's own.

    smarteval evaluate --plugin docs/example_plugin.py -m graded_P.5,10 QRELS RUN

or name this module in the ``smarteval.measures`` entry points of an installed package.
"""

from __future__ import annotations

import numpy as np

from smarteval.measures import measure
from smarteval.measures.segments import in_top, safe_div


@measure("graded_P", params="cutoffs", default=(5, 10, 20))
def graded_precision(r, k: int) -> np.ndarray:
    """Graded precision after k documents: their grades over k times the query's top grade.

    The grades of the relevant documents (grade at or above -l) among the first k
    retrieved, summed and divided by k times the highest grade in the query's qrels: 1
    when each of the first k documents has that grade. A short list counts its missing
    ranks as non-relevant, as P does; a query without a relevant document scores 0.
    """
    gains = np.where(r.is_rel, r.rel, 0)                  # one per retrieved document
    top_grade = np.zeros(r.num_queries)
    judged = r.num_judged > 0                             # qrel_grades: descending per query
    top_grade[judged] = r.qrel_grades[r.qrel_offsets[:-1][judged]]
    return safe_div(in_top(gains, r.offsets, k), k * top_grade)


def graded_precision_oracle(codes: list[int], grades: list[int], k: int, level: int) -> float:
    """The same for one query, written plainly: the grade of each retrieved document in
    rank order (-1: not in the qrels), and every grade of the query's qrels."""
    top = max(grades, default=0)
    if top < level:
        return 0.0
    return sum(g for g in codes[:k] if g >= level) / (k * top)


#: Each measure's plain per-query version, against which tests check it.
ORACLES = {"graded_P": graded_precision_oracle}
