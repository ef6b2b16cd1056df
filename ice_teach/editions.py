"""The lab and chapter headers: the cell under a notebook's title that
`ice-teach sync-lab-headers` / `sync-chapter-headers` insert or refresh (the Colab button,
points and learner time of a lab, in its book and student editions; the reading time of a
chapter).
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from ice_teach.exercises import (CODE_LINES_PER_MINUTE, WORDS_PER_MINUTE, count_exercises,
                                 lab_points, learner_time)
from ice_teach.notebooks import CHAPTER_HEADER, LAB_HEADER, book_config, repository_url


def colab_url(path: Path | str) -> str:
    """The Colab link of a notebook of this repository (from _config.yml's repository)."""
    branch = book_config()["repository"].get("branch", "main")
    repo = repository_url().removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{repo}/blob/{branch}/{Path(path).as_posix()}"


def lab_header_source(nb: nbformat.NotebookNode, path: Path | str | None = None,
                      edition: str = "book") -> str:
    """The header cell under a lab's title, in one of its two editions.

    ``edition="book"``: labs/<name>.ipynb's (``path`` names it): the Colab button of its
    student edition, its points, the learner time. ``edition="student"``: the student
    edition's (ice_teach/student.py): the same points, and how to hand it in.
    """
    visible, hidden = lab_points(nb)
    hidden_text = f", {hidden:g} of them in hidden checks run at grading" if hidden else ""
    points = f"**{count_exercises(nb)} exercises, {visible + hidden:g} points**{hidden_text}. "
    if edition == "student":
        return (points + "Write each fix where the exercise cell says `raise NotImplementedError`, "
                "run the check under it, and hand in this notebook (File > Download > Download .ipynb).")
    if edition != "book" or path is None:
        raise ValueError(f"edition {edition!r}: 'book' (with the lab's path) or 'student'")
    name = Path(path).name
    estimate = learner_time(nb)
    return (
        f"[Open the exercise in Colab]({colab_url(Path('student') / name)}) "
        "(the student edition, without solutions; save it with File > Download to hand it in)\n\n"
        + points
        + "This page is the full lab: each solution is folded under its exercise, for self-study.\n\n"
        f"**About {estimate.minutes} minutes** of a learner's time (an estimate: "
        f"{estimate.explained()}).\n\n"
        "An error you do not recognise? `explain(err)` in the notebook, or paste it into "
        "[Explain an error](../book/explain-online.md) (in the browser, no kernel needed)."
    )


def _sync_header(nb: nbformat.NotebookNode, marker: dict[str, str], source: str) -> bool:
    """Insert or refresh the cell marked ``marker`` right under the title cell with
    ``source``; True if it changed."""
    for cell in nb.cells:
        if cell.metadata.get("ice_lab") == marker["ice_lab"]:
            changed = cell.source != source
            cell.source = source
            return changed
    title = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source.startswith("# "))
    cell = nbformat.v4.new_markdown_cell(source, metadata=dict(marker))
    cell.id = marker["ice_lab"]
    nb.cells.insert(title + 1, cell)
    return True


def sync_lab_header(nb: nbformat.NotebookNode, path: Path | str) -> bool:
    """Insert or refresh the header cell right under the lab's title; True if it changed."""
    return _sync_header(nb, LAB_HEADER, lab_header_source(nb, path))


def chapter_header_source(nb: nbformat.NotebookNode) -> str:
    """The header of a chapter: an estimate of its reading time (learner_time, no exercises)."""
    estimate = learner_time(nb)
    return (f"*About {estimate.minutes} minutes of reading* (an estimate: {estimate.words:,} "
            f"words at {WORDS_PER_MINUTE} a minute, {estimate.code_lines} lines of code at "
            f"{CODE_LINES_PER_MINUTE} a minute; running the cells yourself takes longer).")


def sync_chapter_header(nb: nbformat.NotebookNode) -> bool:
    """Insert or refresh the reading-time line right under the chapter's title cell; True if
    it changed."""
    return _sync_header(nb, CHAPTER_HEADER, chapter_header_source(nb))
