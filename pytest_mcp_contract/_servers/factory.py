"""Reading a target that calls a factory, as gunicorn reads ``module:create_app(...)``:
``pkg.server:serve(repository='.')``. The call is read with :mod:`ast` and its arguments with
:func:`ast.literal_eval`, never evaluated (``_servers.target`` makes the call).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Final

from pytest_mcp_contract._servers.kinds import TargetError

LITERALS: Final = "strings, numbers, True, False, None, and lists, tuples, dicts and sets of them"


@dataclass(frozen=True)
class Call:
    """A factory call as the target writes it: the name called and its literal arguments."""

    text: str
    """The call as written after the colon: ``serve(repository='.')``."""
    name: str
    """The dotted name called: ``serve``."""
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    attributes: tuple[str, ...] = ()
    """The attributes read from what the call made (``create_app().mcp``: ``("mcp",)``): an app holding the server."""

    def follow(self, made: object) -> object | None:
        """What :attr:`attributes` name in ``made``, or ``None`` where one is missing."""
        for name in self.attributes:
            made = getattr(made, name, None)
        return made


def split(spec: str) -> tuple[str, str, str]:
    """``(module part, attribute, call text)`` of an in-process target: ``pkg.server``, ``serve`` and
    ``(repository='.')``; the call text is ``""`` for a plain ``module:attr``. The colon is the last
    one before the call's parenthesis: an argument may hold one (a URL), a Windows path another."""
    paren = spec.find("(")
    head, call = (spec[:paren], spec[paren:]) if paren != -1 else (spec, "")
    module_part, _colon, attribute = head.rpartition(":")
    return module_part, attribute, call


def parse(attribute: str, call: str) -> Call:
    """The factory call ``attribute + call`` as a :class:`Call`; raises :class:`TargetError` saying
    what is wrong with it (not a call, an argument that is not a literal) and how to write it."""
    text = attribute + call
    how = f"write it as package.module:{attribute.strip()}(ARG, KEY=VALUE…), with literal arguments ({LITERALS})"
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as error:
        raise TargetError(f"{text!r} is not a call Python can read ({error.msg}); {how}.") from None
    attributes: list[str] = []
    while isinstance(tree, ast.Attribute):  # create_app().mcp: the server an app object holds
        attributes.insert(0, tree.attr)
        tree = tree.value
    if not isinstance(tree, ast.Call) or ast.unparse(tree.func) != attribute.strip():
        raise TargetError(f"{text!r} is not one call of a factory, with nothing after it but attributes; {how}.")
    args = []
    for node in tree.args:
        args.append(_literal(node, text, how))
    kwargs = {}
    for keyword in tree.keywords:
        if keyword.arg is None:
            raise TargetError(f"{text!r} unpacks **{ast.unparse(keyword.value)}; {how}.")
        kwargs[keyword.arg] = _literal(keyword.value, text, how)
    return Call(text, attribute.strip(), tuple(args), kwargs, tuple(attributes))


def _literal(node: ast.expr, text: str, how: str) -> Any:
    if isinstance(node, ast.Starred):
        raise TargetError(f"{text!r} unpacks {ast.unparse(node)}; {how}.")
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise TargetError(
            f"the argument {ast.unparse(node)} of {text!r} is not a literal: a factory's arguments are read, "
            f"never run ({LITERALS}). Compute the value inside the factory (or read it there from the "
            "environment), or write it out."
        ) from None
