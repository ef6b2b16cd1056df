"""The checks of the labs' exercises: one module per lab (``ice_lab.checks.tensors`` for
``labs/lab-tensors.ipynb``), so that a lab's Verify step is one readable call.

A lab imports its module as ``check`` and verifies an exercise with one line::

    from ice_lab.checks import tensors as check
    check.residual(residual, mse)

The call tries the learner's function on cases the lab never showed (other sizes, dtypes,
devices), prints one line that says what was tried (``Check passed: ...``) or fails with
an ``AssertionError`` whose hint names the mistake and where to look (a section of the
chapter, a tool), never the code to write; a second failure of the same kind says more.
Graded copies of a lab call the same functions with ``seed=``: cases only the teacher's
copy holds (``### BEGIN HIDDEN TESTS``). How the shared pieces work: ``_core.py``.
"""
