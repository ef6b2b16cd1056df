"""What an entry of the answer table is: an Answer (right or wrong) and an Exercise."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Answer:
    code: str  # replaces the solution region
    why: str  # the answer, in a few words
    hint: str = ""  # wrong answers: a piece of the check's assert message naming the mistake
    hides: bool = False  # wrong answers that make the symptom go away
    cleanup: str = ""  # run after the answer's cells


@dataclass(frozen=True)
class Exercise:
    lab: str
    solution: str  # grade_id of the solution cell
    right: tuple[Answer, ...] = field(default_factory=tuple)
    wrong: tuple[Answer, ...] = field(default_factory=tuple)


def R(why: str, code: str, cleanup: str = "") -> Answer:
    return Answer(code, why, cleanup=cleanup)


def W(why: str, code: str, hint: str, hides: bool = False, cleanup: str = "") -> Answer:
    return Answer(code, why, hint, hides, cleanup)
