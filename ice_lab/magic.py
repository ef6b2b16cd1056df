"""``%load_ext ice_lab``: a diagnosis under every PyTorch traceback in a notebook.

After ``%load_ext ice_lab`` an exception in a cell shows the usual traceback, unchanged,
followed by a short diagnosis from :func:`ice_lab.explain` (HTML in Jupyter, text in a
terminal) when the error is torch-related. ``%unload_ext ice_lab`` restores the previous
handler. ``KeyboardInterrupt`` and ``SystemExit`` never reach the handler, and if the
handler itself fails, the plain traceback is shown.

Taught in the ice_lab toolkit chapter (``book/toolkit.ipynb``).
"""

from __future__ import annotations

import types
from typing import Any, Optional

from . import explainer  # the module, not its names (one import path per name)

__all__ = ["load_ipython_extension", "unload_ipython_extension", "is_torch_related"]

# The shell's handler before we replaced it, so unload restores exactly that.
_SAVED = "_ice_lab_saved_custom_exc"


def is_torch_related(error: BaseException, diagnosis: explainer.Diagnosis) -> bool:
    """True when the error deserves a diagnosis: a known kind, or raised from torch code.

    Taught in the ice_lab toolkit chapter (book/toolkit.ipynb).
    """
    if diagnosis.kind != "unknown":
        return True
    if type(error).__module__.split(".")[0] == "torch":
        return True
    tb = error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename.replace("\\", "/")
        if "/torch/" in filename:
            return True
        tb = tb.tb_next
    return False


def _show_diagnosis(shell: Any, diagnosis: explainer.Diagnosis) -> None:
    """HTML for front ends that render it, the text form everywhere else."""
    bundle = {"text/plain": "ice_lab diagnosis\n" + str(diagnosis), "text/html": diagnosis._repr_html_()}
    publisher = getattr(shell, "display_pub", None)
    if publisher is not None:
        publisher.publish(data=bundle, metadata={})
    else:  # pragma: no cover - every InteractiveShell has a display publisher
        print(bundle["text/plain"])


def _handler(
    shell: Any,
    etype: type[BaseException],
    value: BaseException,
    tb: Optional[types.TracebackType],
    tb_offset: Optional[int] = None,
) -> None:
    """The custom exception handler: default traceback first, then the diagnosis."""
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
    try:
        diagnosis = explainer.explain(value)
        if is_torch_related(value, diagnosis):
            _show_diagnosis(shell, diagnosis)
    except Exception:
        # The traceback is already on screen; a failing diagnosis must not add noise.
        pass


def load_ipython_extension(ip: Any) -> None:
    """Called by ``%load_ext ice_lab``: add a diagnosis below torch-related tracebacks.

    Only ``Exception`` subclasses are handled, so ``KeyboardInterrupt`` and
    ``SystemExit`` keep IPython's default behaviour. Loading twice is harmless.

    Taught in the ice_lab toolkit chapter (book/toolkit.ipynb).
    """
    if not hasattr(ip, "set_custom_exc"):
        raise TypeError(
            "load_ipython_extension needs an IPython shell (get_ipython()); "
            f"got {type(ip).__name__}. In a notebook, run: %load_ext ice_lab"
        )
    if not hasattr(ip, _SAVED):
        setattr(ip, _SAVED, (ip.custom_exceptions, getattr(ip, "CustomTB", None)))
    ip.set_custom_exc((Exception,), _handler)


def unload_ipython_extension(ip: Any) -> None:
    """Called by ``%unload_ext ice_lab``: restore the exception handling found at load time.

    Taught in the ice_lab toolkit chapter (book/toolkit.ipynb).
    """
    saved = getattr(ip, _SAVED, None)
    if saved is None:
        return
    delattr(ip, _SAVED)
    exceptions, custom_tb = saved
    if exceptions and custom_tb is not None:
        ip.custom_exceptions = exceptions
        ip.CustomTB = custom_tb
    else:
        ip.set_custom_exc((), None)
