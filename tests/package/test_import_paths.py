"""One import path per name: no module of ice_lab offers another module's public names.

The rule (CONTRIBUTING, "Where things live"): a public name (one in the ``__all__`` of the
public module that defines it) is importable from that module and, for the names of
``ice_lab``'s own table (``_WHERE``), from ``ice_lab`` itself. A subpackage's
``__init__`` presents its own submodules' names: that is the subpackage's interface. No
other module declares it in its ``__all__``, and no module a reader imports from
(``ice_lab``, a module directly under it, a subpackage) has it as an attribute, even
undeclared: ``from ice_lab.checkpoint import capture_rng`` must fail, so that an importer
still on an old path fails loudly instead of working on. A module that needs another's
name imports the module (``from . import state_dict_diff``) or a private alias.

The modules inside a subpackage (``ice_lab.explainer.engine`` ...) are its implementation:
they may hold their siblings' names, but declare only their own.

No module is named like a name of the package's table (``ice_lab.summary`` is defined in
``describe.py``, ``ice_lab.expect`` in ``provoke.py``, ``ice_lab.explain`` in the
``explainer`` package), so importing a module never rebinds a function of ``ice_lab``: plain
imports and the table's lazy ``__getattr__`` (PEP 562) are all there is.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import pkgutil
import re
import types
from pathlib import Path

import pytest

import ice_lab

_SCALARS = (bool, int, float, complex, str, bytes, type(None))


def _public(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split(".")[1:])


def _modules() -> dict[str, types.ModuleType]:
    found = {"ice_lab": ice_lab}
    for info in pkgutil.walk_packages(ice_lab.__path__, "ice_lab."):
        if _public(info.name):
            found[info.name] = importlib.import_module(info.name)
    return found


MODULES = _modules()


def _inside(module: str, package: str) -> bool:
    """``module`` is ``package`` itself or lies in it (``package`` is a package)."""
    return module == package or (
        hasattr(MODULES.get(package), "__path__") and module.startswith(package + ".")
    )


def _homes() -> dict[int, tuple[str, str, object]]:
    """id(object) -> (defining module, name, object) for every public name. A class or a
    function is defined where its ``__module__`` says; a constant by the module whose
    ``__all__`` lists it and lies inside every other module that lists it."""
    listed: dict[int, list[tuple[str, str, object]]] = {}
    for mod_name, module in MODULES.items():
        if mod_name == "ice_lab":
            continue  # the package's table points at the homes; it is no home itself
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if not isinstance(obj, (types.ModuleType, *_SCALARS)):
                listed.setdefault(id(obj), []).append((mod_name, name, obj))
    homes = {}
    for key, entries in listed.items():
        obj = entries[0][2]
        declared = getattr(obj, "__module__", None)
        if isinstance(obj, (type, types.FunctionType)) and isinstance(declared, str):
            if declared in MODULES:  # defined in a public module (not _text, _ast ...)
                homes[key] = (declared, getattr(obj, "__name__", entries[0][1]), obj)
            continue
        deepest = max(entries, key=lambda entry: entry[0].count("."))
        homes[key] = deepest
    return homes


HOMES = _homes()


def _allowed(offered_by: str, home: str) -> bool:
    return offered_by == "ice_lab" or _inside(home, offered_by)


def declared_elsewhere() -> set[tuple[str, str]]:
    """(module, name): a name in the ``__all__`` of a module that neither defines it nor
    is the subpackage presenting it."""
    found = set()
    for mod_name, module in MODULES.items():
        for name in getattr(module, "__all__", []):
            home = HOMES.get(id(getattr(module, name)))
            if home is not None and not _allowed(mod_name, home[0]):
                found.add((mod_name, name))
    return found


def offered_elsewhere() -> set[tuple[str, str]]:
    """(module, attribute) for each public name importable from a module a reader imports
    from (``ice_lab.X``, a module or a subpackage) other than its home and ``ice_lab``."""
    found = set()
    for mod_name, module in MODULES.items():
        if mod_name.count(".") != 1:
            continue  # ice_lab itself, or inside a subpackage
        for attr, value in vars(module).items():
            if attr.startswith("_") or isinstance(value, (types.ModuleType, *_SCALARS)):
                continue
            home = HOMES.get(id(value))
            if home is not None and not _allowed(mod_name, home[0]):
                found.add((mod_name, attr))
    return found


def test_the_rule_sees_the_package():
    assert len(HOMES) > 60
    assert HOMES[id(ice_lab.run_isolated)][0] == "ice_lab.isolate"
    from ice_lab.preflight import CHAPTERS

    assert HOMES[id(CHAPTERS)][:2] == ("ice_lab.preflight", "CHAPTERS")


def test_no_module_declares_another_modules_name():
    assert declared_elsewhere() == set(), (
        "in __all__ but defined elsewhere: import it from its own module instead"
    )


def test_no_module_offers_another_modules_name():
    found = offered_elsewhere()
    assert not found, (
        f"{sorted(found)}: a second import path. Import the module (`from . import x`, then "
        "`x.name`) or give the name a private alias (`import name as _name`)."
    )


@pytest.mark.parametrize("name", sorted(set(ice_lab._WHERE) - {"env"}))
def test_no_module_is_named_like_a_name_of_the_package(name):
    """``import ice_lab.X`` binds the module X on the package; were X also a function of the
    table, the import would replace it. (``env`` is the module itself.)"""
    assert importlib.util.find_spec(f"ice_lab.{name}") is None, (
        f"ice_lab/{name}.py would shadow the function ice_lab.{name}: rename the module")


def test_importing_the_modules_leaves_the_functions():
    """The modules imported by path (as a test or a tool may) bind only their own names."""
    for module in ("describe", "provoke", "explainer", "nonfinite", "magic"):
        importlib.import_module(f"ice_lab.{module}")
    assert ice_lab.summary is MODULES["ice_lab.describe"].summary
    assert ice_lab.expect is MODULES["ice_lab.provoke"].expect
    assert ice_lab.explain is MODULES["ice_lab.explainer"].explain
    assert ice_lab.explain("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)").kind == (
        "shape_mismatch")


@pytest.mark.parametrize("name", sorted(ice_lab._WHERE))
def test_the_package_table_points_at_the_home(name):
    """``ice_lab.NAME`` is the object of the module the table names, and that module is
    its home or the subpackage presenting it."""
    where = f"ice_lab.{ice_lab._WHERE[name]}"
    value = getattr(ice_lab, name)
    if isinstance(value, types.ModuleType):
        assert value.__name__ == where
        return
    assert getattr(MODULES[where], name) is value
    assert _inside(HOMES[id(value)][0], where), (name, HOMES[id(value)][0], where)


# --------------------------------------------------------------------------- the book
ROOT = Path(__file__).resolve().parents[2]
DOTTED = re.compile(r"\bice_lab(?:\.[A-Za-z_]\w*)+")


def _sources() -> list[tuple[str, str]]:
    """(page, text) for every chapter, lab and page of the book: the cells' sources, never
    their outputs (an output may quote a message that names anything)."""
    found = []
    for path in sorted([*ROOT.glob("book/*.ipynb"), *ROOT.glob("labs/*.ipynb")]):
        if path.name.startswith("."):
            continue
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        found.append((str(path.relative_to(ROOT)), "\n".join("".join(c["source"]) for c in cells)))
    for path in sorted(ROOT.glob("book/*.md")):
        found.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
    return found


def _problem(dotted: str) -> str | None:
    """Why ``dotted`` (``ice_lab.module.name...``) is not a name's import path, or None."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(module_name)
            break
        except ImportError:
            continue
    rest = parts[cut:]
    for i, attr in enumerate(rest):
        if not hasattr(obj, attr):
            return f"{'.'.join(parts[:cut + i])} has no {attr}"
        obj = getattr(obj, attr)
        if i == 0 and not isinstance(obj, types.ModuleType) and id(obj) in HOMES:
            home = HOMES[id(obj)][0]
            if not _allowed(module_name, home):
                return f"{attr} is imported from {home}"
    return None


def test_the_book_names_each_name_by_its_import_path():
    """Every ``ice_lab.module.name`` a page mentions (prose or code) exists, and names the
    module the name is imported from: a page does not teach an old path."""
    wrong = sorted(
        f"{page}: {dotted}: {problem}"
        for page, text in _sources()
        for dotted in set(DOTTED.findall(text))
        if (problem := _problem(dotted)) is not None
    )
    assert not wrong, "\n".join(wrong)


def test_every_package_of_ice_lab_is_installed():
    """The wheel holds every package of ice_lab: a folder with an __init__.py that
    setuptools does not install would be missing on Colab (which installs the wheel)."""
    import tomllib

    from setuptools import find_packages

    root = Path(__file__).resolve().parents[2]
    setuptools = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {".".join(p.parent.relative_to(root).parts)
             for p in (root / "ice_lab").rglob("__init__.py") if "__pycache__" not in p.parts}
    if "packages" in setuptools and isinstance(setuptools["packages"], list):
        installed = set(setuptools["packages"])
    else:
        where = setuptools["packages"]["find"]
        installed = set(find_packages(str(root), include=where.get("include", ["*"]),
                                      exclude=where.get("exclude", ())))
    assert found <= installed, f"not installed: {sorted(found - installed)}"
