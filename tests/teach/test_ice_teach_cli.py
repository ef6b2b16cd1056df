"""The teacher's package as one command (`ice-teach`, ice_teach/__main__.py), and the rule
that holds it together: nothing in the repository edits sys.path (CONTRIBUTING.md, "The
teacher's package")."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from ice_teach.__main__ import COMMANDS, main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_reaches_its_module(command, capsys):
    module, _, first = COMMANDS[command]
    assert callable(importlib.import_module(module).main)
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    usage = capsys.readouterr().out
    assert usage.startswith(f"usage: ice-teach {command}"), usage[:200]


def test_an_unknown_command_is_refused_with_the_list(capsys):
    with pytest.raises(SystemExit) as done:
        main(["regrade"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'regrade'" in err and "'grade'" in err


def test_the_makefile_calls_commands_that_exist():
    called = re.findall(r"-m ice_teach ([a-z-]+)", (ROOT / "Makefile").read_text())
    assert {"student", "grade", "execute", "status"} <= set(called)
    assert set(called) <= set(COMMANDS)


#: The two places that touch sys.path, neither an import shortcut (CONTRIBUTING.md):
#: run_isolated's child takes its parent's path; the sandbox reads it to bind what a
#: kernel needs.
SYS_PATH_EXCEPTIONS = {"ice_lab/isolate.py", "ice_teach/grading/sandbox.py"}
EDIT = re.compile(r"sys\.path\s*(\.\s*(insert|append|extend|remove|pop|clear)\b|\[[^\]]*\]\s*=|\+=|=)")


def test_no_module_edits_sys_path():
    edits = []
    for folder in ("ice_lab", "ice_teach", "tools", "tests", "tests_browser", "_ext",
                   "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if "node_modules" in path.parts or rel in SYS_PATH_EXCEPTIONS:
                continue
            text = path.read_text(encoding="utf-8")
            edits += [f"{rel}: {m.group(0)}" for m in EDIT.finditer(text)]
    assert not edits, "sys.path edited (import the package instead): " + "; ".join(edits)
