"""The client: one session under contract, and its sync and async faces.

Importing this package loads no SDK (the settings read ``DEFAULT_TIMEOUT`` at start-up).
"""

from typing import Final

DEFAULT_TIMEOUT: Final = 30.0
"""Seconds a call, or the opening of a session, may take unless the project says otherwise."""

CALLBACKS: Final = (
    "sampling_callback",
    "sampling_capabilities",
    "elicitation_callback",
    "list_roots_callback",
    "logging_callback",
    "extensions",
)
"""The keys ``pytest_mcp_contract_callbacks`` may return, each the SDK client's keyword of that name, in
the order the docs list them; the installed SDK's client may take fewer (mcp 1.x: no ``extensions``)."""
