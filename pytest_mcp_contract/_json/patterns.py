"""Schema patterns, searched within a time budget.

A pattern that backtracks without end on some input (``^(a|aa)+$`` against sixty ``a`` and a
``!``) must end the check with a verdict, not hang the run past every timeout: Python's ``re``
cannot be interrupted. The ``regex`` package reads the same syntax (its version 0 is ``re``'s),
avoids much of the backtracking ``re`` does, and takes a timeout for the rest.
"""

from __future__ import annotations

import functools
from typing import Any, Final

import regex

PATTERN_SECONDS: Final = 1.0
"""The most one search may take; a pattern that needs more is reported, the value left unchecked."""


class PatternTooSlow(Exception):
    """A schema pattern did not finish within :data:`PATTERN_SECONDS`."""

    def __init__(self, pattern: str, text: str) -> None:
        super().__init__(pattern)
        self.pattern = pattern
        self.length = len(text)


@functools.lru_cache(maxsize=2048)
def compiled(pattern: str, flags: int = 0) -> Any:
    """The compiled pattern (cached); raises ``regex.error`` for one it cannot read."""
    return regex.compile(pattern, flags)


def search(pattern: str, text: str) -> bool:
    """``re.search(pattern, text) is not None``, or :class:`PatternTooSlow`."""
    return search_compiled(compiled(pattern), text)


def search_compiled(pattern: Any, text: str) -> bool:
    try:
        return pattern.search(text, timeout=PATTERN_SECONDS) is not None
    except TimeoutError:
        raise PatternTooSlow(pattern.pattern, text) from None


ERRORS: Final = (regex.error,)
"""What :func:`compiled` raises for a pattern it cannot read."""
