"""Output for GitHub Actions (``GITHUB_ACTIONS=true``), with no option: an ``::error`` workflow command per
failure, at the file it belongs to, and the Markdown report appended to the job summary
(``$GITHUB_STEP_SUMMARY``). Elsewhere this plugin is not registered, and nothing changes.

A failure's place is read where the item ran (an xdist worker has the item, the controller only its
report) and rides on the report as an attribute: pytest-xdist sends a report's attributes over whole.
The controller prints the commands and writes the summary, once.

Everything between the run's start and its annotations is printed with workflow commands stopped
(``::stop-commands::``, resumed by a token no server can guess): a server's text in a failure message,
a stdio server's stderr or a test's output cannot pass for a command of the runner's.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

import pytest

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._contract.violations import ContractViolationError
from pytest_mcp_contract._json.value import writable

if TYPE_CHECKING:
    from collections.abc import Generator

    from pytest_mcp_contract._plugin.report import ReportPlugin

PLACE: Final = "mcp_contract_place"
"""The attribute of a failed report holding ``{"path": absolute path or None, "line": 1-based or None,
"checks": [check ids]}``."""

BREAKING: Final = "breaking-change"
"""The check id of a schema change that breaks clients, compared with a base revision: its failures are
annotated first (GitHub shows the first ten errors of a step beside the diff)."""

_MESSAGE_LIMIT: Final = 4000
"""The characters of a failure an annotation carries; the job's log has the rest."""


def register(config: pytest.Config, report: ReportPlugin) -> None:
    """Under GitHub Actions (the runner sets ``GITHUB_ACTIONS=true``), the plugin that writes for it."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return
    from pytest_mcp_contract._servers.environ import secret_values

    lines = [cast("list[str]", config.getini(name)) for name in ("mcp_contract_server_env", "mcp_contract_headers")]
    masked = secret_values(line for some in lines for line in some)
    config.pluginmanager.register(GithubPlugin(config, report, masked), "mcp_contract_github")


def escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF escaped, so no text can end the command's line."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (``file=``, ``title=``): also ``:`` and ``,``, which end it."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


@dataclass(frozen=True)
class Annotation:
    test: str
    message: str
    file: str | None = None
    line: int | None = None
    checks: tuple[str, ...] = ()

    @property
    def breaking(self) -> bool:
        return BREAKING in self.checks

    def command(self) -> str:
        """``::error file=PATH,line=N,title=TITLE::MESSAGE``, every part escaped."""
        title = self.test + (f" ({', '.join(self.checks)})" if self.checks else "")
        properties = [f"file={escape_property(self.file)}"] if self.file is not None else []
        if self.file is not None and self.line is not None:
            properties.append(f"line={self.line}")
        properties.append(f"title={escape_property(title)}")
        message = self.message
        if len(message) > _MESSAGE_LIMIT:
            message = message[:_MESSAGE_LIMIT] + messages.ANNOTATION_CUT
        return f"::error {','.join(properties)}::{escape_data(message)}"


class GithubPlugin:
    """Registered under GitHub Actions only: places failures (where an item runs), annotates them and
    writes the job summary (on the controller)."""

    def __init__(self, config: pytest.Config, report: ReportPlugin, masked: list[str]) -> None:
        self.config = config
        self.worker = hasattr(config, "workerinput")
        self.report = report
        self.masked = masked
        """Values of the ``${VAR}`` variables the settings read: a server may echo them, a log must not."""
        self.annotations: list[Annotation] = []
        self.token = secrets.token_hex(16)
        self.stopped = False

    def _mask(self, text: str) -> str:
        for value in self.masked:
            text = text.replace(value, "***")
        return writable(text)

    @pytest.hookimpl(tryfirst=True)  # before the header and the listing's server start
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or self.worker:
            return
        reporter.write_line(f"::stop-commands::{self.token}")
        self.stopped = True

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if report.failed:
            path, line = _place(item, report)
            error = call.excinfo.value if call.excinfo is not None else None
            checks = [v.check for v in error.violations] if isinstance(error, ContractViolationError) else []
            setattr(report, PLACE, {"path": str(path) if path else None, "line": line, "checks": checks})
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not report.failed or self.worker:  # the controller annotates what its workers send
            return
        place = cast("dict[str, Any]", getattr(report, PLACE, None) or {"path": None, "line": None, "checks": []})
        message = _failure_text(report)
        checks = list(dict.fromkeys(place["checks"]))
        if BREAKING in message and BREAKING not in checks:
            checks.insert(0, BREAKING)
        self.annotations.append(
            Annotation(
                self._mask(report.nodeid),
                self._mask(message),
                _relative(place["path"], self.config.rootpath),
                place["line"],
                tuple(checks),
            )
        )

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Commands resumed, then the annotations; and the job summary, which the report's own
        ``pytest_sessionfinish`` has completed by now (pytest's terminal calls this hook after it)."""
        if self.worker:
            return
        if self.stopped:
            terminalreporter.write_line(f"::{self.token}::")
            self.stopped = False
        for tool in self.report.report._all():
            if tool.observed_failing:  # the run's failure, no item's: at the tool's snapshot file
                where = tool.schema.file if tool.schema is not None else None
                test = f"observed shape of {tool.shown}"
                self.annotations.append(
                    Annotation(self._mask(test), self._mask(tool.observed_failing), where, None, (BREAKING,))
                )
        for annotation in ordered(self.annotations):
            terminalreporter.write_line(annotation.command())
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if not summary or self.report.report.empty:
            return
        try:
            # Appended, as the runner's docs ask: other steps write to the same file.
            with Path(summary).open("a", encoding="utf-8") as file:
                file.write(self._mask(self.report.markdown()) + "\n")
        except OSError as error:
            terminalreporter.write_line(messages.step_summary_unwritable(summary, error))


