"""The SDK's errors: its JSON-RPC error (``MCPError`` in 2.x, ``McpError`` in 1.x), and any error of a session
explained in one line (``explain``), down to the innermost cause and where it was raised (``describe_cause``)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Final

from mcp.shared import exceptions as _exceptions

__all__ = ["RpcError", "describe_cause", "explain"]

# What the SDK's session raises for an error answer; ``.error`` has ``code``, ``message`` and ``data``.
if TYPE_CHECKING:
    from mcp.shared.exceptions import MCPError as RpcError
else:
    RpcError = getattr(_exceptions, "MCPError", None) or _exceptions.McpError


def explain(error: BaseException) -> str:
    """An error of a session, in one line: a JSON-RPC error's code and message, an HTTP error's status, else
    its type and message; with its cause when that says more."""
    from pytest_mcp_contract._sdk.http import http_library

    if isinstance(error, RpcError):
        text = f"JSON-RPC error {error.error.code}: {error.error.message}"
    elif isinstance(error, http_library().HTTPStatusError):
        # mcp 1.x's transport raises httpx's own error for an error status (2.x answers JSON-RPC -32603):
        # its first line says the status; the second is a link to a web page about it.
        text = f"{type(error).__name__}: {str(error).splitlines()[0]}"
    else:
        text = f"{type(error).__name__}: {error}"
    cause = error.__cause__
    # httpx re-raises its transport's error under the same name and message: say it once.
    if cause is not None and (type(cause).__name__, str(cause)) != (type(error).__name__, str(error)):
        text += f" (cause: {describe_cause(cause)})"
    return text


def describe_cause(error: BaseException) -> str:
    """The innermost exception behind the SDK's wrapper: its type, its message and where it was raised."""
    from pydantic import ValidationError

    seen: set[int] = set()
    while error.__cause__ is not None and id(error) not in seen:
        seen.add(id(error))
        error = error.__cause__
    if isinstance(error, ValidationError):
        problems = "; ".join(
            f"{'.'.join(str(part) for part in item['loc']) or '(root)'}: {item['msg']}" for item in error.errors()[:5]
        )
        text = f"ValidationError ({error.title}): {problems}"
    else:
        text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    where = _raised_at(error)
    return f"{text} (raised at {where})" if where else text


_PLUGIN: Final = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
"""This package's folder: its frames (a watch the call passed through) are no server author's code, also
when it is installed from a clone, outside site-packages."""


def _raised_at(error: BaseException) -> str | None:
    """The last frame of the traceback that is the server author's code, not a library's nor the plugin's."""
    last = None
    tb = error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        library = f"{os.sep}site-packages{os.sep}" in filename or "<frozen" in filename
        if not library and not os.path.abspath(filename).startswith(_PLUGIN):
            last = f"{_short_path(filename)}:{tb.tb_lineno} in {tb.tb_frame.f_code.co_name}"
        tb = tb.tb_next
    return last


def _short_path(filename: str) -> str:
    try:
        relative = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if relative.startswith("..") else relative
