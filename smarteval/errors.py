"""Exception types: one per kind of problem; smarteval.cli.options turns them into exit statuses."""

from __future__ import annotations


class SmartevalError(Exception):
    """Base class of every error smarteval reports to a user."""

    exit_code = 1


class InputError(SmartevalError):
    """A problem in an input file: names the file, the line and what was expected."""

    def __init__(self, path: str, line: int | None, problem: str,
                 text: str | None = None, expected: str | None = None,
                 extra: str | None = None):
        self.path = path
        self.line = line
        self.problem = problem
        self.text = text
        self.expected = expected
        self.extra = extra
        super().__init__(self.render())

    def __reduce__(self):
        # rebuilt from its parts, so it crosses to and from worker processes (-j, a cluster)
        return (type(self), (self.path, self.line, self.problem, self.text, self.expected,
                             self.extra))

    def render(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        out = [f"{where}: {self.problem}"]
        if self.text is not None:
            out.append(f"    {self.text}")
        if self.extra is not None:
            out.append(self.extra)
        if self.expected is not None:
            out.append(f"  expected: {self.expected}")
        return "\n".join(out)


class UsageError(SmartevalError):
    """Bad usage: an unknown measure, a missing option, contradictory options."""

    exit_code = 2


class OutputError(SmartevalError):
    """An output file that cannot be written (the message names it and the reason)."""

    def __init__(self, path: str, exc: OSError):
        self.path = path
        self.exc = exc
        super().__init__(f"{path}: cannot write: {exc.strerror or exc}")

    def __reduce__(self):
        return (type(self), (self.path, self.exc))
