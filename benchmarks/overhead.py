"""Per-call overhead of ``mcp_contract.call_tool`` against the SDK's own ``Client.call_tool``.

Run it with ``python benchmarks/overhead.py`` (add ``--rounds N`` for a longer run, ``--transport
inprocess`` or ``stdio`` for one of the two). It starts pytest on this file once per transport;
the one test below times, in the same process and interleaved round by round, two ways of calling
the same ``MCPServer``, in process or started as a command (this file with ``--serve``) over stdio:

* ``raw``: ``await client.session.send_request(CallToolRequest(...), CallToolResult)`` in the same
  loop, the request built for each call: the wire and the typed parsing, no validation at all. The floor;
* ``sdk``: ``await client.call_tool(...)`` in a loop inside one task (the SDK validates each
  result against the output schema itself); the loop is entered once per batch;
* ``contract``: ``mcp_contract.call_tool(...)`` from a plain sync test, every result checked;
* ``coverage``: the same through a session that also counts contract coverage
  (``--mcp-contract-coverage``), the end-of-run walk over the batch's answers included;
* ``unread``: ``mcp_contract.call_tool(...)`` through a session whose transport is not tapped, so no
  answer is read strictly by its version's wire model (``wire-invalid``): what that reading costs, over
  stdio (in process there is no message to tap, and the two sides do the same);
* ``plain`` and ``observing``: a session of its own, without and with the run's record of observed
  shapes (what a tool whose output schema names no key answered; a published schema only costs a look).

Over stdio each side has a server process of its own.

Workloads: 1,000 calls of a ``BaseModel`` tool, 100 calls of a ``list[Model]`` tool returning
500 items, and 1,000 calls of a tool with no output schema answering the same model as JSON text.
The ratios printed are contract time / raw time (the floor; target <= 1.05 for one model),
contract time / SDK time (medians over rounds; never above 1) and
coverage time / contract time (what counting coverage adds per call) and contract time / unread time
(what reading each answer strictly adds; target <= 1.10 over stdio) and observing time / plain time
(what inferring each schema-less answer's shape adds). The list's ``/result never empty``
promise is never seen, so every one of its answers is walked (its records promise nothing, so the walk
skips their 500 items).
"""

from __future__ import annotations

import asyncio
import functools
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import mcp_types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server import MCPServer
from pydantic import BaseModel

if TYPE_CHECKING:  # imported before pytest starts, the plugin could not be assertion-rewritten
    from pytest_mcp_contract import McpContract
    from pytest_mcp_contract._contract.coverage import Coverage

server = MCPServer("bench", log_level="WARNING")


class Weather(BaseModel):
    city: str
    temperature: float
    humidity: int


class Station(BaseModel):
    id: int
    name: str
    latitude: float
    longitude: float
    active: bool


STATIONS = [
    Station(id=i, name=f"station {i}", latitude=51.5 + i / 1000, longitude=-0.12, active=i % 3 > 0) for i in range(500)
]


@server.tool()
def get_weather(city: str) -> Weather:
    return Weather(city=city, temperature=21.5, humidity=40)


@server.tool()
def list_stations() -> list[Station]:
    return STATIONS


@server.tool(structured_output=False)
def weather_text(city: str) -> str:
    return Weather(city=city, temperature=21.5, humidity=40).model_dump_json()


WORKLOADS: dict[str, tuple[str, dict[str, Any], int]] = {
    "BaseModel x1000": ("get_weather", {"city": "London"}, 1000),
    "list[Model] of 500 x100": ("list_stations", {}, 100),
    "JSON text, no schema x1000": ("weather_text", {"city": "London"}, 1000),
}


class SdkHost:
    """The SDK client, entered once in a long-lived task; each batch of calls is one job."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.jobs: asyncio.Queue[tuple[Callable[[Client], Coroutine[Any, Any, None]] | None, asyncio.Future[None]]]
        self.jobs = asyncio.Queue()
        self.ready: asyncio.Future[None] = self.loop.create_future()
        self.task = self.loop.create_task(self.main())
        self.loop.run_until_complete(self.ready)

    async def main(self) -> None:
        target: Any = server
        if TRANSPORT == "stdio":
            target = StdioServerParameters(command=sys.executable, args=[__file__, "--serve"])
        async with Client(target, cache=None) as client:
            self.ready.set_result(None)
            while True:
                job, done = await self.jobs.get()
                if job is None:
                    return
                await job(client)
                done.set_result(None)

    def batch(self, name: str, arguments: dict[str, Any], count: int, *, raw: bool = False) -> None:
        async def job(client: Client) -> None:
            if raw:
                for _ in range(count):  # a request per call, as any caller with its own arguments builds one
                    request = mcp_types.CallToolRequest(
                        params=mcp_types.CallToolRequestParams(name=name, arguments=arguments)
                    )
                    await client.session.send_request(request, mcp_types.CallToolResult)
                return
            for _ in range(count):
                await client.call_tool(name, arguments)

        done: asyncio.Future[None] = self.loop.create_future()
        self.jobs.put_nowait((job, done))
        self.loop.run_until_complete(done)

    def close(self) -> None:
        self.jobs.put_nowait((None, self.loop.create_future()))
        self.loop.run_until_complete(self.task)
        self.loop.close()


def contract_batch(contract: McpContract, name: str, arguments: dict[str, Any], count: int) -> None:
    for _ in range(count):
        contract.call_tool(name, arguments)


def covered_batch(contract: McpContract, coverage: Coverage, name: str, arguments: dict[str, Any], count: int) -> None:
    contract_batch(contract, name, arguments, count)
    coverage.settle()  # the walk a run does when each test ends


# Read from the environment: pytest imports this file again as a module, apart from __main__.
ROUNDS = int(os.environ.get("MCP_CONTRACT_BENCH_ROUNDS", "7"))
TRANSPORT = os.environ.get("MCP_CONTRACT_BENCH_TRANSPORT", "inprocess")


def untapped(server: object) -> McpContract:
    """A client whose session reads no answer as it came: its transport's streams are left untapped."""
    from pytest_mcp_contract import McpContract
    from pytest_mcp_contract._client import session as sessions
    from pytest_mcp_contract._sdk.tap import WireTap

    class Untapped(WireTap):
        def tapped(self, transport: Any) -> Any:
            return transport

    setattr(sessions, "WireTap", Untapped)  # noqa: B010 (the session makes its tap by this name)
    try:
        return McpContract(server)
    finally:
        setattr(sessions, "WireTap", WireTap)  # noqa: B010


