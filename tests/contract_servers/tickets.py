"""An MCPServer whose ``report`` tool answers with a result type of an extension's (SEP-2133), not the core's:
``{"resultType": "com.example/ticket", "ticket": ...}``, which a client finishes with the extension's own
request, ``tickets/result``. The tool needs clients that declare ``com.example/tickets``; the client side
of the extension, :class:`ClientTickets`, claims the ticket and resolves it as the SDK's client does.
``python tickets.py`` serves it over stdio; ``python tickets.py wrong`` makes the finished result break
its output schema (a string for ``rows``).
"""

from __future__ import annotations

import sys
from typing import Any, Literal

from mcp.client import ClaimContext, ClientExtension, ResultClaim
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import Context, MCPServer, require_client_extension
from mcp_types import CallToolResult, Request, RequestParams, Result
from pydantic import BaseModel

TICKETS = "com.example/tickets"
TICKET = "com.example/ticket"
WRONG = "wrong" in sys.argv[1:]


class TicketParams(RequestParams):
    ticket: str


class Ticket(Result):
    result_type: Literal["com.example/ticket"] = "com.example/ticket"
    ticket: str


class ServerTickets(Extension):
    """Answers ``report`` with a ticket; ``tickets/result`` hands back the report's result."""

    identifier = TICKETS

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        if params.name == "report":
            require_client_extension(ctx, TICKETS)
            return {"resultType": TICKET, "ticket": "t-1"}
        return await call_next(ctx)

    def methods(self) -> list[MethodBinding]:
        async def result(_ctx: Any, params: TicketParams) -> dict[str, Any]:
            rows: object = "three" if WRONG else 3
            text = '{"rows": "three"}' if WRONG else '{"rows": 3}'
            return {"content": [{"type": "text", "text": text}], "structuredContent": {"rows": rows}}

        return [MethodBinding("tickets/result", TicketParams, result)]


server = MCPServer("tickets", log_level="WARNING", extensions=[ServerTickets()])


class Rows(BaseModel):
    rows: int


@server.tool()
async def report(ctx: Context) -> Rows:
    """Never reached: the extension answers with a ticket first."""
    return Rows(rows=0)


class TicketRequest(Request[TicketParams, Literal["tickets/result"]]):
    method: Literal["tickets/result"] = "tickets/result"
    params: TicketParams


async def _finish(ticket: Ticket, ctx: ClaimContext) -> CallToolResult:
    request = TicketRequest(params=TicketParams(ticket=ticket.ticket))
    finished: CallToolResult = await ctx.session.send_request(request, CallToolResult)
    return finished


class ClientTickets(ClientExtension):
    """The client side: claims the ticket and finishes it with ``tickets/result``."""

    identifier = TICKETS

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type=TICKET, model=Ticket, resolve=_finish)]


if __name__ == "__main__":
    server.run()
