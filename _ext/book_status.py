"""Sphinx extension: the book's status, read at build time from committed data.

Nothing here is typed by hand; everything comes from files that runs wrote
(ice_teach/status.py describes them):

- Under the title of every executed chapter and lab, a stamp: "Executed with PyTorch
  2.14.1 on CPU, <date> · GPU: verified <date> | not yet verified", linking the status
  page. From reference/status.json (the last ``make test``) and the newest
  reference/gpu-verify-*.log.
- ``{book-status}``: the status page's body. Every notebook of _toc.yml with its cells,
  both passes' results and times, the versions and machine, the last
  ``make test-compat`` (reference/compat.json) and the GPU verification, or "never run
  on a GPU".
- ``{lab-table}``: the landing page's table of labs. Its body is YAML, one entry per lab
  (what it provokes, the kind of ice, what you fix); the part comes from _toc.yml, the
  exercises and points from the lab's nbgrader metadata, the learner-time estimate from
  the lab itself (ice_teach/exercises.py, ``learner_time``), the execution minutes from the
  status data.
  A lab of _toc.yml without an entry (or an entry for no lab) is a build warning.
- ``{notebook-figure}``: a figure a notebook cell made, taken from the cell's executed
  output (its ``id``), with the alt text of the cell's ``mystnb.image.alt``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from ice_teach import editions, exercises, notebooks, status

ROOT = Path(__file__).resolve().parents[1]

logger = logging.getLogger(__name__)

STATUS_PAGE = "book/status"
ICE_KINDS = ("numeric", "memory", "state")
STAMPED = ("book/", "labs/")


# --------------------------------------------------------------------------- the data
def _notebook_pages() -> list[str]:
    """The notebooks of _toc.yml, as docnames, in its order."""
    return [
        page
        for page in notebooks.toc_files()
        if page.startswith(STAMPED) and (ROOT / f"{page}.ipynb").exists()
    ]


def _data(env: Any) -> dict[str, Any]:
    """The status data, GPU verification and compat results, read once per build (kept
    on the application, not on the environment Sphinx saves between builds)."""
    app = env.app
    cached = getattr(app, "_ice_status", None)
    if cached is None:
        cached = {
            "status": status.load(),
            "gpu": status.gpu_verification(),
            "compat": status.compat(),
            **{name: status.record(name) for name in status.RECORDS},
        }
        app._ice_status = cached
    return cached


def _note_data_dependencies(env: Any) -> None:
    for path in (status.STATUS_FILE, status.COMPAT_FILE, *status.RECORDS.values()):
        env.note_dependency(str(path))
    for log in (ROOT / "reference").glob(status.GPU_LOG_GLOB):
        env.note_dependency(str(log))


def _title(page: str) -> str:
    """The first heading of a notebook (what the sidebar shows)."""
    nb = notebooks.read(f"{page}.ipynb")
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return page


def _minutes(seconds: float) -> str:
    if seconds < 60:
        return "under 1"
    return f"{seconds / 60:.0f}"


def _pass_text(run: dict[str, Any] | None) -> str:
    if run is None:
        return "not run"
    return f"{run['result']}, {run['seconds']:.0f} s"


# --------------------------------------------------------------------------- the stamp
def stamp_text(page: str, data: dict[str, Any]) -> tuple[str, str]:
    """(what this notebook was executed with, its GPU state), as the stamp says them."""
    entry = data["status"]["notebooks"].get(f"{page}.ipynb")
    first = (entry or {}).get("passes", {}).get("1")
    if first is None:
        executed = "Not yet tested by make test"
    else:
        executed = (
            f"Executed with PyTorch {first['torch']} on {first['device']}, "
            f"{first['date']}"
        )
        if status.notebook_hash(ROOT / f"{page}.ipynb") != first["sha256"]:
            executed += " (changed since, not yet tested again)"
        elif status.result(entry) == "failed":
            executed += " (its last test failed)"
    gpu = data["gpu"]
    if gpu and f"{page}.ipynb" in gpu["notebooks_passed"]:
        on_gpu = f"GPU: verified {gpu['date']}"
    else:
        on_gpu = "GPU: not yet verified"
    return executed, on_gpu


class NoteStatusData(SphinxTransform):
    """A page built from the status data is rebuilt when the data changes."""

    default_priority = 900

    def apply(self, **kwargs: Any) -> None:
        docname = self.env.docname
        if docname.startswith(STAMPED) or docname in ("book/intro", STATUS_PAGE):
            _note_data_dependencies(self.env)


class StampPages(SphinxPostTransform):
    """The stamp under the title of every executed chapter and lab. Runs after
    book_site's LabelHiddenCells (150), so it sits above the setup cell moved there."""

    default_priority = 160
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        docname = self.env.docname
        if not docname.startswith(STAMPED) or not (ROOT / f"{docname}.ipynb").exists():
            return
        section = next(iter(self.document.findall(nodes.section)), None)
        if section is None:
            return
        title_at = next(
            (i for i, c in enumerate(section.children) if isinstance(c, nodes.title)),
            -1,
        )
        executed, on_gpu = stamp_text(docname, _data(self.env))
        uri = self.app.builder.get_relative_uri(docname, STATUS_PAGE)
        paragraph = nodes.paragraph(classes=["ice-stamp"])
        paragraph += nodes.Text(f"{executed} · {on_gpu} · ")
        paragraph += nodes.reference(
            "", "Status of every page", refuri=uri, internal=True
        )
        section.insert(title_at + 1, paragraph)


