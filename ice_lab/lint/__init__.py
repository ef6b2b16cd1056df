"""ice_lab.lint: what in this script will freeze? Read before it runs.

``ice-lab lint PATH...`` (or :func:`lint_paths`) reads training scripts, folders and
notebooks' code cells with Python's ``ast``, and prints flake8-style lines,
``path:line:col: ICE1xx message``, each naming what goes wrong and the chapter that
shows it. It imports no torch: nothing runs. The same rules run inside flake8
(``flake8 --select ICE``), beside other plugins. The Debugging chapter lints the
capstone's script with it; the toolkit page shows it at work.

==========  ===========================================================================
``ICE101``  a loss accumulated across iterations without ``.item()``/``.detach()``
``ICE102``  softmax or log_softmax output passed to ``cross_entropy``
``ICE103``  ``backward()``/``step()`` in a loop with no ``zero_grad()``, or one between
``ICE104``  an evaluation loop without ``eval()`` or without ``no_grad()``
``ICE105``  CUDA hard-coded with no availability check; a tensor made in ``forward``
            without ``device=``
``ICE106``  ``torch.load`` without ``weights_only``; ``torch.save`` of a whole module
``ICE107``  an epoch scheduler stepped per batch; ``ReduceLROnPlateau.step()`` with no
            metric
``ICE108``  ``log(softmax(x))``; division by a norm, a standard deviation or a count
``ICE109``  an in-place change to an output autograd saved (after relu, sigmoid, ...)
``ICE110``  a validation or test ``DataLoader`` with ``shuffle=True``
``ICE111``  a Dataset's own generator copied into workers without ``worker_init_fn``;
            an attribute changed while persistent workers hold their copies
``ICE112``  ``nll_loss`` given logits or probabilities; ``log_softmax`` of a softmax
``ICE113``  training resumed after ``eval()`` with no ``train()`` in the loop
``ICE114``  ``torch.save(model.state_dict)`` (uncalled); ``load_state_dict('path')``
``ICE115``  ``zero_grad()`` every micro-batch inside a gradient-accumulation window
==========  ===========================================================================

The rules decide on behaviour, not names: :mod:`ice_lab.lint.flow` follows what each name
holds (a model, an optimizer, a loader, probabilities, logits, an always-CUDA device)
through assignments, parameters, returns and calls within the file or notebook, so a
helper called ``get_loss`` that loops over a loader is an evaluation, and a softmax built
in a factory reaches the ``CrossEntropyLoss`` passed to a training function.
``ice-lab lint --format sarif`` writes the findings as SARIF 2.1.0 for a CI's code view.

Each rule is written once, beside its check: ``@rule("ICE101", "what goes wrong",
"book/<page>.ipynb#<heading-anchor>")`` (:mod:`ice_lab.lint.rulebook`); :data:`RULES` (code -> rule) is
collected from the ``rules_*`` modules, and the CLI, the SARIF log and flake8 read it.
"""

from __future__ import annotations

from ._cells import writefile_cells
from .engine import (RULES, Finding, LintReport, check_tree, lint_file, lint_paths,
                     lint_source, notebook_cells)

__all__ = ["RULES", "Finding", "LintReport", "check_tree", "lint_file", "lint_paths",
           "lint_source", "notebook_cells", "writefile_cells"]
