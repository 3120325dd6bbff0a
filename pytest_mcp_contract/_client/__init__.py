"""The client: one session under contract, and its sync and async faces.

Importing this package loads no SDK (the settings read ``DEFAULT_TIMEOUT`` at start-up, the plugin
notes each run's exit status here).
"""

from typing import Final, Literal

DEFAULT_TIMEOUT: Final = 30.0
"""Seconds a call, or the opening of a session, may take unless the project says otherwise."""

ToolNames = Literal["spec", "clients"]
"""Which tool names pass (ini ``mcp_contract_tool_names``): SEP-986's (1 to 128 characters of ``A-Z a-z
0-9 _ - .``), or, for ``clients``, only what the model APIs behind clients take too (no dot, at most 64)."""
TOOL_NAMES: Final[tuple[ToolNames, ...]] = ("spec", "clients")

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

# Process state, not a run's: the sync loop (``_client.loop``) reads it when Python exits, after every
# run of the process has ended (pytester runs pytest in process; the last run's status is the exit's).
# It lives here, not in ``_client.loop``, because noting it must not import the SDK (the loop does).
_EXIT_STATUS: list[int] = []


def note_exit_status(status: int) -> None:
    """How the pytest run ended, for an exit that cannot wait for a stuck sync tool (``_client.loop``)."""
    _EXIT_STATUS[:] = [status]


def exit_status() -> int | None:
    """The status :func:`note_exit_status` noted last, if any."""
    return _EXIT_STATUS[0] if _EXIT_STATUS else None
