"""What a run keeps open for the servers its factories made: the event loop an async factory runs on,
and the async context managers (servers with a lifespan) entered on it, exited when the run ends.

The loop runs in a thread of its own for the whole run (anyio's blocking portal), so tasks a factory
or a lifespan starts keep running between tests, and a lifespan is exited on the loop, and in the
task, that entered it. Nothing is imported or started until a factory needs it.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from contextlib import AbstractAsyncContextManager

    from anyio.from_thread import BlockingPortal

T = TypeVar("T")


class Lifespans:
    """The run's factory loop and the lifespans entered on it; :meth:`close` exits them, last entered first."""

    def __init__(self) -> None:
        self._portal: AbstractContextManager[BlockingPortal] | None = None
        self._loop: BlockingPortal | None = None
        self._entered: list[tuple[str, AbstractContextManager[Any]]] = []

    def _started(self) -> BlockingPortal:
        if self._loop is None:
            from anyio.from_thread import start_blocking_portal

            self._portal = start_blocking_portal()
            self._loop = self._portal.__enter__()
        return self._loop

    def run(self, awaitable: Awaitable[T]) -> T:
        """``awaitable`` (what an async factory returned) run to completion on the run's loop."""
        return self._started().call(_awaited, awaitable)

    def enter(self, manager: AbstractAsyncContextManager[T], label: str, keep: Callable[[T], bool]) -> T:
        """What ``manager`` gives, entered on the run's loop; exited at once unless ``keep`` takes it
        (a manager that gave no server), else when the run ends (:meth:`close`)."""
        entered: AbstractContextManager[T] = self._started().wrap_async_context_manager(manager)
        value = entered.__enter__()
        if keep(value):
            self._entered.append((label, entered))
        else:
            entered.__exit__(None, None, None)
        return value

    def close(self) -> list[tuple[str, BaseException]]:
        """Exit every lifespan, last entered first, each on the loop and in the task that entered it,
        then stop the loop; what an exit raised, by the label it was entered with. Safe to call twice."""
        failed: list[tuple[str, BaseException]] = []
        while self._entered:
            label, entered = self._entered.pop()
            try:
                entered.__exit__(None, None, None)
            except Exception as error:  # one lifespan's failure must not leave the others open
                failed.append((label, error))
        portal, self._portal, self._loop = self._portal, None, None
        if portal is not None:
            portal.__exit__(None, None, None)  # waits for what the portal runs; asyncio cancels stray tasks
        return failed


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable
