"""``ice-teach`` (or ``python -m ice_teach``): one command line for the teacher's and
the maintainer's tools. Each subcommand hands its own arguments to the module that does
the work (``ice-teach grade --help`` prints that module's help). Where a library the
command needs is missing (a learner's install, without the ``teach`` extra), it says so
in one line instead of a traceback."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys

NB = "ice_teach.notebooks"

#: subcommand -> (module, what it does, the module's own first argument, if any)
COMMANDS: dict[str, tuple[str, str, str | None]] = {
    "new": (NB, "create a notebook that starts with the setup cell", "new"),
    "sync-setup": (NB, "rewrite every notebook's setup cell and kernelspec",
                   "sync-setup"),
    "sync-lab-headers": (NB, "refresh the header (Colab button, points, learner time) "
                         "of every lab, or of the labs named", "sync-lab-headers"),
    "sync-chapter-headers": (NB, "refresh the reading time of every chapter, or of the "
                             "chapters named", "sync-chapter-headers"),
    "execute": (NB, "execute notebooks in place (all when none is named)", "execute"),
    "bare-copies": (NB, "copy notebooks, each alone in a folder of its own, under a "
                    "folder out of the repository (make test's bare pass)",
                    "bare-copies"),
    "settings": ("ice_teach.settings", "the execution environment or the nbval "
                 "options, for make or a shell (env | nbval)", None),
    "student": ("ice_teach.student",
                "write the student edition of every lab into student/", None),
    "grade": ("ice_teach.grading.cli", "grade a folder of submissions with nbgrader",
              None),
    "status": ("ice_teach.status",
               "what the status page will say (--check: is it current)", None),
    "gpu-verify": ("ice_teach.verify.gpu",
                   "every notebook and the GPU-only checks, on a GPU", None),
    "compat": ("ice_teach.verify.compat", "the book on the oldest and newest torch",
               None),
    "colab": ("ice_teach.verify.colab", "the book in Colab's runtimes", None),
    "start-methods": ("ice_teach.verify.start_methods",
                      "the notebooks with workers under spawn and forkserver", None),
    "python-support": ("ice_teach.verify.python_support",
                       "the learner's packages resolved for other Pythons and systems",
                       None),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="ice-teach", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (_, what, _) in COMMANDS.items():
        sub.add_parser(name, help=what, add_help=False)
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv[:1])
    module, _, first = COMMANDS[args.command]
    try:
        run = importlib.import_module(module).main
        # what the module's usage line shows (notebooks' own parser adds the command's
        # name)
        sys.argv[0] = "ice-teach" if first else f"ice-teach {args.command}"
        return run([first, *argv[1:]] if first else argv[1:]) or 0
    except ModuleNotFoundError as err:
        if not missing_dependency(err):
            raise
        print(needs_extra(args.command, err), file=sys.stderr)
        return 1


def missing_dependency(err: ModuleNotFoundError) -> bool:
    """Whether ``err`` is a library this environment lacks (a learner's install, without
    the ``teach`` extra), not a module of the repository's own packages."""
    top = (err.name or "").partition(".")[0]
    return bool(top) and top not in {"ice_lab", "ice_teach"} and (
        importlib.util.find_spec(top) is None)


def needs_extra(command: str, err: ModuleNotFoundError) -> str:
    """The one line ``ice-teach COMMAND`` prints where a library it needs is missing."""
    top = (err.name or "").partition(".")[0]
    return (f"ice-teach {command}: this Python has no {top!r} module. The "
            "teacher's tools need the teach extra: pip install -e \".[teach]\" in the "
            "clone of the book (make venv installs it with every other extra).")


if __name__ == "__main__":
    raise SystemExit(main())
