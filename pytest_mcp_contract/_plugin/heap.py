"""The heap a run's start built, kept out of the garbage collector's way.

The SDK, pydantic, jsonschema and the user's server leave a run with a large heap of objects that
live until the process ends. Every full collection walks all of them again: those that many items
set off as they are made and run, pytest's own at the end (``gc.collect()`` for unraisable
exceptions) and the interpreter's at exit. ``gc.freeze()`` once the server is loaded moves them to
the permanent generation, which no collection walks: with 250 generated tools a run took 2.7 s
instead of 3.7 s (``benchmarks/suite.py``, issue 40). Garbage made later is collected as before.

The heap stays frozen until the process ends: thawing it at the run's end would hand the exit's
collection the whole heap again, which took back most of the gain. So a run freezes only as the
process's own pytest run: not inside another pytest's test (``pytester`` in process, whose host
would keep the frozen heap), not where the garbage collector is off or the heap is frozen already.
"""

from __future__ import annotations

import gc
import os


def freeze() -> None:
    """Once the server is loaded (the start's imports done): freeze what the heap holds now."""
    inside_a_test = "PYTEST_CURRENT_TEST" in os.environ  # set by pytest for the test that runs now
    if gc.isenabled() and gc.get_freeze_count() == 0 and not inside_a_test:
        gc.freeze()
