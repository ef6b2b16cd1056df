"""Catalogue entries taught in the Datasets chapter (``book/datasets``): batching samples and
the DataLoader's worker processes.
"""

from __future__ import annotations

from ..entry import Entry

#: The section that teaches each entry: "book/<page>.ipynb#<heading-anchor>"
#: (one format for every chapter reference; tests/book/test_chapter_refs.py).
COLLATE = "book/datasets.ipynb#collate_fn-batching-sequences-of-different-lengths"
SPAWN = ("book/datasets.ipynb"
         "#1-a-dataset-class-or-a-lambda-defined-in-the-notebook-under-spawn")
GUARD = "book/datasets.ipynb#in-a-script-the-if-__name__--__main__-guard"

ENTRIES = [
    Entry(
        name="datasets.unequal_samples",
        kind="shape_mismatch",
        patterns=[
            r"stack expects? each tensor to be equal size, but got \[(?P<a>[^\]]*)\] at entry (?P<i>\d+) "
            r"and \[(?P<b>[^\]]*)\] at entry (?P<j>\d+)",
            r"each element in list of batch should be of equal size",
        ],
        summary="torch.stack got [{a}] at entry {i} and [{b}] at entry {j}; in a DataLoader this "
        "means the samples of a batch have different shapes",
        fallback="the samples of a batch have different shapes, so the default collate cannot stack them",
        causes=["variable-length samples (sentences, images of different sizes) batched by the default collate",
                "a transform that does not resize every sample to the same shape"],
        fixes=["resize / crop in the transform; pad sequences in a collate_fn "
               "(torch.nn.utils.rnn.pad_sequence)"],
        chapter=COLLATE,
    ),
    Entry(
        name="datasets.pickling",
        kind="dataloader_pickling",
        patterns=[
            r"Can'?t (?:pickle|get) local object '?(?:<(?:function|class) )?(?P<obj>[\w.<>]+)",
            r"Can'?t get attribute '(?P<obj>\w+)' on <module '__main__'",
            r"Can'?t pickle <(?:function|class) '?(?P<obj>[\w.<>]+)",
            r"attribute lookup (?P<obj>[\w.<>]+) on __main__ failed",
            r"cannot pickle '(?P<obj>[\w.]+)' object",
            r"Got pickle error when attempting to start a worker Process",
            r"cannot be pickled'?, '(?P<obj>_\w*DataLoaderIter)'",
        ],
        keywords=[r"(?:un)?pickl\w*.{0,80}(?:lambda|<locals>)"],
        # "can't pickle transforms lamda fucntion on windows"; "无法腌制本地对象" (Can't pickle local object)
        terms=["pickle|pickled|pickling|picklable lambda|lamda|lambdas|locals|local",
               "腌制|酸洗|序列化 本地对象|局部对象|lambda"],
        summary="{obj} cannot be pickled, so it cannot be sent to a DataLoader worker process",
        fallback="an object could not be pickled to be sent to a worker process",
        causes=["with num_workers > 0 on Windows / macOS (and with the 'spawn' start method) the "
                "dataset, transforms and collate_fn are pickled: lambdas and local functions cannot be",
                "a Dataset class defined in a notebook (__main__) cannot be imported by spawned workers",
                "the dataset holds an open file, lock, generator or database connection"],
        fixes=["replace lambdas and nested functions with top-level functions in a .py module",
               "put the Dataset class in a module and import it in the notebook",
               "debug with num_workers=0 first; open files lazily in __getitem__ (per worker)"],
        chapter=SPAWN,
    ),
    # A worker that died has no Python traceback: the cause is outside the dataset's code.
    Entry(
        name="datasets.worker_crash",
        kind="dataloader_worker_crash",
        patterns=[
            r"DataLoader worker \(pids?(?:\(s\))? ?(?P<pids>[\d, ]+|[.\w ]{1,12})\) (?:exited unexpectedly|is killed by "
            r"signal:? ?(?P<signal>[\w ]+))",
            r"DataLoader worker exited unexpectedly",
            r"Unexpected bus error encountered in worker|insufficient shared memory \(shm\)",
        ],
        summary="a DataLoader worker process died{by} without a Python error; the dataset code "
        "never got to raise one",
        fallback="a DataLoader worker process died without a Python error",
        causes=["the machine (or the container) ran out of memory or of shared memory (/dev/shm), "
                "and the system killed the worker",
                "on Windows / macOS, the script starts workers without an "
                "`if __name__ == '__main__':` guard",
                "a crash in native code inside the worker (an image library, a corrupt file)"],
        fixes=["rerun with num_workers=0: the real error, if any, appears in the main process",
               "fewer workers or a smaller batch; in Docker, a larger --shm-size (or --ipc=host)",
               "put the training code under if __name__ == '__main__':"],
        chapter=GUARD,
        specifics=lambda m, c: {"by": f" (killed by signal: {m.group('signal').strip()})"
                                if m.groupdict().get("signal") else ""},
    ),
]
