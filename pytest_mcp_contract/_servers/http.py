"""Servers behind a streamable-HTTP endpoint: ``http://127.0.0.1:8000/mcp``.

Headers come from ini ``mcp_contract_headers``. The SDK's errors for a refused or rejected
request say little ("Server returned an error response"), so the connection remembers the last
HTTP error status it saw and turns it into the next step.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from pytest_mcp_contract._sdk import http as sdk_http
from pytest_mcp_contract._servers.environ import Value, revealed
from pytest_mcp_contract._servers.kinds import ExternalTarget, TargetError, TargetSettings

if TYPE_CHECKING:
    from pathlib import Path

    from mcp.client._transport import TransportStreams

PREFIXES: Final = ("http://", "https://")


class HttpError(TargetError):
    """An HTTP target that cannot be used; the message is written for the user."""


@dataclass
class HttpTarget(ExternalTarget):
    """An MCP endpoint (what the server calls itself is in ``_servers.names``)."""

    spec: str
    headers: dict[str, Value] = field(default_factory=dict)
    """The ini's ``mcp_contract_headers``; values read from ``${VAR}`` are :class:`Secret`."""

    @property
    def name(self) -> str:
        return urlsplit(self.spec).hostname or "http"

    @property
    def label(self) -> str:
        return f"the HTTP endpoint {self.spec!r}"

    @property
    def stable_key(self) -> str:
        """A name from the URL, for a server whose own name changes: ``127.0.0.1-8000-mcp``."""
        parts = urlsplit(self.spec)
        return "-".join(part for part in (parts.hostname, str(parts.port or ""), *parts.path.split("/")) if part)

    def connect(self, stack: AsyncExitStack) -> HttpConnection:
        return HttpConnection(self)


def recognises(spec: str) -> bool:
    """Whether ``spec`` is a URL this module speaks (``_servers.target.KINDS``)."""
    return spec.lower().startswith(PREFIXES)


def load(spec: str, base_dir: Path, settings: TargetSettings) -> HttpTarget:
    """An endpoint target, with the ini's ``headers`` (``_servers.target.KINDS``)."""
    return http_target(spec, dict(settings.headers()))


def http_target(spec: str, headers: dict[str, Value]) -> HttpTarget:
    """Check the URL now, so a typo stops pytest at start-up."""
    parts = urlsplit(spec)
    try:
        parts.port  # noqa: B018 (raises for a port that is not a number)
    except ValueError as error:
        raise HttpError(f"{spec!r} is not a usable URL: {error}.") from None
    if not parts.hostname:
        raise HttpError(f"{spec!r} names no host; write it as http://HOST:PORT/PATH, e.g. http://127.0.0.1:8000/mcp")
    return HttpTarget(spec=spec, headers=headers)


class HttpConnection:
    """One client connection, and the last HTTP error status it met."""

    def __init__(self, target: HttpTarget) -> None:
        self.target = target
        self.status: tuple[int, str] | None = None
        self.errors = 0
        """HTTP error statuses met so far: :meth:`meanwhile` names one met during a call."""

    @asynccontextmanager
    async def transport(self) -> AsyncIterator[TransportStreams]:
        async def remember(response: Any) -> None:
            if response.status_code >= 400:
                self.status = (response.status_code, response.reason_phrase)
                self.errors += 1

        __tracebackhide__ = True  # its locals hold the revealed headers: never shown under -l
        async with sdk_http.streams(self.target.spec, revealed(self.target.headers), remember) as streams:
            yield streams

    async def hint(self, error: BaseException | None) -> str:
        """The next step for a failed connection, from what HTTP said."""
        parts = urlsplit(self.target.spec)
        if self.status is not None:
            code, reason = self.status
            said = f" The endpoint answered HTTP {code} {reason}"
            if code in (401, 403):
                given = ", ".join(self.target.headers)
                return said + (
                    f" to the headers from mcp_contract_headers ({given}): check the credentials they carry."
                    if given
                    else ": give credentials with ini mcp_contract_headers, e.g. Authorization: Bearer ${MCP_TOKEN}"
                )
            if code in (404, 405):
                return said + (
                    f": no MCP endpoint at the path {parts.path or '/'!r}. Check the URL's path "
                    "(an MCPServer serves /mcp by default)."
                )
            return said + "."
        if isinstance(error, sdk_http.http_library().ConnectError):
            return f" Nothing accepts connections at {parts.netloc}: start the server, or fix the URL's host and port."
        if "content type" in str(error).lower():  # the SDK says so in its message only ("Unexpected content type")
            return " The URL does not answer as an MCP endpoint: check that it is the server's MCP URL, not a web page."
        return ""

    # A server behind a URL has no process and no stderr of ours to tell of.
    def ended(self) -> str:
        return ""

    def stderr(self) -> str:
        return ""

    def stderr_position(self) -> int:
        return 0

    def stderr_since(self, position: int) -> tuple[int, str]:
        return position, ""

    def mark(self) -> object:
        return self.errors

    def meanwhile(self, mark: object) -> str:
        """The HTTP error status met since ``mark``: the SDK's own message for it omits the status."""
        if self.status is None or not isinstance(mark, int) or self.errors == mark:
            return ""
        return f" The endpoint answered HTTP {self.status[0]} {self.status[1]}."

    @property
    def label(self) -> str:
        return self.target.label
