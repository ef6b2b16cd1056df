"""Every public name of ice_lab says in its docstring which chapter teaches it."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import ice_lab

# A page of the book: book/<name>.ipynb or labs/<name>.ipynb (as the docstrings cite them).
CHAPTER = re.compile(r"\b(book|labs)/[a-z0-9_-]+\.(ipynb|md)\b")


def public_names() -> list[tuple[str, str]]:
    """(module, name) for every name in the __all__ of every public ice_lab module."""
    found = []
    for info in pkgutil.walk_packages(ice_lab.__path__, "ice_lab."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue  # private modules: learners meet them through the public tools
        if info.name in ("ice_lab.lint.flake8_plugin",):
            continue  # flake8's entry point, no learner API
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if getattr(obj, "__module__", info.name) == info.name and (
                callable(obj) or isinstance(obj, type)
            ):
                found.append((info.name, name))
    return sorted(set(found))


NAMES = public_names()


def test_there_are_public_names_to_check():
    assert len(NAMES) > 30


@pytest.mark.parametrize("module, name", NAMES, ids=[f"{m}.{n}" for m, n in NAMES])
def test_docstring_names_the_chapter(module, name):
    doc = getattr(importlib.import_module(module), name).__doc__ or ""
    assert CHAPTER.search(" ".join(doc.split())), f"{module}.{name}: no book/... or labs/... page"
