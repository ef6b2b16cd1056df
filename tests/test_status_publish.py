"""Publishing: neither `make publish` nor the Pages workflow can run here (no remote, no
GitHub), so what can be checked is checked: the workflow is valid YAML that builds
with `make book` and deploys _build/html on a push to main, and `make publish` pushes
the same folder with ghp-import, which the book extra installs at a pinned version."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"


def _workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _steps(job: dict) -> list[dict]:
    steps = job.get("steps")
    assert isinstance(steps, list) and steps, "a job without steps"
    for step in steps:
        assert step.get("name"), f"a step without a name: {step}"
    return steps


def test_the_workflow_deploys_on_every_push_to_main():
    flow = _workflow()
    # YAML 1.1 reads the key `on` as True.
    trigger = flow.get("on", flow.get(True))
    assert trigger["push"]["branches"] == ["main"], trigger
    assert flow["permissions"]["pages"] == "write"
    assert flow["permissions"]["id-token"] == "write"
    assert set(flow["jobs"]) == {"build", "deploy"}


def test_the_build_job_builds_with_make_book_and_uploads_the_html():
    steps = _steps(_workflow()["jobs"]["build"])
    uses = [s.get("uses", "").split("@")[0] for s in steps]
    runs = [s.get("run", "") for s in steps]
    assert uses[0] == "actions/checkout", "the repository is checked out first"
    assert "actions/setup-python" in uses
    built = next(i for i, run in enumerate(runs) if re.match(r"make book\b", run))
    checked = next(i for i, run in enumerate(runs) if "tests/test_status.py" in run)
    upload = uses.index("actions/upload-pages-artifact")
    assert built < checked < upload, "build, check the status data, then upload"
    assert steps[upload]["with"]["path"] == "_build/html"


def test_the_deploy_job_deploys_what_the_build_uploaded():
    deploy = _workflow()["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert deploy["environment"]["name"] == "github-pages"
    uses = [s.get("uses", "").split("@")[0] for s in _steps(deploy)]
    assert uses == ["actions/deploy-pages"]


def test_make_publish_pushes_the_built_html_with_ghp_import():
    """Read from the Makefile (running make would start a process: not a unit test)."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    rule = re.search(r"^publish:(.*)\n((?:\t.*\n?)+)", makefile, re.M)
    assert rule, "no publish target in the Makefile"
    prerequisites, recipe = rule.group(1).split(), rule.group(2)
    assert {"book", "book-strict"} & set(prerequisites), "it builds the book first"
    ghp = [line.split() for line in recipe.splitlines() if "ghp-import" in line]
    assert ghp, f"make publish does not run ghp-import:\n{recipe}"
    assert ghp[-1][-1] == "_build/html" and {"-n", "-p"} <= set(ghp[-1]), ghp[-1]


def test_ghp_import_is_in_the_book_extra_and_pinned():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    book = re.search(r"^book = \[(.*?)^\]", pyproject, re.S | re.M)
    assert book and '"ghp-import' in book.group(1)
    pins = (ROOT / "constraints" / "ci.txt").read_text(encoding="utf-8").splitlines()
    assert any(re.fullmatch(r"ghp-import==[\d.]+", line) for line in pins)