def ordered(annotations: list[Annotation]) -> list[Annotation]:
    """Failures whose check is ``breaking-change`` first, the rest in the order they came."""
    return sorted(annotations, key=lambda annotation: not annotation.breaking)


def _place(item: pytest.Item, report: pytest.TestReport) -> tuple[Path | None, int | None]:
    """The file a failure belongs to, with its line when known: a generated item's snapshot file (its
    tool's, for a call or fuzz item), a case's line in the cases file, a test's line that failed."""
    from pytest_mcp_contract._run.paths import snapshot_path
    from pytest_mcp_contract._suite.items import ContractItem

    if isinstance(item, ContractItem):
        if item.case is not None and item.case.file is not None:
            return item.case.file, item.case.line
        if item.path.is_dir() and item.tool_name:  # a call or fuzz item: its path is the server's folder
            return snapshot_path(item.path, item.tool_name), None
        return (item.path, None) if not item.path.is_dir() else (None, None)
    path, line, _domain = item.location
    where = (Path(item.config.rootpath) / path).resolve()
    return where, _failing_line(report, where) or (line + 1 if line is not None else None)


def _failing_line(report: pytest.TestReport, path: Path) -> int | None:
    """The line of ``path`` (the test's file) the traceback last passed through: the call that failed."""
    entries = getattr(getattr(report.longrepr, "reprtraceback", None), "reprentries", [])
    lines = [
        location.lineno
        for entry in entries
        if (location := getattr(entry, "reprfileloc", None)) is not None and Path(location.path).resolve() == path
    ]
    return lines[-1] if lines else None


def _failure_text(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    return str(crash.message) if crash is not None else report.longreprtext


def _relative(path: str | None, rootpath: Path) -> str | None:
    """``path`` from the repository's root (``GITHUB_WORKSPACE``, else pytest's rootdir), as GitHub
    places annotations; none for a file outside it."""
    if path is None:
        return None
    where, base = Path(path).resolve(), Path(os.environ.get("GITHUB_WORKSPACE") or rootpath).resolve()
    return where.relative_to(base).as_posix() if where.is_relative_to(base) else None
