"""``format`` assertions for ``mcp_contract_check_formats = true``.

jsonschema asserts ``date``, ``email``, ``ipv4``, ``ipv6`` and ``uuid`` by itself and needs extra
packages for the rest; ``regex`` is asserted here the ECMA-262 way (``_json.patterns``), not as
Python's ``re`` reads it. These are the formats pydantic writes into MCP schemas
(``datetime``, ``time``, ``timedelta``, ``AnyUrl``), checked here with the standard library.
Formats nobody checks stay annotations, as JSON Schema says unknown formats must.
"""

from __future__ import annotations

import datetime
import re
from functools import cache
from typing import Final
from urllib.parse import urlsplit

import jsonschema

from pytest_mcp_contract._json.patterns import readable

_DATE_TIME: Final = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$")
_TIME: Final = re.compile(r"^\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$")
_DURATION: Final = re.compile(
    r"^-?P(?=\d|T\d)(?:\d+(?:\.\d+)?Y)?(?:\d+(?:\.\d+)?M)?(?:\d+(?:\.\d+)?W)?(?:\d+(?:\.\d+)?D)?"
    r"(?:T(?=\d)(?:\d+(?:\.\d+)?H)?(?:\d+(?:\.\d+)?M)?(?:\d+(?:\.\d+)?S)?)?$"
)
_POINTER: Final = re.compile(r"^(?:/(?:[^~/]|~[01])*)*$")


def _date_time(value: object) -> bool:
    """RFC 3339 ``date-time``: a date, a time and an offset (a naive timestamp fails)."""
    if not isinstance(value, str):
        return True
    if not _DATE_TIME.match(value):
        return False
    try:
        datetime.datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _time(value: object) -> bool:
    return not isinstance(value, str) or bool(_TIME.match(value))


def _duration(value: object) -> bool:
    return not isinstance(value, str) or bool(_DURATION.match(value))


def _uri(value: object) -> bool:
    if not isinstance(value, str):
        return True
    parts = urlsplit(value)
    return bool(parts.scheme) and not any(char.isspace() for char in value)


def _uri_reference(value: object) -> bool:
    return not isinstance(value, str) or not any(char.isspace() for char in value)


def _json_pointer(value: object) -> bool:
    return not isinstance(value, str) or bool(_POINTER.match(value))


@cache
def format_checker() -> jsonschema.FormatChecker:
    # Draft 2020-12's own checks (a bare FormatChecker() would mix in Draft 3's, such as its "time").
    checker = jsonschema.FormatChecker(formats=())
    checker.checkers.update(jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers)
    checker.checks("regex")(readable)  # ECMA-262, as JSON Schema says (jsonschema's own asks Python's re)
    for name, check in {
        "date-time": _date_time,
        "time": _time,
        "duration": _duration,
        "uri": _uri,
        "uri-reference": _uri_reference,
        "json-pointer": _json_pointer,
    }.items():
        if name not in checker.checkers:
            checker.checks(name)(check)
    return checker
