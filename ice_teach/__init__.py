"""The teacher's and maintainer's tools of Tensor of Ice, one package (``ice-teach``).

Learners never need it: ``ice_lab`` is theirs. This package works on a checkout of the
book (it lives at its root, beside ``book/``, ``labs/`` and ``student/``) and is installed
with it (``pip install -e ".[teach]"``; ``make venv`` does so). One command line:

    ice-teach new labs/lab-foo.ipynb "Lab: Foo"   # python -m ice_teach ... is the same
    ice-teach sync-setup | sync-lab-headers | sync-chapter-headers | execute [NB ...]
    ice-teach student                              # the student editions into student/
    ice-teach grade lab-nan submissions/           # nbgrader, in a sandbox
    ice-teach status [--check]                     # what the status page will say
    ice-teach settings env|nbval                   # the execution environment, nbval options
    ice-teach gpu-verify | compat | colab | start-methods | python-support

Modules:

- ``settings``: the execution environment and the nbval options, the one place the
  Makefile, the tests and the grader read them;
- ``notebooks``: the book's notebooks (list, read, write, the setup cell and kernelspec,
  the _toc.yml walker, bare copies, execution in place or bare);
- ``exercises``: the exercise conventions (``exercise_problems``), points, learner time;
- ``editions``: the lab and chapter headers (Colab button, points, reading time);
- ``solutions``: the one reader and writer of solution and hidden-test regions;
- ``student``: the student editions (nbgrader ``generate_assignment``);
- ``status``: the status data the book's status page reads (``_ext/book_status.py``);
- ``grading``: grading a folder of submissions (``cli``; a ``worker`` process per
  student, started as ``python -m ice_teach.grading.worker``; nbgrader ``preprocessors``
  and the ``guard``; the bubblewrap ``sandbox``; the ``summary``; ``adversarial``
  submissions for the tests);
- ``verify``: the book on other machines and versions (``gpu``, ``compat``, ``colab``,
  ``start_methods``, ``python_support``; ``bare`` executes a checkout's notebooks).
"""
