"""pytest's JUnit XML report, read (``pytest --junitxml FILE``): what the verification
commands count, instead of pytest's text summary.

    cases = read_junit(path)            # one Case per <testcase>, in the report's order
    counts = count(cases)   # {"passed": 3, "failed": 1, "error": 0, "skipped": 2}

Used by ``ice-teach gpu-verify`` (the tests in tests/gpu) and ``ice-teach compat`` (the
unit tests under another torch). Standard library only.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

#: The outcomes a testcase can have, in the order a test's tags decide it: a failure
#: (an assertion or an exception in the test), an error (in a fixture, or at
#: collection), a skip, else a pass.
OUTCOMES = ("failed", "error", "skipped", "passed")
_TAGS = {"failure": "failed", "error": "error", "skipped": "skipped"}


@dataclass(frozen=True)
class Case:
    """One ``<testcase>``: its name (``module::test``), outcome, the message of its
    failure, error or skip (empty for a pass), the full text pytest gave with it (a
    traceback), and what the test printed (``<system-out>``, when pytest ran with
    ``-o junit_logging=system-out``)."""

    name: str
    outcome: str
    message: str = ""
    details: str = ""
    output: str = ""


def _printed(testcase: ET.Element) -> str:
    """What the test printed, without the "--- Captured Out ---" rules pytest adds."""
    lines = []
    for tag in testcase.iter("system-out"):
        for line in (tag.text or "").splitlines():
            if line.strip() and not (line.startswith("---") and "Captured" in line):
                lines.append(line.strip())
    return " ".join(lines)


def read_junit(path: str | Path) -> list[Case]:
    """One Case per test of a pytest JUnit XML file (one or more ``<testsuite>``s), in
    the report's order, with its outcome: ``failed`` if it holds a ``<failure>``, else
    ``error`` if an ``<error>``, else ``skipped`` if a ``<skipped>``, else ``passed``.
    pytest writes a second ``<testcase>`` for a test that failed and then errored at
    teardown: the two are one Case here (failed), so that a test counts once."""
    root = ET.parse(path).getroot()
    found: dict[str, dict[str, ET.Element]] = {}
    printed: dict[str, list[str]] = {}
    for testcase in root.iter("testcase"):
        module = (testcase.get("classname") or "").rpartition(".")[2]
        name = testcase.get("name") or ""
        key = f"{module}::{name}" if module else name
        tags = found.setdefault(key, {})
        for child in testcase:
            if child.tag in _TAGS:
                tags.setdefault(_TAGS[child.tag], child)
        printed.setdefault(key, []).append(_printed(testcase))
    cases = []
    for key, tags in found.items():
        outcome = next((o for o in OUTCOMES if o in tags), "passed")
        tag = tags.get(outcome)
        cases.append(Case(
            name=key,
            outcome=outcome,
            message=(tag.get("message") or "") if tag is not None else "",
            details=(tag.text or "") if tag is not None else "",
            output=" ".join(p for p in printed[key] if p),
        ))
    return cases


def count(cases: list[Case]) -> dict[str, int]:
    """How many cases had each outcome: ``{"passed": .., "failed": .., "error": ..,
    "skipped": ..}`` (every key present)."""
    totals = dict.fromkeys(OUTCOMES, 0)
    for case in cases:
        totals[case.outcome] += 1
    return totals
