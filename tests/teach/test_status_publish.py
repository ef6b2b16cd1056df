"""Publishing: neither `make publish` nor the Pages workflow can run here (no remote, no
GitHub), so what can be checked is checked: the workflow is valid YAML that builds
with `make book` and deploys _build/html on a push to main, and `make publish` pushes
the same folder with ghp-import, which the book extra installs at a pinned version."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
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
    checked = next(i for i, run in enumerate(runs) if "tests/teach/test_status.py" in run)
    upload = uses.index("actions/upload-pages-artifact")
    assert built < checked < upload, "build, check the status data, then upload"
    assert steps[upload]["with"]["path"] == "_build/html"


def test_the_deploy_job_deploys_what_the_build_uploaded():
    deploy = _workflow()["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert deploy["environment"]["name"] == "github-pages"
    uses = [s.get("uses", "").split("@")[0] for s in _steps(deploy)]
    assert uses == ["actions/deploy-pages"]


@pytest.mark.kernel  # runs make
def test_make_publish_pushes_the_built_html_with_ghp_import():
    """What `make -n publish` would run (a dry run: nothing is built or pushed)."""
    if shutil.which("make") is None:
        pytest.skip("no make")
    dry = subprocess.run(["make", "-n", "publish"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, check=True).stdout.splitlines()
    built = [i for i, line in enumerate(dry) if "jupyter-book build" in line]
    ghp = [(i, shlex.split(line)) for i, line in enumerate(dry) if "ghp-import" in line]
    assert built and ghp, f"make publish does not build the book, then run ghp-import:\n{dry}"
    assert built[-1] < ghp[-1][0], "it builds the book first"
    words = ghp[-1][1]
    assert words[-1] == "_build/html" and {"-n", "-p"} <= set(words), words


def test_ghp_import_is_in_the_book_extra_and_pinned():
    tomllib = pytest.importorskip("tomllib")
    from packaging.requirements import Requirement

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"]
    assert "ghp-import" in {Requirement(r).name for r in extras["book"]}
    pins = [Requirement(line) for line in
            (ROOT / "constraints" / "ci.txt").read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
    pinned = [str(r.specifier) for r in pins if r.name == "ghp-import"]
    assert len(pinned) == 1 and pinned[0].startswith("=="), pinned
