"""Schema patterns, read the ECMA-262 way and searched within a time budget.

JSON Schema writes ``pattern`` (and ``patternProperties``, ``format: regex``) in ECMA-262's
dialect, and that is how clients read them (the TypeScript SDK, the Inspector): ``\\d``, ``\\w``
and ``\\b`` are ASCII, ``$`` is the very end, ``.`` stops at every line terminator. Python reads the
same text otherwise (``^\\d+$`` takes ``"123\\n"`` and ``"٣"``), so :func:`translate` rewrites a
pattern into Python's spelling of the ECMA-262 meaning, once per pattern; every checker, the
argument check, the fuzzer and the schema diff use it. A pattern ECMA-262 does not have (Python's
``(?P<n>...)``, ``\\A``, ``a++``) or one this translation cannot run raises :class:`PatternUnreadable`.

A pattern that backtracks without end on some input (``^(a|aa)+$`` against sixty ``a`` and a
``!``) must end the check with a verdict, not hang the run past every timeout: Python's ``re``
cannot be interrupted. The ``regex`` package reads the translation as ``re`` does, avoids much
of the backtracking ``re`` does, and takes a timeout for the rest.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Final

import regex

PATTERN_SECONDS: Final = 1.0
"""The most one search may take; a pattern that needs more is reported, the value left unchecked."""


class PatternTooSlow(Exception):
    """A schema pattern did not finish within :data:`PATTERN_SECONDS`."""

    def __init__(self, pattern: str, text: str) -> None:
        super().__init__(pattern)
        self.pattern = pattern
        self.length = len(text)


class PatternUnreadable(ValueError):
    """A schema pattern that cannot be run the ECMA-262 way.

    ``kind`` says why: ``"python"`` (syntax of Python's, not ECMA-262's), ``"invalid"`` (not an
    ECMA-262 regular expression), ``"untranslatable"`` (ECMA-262 this translation cannot run),
    ``"unreadable"`` (the translation does not compile: unbalanced parentheses, a range backwards).
    ``construct`` is the piece of the pattern at fault, ``index`` where it starts.
    """

    def __init__(self, pattern: str, kind: str, construct: str, index: int, detail: str = "") -> None:
        super().__init__(f"{kind}: {construct!r} at {index} in {pattern!r}{f' ({detail})' if detail else ''}")
        self.pattern = pattern
        self.kind = kind
        self.construct = construct
        self.index = index
        self.detail = detail


@dataclass(frozen=True)
class Compiled:
    """A schema pattern as written (``source``) and its translation, compiled by ``regex``."""

    source: str
    regex: Any


@functools.lru_cache(maxsize=2048)
def compiled(pattern: str) -> Compiled:
    """The ECMA-262 ``pattern`` compiled for :func:`search_compiled` (cached); raises
    :class:`PatternUnreadable` for one that cannot be run that way."""
    try:
        return Compiled(pattern, regex.compile(translate(pattern)))
    except regex.error as error:  # unbalanced parentheses, a bad range: unreadable either way
        raise PatternUnreadable(pattern, "unreadable", pattern, 0, _without_position(error)) from None


@functools.lru_cache(maxsize=2048)
def ecma(pattern: str) -> re.Pattern[str]:
    """The ECMA-262 ``pattern`` compiled by Python's ``re`` (for Hypothesis's ``from_regex``, which
    reads only ``re``); raises :class:`PatternUnreadable` where ``re`` cannot run it."""
    try:
        return re.compile(translate(pattern))
    except re.error as error:  # variable-length lookbehind, \p{...}: regex runs them, re does not
        raise PatternUnreadable(pattern, "untranslatable", pattern, 0, _without_position(error)) from None


def _without_position(error: Exception) -> str:
    """The compiler's complaint without its position, which counts in the translation, not the pattern."""
    return re.sub(r" at position \d+$", "", str(error))


def readable(pattern: object) -> bool:
    """Whether ``pattern`` is an ECMA-262 pattern this module runs (``format: regex``)."""
    if not isinstance(pattern, str):
        return True
    try:
        compiled(pattern)
    except PatternUnreadable:
        return False
    return True