def test_overhead(mcp_contract: McpContract, mcp_contract_server: object) -> None:
    from pytest_mcp_contract import McpContract
    from pytest_mcp_contract._contract.coverage import Coverage
    from pytest_mcp_contract._contract.shapes import ObservedShapes

    sdk = SdkHost()
    coverage = Coverage()
    counting = McpContract(mcp_contract_server, coverage=coverage)
    unread = untapped(mcp_contract_server)
    plain = McpContract(mcp_contract_server)
    observing = McpContract(mcp_contract_server, shapes=ObservedShapes())
    try:
        for name, arguments, _count in WORKLOADS.values():  # warm up every path
            sdk.batch(name, arguments, 20, raw=True)
            sdk.batch(name, arguments, 20)
            contract_batch(mcp_contract, name, arguments, 20)
            contract_batch(unread, name, arguments, 20)
            covered_batch(counting, coverage, name, arguments, 20)
            contract_batch(plain, name, arguments, 20)
            contract_batch(observing, name, arguments, 20)
        times: dict[tuple[str, str], list[float]] = {}
        for round_index in range(ROUNDS):
            for label, (name, arguments, count) in WORKLOADS.items():
                runners: list[tuple[str, Callable[[], None]]] = [
                    ("raw", functools.partial(sdk.batch, name, arguments, count, raw=True)),
                    ("sdk", functools.partial(sdk.batch, name, arguments, count)),
                    ("contract", functools.partial(contract_batch, mcp_contract, name, arguments, count)),
                    ("unread", functools.partial(contract_batch, unread, name, arguments, count)),
                    ("coverage", functools.partial(covered_batch, counting, coverage, name, arguments, count)),
                    ("plain", functools.partial(contract_batch, plain, name, arguments, count)),
                    ("observing", functools.partial(contract_batch, observing, name, arguments, count)),
                ]
                if round_index % 2:
                    runners.reverse()  # alternate who goes first, so drift hits every side
                for side, run in runners:
                    start = time.perf_counter()
                    run()
                    times.setdefault((label, side), []).append((time.perf_counter() - start) / count)
    finally:
        counting.close()
        unread.close()
        plain.close()
        observing.close()
        sdk.close()
    print(
        f"\n{TRANSPORT}: {'workload':26} {'raw us':>9} {'sdk us':>9} {'contract us':>12} {'vs raw':>7} "
        f"{'vs sdk':>7} {'coverage us':>12} {'vs contract':>12} {'unread us':>10} {'wire read':>10} "
        f"{'observing us':>13} {'vs plain':>9}"
    )
    sides = ("raw", "sdk", "contract", "coverage", "unread", "plain", "observing")
    for label in WORKLOADS:
        floor, base, ours, counted, bare, unshaped, shaped = (
            statistics.median(times[(label, side)]) * 1e6 for side in sides
        )
        print(
            f"{TRANSPORT}: {label:26} {floor:9.1f} {base:9.1f} {ours:12.1f} {ours / floor:7.3f} {ours / base:7.3f} "
            f"{counted:12.1f} {counted / ours:12.3f} {bare:10.1f} {ours / bare:10.3f} {shaped:13.1f} "
            f"{shaped / unshaped:9.3f}"
        )


def _run(transport: str) -> int:
    os.environ["MCP_CONTRACT_BENCH_TRANSPORT"] = transport
    target = f"{__file__}:server" if transport == "inprocess" else f"stdio:{sys.executable} {__file__} --serve"
    return pytest.main(
        [
            __file__,
            "-q",
            "-s",
            "-p",
            "no:cacheprovider",
            "-o",
            "python_files=overhead.py",
            f"--mcp-contract-server={target}",
            # mcp (and so anyio, a pytest plugin) is imported above, before pytest starts
            "-W",
            "ignore::pytest.PytestAssertRewriteWarning",
        ]
    )


if __name__ == "__main__":
    if "--serve" in sys.argv:
        server.run()
        sys.exit()
    if "--rounds" in sys.argv:
        os.environ["MCP_CONTRACT_BENCH_ROUNDS"] = sys.argv[sys.argv.index("--rounds") + 1]
    if "--transport" in sys.argv:
        sys.exit(_run(sys.argv[sys.argv.index("--transport") + 1]))
    # One fresh interpreter per transport: pytest would import this file only once.
    sys.exit(
        max(
            subprocess.run([sys.executable, *sys.argv, "--transport", transport], check=False).returncode
            for transport in ("inprocess", "stdio")
        )
    )
