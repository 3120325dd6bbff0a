"""JSON-RPC messages as the installed SDK's session takes them, for the plugin's own stdio pipe.

mcp 2.x passes each message as it is (a union of models); mcp 1.x wraps it in a ``JSONRPCMessage``
root model. The pipe reads and writes lines through these few functions only.
"""

from __future__ import annotations

from typing import Any

import mcp.types
from mcp.shared.message import SessionMessage

from pytest_mcp_contract._sdk.release import MAJOR


def read(line: bytes) -> SessionMessage:
    """The message on ``line``; a ``ValueError`` (pydantic's) when it is not one."""
    if MAJOR >= 2:
        return SessionMessage(mcp.types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    return SessionMessage(mcp.types.JSONRPCMessage.model_validate_json(line))  # type: ignore[attr-defined]


def _inner(message: SessionMessage) -> Any:
    return getattr(message.message, "root", message.message)


def request_id(message: SessionMessage) -> Any | None:
    """The id of a request (``None`` for anything else): its answer is awaited."""
    inner = _inner(message)
    return inner.id if isinstance(inner, mcp.types.JSONRPCRequest) else None


def answered_id(message: SessionMessage) -> Any | None:
    """The id a response or error answers (``None`` for anything else)."""
    inner = _inner(message)
    return inner.id if isinstance(inner, mcp.types.JSONRPCResponse | mcp.types.JSONRPCError) else None


def dump(message: SessionMessage) -> str:
    """The line that carries ``message`` (fields the sender left unset stay out)."""
    return _inner(message).model_dump_json(by_alias=True, exclude_unset=True)  # type: ignore[no-any-return]


def error_answer(request: Any, code: int, why: str, data: Any) -> SessionMessage:
    """An error answer to ``request`` (an id), as if the server had sent it."""
    error = mcp.types.ErrorData(code=code, message=why, data=data)
    answer = mcp.types.JSONRPCError(jsonrpc="2.0", id=request, error=error)
    if MAJOR >= 2:
        return SessionMessage(answer)
    wrapped: Any = mcp.types.JSONRPCMessage  # 1.x: a root model around the message
    return SessionMessage(wrapped(answer))
