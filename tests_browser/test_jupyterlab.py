"""One lab as a learner runs it: in a real JupyterLab, started here on 127.0.0.1.

The lab is copied to a temporary folder (running and saving it there leaves the
repository untouched), opened in Chromium, checked for being marked modified before any
edit, run with Run > Run All Cells, and saved; the saved copy is then read back:
no error output, and a progress bar where the lab runs a long loop.
"""

from __future__ import annotations

import datetime
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import DESKTOP, ROOT

# Under pytest-xdist (--dist loadgroup) these tests are meant to share one worker, so one
# JupyterLab. With pytest 9.2 and pytest-xdist 3.8 the group is ignored (pytest-xdist
# issue 1386): each worker that gets one of them starts its own JupyterLab, on a free
# port, which costs a few seconds and nothing else.
pytestmark = pytest.mark.xdist_group("jupyterlab")

# A lab with a training loop that runs over 2 s (lab-training, the validation cell:
# 2.8 s in the committed run), so a learner should see it progress.
LAB = "labs/lab-training.ipynb"
STARTUP_S = 90
RUN_ALL_S = 300

# Settings a fresh JupyterLab would otherwise ask about in a pop-up; cell timing on, so
# the saved copy says how long each cell ran.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "recordTiming": True
    },
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _api(base: str, token: str, path: str) -> Any:
    request = urllib.request.Request(
        f"{base}{path}", headers={"Authorization": f"token {token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    home = tmp_path_factory.mktemp("jupyterlab")
    notebooks = home / "notebooks"
    notebooks.mkdir()
    shutil.copy(ROOT / LAB, notebooks / Path(LAB).name)
    for name, values in LAB_SETTINGS.items():
        path = home / "settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")
    # The Makefile sets TQDM_DISABLE=1 for stable executed outputs; a learner's
    # JupyterLab has no such setting, so this one does not either.
    env = {k: v for k, v in os.environ.items() if k != "TQDM_DISABLE"}
    env.update(
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
    )
    port, token = _free_port(), secrets.token_hex(16)
    log = (home / "jupyterlab.log").open("w")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--allow-root",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={notebooks}",
        ],
        cwd=notebooks,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            try:
                _api(base, token, "/api/status")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(
                        "JupyterLab did not start:\n"
                        + (home / "jupyterlab.log").read_text()[-3000:]
                    )
                time.sleep(0.5)
        yield {"base": base, "token": token, "notebooks": notebooks}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


def _kernel_states(lab: dict[str, Any]) -> list[str]:
    sessions = _api(lab["base"], lab["token"], "/api/sessions")
    return [s["kernel"]["execution_state"] for s in sessions]


@pytest.fixture(scope="module")
def ran(jupyterlab: dict[str, Any], browser: Any, screenshots: Path) -> dict[str, Any]:
    """Open the lab, note whether it shows as modified, run all cells, save."""
    lab = jupyterlab
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(lab["base"])
            else route.abort()
        ),
    )
    name = Path(LAB).name
    result: dict[str, Any] = {}
    try:
        page.goto(f"{lab['base']}/lab/tree/{name}?token={lab['token']}")
        page.locator(".jp-Notebook").wait_for(timeout=STARTUP_S * 1000)
        page.get_by_text("| Idle").wait_for(timeout=STARTUP_S * 1000)
        # Anything JupyterLab changes on open, it has changed by now.
        page.wait_for_timeout(2000)
        result["modified_on_open"] = (
            page.locator(".lm-TabBar-tab.jp-mod-dirty").count() > 0
        )

        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        page.wait_for_timeout(1000)
        deadline = time.monotonic() + RUN_ALL_S
        while True:
            running = page.evaluate(
                "() => [...document.querySelectorAll('.jp-InputPrompt')]"
                ".filter(e => e.innerText.includes('*')).length"
            )
            if not running and _kernel_states(lab) == ["idle"]:
                break
            if time.monotonic() > deadline:
                pytest.fail(f"Run All did not finish within {RUN_ALL_S} s")
            page.wait_for_timeout(500)
        # ipywidgets 8 draws a tqdm bar as .widget-hprogress (7 called it .widget-progress)
        result["bars_on_page"] = page.locator(
            ".jp-OutputArea-output :is(.widget-hprogress, .widget-progress)"
        ).count()
        page.screenshot(path=str(screenshots / "jupyterlab-run-all.png"))
        page.locator(".jp-Notebook").first.click()
        page.keyboard.press("Control+s")
        page.wait_for_timeout(1500)
    finally:
        context.close()
    result["saved"] = json.loads((lab["notebooks"] / name).read_text(encoding="utf-8"))
    return result


def _code_cells(notebook: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in notebook["cells"] if c["cell_type"] == "code"]


def test_lab_runs_without_error_output(ran: dict[str, Any]) -> None:
    cells = _code_cells(ran["saved"])
    assert all(c.get("execution_count") for c in cells), "Run All left cells unrun"
    errors = [
        f"cell {i}: {o.get('ename')}: {o.get('evalue')}"
        for i, c in enumerate(cells)
        for o in c.get("outputs", [])
        if o["output_type"] == "error"
    ]
    assert not errors, "error outputs:\n" + "\n".join(errors)


def _seconds(cell: dict[str, Any]) -> float:
    timing = cell.get("metadata", {}).get("execution", {})
    if "iopub.execute_input" not in timing or "shell.execute_reply" not in timing:
        return 0.0
    start, end = (
        datetime.datetime.fromisoformat(timing[key].replace("Z", "+00:00"))
        for key in ("iopub.execute_input", "shell.execute_reply")
    )
    return (end - start).total_seconds()


def test_lab_shows_a_progress_bar(ran: dict[str, Any]) -> None:
    widget_bars = sum(
        1
        for c in _code_cells(ran["saved"])
        for o in c.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    )
    slowest = max(_code_cells(ran["saved"]), key=_seconds)
    assert ran["bars_on_page"] > 0 and widget_bars > 0, (
        f"no progress bar in {LAB} (slowest cell {_seconds(slowest):.1f} s: "
        f"{''.join(slowest['source']).splitlines()[0]!r})"
    )


def test_lab_not_modified_on_open(ran: dict[str, Any]) -> None:
    assert not ran["modified_on_open"], (
        f"{LAB} shows as modified right after opening; JupyterLab saved "
        f"kernelspec {ran['saved']['metadata'].get('kernelspec')}"
    )
