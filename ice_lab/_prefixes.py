"""What launchers and loggers put before a log line, written once.

torchrun's per-rank prefix (``[rank1]:``; ``[default0]:`` with ``--tee``), an ISO
timestamp (``2024-09-15 22:50:34,519``) and the glog / c10 stamp (``E0915 22:50:34.519000
12345 file.cpp:12] ``). The explainer reads them (``explainer/reading.py`` strips them from
a paste, ``explainer/logs.py`` finds where a record starts and which rank printed it) and
``distributed.py`` shortens the stamps in a job's output to their level letter. Taught in
the Distributed chapter (``book/distributed.ipynb``). Imports nothing but ``re``: the
explainer runs in the browser.
"""

from __future__ import annotations

import re

#: torchrun's per-rank prefix; group 1 is the rank.
RANK = r"\[(?:rank|default)(\d+)\]:"
#: The start of an ISO timestamp: date and hour (``2024-09-15 22:`` or ``[2024-09-15T22:``).
TIMESTAMP_START = r"\[?\d{4}-\d\d-\d\d[T ]\d\d:"
#: A whole ISO timestamp: seconds, optional fraction and zone, optional closing bracket.
TIMESTAMP = TIMESTAMP_START + r"\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?"
#: The start of a glog record: level letter, month and day, hour and minute.
GLOG_START = r"[EWIF]\d{4} \d\d:\d\d"
#: A glog stamp up to its source location: level letter (group 1), month and day, time,
#: thread id.
GLOG_STAMP = r"([EWIF])\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ "

#: A rank prefix anywhere in a line (``.group(1)`` is the rank).
RANK_PREFIX = re.compile(RANK)
#: Where a new log record starts: a timestamp, a glog stamp or a rank prefix.
NEW_RECORD = re.compile(f"{TIMESTAMP_START}|{GLOG_START}|{RANK}")
#: A glog stamp at the start of a line (multi-line text).
GLOG_LINE_STAMP = re.compile("^" + GLOG_STAMP, re.MULTILINE)
