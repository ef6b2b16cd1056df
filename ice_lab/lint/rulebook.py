"""What a lint rule is: its code, what goes wrong, the section that shows it, and its check.

Each rule is written once, where its check is: ``@rule("ICE101", "what goes wrong",
"book/<page>.ipynb#<heading-anchor>")`` above the function that finds it. The section is
written as every chapter reference of ice_lab is (explain's entries, preflight's
``CHAPTERS``): a page of the book and the anchor MyST gives one of its headings, so a
message's "(see book/training.ipynb#train-and-eval)" is also the link into the built book
(``ice_teach.chapters`` checks that every one resolves). The engine collects every
:class:`Rule` of the ``rules_*`` modules; nothing else lists the codes
(book/debugging.ipynb, 'Lint before you run').
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from ._ast import Located, Source

__all__ = ["Rule", "rule", "SYNTAX"]

#: What a check yields: the node a finding points at (a statement or an expression: it
#: has a position) and what goes wrong there.
Found = Iterator[tuple[Located, str]]
Check = Callable[[Source], Iterable[tuple[Located, str]]]


@dataclass(frozen=True)
class Rule:
    """One lint rule (book/debugging.ipynb, 'Lint before you run'): its ``code``
    (``ICE1xx``), a ``summary`` of what goes wrong, the ``chapter`` section that shows
    it (``"book/<page>.ipynb#<heading-anchor>"``) and the ``check`` that finds it in a
    parsed script (None for ICE100, which the engine reports when a script does not
    parse)."""

    code: str
    summary: str
    chapter: str
    check: Check | None = None

    def message(self, detail: str) -> str:
        """``detail`` then the chapter: every message says what goes wrong and where to read."""
        return f"{detail} (see {self.chapter})"


def rule(code: str, summary: str, chapter: str) -> Callable[[Check], Rule]:
    """Make the decorated check a :class:`Rule` with this code, summary and chapter
    (book/debugging.ipynb)."""

    def make(check: Check) -> Rule:
        return Rule(code, summary, chapter, check)

    return make


#: ICE100: the script (or a notebook cell) is not valid Python.
SYNTAX = Rule("ICE100", "not valid Python: nothing else in it was checked",
              "book/debugging.ipynb#lint-before-you-run")
