"""The class summary as a page: grades/<lab>-summary.html.

The same facts as grades/<lab>-summary.txt (the summary module), laid out to be opened
in a browser: the class's totals, then per exercise and check how many graded students
passed it and the failing message most of the others got, in full (the text summary cuts
it at 160 characters), then one line per student with their points and links to their
feedback. One file, no script, no style sheet or font fetched from elsewhere.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from html import escape
from pathlib import Path

import nbformat

from .feedback import exercise_titles

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em;
       padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; width: 100%; }
th, td { border-bottom: 1px solid #ddd; padding: .35em .6em; text-align: left;
         vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; white-space: nowrap; }
.bar { background: #eee; height: .8em; width: 8em; display: inline-block; }
.bar span { background: #3a7; height: 100%; display: block; }
pre { white-space: pre-wrap; margin: 0; font-size: .9em; }
.status-graded { color: #262; }
.status-invalid, .status-error { color: #a22; font-weight: bold; }
"""


def _pct(n: int, of: int) -> str:
    return f"{100 * n / of:.0f}%" if of else "-"


def checks_table(rows: list, titles: Mapping[str, str],
                 said: Mapping[str, Mapping[str, str]]) -> list[dict]:
    """Per check, in lab order: exercise, check, points, passed, graded, the commonest
    message of those not passed, and how many got it."""
    checks = [r for r in rows if r.grade_id != "TOTAL"]
    table = []
    for gid in dict.fromkeys(r.grade_id for r in checks):
        mine = [r for r in checks if r.grade_id == gid]
        failing = Counter(said.get(r.student, {}).get(gid) or r.message or r.status
                          for r in mine if r.status != "passed")
        message, count = failing.most_common(1)[0] if failing else ("", 0)
        table.append({
            "exercise": titles.get(gid, "-"), "check": gid,
            "points": mine[0].max_points,
            "passed": sum(r.status == "passed" for r in mine), "graded": len(mine),
            "message": message, "count": count, "not_passed": sum(failing.values()),
        })
    return table


def page(lab: Path, rows: Iterable, head: str,
         said: Mapping[str, Mapping[str, str]] | None = None,
         feedback: str = "") -> str:
    """The page. head: the text summary's opening lines (counts, mean, time);
    said: {student: {grade_id: full message}} (feedback.outputs); feedback: the folder,
    relative to the page, holding <student>.md and .html (empty: no links)."""
    rows = list(rows)
    said = said or {}
    titles = exercise_titles(nbformat.read(lab, as_version=4))
    out = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f"<title>{escape(lab.stem)}: class summary</title>",
        f"<style>{STYLE}</style>", "</head>", "<body>",
        f"<h1>{escape(lab.stem)}: class summary</h1>",
        *(f"<p>{escape(line)}</p>" for line in head.splitlines() if line.strip()),
        "<h2>Per exercise</h2>",
        "<table>", "<tr><th>exercise</th><th>check</th><th>points</th>"
        "<th>passed</th><th></th><th>most common message of those not passed</th></tr>",
    ]
    for c in checks_table(rows, titles, said):
        width = 100 * c["passed"] / c["graded"] if c["graded"] else 0
        message = (f'<pre>{escape(c["message"])}</pre>'
                   f'<small>{c["count"]} of {c["not_passed"]} not passed</small>'
                   if c["not_passed"] else "")
        out.append(
            f"<tr><td>{escape(c['exercise'])}</td><td><code>{escape(c['check'])}"
            f"</code></td><td class=num>{c['points']:g}</td>"
            f"<td class=num>{c['passed']}/{c['graded']} "
            f"({_pct(c['passed'], c['graded'])})</td>"
            f'<td><span class=bar><span style="width:{width:.0f}%"></span></span></td>'
            f"<td>{message}</td></tr>")
    out += ["</table>", "<h2>Per student</h2>", "<table>",
            "<tr><th>student</th><th>points</th><th>status</th><th>note</th>"
            "<th>feedback</th></tr>"]
    for t in (r for r in rows if r.grade_id == "TOTAL"):
        links = ""
        if feedback:
            base = escape(f"{feedback}/{t.student}")
            links = f'<a href="{base}.md">feedback</a>'
            if t.status == "graded":
                links += f' · <a href="{base}.html">graded notebook</a>'
        out.append(
            f"<tr><td>{escape(t.student)}</td>"
            f"<td class=num>{t.points:g} / {t.max_points:g}</td>"
            f"<td class=status-{escape(t.status.replace(' ', '-'))}>"
            f"{escape(t.status)}</td><td>{escape(t.message)}</td><td>{links}</td></tr>")
    out += ["</table>", "</body>", "</html>"]
    return "\n".join(out) + "\n"
