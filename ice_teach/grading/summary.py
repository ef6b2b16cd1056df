"""What a teacher reads first after `make grade`: grades/<lab>-summary.txt.

Per exercise and check: how many graded students passed it, and the failing message
most students got (the check's hint names the mistake: that is what the class got
wrong).
Then the time per submission. Built from the CSV's rows (ice_teach/grading/cli.py).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from statistics import median

import nbformat


def exercises(lab: Path) -> dict[str, str]:
    """{check grade_id: the grade_id of the solution cell (exercise) before it}."""
    found, current = {}, "-"
    for cell in nbformat.read(lab, as_version=4).cells:
        meta = cell.metadata.get("nbgrader") or {}
        if meta.get("solution"):
            current = meta.get("grade_id", "-")
        elif meta.get("grade"):
            found[meta.get("grade_id", "")] = current
    return found


def _time(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds // 60:.0f} min {seconds % 60:02.0f} s"


def summary(lab: Path, rows: list, jobs: int, wall: float) -> str:
    """The summary's text; rows: ice_teach/grading/cli.py's Row objects (TOTAL rows included)."""
    totals = [r for r in rows if r.grade_id == "TOTAL"]
    graded = [t for t in totals if t.status == "graded"]
    states = Counter(t.status for t in totals if t.status != "graded")
    head = f"{lab.stem}: {len(totals)} submissions, {len(graded)} graded"
    head += "".join(f", {n} {status}" for status, n in sorted(states.items()))
    if graded:
        mean = sum(t.points for t in graded) / len(graded)
        head += f"; mean {mean:.1f} of {graded[0].max_points:g} points"
        full = sum(t.points >= t.max_points for t in graded)
        head += f", {full} with full marks"
    lines = [head]
    timed = [t for t in totals if t.status != "invalid" and t.seconds != ""]
    if timed:
        slowest = max(timed, key=lambda t: t.seconds)
        middle = median(t.seconds for t in timed)
        lines.append(f"time per submission: median {middle:.0f} s, slowest "
                     f"{slowest.seconds:.0f} s ({slowest.student}); all in "
                     f"{_time(wall)}, {jobs} at a time")
    of = exercises(lab)
    checks = [r for r in rows if r.grade_id != "TOTAL"]
    order = list(dict.fromkeys(r.grade_id for r in checks))
    if order:
        width = max(len("check"), *(len(g) for g in order))
        ex_width = max(len("exercise"), *(len(of.get(g, "-")) for g in order))
        lines += ["", f"{'exercise':<{ex_width}}  {'check':<{width}}  points  passed"]
    for gid in order:
        mine = [r for r in checks if r.grade_id == gid]
        passed = sum(r.status == "passed" for r in mine)
        pct = f"{100 * passed / len(mine):.0f}%"
        lines.append(f"{of.get(gid, '-'):<{ex_width}}  {gid:<{width}}  "
                     f"{mine[0].max_points:>6g}  {passed}/{len(mine)} ({pct})")
        failing = Counter(r.message or r.status for r in mine if r.status != "passed")
        if failing:
            message, n = failing.most_common(1)[0]
            fails = sum(failing.values())
            short = message if len(message) <= 160 else message[:159] + "…"
            lines.append(f"    most often ({n} of {fails} not passed): {short}")
    return "\n".join(lines)
