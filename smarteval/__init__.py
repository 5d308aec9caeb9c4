"""smarteval: evaluate information-retrieval runs, trec_eval-exact and SMART-complete."""

__version__ = "0.1.0"

from smarteval.errors import SmartevalError, InputError, UsageError  # noqa: E402
from smarteval.readers import read_qrels, read_run  # noqa: E402
from smarteval.api import evaluate, Evaluation  # noqa: E402

__all__ = [
    "__version__",
    "evaluate",
    "Evaluation",
    "read_qrels",
    "read_run",
    "SmartevalError",
    "InputError",
    "UsageError",
]
