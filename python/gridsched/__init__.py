"""gridsched from Python: the grid-scheduling simulators of five research documents, with
pandas DataFrames in and out and scheduling policies written in Python.

>>> import gridsched
>>> jobs = gridsched.replay("KTH", policy="easy")              # Batsim jobs schema
>>> mine = gridsched.replay("KTH", policy=gridsched.policies.Easy())
>>> r = gridsched.reproduce("fig-3.4")                          # results, summary, claims

Every function runs the code of the ``gridsched`` command of the same name; the columns
and units of its frames are those of the command's CSV. Bad input raises
:class:`GridschedError` (a ``ValueError``) naming the file and line, or the frame's row.
"""

from . import policies
from ._api import (
    JOB_COLUMNS,
    Reproduction,
    coalloc,
    experiments,
    grid,
    hierarchy,
    map,
    price,
    provision,
    read_swf,
    replay,
    reproduce,
    reservations,
)
from ._native import GridschedError, Round

__all__ = [
    "GridschedError", "JOB_COLUMNS", "Reproduction", "Round", "coalloc", "experiments",
    "grid", "hierarchy", "map", "policies", "price", "provision", "read_swf", "replay",
    "reproduce", "reservations",
]
