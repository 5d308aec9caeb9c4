"""Exception types, one per kind of problem, and the exit statuses they become (the one
home of both: smarteval.cli.edge turns the exceptions into statuses, and the man page's
EXIT STATUS is written from :data:`EXIT_STATUSES`)."""

from __future__ import annotations

#: Exit statuses.
SUCCESS, BAD_INPUT, BAD_USAGE, REGRESSED = 0, 1, 2, 3
#: A command ended by signal N exits with SIGNALLED + N (130 for Ctrl-C, 143 for SIGTERM).
SIGNALLED = 128

#: What each exit status means, for the man page (its EXIT STATUS).
EXIT_STATUSES: dict[str, str] = {
    str(SUCCESS): "Success.",
    str(BAD_INPUT): "Bad input: a file that cannot be read, a line that cannot be parsed (the "
                    "message names the file, the line number and the line, and says what was "
                    "expected), a collection size too small for the judgements.",
    str(BAD_USAGE): "Bad usage: an unknown command, option or measure, a missing argument, "
                    "options that do not go together, an output file that is also an input, "
                    "or plot without matplotlib.",
    str(REGRESSED): "A gate failed: compare --fail-if or report --fail-if found a run worse "
                    "than its baseline, or evaluate --require found a value below (or above) "
                    "its bound. The output is written as without the gate; standard error "
                    "holds one line per failing run and measure, each starting "
                    "'smarteval: regression:'.",
    str(SIGNALLED + 2): "Interrupted (Ctrl-C): one line on standard error, no temporary file "
                        "left behind, worker processes of -j stopped.",
    str(SIGNALLED + 15): "Terminated (SIGTERM), likewise; another terminating signal N (SIGHUP, "
                         "SIGQUIT...) exits with 128 + N.",
}

#: The most characters of an input line a message quotes; a longer line is cut, and its
#: length in bytes said.
QUOTED_MAX = 200
#: Control characters as a message shows them (a CR would move the cursor back over the
#: line, an escape sequence would be obeyed by the terminal); a tab stays a tab.
_SHOWN = {c: f"\\x{c:02x}" for c in [*range(32), 127] if c != 9}
_SHOWN.update({0: "\\0", 10: "\\n", 13: "\\r"})


#: The same, less the line feed that separates a message's lines.
_IN_MESSAGE = {c: shown for c, shown in _SHOWN.items() if c != 10}


def printable(message: str) -> str:
    """A message as standard error shows it: a control character a user gave (in a file
    name, a measure's name, a label) escaped as :func:`quoted` escapes it; its lines kept."""
    return message.translate(_IN_MESSAGE)


def quoted(text: str) -> str:
    """An input line as a message quotes it: control characters escaped, and cut after
    :data:`QUOTED_MAX` characters (the line's length in bytes said)."""
    if len(text) <= QUOTED_MAX or (len(text) <= QUOTED_MAX + 40
                                   and text.endswith(" bytes in all]")):   # quoted already
        return text.translate(_SHOWN)
    size = len(text.encode("utf-8", "surrogateescape"))
    return f"{text[:QUOTED_MAX].translate(_SHOWN)} [... {size} bytes in all]"


class SmartevalError(Exception):
    """Base class of every error smarteval reports to a user."""

    exit_code = BAD_INPUT


class InputError(SmartevalError):
    """A problem in an input file: names the file, the line and what was expected."""

    def __init__(self, path: str, line: int | None, problem: str,
                 text: str | None = None, expected: str | None = None,
                 extra: str | None = None):
        self.path = path
        self.line = line
        self.problem = problem
        self.text = None if text is None else quoted(text)
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

    exit_code = BAD_USAGE


class RefusedMeasure(UsageError):
    """A measure smarteval knows, asked for as it cannot be computed (``P@0``): refused
    wherever it is named, results read back (``correlate -m``) as much as an evaluation."""


class Regressed(SmartevalError):
    """A gate failed (``--fail-if``, ``--require``): ``failures`` holds one line per failing
    run and measure. Raised once the output is written, which stands."""

    exit_code = REGRESSED

    def __init__(self, failures: list[str]):
        self.failures = list(failures)
        super().__init__("\n".join(self.failures))

    def __reduce__(self):
        return (type(self), (self.failures,))


class OutputError(SmartevalError):
    """An output file that cannot be written (the message names it and the reason)."""

    def __init__(self, path: str, exc: OSError):
        self.path = path
        self.exc = exc
        super().__init__(f"{path}: cannot write: {exc.strerror or exc}")

    def __reduce__(self):
        return (type(self), (self.path, self.exc))
