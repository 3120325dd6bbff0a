"""Sequences per second and calls per second of ``--mcp-contract-sequences``, beside the raw SDK making
as many calls on a fresh server, in process and over stdio.

Run it with ``python benchmarks/sequences.py`` (``--sequences N``, ``--rounds N``, ``--transport
inprocess`` or ``stdio``). The server is the mended notebook of the plugin's tests
(``tests/contract_servers/notebook.py``: notes in ``$HOME``, seven tools, four of which only read).
Interleaved round by round, per transport:

* ``sdk``: per sequence, a fresh notebook (in process a new ``build()`` with a private ``HOME``; over
  stdio a new process with one), the SDK's ``Client`` opened on it, then as many calls as a sandboxed
  sequence made on average (create, read, list, retitle, in turn), nothing judged: the floor of a
  sandbox, a fresh server and its calls;
* ``sandbox``: the plugin's sequences with ``mcp_contract_sandbox``: N sequences of up to 8 steps, each
  on a fresh server in private folders, every call judged, the reads around each promise included;
* ``shared``: the same without the sandbox, on one session: only the four tools that only read.

Prints, per side, sequences per second and calls per second (medians), and the calls per second of
each side as a share of the SDK's.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from rounds import interleaved  # beside this file, first on the script's path

from pytest_mcp_contract import McpContract
from pytest_mcp_contract._fuzz.sequences import run_sequences
from pytest_mcp_contract._run.settings import Settings
from pytest_mcp_contract._servers.sandbox import environment, fresh
from pytest_mcp_contract._servers.target import load_target

NOTEBOOK = Path(__file__).resolve().parent.parent / "tests" / "contract_servers" / "notebook.py"
SCRIPT = [
    ("create_note", {"title": "a"}),
    ("get_note", {"id": "n1"}),
    ("list_notes", {}),
    ("retitle_note", {"note_id": "n1", "title": "b"}),
    ("stats", {}),
]


def _target(transport: str) -> object:
    spec = f"{NOTEBOOK}:build(fixed=True)" if transport == "inprocess" else f"stdio:{sys.executable} {NOTEBOOK} --fixed"
    return load_target(spec, NOTEBOOK.parent)


def _settings(target: object, sequences: int, *, sandboxed: bool) -> Settings:
    return Settings(
        None, "", target, "session", 30.0, False, sequences=sequences, sandbox=sandboxed, fuzz_seed=1, fuzz_deadline=3e3
    )


def _sequences(target: object, sequences: int, *, sandboxed: bool, counted: list[int]) -> tuple[float, float]:
    settings = _settings(target, sequences, sandboxed=sandboxed)
    making = fresh(target) if sandboxed else None
    assert not isinstance(making, str), making
    with McpContract(target) as client:
        start = time.perf_counter()
        done = run_sequences(client, client.tools, settings, fresh=making, open_client=McpContract)
        elapsed = time.perf_counter() - start
    assert done.failure is None, "the mended notebook failed a sequence"
    counted.append(round(done.calls / max(done.sequences, 1)))
    return done.sequences / elapsed, done.calls / elapsed


async def _sdk_once(transport: str, calls: int) -> None:
    with tempfile.TemporaryDirectory() as home:
        if transport == "inprocess":
            with environment({"HOME": home}):
                async with Client(_notebook().build(fixed=True), cache=None) as client:
                    await _calls(client, calls)
            return
        server: Any = StdioServerParameters(
            command=sys.executable, args=[str(NOTEBOOK), "--fixed"], env={**os.environ, "HOME": home}
        )
        async with Client(server, cache=None) as client:
            await _calls(client, calls)


@functools.cache
def _notebook() -> Any:
    """The test server's module, loaded from its file once."""
    spec = importlib.util.spec_from_file_location("notebook", NOTEBOOK)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def _calls(client: Client, calls: int) -> None:
    for index in range(calls):
        name, arguments = SCRIPT[index % len(SCRIPT)]
        await client.call_tool(name, arguments)


def _sdk(transport: str, sequences: int, calls: int) -> tuple[float, float]:
    start = time.perf_counter()
    for _ in range(sequences):
        asyncio.run(_sdk_once(transport, calls))
    elapsed = time.perf_counter() - start
    return sequences / elapsed, sequences * calls / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sequences", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--transport", choices=["inprocess", "stdio"], default=None)
    options = parser.parse_args()
    transports = [options.transport] if options.transport else ["inprocess", "stdio"]
    count = options.sequences
    print(f"{count} sequences a side, {options.rounds} rounds, medians (the mended notebook, seed 1)")
    print(f"{'transport':9} {'side':8} {'seq/s':>7} {'calls/s':>8} {'of sdk':>7}")
    for transport in transports:
        _measure(transport, count, options.rounds)


def _measure(transport: str, count: int, rounds: int) -> None:
    target = _target(transport)
    per: list[int] = []
    _sequences(target, count, sandboxed=True, counted=per)  # how many calls a sandboxed sequence makes
    _sdk(transport, 1, per[0])  # a warm-up of the SDK side too (imports, the first process)
    rates: dict[str, list[tuple[float, float]]] = {side: [] for side in ("sdk", "sandbox", "shared")}
    sides: dict[str, Callable[[], float]] = {
        "sdk": _recording(lambda: _sdk(transport, count, per[0]), rates["sdk"]),
        "sandbox": _recording(lambda: _sequences(target, count, sandboxed=True, counted=[]), rates["sandbox"]),
        "shared": _recording(lambda: _sequences(target, count, sandboxed=False, counted=[]), rates["shared"]),
    }
    interleaved(sides, rounds)
    sdk = statistics.median(calls for _seq, calls in rates["sdk"])
    for side, samples in rates.items():
        sequences = statistics.median(seq for seq, _calls in samples)
        calls = statistics.median(calls for _seq, calls in samples)
        print(f"{transport:9} {side:8} {sequences:7.1f} {calls:8.0f} {calls / sdk:7.2f}")
    print(f"{transport:9} (a sandboxed sequence made {per[0]} calls on average; the sdk side makes as many)")


def _recording(measure: Callable[[], tuple[float, float]], into: list[tuple[float, float]]) -> Callable[[], float]:
    def run() -> float:
        rate = measure()
        into.append(rate)
        return rate[1]

    return run


if __name__ == "__main__":
    main()