# --------------------------------------------------------------------------- directives
class _MarkdownDirective(SphinxDirective):
    def parse(self, markdown: str, parent: nodes.Element) -> nodes.Element:
        self.state.nested_parse(StringList(markdown.splitlines()), 0, parent)
        return parent

    def cell(self, markdown: str, label: str = "") -> nodes.entry:
        entry = nodes.entry()
        self.parse(markdown, entry)
        if label and entry.children and isinstance(entry[0], nodes.paragraph):
            # Shown only where the table is stacked (a phone), in place of the header.
            entry[0].insert(0, nodes.inline("", f"{label}: ", classes=["ice-label"]))
        return entry


def _table(
    headers: list[str], rows: list[list[nodes.entry]], classes: list[str]
) -> nodes.table:
    table = nodes.table(classes=classes)
    group = nodes.tgroup(cols=len(headers))
    table += group
    for _ in headers:
        group += nodes.colspec(colwidth=1)
    head = nodes.thead()
    row = nodes.row()
    for header in headers:
        row += nodes.entry("", nodes.paragraph(text=header))
    head += row
    group += head
    body = nodes.tbody()
    for cells in rows:
        row = nodes.row()
        for cell in cells:
            row += cell
        body += row
    group += body
    return table


#: What the landing table says of its learner-time column (ice_teach/exercises.py, learner_time).
LEARNER_NOTE = (
    f"Learner time is an estimate of a first-time learner's time, reading and exercises: "
    f"the lab's prose at {exercises.WORDS_PER_MINUTE} words a minute, its code at "
    f"{exercises.CODE_LINES_PER_MINUTE} lines a minute, "
    f"{exercises.MINUTES_PER_EXERCISE} minutes per exercise and "
    f"{exercises.MINUTES_PER_OPEN_EXERCISE} per open one (each lab's header says its own)."
)


