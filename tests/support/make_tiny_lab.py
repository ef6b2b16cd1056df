"""A tiny lab in the labs' format (nbgrader v3 metadata, solution markers, a hidden test,
data next to it) for tests/teach/test_grading.py: grading it takes seconds, not minutes."""

from __future__ import annotations

from pathlib import Path

import nbformat


def _cell(source: str, grade_id: str = "", kind: str = "", points: int = 0) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.id = grade_id or f"cell-{abs(hash(source)) % 10**8}"
    if kind:
        cell.metadata["nbgrader"] = {
            "grade": kind == "check", "grade_id": grade_id, "locked": kind == "check",
            "schema_version": 3, "solution": kind == "solution", "task": False,
        }
        if kind == "check":
            cell.metadata["nbgrader"]["points"] = points
        cell.metadata["tags"] = ["hide-input"] if kind == "solution" else []
    return cell


def make_tiny_lab(folder: Path) -> Path:
    """Write folder/lab-tiny.ipynb and its data file folder/data/words.txt."""
    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "data" / "words.txt").write_text("ice tensor ice grad\n")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    cells = [
        nbformat.v4.new_markdown_cell("# Lab: Tiny"),
        _cell('from pathlib import Path\n\nWORDS = Path("data/words.txt").read_text().split()', "setup"),
        _cell("def double(x):\n    # BEGIN SOLUTION\n    return 2 * x\n    # END SOLUTION", "double", "solution"),
        _cell('assert double(3) == 6, "double(3) is not 6: multiply by 2, do not add 2"\n'
              'print("Check passed: double")', "check_double", "check", 2),
        _cell("### BEGIN HIDDEN TESTS\nassert double(-4) == -8\n### END HIDDEN TESTS",
              "hidden_double", "check", 1),
        _cell('def count(word):\n    # BEGIN SOLUTION\n    return WORDS.count(word)\n    # END SOLUTION',
              "count", "solution"),
        _cell('assert count("ice") == 2, "count the word in WORDS"\nprint("Check passed: count")',
              "check_count", "check", 2),
    ]
    for c in cells:
        if c.cell_type == "markdown":
            c.id = "title"
    cells[4].metadata["tags"] = ["remove-cell"]
    nb.cells = cells
    path = folder / "lab-tiny.ipynb"
    nbformat.write(nb, path)
    return path
