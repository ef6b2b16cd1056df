"""ice_lab.lint: every rule on the scripts of tests/package/lint_cases/, and the ways to run it.

Each rule has three small scripts: a true positive, a near miss that must not fire and
the usual idiom that is fine. A line that must be flagged ends in ``# <- ICE1xx``; the
findings must be exactly those lines. The real-code measurement (precision and recall
on labelled public scripts) is in benchmarks/lint_corpus.md.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ice_lab.lint import (RULES, LintReport, lint_file, lint_paths, lint_source, notebook_cells,
                          writefile_cells)
from ice_lab.lint.cli import main

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "package" / "lint_cases"
SCRIPTS = sorted(CASES.glob("ice1*.py"))
MARK = re.compile(r"# <- (ICE\d{3})")


def marked(path: Path) -> set[tuple[int, str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {(i, m.group(1)) for i, line in enumerate(lines, 1) if (m := MARK.search(line))}


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_case_findings_are_exactly_the_marked_lines(path):
    found = {(f.line, f.code) for f in lint_file(path)}
    assert found == marked(path)
    if path.stem.endswith("_positive"):
        assert marked(path), f"{path.name} marks no line: a positive case must fire"
        assert {code for _, code in found} == {path.stem[:6].upper()}
    else:
        assert not found, f"{path.name} is a near miss or an idiom: nothing may fire"


def test_every_rule_has_a_positive_a_near_miss_and_an_idiom():
    names = {p.stem for p in SCRIPTS}
    for code in RULES:
        if code == "ICE100":
            continue
        for kind in ("positive", "near_miss", "idiom"):
            assert f"{code.lower()}_{kind}" in names, f"no {kind} case for {code}"


def test_every_message_names_a_chapter_section():
    # the format here; that each one resolves: tests/book/test_chapter_refs.py
    for code, rule in RULES.items():
        assert rule.code == code
        assert re.fullmatch(r"book/[a-z-]+\.ipynb#[\w-]+", rule.chapter), (code, rule.chapter)
    finding = lint_file(CASES / "ice102_positive.py")[0]
    assert finding.message.endswith("(see book/training.ipynb#start-tiny-overfit-one-batch)")
    assert re.fullmatch(r".+:\d+:\d+: ICE102 .+", str(finding))


def test_notebook_cells_joined_magics_blanked_and_a_broken_cell_reported():
    path = CASES / "notebook_case.ipynb"
    cells = dict(notebook_cells(path.read_text()))
    assert sorted(cells) == [2, 3, 4, 5]  # code cells, numbered as in the notebook
    assert cells[2].splitlines()[0] == "" and cells[4].strip() == ""
    found = [(f.cell, f.line, f.code) for f in lint_file(path)]
    assert found == [(3, 3, "ICE102"), (5, 1, "ICE100")]
    assert str(lint_file(path)[0]).startswith(f"{path}:cell_3:3:")


def test_a_line_starting_with_percent_inside_brackets_is_python_not_a_magic():
    # A continuation line of string formatting was blanked as a magic: the cell stopped
    # parsing and was reported as "not valid Python" (ICE100) and never checked.
    cell = ('%time x = 1\nprint("%d of %d"\n      %(1, 2))\nmsg = "a %s" \\\n'
            '    %("b",)\n!ls\nloss = F.cross_entropy(F.softmax(z, dim=1), y)\n')
    nb = {"cells": [{"cell_type": "code", "source": cell}], "metadata": {},
          "nbformat": 4, "nbformat_minor": 5}
    [(number, text)] = notebook_cells(json.dumps(nb))
    lines = text.split("\n")
    assert lines[0] == "" and lines[5] == ""  # %time and !ls are blanked
    assert lines[2] == "      %(1, 2))" and lines[4] == '    %("b",)'
    found = [(f.line, f.code) for f in lint_source(text)]
    assert found == [(7, "ICE102")]  # parsed and checked, no ICE100


def test_writefile_cells_are_read_once_for_lint_and_the_student_editions():
    # One reader (ice_lab.lint.writefile_cells): lint reads a written .py as Python,
    # ice_teach.student keeps what a lab writes out of its data.
    softmax_loss = "loss = F.cross_entropy(F.softmax(z, dim=1), y)"
    nb = {"cells": [
        {"cell_type": "code", "source": ["%%writefile scripts/job.py\n", "print('a')"]},
        {"cell_type": "code", "source": "%%file -a scripts/job.py\n" + softmax_loss},
        {"cell_type": "code", "source": "%%writefile notes.txt\n" + softmax_loss},
        {"cell_type": "markdown", "source": "%%writefile not/code.py\nx"},
        {"cell_type": "code", "source": "print('%%writefile inside a cell is no magic')"},
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    assert writefile_cells(nb) == {"scripts/job.py": f"print('a')\n{softmax_loss}\n",
                                   "notes.txt": softmax_loss + "\n"}
    cells = dict(notebook_cells(json.dumps(nb)))
    assert cells[2] == "\n" + softmax_loss and cells[3] == "\n"  # a .py is Python; text is not
    ice102 = [(cell, line) for cell, text in cells.items()
              for line, code in [(f.line, f.code) for f in lint_source(text)]]
    assert ice102 == [(2, 2)]


def test_lint_paths_goes_on_past_an_unreadable_file_when_told(tmp_path):
    (tmp_path / "a.ipynb").write_text('{"no": "cells"}')
    (tmp_path / "b.py").write_text("import torch\nstate = torch.load('a.pt')\n")
    with pytest.raises(ValueError, match="not a Jupyter notebook"):
        lint_paths(tmp_path)
    errors: list[Exception] = []
    report = lint_paths(tmp_path, on_error=errors.append)
    assert report.files == 2 and report.codes() == ["ICE106"]
    assert [type(e) for e in errors] == [ValueError]
    assert main([str(tmp_path)]) == 2  # the CLI: the finding printed, exit 2 for the file


def test_noqa_silences_the_codes_it_names_only():
    source = "import torch\nstate = torch.load('a.pt')  {}\n"
    assert [f.code for f in lint_source(source.format(""))] == ["ICE106"]
    assert lint_source(source.format("# noqa: ICE106")) == []
    assert lint_source(source.format("# noqa")) == []
    assert [f.code for f in lint_source(source.format("# noqa: ICE101"))] == ["ICE106"]


def test_select_and_ignore_take_prefixes():
    text = (CASES / "ice105_positive.py").read_text()
    assert {f.code for f in lint_source(text, select=["ICE10"])} == {"ICE105"}
    assert lint_source(text, select=["ICE106"]) == []
    assert lint_source(text, ignore=["ICE105"]) == []


def test_a_file_that_is_not_python_is_one_ice100_finding():
    found = lint_source("def broken(:\n    pass\n", "broken.py")
    assert [(f.line, f.code) for f in found] == [(1, "ICE100")]


def test_bad_input_says_what_to_do():
    with pytest.raises(TypeError, match="read the file first"):
        lint_source(b"import torch")
    with pytest.raises(ValueError, match="not a Jupyter notebook"):
        notebook_cells('{"no": "cells"}', "x.ipynb")
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        lint_paths(CASES / "missing.py")


def test_lint_paths_walks_a_folder_and_reports():
    report = lint_paths(CASES)
    assert isinstance(report, LintReport) and not report.ok
    assert report.files == len(SCRIPTS) + 1
    assert set(report.codes()) == set(RULES)  # every rule fires somewhere, ICE100 too
    assert str(report).endswith(f"finding(s) in {report.files} file(s)")


def test_command_line_exit_status(capsys):
    assert main([str(CASES / "ice101_idiom.py")]) == 0
    assert main([str(CASES / "ice101_positive.py")]) == 1
    out = capsys.readouterr().out
    assert out.count("ICE101") == 2
    assert main([str(CASES / "ice101_positive.py"), "--ignore", "ICE101"]) == 0
    assert main([str(CASES / "missing.py")]) == 2
    with pytest.raises(SystemExit, match="unknown code 'ICE999'"):
        main([str(CASES), "--select", "ICE999"])


@pytest.mark.kernel
def test_ice_lab_command_dispatches_to_lint():
    run = subprocess.run([sys.executable, "-m", "ice_lab", "lint", str(CASES / "ice106_positive.py")],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 1 and run.stdout.count("ICE106") == 2


@pytest.mark.kernel
def test_flake8_runs_the_plugin_and_honours_noqa(tmp_path):
    script = tmp_path / "train.py"
    script.write_text((CASES / "ice106_positive.py").read_text()
                      .replace('torch.save(model, "model.pt")', 'torch.save(model, "m.pt")  # noqa: ICE106'))
    run = subprocess.run([sys.executable, "-m", "flake8", "--select", "ICE", str(script)],
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert [line.split(": ")[1][:6] for line in run.stdout.splitlines()] == ["ICE106"]
    assert "torch.load without weights_only" in run.stdout


@pytest.mark.kernel
def test_lint_imports_no_torch():
    code = "import sys, ice_lab.lint; ice_lab.lint.lint_source('x = 1'); print('torch' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert run.stdout.strip() == "False", run.stderr


def test_a_rule_never_crashes_on_odd_code():
    odd = [
        "a, b = c = f()\nfor x in y: a += x\n",
        "x = [y for y in z if (w := y)]\nlambda: (yield)\n",
        "class A:\n    def forward(self):\n        return torch.zeros(*s)\n",
        "((((((((((((((((((((x))))))))))))))))))))\n" * 3,
        "async def f():\n    async for b in loader:\n        loss.backward()\n        opt.step()\n",
        json.dumps({"not": "python"}),
    ]
    for text in odd:
        found = lint_source(text)
        assert isinstance(found, list), type(found)
        assert all(f.code in RULES and f.line >= 1 for f in found), found