class LabTable(_MarkdownDirective):
    """The labs of _toc.yml: part, failure, ice, fix, exercises/points, minutes."""

    has_content = True

    def lab_cell(self, lab: str, part: str) -> nodes.entry:
        """The lab's title, linked, with its part under it."""
        entry = self.cell(f"{{doc}}`{_title(lab)} </{lab}>`")
        entry += nodes.paragraph("", f"Part: {part}", classes=["ice-part"])
        return entry

    def run(self) -> list[nodes.Node]:
        _note_data_dependencies(self.env)
        described = yaml.safe_load("\n".join(self.content)) or {}
        parts = dict(notebooks.toc_entries())
        labs = [p for p in _notebook_pages() if p.startswith("labs/")]
        for extra in sorted(set(described) - set(labs)):
            logger.warning(
                f"lab-table: {extra!r} is not a lab of _toc.yml",
                location=self.get_location(),
            )
        data = _data(self.env)["status"]
        headers = [
            "Lab and part",
            "The failure it provokes",
            "Ice",
            "What you learn to find",
            "Exercises",
            "Learner time (estimate)",
            "Execution on CPU",
        ]
        rows = []
        for lab in labs:
            about = described.get(lab)
            if not about:
                logger.warning(
                    f"lab-table: {lab} is in _toc.yml but has no entry here: add "
                    "what it provokes, its kind of ice and what you fix",
                    location=self.get_location(),
                )
                continue
            kinds = [k.strip() for k in str(about.get("ice", "")).split(",")]
            if not kinds or any(k not in ICE_KINDS for k in kinds):
                logger.warning(
                    f"lab-table: {lab}: ice must be among {ICE_KINDS}, "
                    f"got {about.get('ice')!r}",
                    location=self.get_location(),
                )
            nb = notebooks.read(f"{lab}.ipynb")
            visible, hidden = exercises.lab_points(nb)
            entry = data["notebooks"].get(f"{lab}.ipynb", {})
            first = entry.get("passes", {}).get("1")
            minutes = _minutes(first["seconds"]) if first else "not measured"
            learner = exercises.learner_time(nb).minutes
            rows.append(
                [
                    self.lab_cell(lab, parts.get(lab, "")),
                    self.cell(str(about.get("provokes", "")), "Provokes"),
                    self.cell(", ".join(kinds), "Ice"),
                    self.cell(str(about.get("fix", "")), "You learn to find"),
                    self.cell(
                        f"{exercises.count_exercises(nb)} · "
                        f"{visible + hidden:g} points",
                        "Exercises",
                    ),
                    self.cell(f"about {learner} min", "Learner time (estimate)"),
                    self.cell(f"{minutes} min" if first else minutes, "Execution on CPU"),
                ]
            )
        container = nodes.container(classes=["ice-labs"])
        container += _table(headers, rows, ["ice-labs-table"])
        runs = data["passes"].get("1")
        if runs:
            where = runs["machine"]
            note = (
                f"{LEARNER_NOTE} Execution on CPU: the time all of a lab's cells took "
                f"to run, no learner involved, in the last `make test` "
                f"(pass 1, {runs['date']}, PyTorch {runs['versions']['torch']} on "
                f"{where['cores']} cores of an {where['cpu']}). The "
                f"{{doc}}`status page </{STATUS_PAGE}>` has every page's figures."
            )
        else:
            note = f"{LEARNER_NOTE} Execution on CPU: not measured yet (no `make test`)."
        self.parse(note, container)
        return [container]


class BookStatus(_MarkdownDirective):
    """The status page: every notebook, the versions, compat and GPU verification."""

    def run(self) -> list[nodes.Node]:
        _note_data_dependencies(self.env)
        markdown = status_markdown(_data(self.env))
        return self.parse(markdown, nodes.container()).children


def status_markdown(data: dict[str, Any]) -> str:
    """The status page's body, as MyST Markdown, from the data of ``_data``."""
    lines = _summary(data) + _notebooks(data) + _versions(data)
    return "\n".join(lines + _compat(data) + _colab(data) + _start_methods(data)
                     + _python_support(data) + _gpu(data))


def _summary(data: dict[str, Any]) -> list[str]:
    pages = _notebook_pages()
    found = data["status"]
    stale = status.changed(found, [f"{p}.ipynb" for p in pages])
    passed = sum(
        1
        for p in pages
        if status.result(found["notebooks"].get(f"{p}.ipynb", {"passes": {}}))
        == "passed"
    )
    dates = (
        ", ".join(
            f"pass {p} on {found['passes'][p]['date']}"
            for p in status.PASSES
            if p in found["passes"]
        )
        or "never"
    )
    if not found["passes"]:
        return ["No `make test` has been recorded yet.", ""]
    lines = [
        f"**{passed} of {len(pages)} notebooks passed both passes** of the last "
        f"`make test` ({dates}).",
        "",
    ]
    if stale:
        lines += [
            f"{len(stale)} changed since they were last tested (marked below); "
            "their results are those of the earlier version.",
            "",
        ]
    return lines


def _notebooks(data: dict[str, Any]) -> list[str]:
    parts = dict(notebooks.toc_entries())
    found = data["status"]
    stale = status.changed(found, [f"{p}.ipynb" for p in _notebook_pages()])
    lines = [
        "## Every chapter and lab",
        "",
        "Cells: all cells (code cells). Each pass: the result and the seconds its "
        "cells took, kernel start included.",
        "",
        "| Page | Part | Cells | Pass 1 | Pass 2 |",
        "|---|---|---|---|---|",
    ]
    for page in _notebook_pages():
        entry = found["notebooks"].get(f"{page}.ipynb", {"passes": {}})
        cells = f"{entry['cells']} ({entry['code_cells']})" if "cells" in entry else "?"
        passes = [_pass_text(entry["passes"].get(p)) for p in status.PASSES]
        note = f" *({stale[page + '.ipynb']})*" if f"{page}.ipynb" in stale else ""
        lines.append(
            f"| {{doc}}`/{page}`{note} | {parts.get(page, '')} | {cells} | "
            f"{passes[0]} | {passes[1]} |"
        )
    return lines + [""]


