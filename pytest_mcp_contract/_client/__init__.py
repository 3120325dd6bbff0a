"""The client: one session under contract, and its sync and async faces.

Importing this package loads no SDK (the settings read ``DEFAULT_TIMEOUT`` at start-up).
"""

from typing import Final

DEFAULT_TIMEOUT: Final = 30.0
"""Seconds a call, or the opening of a session, may take unless the project says otherwise."""
