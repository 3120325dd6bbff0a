"""Settings that take ``${VAR}`` from pytest's environment, so a secret never sits in the repository."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Final

from pytest_mcp_contract._errors import McpContractError

_VARIABLE: Final = re.compile(r"\$\{(\w+)\}")
_HEADER_NAME: Final = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an HTTP token (RFC 9110)


class SettingError(McpContractError):
    """A setting that cannot be used; the message is written for the user, ready for a UsageError."""


class Secret:
    """A setting value that took a ``${VAR}`` from the environment: used as it is, never shown.

    Its ``repr`` and ``str`` name the variables, not the value, so no repr of a target, no local
    under ``pytest -l``, no message and no report can carry it; :meth:`reveal` is for the one
    place that hands it on (the server's environment, the HTTP client's headers).
    """

    __slots__ = ("_source", "_value")

    def __init__(self, value: str, source: str) -> None:
        self._value = value
        self._source = source

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"<secret from {self._source}>"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


Value = str | Secret
"""A setting's value: plain text as written, or a :class:`Secret` when it read the environment."""


def reveal(value: Value) -> str:
    return value.reveal() if isinstance(value, Secret) else value


def revealed(values: Mapping[str, Value]) -> dict[str, str]:
    """The values to hand on, at the last moment (keep the result in no attribute)."""
    return {name: reveal(value) for name, value in values.items()}


def environment(lines: Iterable[str], setting: str) -> dict[str, Value]:
    """``NAME=value`` lines, e.g. ini ``mcp_contract_server_env``."""
    values: dict[str, Value] = {}
    for number, line in _lines(lines):
        name, equals, value = line.partition("=")
        if not equals or not name.strip().isidentifier():
            raise SettingError(f"{setting} line {number} ({line!r}) is not NAME=value.")
        values[name.strip()] = _expand(value.strip(), setting, number, line)
    return values


def headers(lines: Iterable[str], setting: str) -> dict[str, Value]:
    """``Name: value`` lines, e.g. ini ``mcp_contract_headers``."""
    values: dict[str, Value] = {}
    for number, line in _lines(lines):
        name, colon, value = line.partition(":")
        if not colon or not _HEADER_NAME.fullmatch(name.strip()):
            raise SettingError(
                f"{setting} line {number} ({line!r}) is not 'Name: value'; e.g. Authorization: Bearer ${{MCP_TOKEN}}"
            )
        values[name.strip()] = _expand(value.strip(), setting, number, line)
    return values


def _lines(lines: Iterable[str]) -> Iterable[tuple[int, str]]:
    return ((number, raw.strip()) for number, raw in enumerate(lines, 1) if raw.strip())


def _expand(value: str, setting: str, number: int, line: str) -> Value:
    missing = [variable for variable in _VARIABLE.findall(value) if variable not in os.environ]
    if missing:
        # The line as written (with ${VAR}, not its value) is safe to show.
        raise SettingError(
            f"{setting} line {number} ({line!r}) uses ${{{missing[0]}}}, which is not set in the environment. "
            f"Set {missing[0]} before running pytest."
        )
    names = _VARIABLE.findall(value)
    if not names:
        return value
    return Secret(_VARIABLE.sub(lambda match: os.environ[match.group(1)], value), ", ".join(f"${{{n}}}" for n in names))


_SHORTEST_SECRET: Final = 4


def secret_values(lines: Iterable[str]) -> list[str]:
    """The values of the set variables that ``${VAR}`` names in ``lines``: text a server may echo,
    which output read outside the run (a CI log, a job summary) masks; longest first, so a value
    inside another is masked with it."""
    names = {name for line in lines for name in _VARIABLE.findall(line)}
    # A value of a few characters ("1", "on") is no secret, and masking it would garble every message.
    values = {os.environ[name] for name in names if len(os.environ.get(name, "")) >= _SHORTEST_SECRET}
    return sorted(values, key=len, reverse=True)