def _versions(data: dict[str, Any]) -> list[str]:
    runs = data["status"]["passes"]
    lines = ["## Versions and machine", ""]
    if not runs:
        return lines + ["No `make test` has been recorded yet.", ""]
    ids = [p for p in status.PASSES if p in runs]
    lines += [
        "| | " + " | ".join(f"Pass {p}" for p in ids) + " |",
        "|---|" + "---|" * len(ids),
    ]
    names = list(runs[ids[0]].get("versions", {}))
    for name in names:
        values = [runs[p].get("versions", {}).get(name, "?") for p in ids]
        lines.append(f"| {name} | " + " | ".join(values) + " |")
    rows = {
        "device": lambda r: r.get("device", "?"),
        "CPU": lambda r: f"{r['machine']['cpu']}, {r['machine']['cores']} cores",
        "OS": lambda r: r["machine"]["os"],
        "kernels": lambda r: r["label"],
        "date": lambda r: r["date"],
    }
    for name, get in rows.items():
        lines.append(f"| {name} | " + " | ".join(get(runs[p]) for p in ids) + " |")
    unit = runs.get("1", {}).get("unit_tests")
    lines.append("")
    if unit:
        lines += [
            "Tests outside the notebooks that ran in the same pytest run as pass 1: "
            f"{unit.get('passed', 0)} passed, "
            f"{unit.get('failed', 0)} failed, {unit.get('skipped', 0)} skipped.",
            "",
        ]
    return lines


def _run_section(title: str, target: str, found: dict[str, Any] | None,
                 intro: str, columns: list[str], rows: list[list[str]]) -> list[str]:
    """The status page's section for one `make` run: its table, or "Not run"."""
    lines = [f"## {title} (`make {target}`)", ""]
    if not found:
        return lines + [f"Not run: no result of `make {target}` is committed.", ""]
    table = [columns, ["---"] * len(columns), *rows]
    return lines + [intro, "", *("| " + " | ".join(row) + " |" for row in table), ""]


def _failures(failures: list[str], columns: int) -> list[list[str]]:
    """A row per failure, under the row it belongs to: the failure in the last column."""
    return [[""] * (columns - 1) + [f"failed: {failure}"] for failure in failures]


def _compat(data: dict[str, Any]) -> list[str]:
    found = data["compat"]
    rows: list[list[str]] = []
    for row in (found or {}).get("versions", []):
        rows.append([row.get("torch", "?"), row.get("unit_tests", "?"),
                     row.get("notebooks", "?")])
        rows += _failures(row.get("failed", []), 3)
    return _run_section(
        "Other PyTorch versions", "test-compat", found,
        f"Last run {found['date']}: unit tests and every notebook executed (outputs "
        "not compared), per version." if found else "",
        ["PyTorch", "Unit tests", "Notebooks that ran"], rows)


def _colab(data: dict[str, Any]) -> list[str]:
    found = data.get("colab")
    rows: list[list[str]] = []
    for row in (found or {}).get("runtimes", []):
        versions = row.get("versions", {})
        changed: list[str] = []
        for found_changes in (row.get("setup_cell_changes"), row.get("export_cells_changed")):
            if isinstance(found_changes, list):
                changed += found_changes
            elif found_changes and found_changes != "none":
                changed.append(str(found_changes))
        rows.append([
            row["runtime"], row.get("colab_python", "?"),
            f"{versions.get('torch')}, {versions.get('ipython')}, "
            f"{versions.get('ipywidgets')}",
            "; ".join(changed) or "none",
            row.get("notebooks", "?").removeprefix("notebooks: "),
        ])
        rows += _failures(row.get("failed", []), 5)
    return _run_section(
        "Colab's runtimes", "test-colab", found,
        f"Last run {found['date']}: `ice_lab` installed into each runtime's package list "
        "as the setup cell does it, then every chapter, lab and solved student edition "
        "executed alone in an empty folder, in a venv holding that runtime's versions "
        "(Python 3.11 here; outputs not compared)." if found else "",
        ["Colab runtime", "Its Python", "torch, IPython, ipywidgets",
         "Preinstalled packages changed", "Notebooks that ran"], rows)


def _start_methods(data: dict[str, Any]) -> list[str]:
    found = data.get("start_methods")
    rows: list[list[str]] = []
    for row in (found or {}).get("passes", []):
        rows.append([row["method"], row["notebooks"]])
        rows += _failures(row.get("failures", []), 2)
    return _run_section(
        "Start methods: macOS, Windows, Python 3.14", "test-start-methods", found,
        f"Last run {found['date']} (Python {found['python']}, torch {found['torch']}): the "
        f"{len(found['notebooks'])} notebooks that start workers or child processes, and "
        "the solved student editions of those labs, executed with DataLoader workers and "
        "child processes started by `spawn` only (as on Windows; macOS starts them by "
        "`spawn` too) and by `forkserver` (Linux from Python 3.14)." if found else "",
        ["Start method", "Notebooks that ran"], rows)


def _python_support(data: dict[str, Any]) -> list[str]:
    found = data.get("python_support")
    rows = []
    for row in (found or {}).get("rows", []):
        v = row.get("versions", {})
        rows.append([
            row["python"], row["system"],
            "yes" if row["resolves"] else "no: " + " ".join(row.get("why", [])),
            v.get("torch", ""), v.get("numpy", ""), v.get("onnxruntime", ""),
        ])
    return _run_section(
        "Other Pythons and systems", "test-python-support", found,
        f"Last run {found['date']}: every package a learner installs, resolved from "
        "binary wheels only for each Python and system (nothing executed there; the "
        f"notebooks were executed on Python {found['executed_here']} only)."
        if found else "",
        ["Python", "System", "Resolves", "torch", "numpy", "onnxruntime"], rows)


def _gpu(data: dict[str, Any]) -> list[str]:
    lines = ["## On a GPU (`tools/gpu_verify.py`)", ""]
    found = data["gpu"]
    if not found:
        return lines + [
            "**Never run on a GPU.** The committed outputs come from a CPU; the CUDA "
            "branches of the notebooks and the GPU-only checks have not been executed. "
            "Chapters quote CUDA's behaviour from `reference/gpu-probe-h200.log`.",
            "",
        ]
    return lines + [
        f"Last run {found['date']} on {found['gpu']} with PyTorch {found['torch']}: "
        f"{found['summary']}. Notebooks executed on the GPU without an error: "
        f"{len(found['notebooks_passed'])}.",
        "",
    ]


class NotebookFigure(SphinxDirective):
    """A figure from a notebook cell's executed output: ``{notebook-figure} path``,
    ``:cell: <cell id>``; the content is the caption."""

    required_arguments = 1
    has_content = True
    option_spec = {"cell": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        relative, path = self.env.relfn2path(self.arguments[0], self.env.docname)
        self.env.note_dependency(relative)
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
        cell = next(
            (c for c in nb["cells"] if c.get("id") == self.options["cell"]), None
        )
        if cell is None:
            logger.warning(
                f"notebook-figure: no cell with id {self.options['cell']!r} in "
                f"{self.arguments[0]}",
                location=self.get_location(),
            )
            return []
        png = next(
            (
                o["data"]["image/png"]
                for o in cell.get("outputs", [])
                if "image/png" in o.get("data", {})
            ),
            None,
        )
        alt = cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("alt")
        if png is None or not alt:
            logger.warning(
                f"notebook-figure: cell {self.options['cell']!r} has no PNG output "
                "or no mystnb.image.alt: execute the notebook (make execute NB=...)",
                location=self.get_location(),
            )
            return []
        data = png if isinstance(png, str) else "".join(png)
        figure = nodes.figure(classes=["ice-figure"])
        figure += nodes.image(
            uri="data:image/png;base64," + data.replace("\n", ""), alt=alt
        )
        if self.content:
            caption = nodes.caption()
            self.state.nested_parse(self.content, self.content_offset, caption)
            if caption.children and isinstance(caption[0], nodes.paragraph):
                caption.children = caption[0].children
            figure += caption
        return [figure]


def colab_role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Any,
    options: dict[str, Any] | None = None,
    content: list[str] | None = None,
) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    """``{colab}`text <path>```: a link opening a notebook of the repository in Colab,
    built from _config.yml's repository like the lab headers' buttons."""
    match = re.fullmatch(r"\s*(.*?)\s*<([^<>]+)>\s*", text, re.S)
    label, path = (match.group(1), match.group(2)) if match else (text, text)
    if not (ROOT / path).exists():
        message = inliner.reporter.warning(
            f"colab: {path} is not a file of the repository", line=lineno
        )
        return [nodes.literal(rawtext, text)], [message]
    link = nodes.reference(rawtext, label or path, refuri=editions.colab_url(path))
    return [link], []


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_role("colab", colab_role)
    app.add_transform(NoteStatusData)
    app.add_post_transform(StampPages)
    app.add_directive("lab-table", LabTable)
    app.add_directive("book-status", BookStatus)
    app.add_directive("notebook-figure", NotebookFigure)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
