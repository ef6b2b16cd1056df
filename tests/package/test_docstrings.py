"""ice_lab's docstrings say which chapter teaches what: every public module, and every name
of the learner's API (the modules a notebook imports, and what the subpackages present).

The internal modules of a subpackage (``ice_lab.explainer.engine``, ``ice_lab.lint.rules_*``,
``ice_lab.nonfinite.ops`` ...) name the chapter once, in the module docstring; their helpers
need not repeat it."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import ice_lab

# A page of the book: book/<name>.ipynb or labs/<name>.ipynb (as the docstrings cite them).
CHAPTER = re.compile(r"\b(book|labs)/[a-z0-9_-]+\.(ipynb|md)\b")
# A module's docstring may name its chapters in words: "the Training chapter", "book/devices".
MODULE_CHAPTER = re.compile(r"\b(book|labs)/[a-z0-9_-]+|\b[A-Z][\w-]* chapters?\b")


#: Subpackages whose own ``__init__`` presents the learner's names; their submodules are
#: machinery (a module docstring with the chapter is enough). ``ice_lab.checks.<lab>`` is
#: imported by the labs themselves, so its modules are learner API.
MACHINERY = ("ice_lab.explainer.", "ice_lab.lint.", "ice_lab.nonfinite.")


def public_modules() -> list[str]:
    """Every public ice_lab module (no part of its name starts with "_")."""
    names = ["ice_lab"]
    for info in pkgutil.walk_packages(ice_lab.__path__, "ice_lab."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            names.append(info.name)
    return sorted(names)


def learner_api(module: str) -> bool:
    """Whether the names of ``module`` are the learner's API (not a subpackage's machinery)."""
    return not module.startswith(MACHINERY) and module != "ice_lab.lint.flake8_plugin"


def public_names() -> list[tuple[str, str]]:
    """(module, name) for every name in the __all__ of every learner-API module."""
    found = []
    for name in public_modules():
        if not learner_api(name):
            continue
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if getattr(obj, "__module__", name) == name and (
                callable(obj) or isinstance(obj, type)
            ):
                found.append((name, attr))
    return sorted(set(found))


NAMES = public_names()


def test_there_are_public_names_to_check():
    assert len(NAMES) > 30


@pytest.mark.parametrize("module, name", NAMES, ids=[f"{m}.{n}" for m, n in NAMES])
def test_docstring_names_the_chapter(module, name):
    doc = getattr(importlib.import_module(module), name).__doc__ or ""
    assert CHAPTER.search(" ".join(doc.split())), f"{module}.{name}: no book/... or labs/... page"


@pytest.mark.parametrize("module", public_modules())
def test_module_docstring_names_the_chapter(module):
    doc = importlib.import_module(module).__doc__ or ""
    assert MODULE_CHAPTER.search(" ".join(doc.split())), f"{module}: names no chapter"