def same_meaning(first: str, second: str) -> bool:
    """Whether two ECMA-262 patterns are one spelling apart only (``\\d`` and ``[0-9]``, ``\\/`` and ``/``):
    their translations are the same. ``False`` says nothing, only that this reading cannot tell."""
    try:
        return translate(first) == translate(second)
    except PatternUnreadable:
        return False


def search(pattern: str, text: str) -> bool:
    """Whether the ECMA-262 ``pattern`` matches somewhere in ``text``; :class:`PatternTooSlow` past
    the budget, :class:`PatternUnreadable` for a pattern that cannot be read that way."""
    return search_compiled(compiled(pattern), text)


def search_compiled(pattern: Compiled, text: str) -> bool:
    try:
        return pattern.regex.search(text, timeout=PATTERN_SECONDS) is not None
    except TimeoutError:  # named as the schema writes it, so the message can point at it
        raise PatternTooSlow(pattern.source, text) from None


ERRORS: Final = (PatternUnreadable, regex.error)
"""What :func:`compiled` raises for a pattern it cannot read."""


# --- ECMA-262 in Python's spelling ---------------------------------------------------------------

_WORD: Final = "A-Za-z0-9_"
_SPACE: Final = "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
"""ECMA-262's white space and line terminators: its ``\\s`` (Python's also has \\x1c-\\x1f and \\x85, not \\ufeff)."""
_IN_CLASS: Final = {"\\d": "0-9", "\\w": _WORD, "\\s": _SPACE}
"""Class escapes as the ranges ECMA-262 means (Python's \\d and \\w take every script's digits and letters)."""
_NEGATED: Final = {"\\D": "0-9", "\\W": _WORD, "\\S": _SPACE}
_OUTSIDE: Final = {
    **{escape: f"[{ranges}]" for escape, ranges in _IN_CLASS.items()},
    **{escape: f"[^{ranges}]" for escape, ranges in _NEGATED.items()},
    # Between an ASCII word character and the rest ("éfoo" has a boundary before f), spelled with
    # lookarounds: regex at its floor (2023.12.25) ignores a scoped ASCII flag, (?a:\\b), and reads \\b as Unicode.
    "\\b": f"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))",
    "\\B": f"(?:(?<=[{_WORD}])(?=[{_WORD}])|(?<![{_WORD}])(?![{_WORD}]))",
}
_CONTROL: Final = {"f": "\\f", "n": "\\n", "r": "\\r", "t": "\\t", "v": "\\v"}
_PYTHON_ESCAPES: Final = frozenset("AZzGhHKRXNeaLUlQEmM")
"""Letters Python's re or regex (or PCRE, which Python users copy from) take after a backslash and
ECMA-262 does not (\\A, \\Z, \\h...)."""
_QUANTITY: Final = re.compile(r"\{(\d+)(,(\d*))?\}")
_NAME: Final = re.compile(r"[A-Za-z_$][\w$]*")
_MODIFIERS: Final = re.compile(r"\(\?([ims]*)(?:-([ims]*))?:")
_PYTHON_GROUP: Final = re.compile(r"\(\?(?:P<[^>]*>|P=[^)]*\)|P>[^)]*\)|>|#[^)]*\)|\(|[aiLmsux]*-?[imsx]*\)|[^:]*:)")


@functools.lru_cache(maxsize=2048)
def translate(pattern: str) -> str:
    """``pattern`` (ECMA-262, as JSON Schema and clients read it) in the syntax Python's ``re`` and
    ``regex`` run with the same meaning; raises :class:`PatternUnreadable`."""
    return _Translation(pattern).run()


