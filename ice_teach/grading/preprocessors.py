"""nbgrader preprocessors that let `nbgrader autograde` survive what students submit.

ice_teach/grading/worker.py puts them in each grading course's nbgrader configuration, in
place of nbgrader's own `Execute`; nbgrader stays the grader of record (it sanitises the
submission, restores locked cells, executes through these, scores and saves to its
gradebook).

- `SurvivingExecute`: nbgrader's `Execute`, but a dead kernel (`os._exit`, a segfault,
  the out-of-memory killer) or a kernel that ignores the timeout's interrupt no longer
  discards the whole submission. The cell gets an error output (`KernelDied` /
  `CellTimeoutError`), the kernel is restarted, the cells before it are run again in the
  new kernel without the culprit (a check that died takes its exercise's solution cell
  out with it), and grading goes on with the next cell. So that exercise scores 0 and
  the others are graded.
- `KeepStderr`: nbgrader scores a graded cell 0 when anything reached stderr; a warning
  printed while a correct answer runs must not cost its points. Stderr of graded cells
  is kept in the feedback, relabelled as stdout; errors still score 0.
"""

from __future__ import annotations

import copy
import time
from queue import Empty

from jupyter_core.utils import ensure_async, run_sync
from nbclient.exceptions import DeadKernelError
from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import Execute, NbGraderPreprocessor
from traitlets import Integer

KERNEL_DIED = "KernelDied"
TIMEOUT = "CellTimeoutError"


def _error(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=evalue,
                        traceback=[f"{ename}: {evalue}"])


class SurvivingExecute(Execute):
    """nbgrader's Execute that grades on after a kernel death or an unstoppable loop."""

    max_restarts = Integer(
        10, help="Kernel restarts allowed per notebook.").tag(config=True)
    probe_timeout = Integer(
        10, help="Seconds a kernel has to answer after a timeout.").tag(config=True)

    def preprocess(self, nb, resources=None, km=None):  # type: ignore[override]
        self._skip: set[int] = set()  # cells not run again after a restart
        self._restarts = 0
        return super().preprocess(nb, resources, km)

    def preprocess_cell(self, cell, resources, index):  # type: ignore[override]
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            cell.outputs.append(_error(
                KERNEL_DIED,
                "the Python kernel died while this cell ran (os._exit, a crash, out of "
                "memory); this exercise was not graded further",
            ))
            self._recover(index)
            return cell, self.resources
        timed_out = any(o.get("ename") == TIMEOUT for o in cell.get("outputs", []))
        if timed_out:
            self._skip.add(index)
            if not run_sync(self._responsive)():
                cell.outputs.append(_error(
                    TIMEOUT, "the kernel did not stop when interrupted; restarted"))
                self._recover(index)
        return cell, self.resources

    def _culprits(self, index: int) -> set[int]:
        """The cell that broke the kernel and, for a locked cell, its exercise's
        solution."""
        found = {index}
        cell = self.nb.cells[index]
        if utils.is_locked(cell) and not utils.is_solution(cell):
            for j in range(index - 1, -1, -1):
                if utils.is_solution(self.nb.cells[j]):
                    found.add(j)
                    break
        return found

    def _recover(self, index: int) -> None:
        self._restarts += 1
        if self._restarts > self.max_restarts:
            raise RuntimeError(f"the kernel died {self._restarts} times; giving up on "
                               "this notebook")
        self._skip |= self._culprits(index)
        self.log.warning("Kernel lost at cell %d: restarting and replaying cells 0..%d",
                         index, index - 1)
        run_sync(self._restart)()
        for j in range(index):
            old = self.nb.cells[j]
            if j in self._skip or old.cell_type != "code" or not old.source.strip():
                continue
            replay = copy.deepcopy(old)  # graded outputs stay those of the first run
            try:
                super().preprocess_cell(replay, self.resources, j)
            except DeadKernelError:  # a cell that ran before dies now: leave it out too
                self._recover_replay(j)
                return

    def _recover_replay(self, index: int) -> None:
        self._skip.add(index)
        self._recover(index + 1 if index + 1 < len(self.nb.cells) else index)

    async def _restart(self) -> None:
        assert self.km is not None
        if self.kc is not None:
            self.kc.stop_channels()
        await ensure_async(self.km.restart_kernel(now=True))
        await self.async_start_new_kernel_client()

    async def _responsive(self) -> bool:
        """Whether the kernel answers within probe_timeout seconds (loop stopped)."""
        assert self.kc is not None
        msg_id = self.kc.kernel_info()
        deadline = time.monotonic() + self.probe_timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                msg = await ensure_async(self.kc.get_shell_msg(timeout=left))
            except Empty:
                return False
            if msg.get("parent_header", {}).get("msg_id") == msg_id:
                return True
        return False


class KeepStderr(NbGraderPreprocessor):
    """Stderr in a graded cell (a warning) is shown as output, not scored as failed."""

    def preprocess_cell(self, cell, resources, index):  # type: ignore[override]
        if utils.is_grade(cell) and cell.cell_type == "code":
            for output in cell.outputs:
                if output.output_type == "stream" and output.name == "stderr":
                    output.name = "stdout"
        return cell, resources
