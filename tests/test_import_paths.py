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

The modules inside a subpackage (``ice_lab.explain.engine`` ...) are its implementation:
they may hold their siblings' names, but declare only their own.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import types
from pathlib import Path

import pytest

import ice_lab

#: Old paths kept for a while, ``(module, name): why``, each until its last importer has
#: moved to the defining module; then the re-export and its entry go. Empty: keep it so.
PENDING: dict[tuple[str, str], str] = {}

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
    new = offered_elsewhere() - PENDING.keys()
    assert not new, (
        f"{sorted(new)}: a second import path. Import the module (`from . import x`, then "
        "`x.name`) or give the name a private alias (`import name as _name`)."
    )


def test_pending_old_paths_are_still_there():
    """A pending entry whose re-export is gone is deleted too (the list only shrinks)."""
    gone = PENDING.keys() - offered_elsewhere()
    assert not gone, f"no longer offered, delete from PENDING: {sorted(gone)}"


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
ROOT = Path(__file__).resolve().parents[1]
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
    """pyproject.toml lists the packages a wheel holds: a folder of ice_lab with an
    __init__.py that is not listed would be missing on Colab (which installs the wheel)."""
    import tomllib

    root = Path(__file__).resolve().parents[1]
    listed = set(tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {".".join(p.parent.relative_to(root).parts)
             for p in (root / "ice_lab").rglob("__init__.py")}
    assert found == listed, f"not installed: {sorted(found - listed)}; gone: {sorted(listed - found)}"