class _Translation:
    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.index = 0
        self.out: list[str] = []

    def fail(self, kind: str, construct: str, index: int | None = None) -> PatternUnreadable:
        return PatternUnreadable(self.pattern, kind, construct, self.index if index is None else index)

    def run(self) -> str:
        pattern = self.pattern
        while self.index < len(pattern):
            char = pattern[self.index]
            if char == "\\":
                self.out.append(self.escape(in_class=False))
                continue
            if char == "[":
                self.out.append(self.char_class())
                continue
            if char == "(" and pattern.startswith("(?", self.index):
                self.out.append(self.group())
                continue
            if char in "*+?":
                self.index += 1
                self.quantified(char)
                continue
            if char == "{":
                quantity = _QUANTITY.match(pattern, self.index)
                if quantity is None:  # not a count: a brace (Python reads {,3} as a count)
                    self.out.append("\\{")
                    self.index += 1
                    continue
                self.index = quantity.end()
                self.quantified(quantity.group())
                continue
            self.out.append({".": "[^\\n\\r\\u2028\\u2029]", "$": "\\Z", "}": "\\}"}.get(char, char))
            self.index += 1
        return "".join(self.out)

    def quantified(self, quantifier: str) -> None:
        """A quantifier just read; a lazy ``?`` may follow, a possessive ``+`` is Python's."""
        start = self.index - len(quantifier)
        if self.pattern.startswith("?", self.index):
            quantifier += "?"
            self.index += 1
        elif self.pattern.startswith("+", self.index):
            raise self.fail("python", self.pattern[start : self.index + 1], start)
        self.out.append(quantifier)

    def group(self) -> str:
        pattern, start = self.pattern, self.index
        for opener in ("(?:", "(?=", "(?!", "(?<=", "(?<!"):
            if pattern.startswith(opener, start):
                self.index += len(opener)
                return opener
        if pattern.startswith("(?<", start):
            name = _NAME.match(pattern, start + 3)
            if name is None or not pattern.startswith(">", name.end()):
                raise self.fail("invalid", pattern[start : start + 4])
            self.index = name.end() + 1
            return f"(?P<{_python_name(name.group())}>"
        modifiers = _MODIFIERS.match(pattern, start)
        if modifiers is not None and modifiers.end() > start + 3:  # ES2025's (?i:...), (?-i:...)
            added, removed = modifiers.group(1), modifiers.group(2) or ""
            if set(added + removed) - {"i"}:  # m and s would change what . and $ mean here
                raise self.fail("untranslatable", modifiers.group())
            self.index = modifiers.end()
            return modifiers.group()
        python = _PYTHON_GROUP.match(pattern, start)
        raise self.fail("python" if python is not None else "invalid", python.group() if python else "(?")

    def escape(self, *, in_class: bool) -> str:
        pattern, start = self.pattern, self.index
        if start + 1 >= len(pattern):
            raise self.fail("invalid", "\\")
        char = pattern[start + 1]
        self.index = start + 2
        escape = "\\" + char
        if in_class and escape in _IN_CLASS:
            return _IN_CLASS[escape]
        if not in_class and escape in _OUTSIDE:
            return _OUTSIDE[escape]
        if char in _CONTROL:
            return _CONTROL[char]
        if char == "b":  # in a class: backspace
            return "\\x08"
        if char == "c":
            if start + 2 < len(pattern) and pattern[start + 2].isascii() and pattern[start + 2].isalpha():
                self.index += 1
                return _literal(chr(ord(pattern[start + 2]) % 32))
            raise self.fail("invalid", pattern[start : start + 3])
        if char == "x":
            digits = pattern[start + 2 : start + 4]
            if len(digits) == 2 and all(d in "0123456789abcdefABCDEF" for d in digits):
                self.index += 2
                return _literal(chr(int(digits, 16)))
            raise self.fail("invalid", pattern[start : start + 4])
        if char == "u":
            return self.unicode_escape()
        if char == "0" and not pattern[start + 2 : start + 3].isdigit():
            return "\\x00"
        if char.isdigit():
            if in_class or char == "0":  # octal escapes are Annex B's, outside JSON Schema's Unicode mode
                raise self.fail("invalid", pattern[start : start + 3])
            number = re.match(r"\d+", pattern[start + 1 :])
            assert number is not None
            self.index = start + 1 + number.end()
            return f"(?:\\{number.group()})"  # grouped, so a digit after it stays a digit
        if char == "k" and not in_class:
            name = _NAME.match(pattern, start + 3) if pattern.startswith("<", start + 2) else None
            if name is None or not pattern.startswith(">", name.end()):
                raise self.fail("invalid", pattern[start : start + 3])
            self.index = name.end() + 1
            return f"(?P={_python_name(name.group())})"
        if char in "pP":
            found = re.match(r"\{[A-Za-z_]+(=[A-Za-z_]+)?\}", pattern[start + 2 :])
            if found is None:
                raise self.fail("invalid", pattern[start : start + 3])
            self.index = start + 2 + found.end()
            return pattern[start : self.index]  # regex reads Unicode properties; re cannot (the fuzzer skips)
        if char.isascii() and char.isalnum():
            raise self.fail("python" if char in _PYTHON_ESCAPES else "invalid", escape, start)
        return _literal(char)  # \/ \- \. ...: the character itself

    def unicode_escape(self) -> str:
        pattern, start = self.pattern, self.index - 2
        braced = re.match(r"\{([0-9A-Fa-f]+)\}", pattern[self.index :])
        if braced is not None:
            code = int(braced.group(1), 16)
            if code > 0x10FFFF:
                raise self.fail("invalid", pattern[start : self.index + braced.end()], start)
            self.index += braced.end()
            return _literal(chr(code))
        four = re.match(r"[0-9A-Fa-f]{4}", pattern[self.index :])
        if four is None:
            raise self.fail("invalid", pattern[start : self.index + 1], start)
        code = int(four.group(), 16)
        self.index += 4
        low = re.match(r"\\u([dD][c-fC-F][0-9A-Fa-f]{2})", pattern[self.index :])
        if 0xD800 <= code <= 0xDBFF and low is not None:  # a surrogate pair is one character
            self.index += 6
            code = 0x10000 + ((code - 0xD800) << 10) + (int(low.group(1), 16) - 0xDC00)
        return _literal(chr(code))

    def char_class(self) -> str:
        pattern, start = self.pattern, self.index
        if pattern.startswith("[]", start):  # ECMA-262's empty class matches nothing
            self.index += 2
            return "(?!)"
        if pattern.startswith("[^]", start):  # and its negation any character
            self.index += 3
            return "[\\s\\S]"
        negated = pattern.startswith("[^", start)
        self.index = start + (2 if negated else 1)
        items: list[str] = []
        complements: list[str] = []  # \D \W \S inside a class: Python's re has no spelling for them there
        previous = ""
        while True:
            if self.index >= len(pattern):
                raise self.fail("invalid", pattern[start:], start)
            char = pattern[self.index]
            if char == "]":
                self.index += 1
                break
            if char == "\\":
                escape = pattern[self.index : self.index + 2]
                if escape in _NEGATED:
                    self.index += 2
                    complements.append(_NEGATED[escape])
                    previous = ""
                    continue
                items.append(self.escape(in_class=True))
                previous = ""
                continue
            # Literal in ECMA-262's class; Python reads [ and -- && ~~ || as set syntax to come.
            items.append("\\" + char if char in "[&~|" or (char == "-" and previous == "-") else char)
            previous = char
            self.index += 1
        rest = "".join(items)
        if not complements:
            return f"[{'^' if negated else ''}{rest}]"
        if negated:  # in none of the items, and in each complement's own set
            ahead = "".join(f"(?=[{ranges}])" for ranges in complements)
            return f"(?:{f'(?![{rest}])' if rest else ''}{ahead}[\\s\\S])"
        return "(?:" + "|".join([*(f"[^{ranges}]" for ranges in complements), *([f"[{rest}]"] if rest else [])]) + ")"


def _literal(char: str) -> str:
    return re.escape(char)


def _python_name(name: str) -> str:
    """An ECMA-262 group name as a Python one (ECMA-262 allows ``$``, Python does not)."""
    return name if name.isidentifier() else "_" + name.encode().hex()
