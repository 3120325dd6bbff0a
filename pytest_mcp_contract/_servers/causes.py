"""Why an in-process tool call failed, from the server's own log: the SDK sends only "Error executing tool X".

One :class:`Causes` per process reads them: a filter on the SDK's logger, which is the process's (the
log record names no server, and the first filter that drops a record hides it from any other). It is
on the logger only while a session to an in-process ``MCPServer`` (or the watch on other clients' calls)
is open, and forgets every cause when the last one closes, so no run sees another's. A call made through
a session is marked with a context variable, which the SDK's handler inherits (in process it runs in
the calling task), so concurrent calls of one tool keep their own causes; the failure then tells the
cause, so the log record goes no further (its traceback would be printed twice more, as captured
stderr and as captured log, mostly the SDK's frames). Calls made any other way are filed under the
tool's name, and logged as usual.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import traceback
from collections.abc import Iterator
from typing import Final

from pytest_mcp_contract._sdk import servers as sdk_servers
from pytest_mcp_contract._sdk.errors import describe_cause
from pytest_mcp_contract._sdk.servers import HighLevelServer

SERVER_LOGGER: Final = sdk_servers.CAUSE_LOGGER

_CALL: contextvars.ContextVar[object | None] = contextvars.ContextVar("mcp_contract_call", default=None)


class Causes(logging.Filter):
    """The crashes one in-process server logged, by the marked call (or the tool's name) they ended."""

    def __init__(self) -> None:
        super().__init__()
        self.causes: dict[object, BaseException] = {}
        self._users = 0

    def filter(self, record: logging.LogRecord) -> bool:
        # The SDK logs `Tool %r raised an unexpected exception` with the tool name as the only arg.
        error = record.exc_info[1] if record.exc_info else None
        if record.levelno < logging.ERROR or error is None or not (isinstance(record.args, tuple) and record.args):
            return True
        call = _CALL.get()
        self.causes[call or str(record.args[0])] = error
        return call is None

    @contextlib.contextmanager
    def kept(self) -> Iterator[Causes]:
        """Keep causes while inside (the first user puts the filter on the SDK's logger, the last takes it off);
        drops mcp 1.x's INFO line for each request too, which its FastMCP printed twice (``_sdk.servers``)."""
        logger = logging.getLogger(SERVER_LOGGER)
        if self._users == 0:
            logger.addFilter(self)
            sdk_servers.quiet_request_log()
        self._users += 1
        try:
            yield self
        finally:
            self._users -= 1
            if self._users == 0:
                logger.removeFilter(self)
                self.causes.clear()

    def take(self, key: object) -> tuple[str | None, bool]:
        """The cause recorded for a marked call (or, given a name, the tool's last one), and whether the SDK
        raised it refusing the tool's return value (checking it against the output model, in
        ``convert_result``) rather than the tool itself crashing."""
        if not sdk_servers.LOGS_CAUSES:
            return None, False
        error = self.causes.pop(key, None)
        if error is not None:
            return describe_cause(error), _refused_return(error)
        if not logging.getLogger(SERVER_LOGGER).isEnabledFor(logging.ERROR):
            return (
                "not recorded: the log level hides the SDK's error log, where the cause is written "
                "(create the MCPServer with log_level='ERROR' or lower to see it here)"
            ), False
        return None, False


_RECORDER: Final = Causes()


def causes_of(server: object) -> Causes | None:
    """The recorder of ``server``'s crashes, if it is an in-process ``MCPServer`` (under mcp 1.x, whose
    crashes are told on the wire, it takes nothing, but keeps its request log quiet all the same)."""
    if not isinstance(server, HighLevelServer):
        return None
    return _RECORDER


@contextlib.contextmanager
def marked_call() -> Iterator[object]:
    """Mark the calls made inside (in this task) so their causes are kept apart from others'."""
    key = object()
    token = _CALL.set(key)
    try:
        yield key
    finally:
        _CALL.reset(token)


def marked() -> bool:
    """Whether the running task is inside :func:`marked_call`: a call of the plugin's own sessions."""
    return _CALL.get() is not None


def take_cause(server: object, key: object) -> str | None:
    """What ``server`` logged for a marked call (``key``), or for the last call of a tool (its name)."""
    causes = causes_of(server)
    return None if causes is None else causes.take(key)[0]


def _refused_return(error: BaseException) -> bool:
    """Only the output model's validation failing is a refusal: anything else raised while the SDK
    converts the value (an ``Image`` whose file is missing) is a crash like any other."""
    from pydantic import ValidationError

    inner = error.__cause__ or error
    if not isinstance(inner, ValidationError):
        return False
    # walk_tb, not extract_tb: no source lines read, on every crash in process.
    return any(frame.f_code.co_name == "convert_result" for frame, _line in traceback.walk_tb(inner.__traceback__))
