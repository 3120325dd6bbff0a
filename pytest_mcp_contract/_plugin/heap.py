"""The heap a run's start built, kept out of the garbage collector's way.

The SDK, pydantic, jsonschema and the user's server leave a run with a large heap of objects that
live until the process ends. Every full collection walks all of them again: those that many items
set off as they are made and run, pytest's own at the end (``gc.collect()`` for unraisable
exceptions) and the interpreter's at exit. ``gc.freeze()`` once the server is loaded moves them to
the permanent generation, which no collection walks: with 250 generated tools a run took 2.7 s
instead of 3.7 s (``benchmarks/suite.py``, issue 40). Garbage made later is collected as before.

The heap stays frozen until the process ends: thawing it at the run's end would hand the exit's
collection the whole heap again, which took back most of the gain. What was already garbage in a
cycle then is never collected, and the frozen objects are missing from ``gc.get_objects()`` and
``gc.get_referrers()``; ``mcp_contract_freeze_heap = false`` keeps the heap as it is. A run freezes
only when a server is configured, as the process's own pytest run: not inside another pytest's test
(``pytester`` in process, whose host would keep the frozen heap), not with the collector off or a
heap frozen already.
"""

from __future__ import annotations

import gc
import os


def freeze(wanted: bool) -> None:
    """Once the server is loaded (the start's imports done): freeze what the heap holds now, if ``wanted``
    (a server is configured and the ini does not say otherwise)."""
    inside_a_test = "PYTEST_CURRENT_TEST" in os.environ  # set by pytest for the test that runs now
    if wanted and gc.isenabled() and gc.get_freeze_count() == 0 and not inside_a_test:
        gc.freeze()
