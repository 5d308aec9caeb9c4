"""Shell completion: click's scripts for bash and zsh, taught one more kind of word, a name
completed without a space after it (a measure that takes parameters: ``-m ndcg_c<TAB>``
gives ``ndcg_cut``, ready for ``.10``).

click's scripts know three kinds of completion (``plain``, ``dir``, ``file``); the
measures that take parameters are completed as ``nospace``, which these scripts add to
the reply as a plain word but ask the shell to follow with nothing (bash's ``compopt -o
nospace``, zsh's ``compadd -S ''``). fish decides by itself whether a space follows, and
gets them as plain words. The classes replace click's for ``bash`` and ``zsh`` when a
shell asks for completions or for its script (:func:`register`, called by the group
before it reads the command line), so the script a user evaluates is this one.
"""

from __future__ import annotations

from typing import Any

from click.shell_completion import (
    BashComplete,
    CompletionItem,
    FishComplete,
    ZshComplete,
    add_completion_class,
)

#: The kind of a completion the shell must not follow with a space.
NOSPACE = "nospace"

_BASH = BashComplete.source_template.replace(
    """        elif [[ $type == 'plain' ]]; then
            COMPREPLY+=($value)
        fi""",
    """        elif [[ $type == 'plain' ]]; then
            COMPREPLY+=($value)
        elif [[ $type == 'nospace' ]]; then
            COMPREPLY+=($value)
            compopt -o nospace
        fi""")

_ZSH = ZshComplete.source_template.replace(
    """    local -a completions_with_descriptions
""",
    """    local -a completions_with_descriptions
    local -a nospace
""").replace(
    """        elif [[ "$type" == "dir" ]]; then""",
    """        elif [[ "$type" == "nospace" ]]; then
            nospace+=("$key")
        elif [[ "$type" == "dir" ]]; then""").replace(
    """    if [ -n "$completions" ]; then""",
    """    if [ -n "$nospace" ]; then
        compadd -U -S '' -V unsorted -a nospace
    fi

    if [ -n "$completions" ]; then""")


class Bash(BashComplete):
    """click's bash completion, with names completed without a space after them."""

    source_template = _BASH


class Zsh(ZshComplete):
    """click's zsh completion, with names completed without a space after them."""

    source_template = _ZSH


class Fish(FishComplete):
    """click's fish completion: a name without a space after it is a plain word there."""

    def format_completion(self, item: CompletionItem) -> str:
        if item.type == NOSPACE:
            item = CompletionItem(item.value, type="plain", help=item.help)
        return super().format_completion(item)


#: Whether click's scripts were as this module expects (a test checks so); if not, names
#: are completed as plain words, with a space, by click's own scripts.
PATCHED = BashComplete.source_template != _BASH and ZshComplete.source_template != _ZSH


def register() -> None:
    """Put these classes in click's place for bash, zsh and fish (idempotent)."""
    if PATCHED:
        for cls, name in ((Bash, "bash"), (Zsh, "zsh"), (Fish, "fish")):
            add_completion_class(cls, name)


def item(name: str, nospace: bool) -> Any:
    """A completion of ``name``: without a space after it when ``nospace``."""
    return CompletionItem(name, type=NOSPACE if nospace and PATCHED else "plain")
