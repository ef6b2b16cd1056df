"""What can be checked of Python 3.12-3.14 without their interpreters (none is on these
machines; Colab runs 3.13): no standard-library module or API that those releases removed
is used by ice_lab, ice_teach, the tools or any notebook. Which Pythons resolve every learner
package from wheels is ice_teach/verify/python_support.py's record (reference/python-support.json).
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

from ice_teach import notebooks

ROOT = Path(__file__).resolve().parents[2]

#: Modules gone from the standard library: 3.12 (distutils, imp, asynchat, asyncore,
#: smtpd) and 3.13 (PEP 594's dead batteries, lib2to3, tkinter.tix).
REMOVED_MODULES = {
    "distutils": "3.12", "imp": "3.12", "asynchat": "3.12", "asyncore": "3.12",
    "smtpd": "3.12", "aifc": "3.13", "audioop": "3.13", "cgi": "3.13", "cgitb": "3.13",
    "chunk": "3.13", "crypt": "3.13", "imghdr": "3.13", "mailcap": "3.13",
    "msilib": "3.13", "nis": "3.13", "nntplib": "3.13", "ossaudiodev": "3.13",
    "pipes": "3.13", "sndhdr": "3.13", "spwd": "3.13", "sunau": "3.13",
    "telnetlib": "3.13", "uu": "3.13", "xdrlib": "3.13", "lib2to3": "3.13",
    "tkinter.tix": "3.13",
}
#: Attributes gone: module -> {name: the release that removed it}.
REMOVED_ATTRIBUTES = {
    "ast": {"Num": "3.14", "Str": "3.14", "Bytes": "3.14", "NameConstant": "3.14",
            "Ellipsis": "3.14"},
    "pkgutil": {"find_loader": "3.14", "get_loader": "3.14"},
    "locale": {"resetlocale": "3.13"},
    "typing": {"io": "3.13", "re": "3.13"},
    "unittest": {"findTestCases": "3.13", "makeSuite": "3.13", "getTestCaseNames": "3.13"},
    "inspect": {"getargspec": "3.11", "formatargspec": "3.11"},
    "configparser": {"SafeConfigParser": "3.12"},
}


def sources() -> list[tuple[str, str]]:
    found = [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8"))
             for folder in ("ice_lab", "ice_teach", "tools", "_ext")
             for p in sorted((ROOT / folder).rglob("*.py")) if "node_modules" not in p.parts]
    for nb_path in notebooks.notebooks():
        nb = nbformat.read(ROOT / nb_path, as_version=4)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or cell.source.startswith("%%"):
                continue  # a %%writefile script is a file of its own: checked below
            code = "\n".join(  # a line magic or shell line: a statement of its indent
                line[: len(line) - len(line.lstrip())] + "pass"
                if line.lstrip().startswith(("%", "!")) else line
                for line in cell.source.splitlines())
            found.append((f"{nb_path} cell {i}", code))
        from ice_lab.lint import writefile_cells

        for rel, text in writefile_cells(nb).items():
            found.append((f"{nb_path} {rel}", text))
    return found


def removed_uses(code: str) -> list[str]:
    tree = ast.parse(code)
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for alias in node.names:
                gone = REMOVED_ATTRIBUTES.get(node.module, {}).get(alias.name)
                if gone:
                    found.append(f"from {node.module} import {alias.name} (gone in {gone})")
        for name in names:
            for module, release in REMOVED_MODULES.items():
                if name == module or name.startswith(module + "."):
                    found.append(f"import {name} (gone in {release})")
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.attr in REMOVED_ATTRIBUTES.get(node.value.id, {})):
            release = REMOVED_ATTRIBUTES[node.value.id][node.attr]
            found.append(f"{node.value.id}.{node.attr} (gone in {release})")
    return found


def test_nothing_uses_what_python_3_12_to_3_14_removed():
    problems = [f"{where}: {use}" for where, code in sources() for use in removed_uses(code)]
    assert not problems, problems


@pytest.mark.parametrize("code, expected", [
    ("import imp", "import imp (gone in 3.12)"),
    ("from distutils.version import LooseVersion", "import distutils.version (gone in 3.12)"),
    ("import ast\nast.Num(1)", "ast.Num (gone in 3.14)"),
    ("from pkgutil import find_loader", "from pkgutil import find_loader (gone in 3.14)"),
])
def test_the_scan_finds_a_removed_use(code, expected):
    assert expected in removed_uses(code)


def test_the_scan_leaves_current_code_alone():
    assert removed_uses("import ast\nast.Constant(1)\nimport importlib.util\n") == []
