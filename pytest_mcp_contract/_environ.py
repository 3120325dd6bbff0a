"""Settings that take ``${VAR}`` from pytest's environment, so a secret never sits in the repository."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Final

_VARIABLE: Final = re.compile(r"\$\{(\w+)\}")
_HEADER_NAME: Final = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an HTTP token (RFC 9110)


class SettingError(Exception):
    """A setting that cannot be used; the message is written for the user, ready for a UsageError."""


def environment(lines: Iterable[str], setting: str) -> dict[str, str]:
    """``NAME=value`` lines, e.g. ini ``mcp_contract_server_env``."""
    values: dict[str, str] = {}
    for number, line in _lines(lines):
        name, equals, value = line.partition("=")
        if not equals or not name.strip().isidentifier():
            raise SettingError(f"{setting} line {number} ({line!r}) is not NAME=value.")
        values[name.strip()] = _expand(value.strip(), setting, number, line)
    return values


def headers(lines: Iterable[str], setting: str) -> dict[str, str]:
    """``Name: value`` lines, e.g. ini ``mcp_contract_headers``."""
    values: dict[str, str] = {}
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


def _expand(value: str, setting: str, number: int, line: str) -> str:
    missing = [variable for variable in _VARIABLE.findall(value) if variable not in os.environ]
    if missing:
        # The line as written (with ${VAR}, not its value) is safe to show.
        raise SettingError(
            f"{setting} line {number} ({line!r}) uses ${{{missing[0]}}}, which is not set in the environment. "
            f"Set {missing[0]} before running pytest."
        )
    return _VARIABLE.sub(lambda match: os.environ[match.group(1)], value)
