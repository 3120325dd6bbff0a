"""The plugin's configuration: read once from the command line and ini file, checked at start-up."""

from __future__ import annotations

import difflib
import math
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, cast

import pytest

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._client import DEFAULT_TIMEOUT, TOOL_NAMES, ToolNames
from pytest_mcp_contract._contract.versions import HANDSHAKE_ERA, OFFERED
from pytest_mcp_contract._sdk.release import MODERN, SDK_VERSION

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pytest_mcp_contract._run.gitbase import GitBase
    from pytest_mcp_contract._servers.environ import Value
    from pytest_mcp_contract._servers.lifespans import Lifespans
    from pytest_mcp_contract._servers.target import TargetError

Scope = Literal["session", "module", "function"]
SCOPES: Final[tuple[Scope, ...]] = ("session", "module", "function")
FIELDS: Final = ("output_schema", "input_schema", "title", "description", "annotations", "meta")
"""What can be snapshotted; ``output_schema`` always is, the rest on request (ini ``mcp_contract_snapshot_fields``)."""


DEFAULT_SNAPSHOT_DIR: Final = "mcp_contract_snapshots"
DEFAULT_FUZZ_DEADLINE: Final = 60.0
DEFAULT_SEQUENCE_LENGTH: Final = 8


@dataclass(frozen=True)
class Settings:
    target: str | None
    """The target as the user wrote it, or ``None``."""
    target_source: str
    """Where the target came from, for messages: the option or the ini file."""
    server: object | None
    """The loaded server object, or ``None`` when no target is configured."""
    scope: Scope
    timeout: float
    check_formats: bool
    require_json_text: bool = False
    """Whether an object told to the model in prose only fails (ini ``mcp_contract_require_json_text``)."""
    suite: bool = True
    """Whether to generate the per-tool contract suite (ini ``mcp_contract_suite``)."""
    freeze_heap: bool = True
    """Whether the run freezes the heap once the server is loaded (ini ``mcp_contract_freeze_heap``)."""
    snapshot_dir: Path = Path(DEFAULT_SNAPSHOT_DIR)
    """The base folder; each server's snapshots go in a subfolder named after the server."""
    snapshot_fields: tuple[str, ...] = ()
    """Fields snapshotted beside ``output_schema``."""
    report: Path | None = None
    allow: Mapping[tuple[str, str], str] = field(default_factory=dict)
    """Known violations carried on purpose (ini ``mcp_contract_allow``), by (tool, check id)."""
    cases: Path | None = None
    """The file of example calls for the generated suite (ini ``mcp_contract_cases``)."""
    cases_shown: str = ""
    """That file as the ini file names it, for messages."""
    startup_timeout: float = DEFAULT_TIMEOUT
    """Seconds opening a session may take: starting a ``stdio:`` server, the handshake and ``tools/list``."""
    fuzz: int = 0
    """Generated argument sets per tool (``--mcp-contract-fuzz``); 0: no fuzzing."""
    fuzz_seed: int | None = None
    """The seed of every tool's search: ``--mcp-contract-fuzz-seed``, else one chosen for the run (when fuzzing)."""
    fuzz_seed_chosen: bool = False
    """``fuzz_seed`` was chosen for this run, not given: the header says so, to repeat it."""
    fuzz_deadline: float = DEFAULT_FUZZ_DEADLINE
    """Seconds of fuzzing per tool."""
    fuzz_writes: bool = False
    """Every tool is fuzzed, also those that may write (ini ``mcp_contract_fuzz_writes``): a throwaway server."""
    fuzz_allow: frozenset[str] = frozenset()
    """Tools fuzzed although they do not say ``readOnlyHint: true`` (they may write), by name."""
    sequences: int = 0
    """Generated chains of calls per server (``--mcp-contract-sequences``); 0: none."""
    sequence_length: int = DEFAULT_SEQUENCE_LENGTH
    """At most this many steps a sequence: a call each, two for a tool that says ``idempotentHint``, beside the
    reads that check a promise (ini ``mcp_contract_sequence_length``)."""
    sandbox: bool = False
    """Each sequence runs on a fresh server with private HOME, TMPDIR and XDG folders (ini ``mcp_contract_sandbox``)."""
    sandbox_deny: frozenset[str] = frozenset()
    """Tools a sequence never calls, even in the sandbox (ini ``mcp_contract_sandbox_deny``)."""
    volatile: tuple[str, ...] = ()
    """Keys (or pointers) whose values change on their own, left out of the hints' comparisons
    (ini ``mcp_contract_volatile``)."""
    protocol_versions: tuple[str, ...] = OFFERED
    """The versions the client offers, in order: the suite checks under each, a test's own calls use the first."""
    against: GitBase | None = None
    """The revision whose committed snapshots every tool is compared with (``--mcp-contract-against``)."""
    coverage: bool = False
    """Print the contract coverage after the summary (``--mcp-contract-coverage``)."""
    coverage_fail_under: float | None = None
    """The least contract coverage, in percent, a run may end with (``--mcp-contract-coverage-fail-under``)."""
    coverage_json: Path | None = None
    """Where to write the contract coverage as JSON (``--mcp-contract-coverage-json``)."""
    suggest_schemas: bool = False
    """Print a schema to publish for each tool whose output schema names no key (``--mcp-contract-suggest-schemas``)."""
    tool_names: ToolNames = "spec"
    """Which tool names pass (ini ``mcp_contract_tool_names``): SEP-986's, or only what model APIs take too."""

    def load(self, config: pytest.Config, lifespans: Lifespans) -> None:
        """Load the target that :func:`read_settings` was told to leave for later (``defer``), into this one
        object every holder of the run's settings shares; a bad one raises ``pytest.UsageError``."""
        if self.target is not None and self.server is None:
            object.__setattr__(self, "server", load_server(config, self.target, self.target_source, lifespans))

    @property
    def counting(self) -> bool:
        """Whether the run counts the promises its answers keep (any coverage option asks it to)."""
        return self.coverage or self.coverage_fail_under is not None or self.coverage_json is not None

    @property
    def noted(self) -> frozenset[str]:
        """Check ids reported in the summary but failing no test."""
        from pytest_mcp_contract._contract.violations import noted_checks

        return noted_checks(self.require_json_text)


INI_KEYS: Final = (
    "mcp_contract_server",
    "mcp_contract_scope",
    "mcp_contract_timeout",
    "mcp_contract_startup_timeout",
    "mcp_contract_require_json_text",
    "mcp_contract_tool_names",
    "mcp_contract_protocol_versions",
    "mcp_contract_check_formats",
    "mcp_contract_freeze_heap",
    "mcp_contract_server_env",
    "mcp_contract_server_cwd",
    "mcp_contract_headers",
    "mcp_contract_suite",
    "mcp_contract_snapshot_dir",
    "mcp_contract_snapshot_fields",
    "mcp_contract_allow",
    "mcp_contract_cases",
    "mcp_contract_fuzz",
    "mcp_contract_fuzz_deadline",
    "mcp_contract_fuzz_writes",
    "mcp_contract_fuzz_allow",
    "mcp_contract_sequences",
    "mcp_contract_sequence_length",
    "mcp_contract_sandbox",
    "mcp_contract_sandbox_deny",
    "mcp_contract_volatile",
    "mcp_contract_coverage",
    "mcp_contract_coverage_fail_under",
    "mcp_contract_against",
)
"""Every ini key the plugin registers (``_plugin.options``), to name the one a typo meant."""

REMOVED_KEYS: Final = {
    "mcp_contract_fuzz_readonly_only": (
        "fuzzing only the tools that say readOnlyHint: true is now the default, so remove the line. "
        "To fuzz a tool that may write, name it: mcp_contract_fuzz_allow = TOOL; to fuzz every tool, on a "
        "throwaway server and data only: mcp_contract_fuzz_writes = true"
    ),
}
"""Keys the plugin once had: a project that still sets one is told what became of it."""


def _check_keys(config: pytest.Config) -> None:
    """A key that is ours but misspelt stops the run: pytest would only warn, and the option would be lost."""
    # No public API lists the keys given: pytest 9 keeps them in _inicfg (and deprecates inicfg),
    # pytest 8 has only inicfg.
    given = getattr(config, "_inicfg", None)
    overrides = cast("list[str]", config.getoption("override_ini", None) or [])
    overridden = [override.partition("=")[0].strip() for override in overrides]
    in_file = set(given if given is not None else config.inicfg) - set(overridden)  # pytest 9 adds -o keys there
    for key in dict.fromkeys([*in_file, *overridden]):
        if key in INI_KEYS:
            continue
        where = f" (in {config.inipath.name})" if config.inipath is not None and key in in_file else ""
        if key in REMOVED_KEYS:
            raise pytest.UsageError(f"{key}{where} is no longer an option of pytest-mcp-contract: {REMOVED_KEYS[key]}")
        close = _meant(key)
        if not (key.startswith("mcp_contract") or close):
            continue
        try:
            config.getini(key)  # another plugin's own key, that only looks like ours
            continue
        except ValueError:
            pass
        meant = f"did you mean {close}? " if close else ""
        raise pytest.UsageError(
            f"{key}{where} is no option of pytest-mcp-contract: {meant}Its ini options are {', '.join(INI_KEYS)}."
        )


def _check_quotes(config: pytest.Config) -> None:
    """A value copied from pyproject.toml into an ini file keeps its quotes (only TOML strips them):
    ``"stdio:python -m server"`` would be read as a module named ``"stdio``. Say so, not that."""
    overrides = cast("list[str]", config.getoption("override_ini", None) or [])
    overridden = {override.partition("=")[0].strip() for override in overrides}
    if config.inipath is not None and config.inipath.suffix == ".toml" and not overridden & set(INI_KEYS):
        return  # TOML strips the quotes itself
    for key in INI_KEYS:
        value = config.getini(key)
        for line in value if isinstance(value, list) else [value]:
            quoted = _QUOTED.fullmatch(line.strip()) if isinstance(line, str) else None
            if quoted is None:
                continue
            where = " (in -o)" if key in overridden else f" (in {config.inipath.name})" if config.inipath else ""
            raise pytest.UsageError(
                f"{key}{where} is {line.strip()}, quotes and all: an ini file keeps the quotes that TOML "
                f"(pyproject.toml) strips, so the plugin would read them as part of the value. Remove the quotes: "
                f"{key} = {quoted.group(2)}"
            )


_QUOTED: Final = re.compile(r"""(["'])(.*)\1,?""")
"""A value in TOML's quotes, as a line of a TOML list too (its comma after)."""


def _meant(key: str) -> str | None:
    """The key of ours ``key`` is likely a typo of: its part after the shared prefix, compared alone."""
    prefix = "mcp_contract_"
    if key.startswith(prefix):
        close = difflib.get_close_matches(key.removeprefix(prefix), [k.removeprefix(prefix) for k in INI_KEYS], 1, 0.7)
        return prefix + close[0] if close else None
    close = difflib.get_close_matches(key, INI_KEYS, n=1, cutoff=0.9)  # a typo in the prefix itself
    return close[0] if close else None


def read_settings(config: pytest.Config, lifespans: Lifespans, *, load: bool = True, defer: bool = False) -> Settings:
    """Read and check every option; a bad one raises ``pytest.UsageError`` saying how to fix it.
    ``lifespans`` keeps what a factory target's server holds open, until the run closes it. ``defer``: the
    server is loaded later, by :meth:`Settings.load`."""
    if load:  # not for --help or --version
        _check_keys(config)
        _check_quotes(config)
    scope = cast("str", config.getini("mcp_contract_scope")).strip() or "session"
    if scope not in SCOPES:
        raise pytest.UsageError(
            f"mcp_contract_scope = {scope!r} is not a scope; use one of {', '.join(SCOPES)} "
            "(session: one MCP session for the whole run, the default)."
        )
    timeout = _timeout(cast("str", config.getini("mcp_contract_timeout")))
    tool_names = cast("str", config.getini("mcp_contract_tool_names")).strip() or "spec"
    if tool_names not in TOOL_NAMES:
        raise pytest.UsageError(
            f"mcp_contract_tool_names = {tool_names!r} is not a profile; use spec (SEP-986: 1 to 128 characters "
            "of A-Z a-z 0-9 _ - ., the default) or clients (also no dot, at most 64 characters, as the model "
            "APIs behind clients take)."
        )
    startup_timeout = _timeout(
        cast("str", config.getini("mcp_contract_startup_timeout")), "mcp_contract_startup_timeout"
    )
    check_formats = bool(config.getini("mcp_contract_check_formats"))
    project = project_dir(config)
    snapshot_dir = _snapshot_dir(config, project)
    fields = _fields(cast("list[str]", config.getini("mcp_contract_snapshot_fields")))
    report = config.getoption("mcp_contract_report")
    from pytest_mcp_contract._contract.expect import parse_allow

    try:
        allow = parse_allow(cast("list[str]", config.getini("mcp_contract_allow")))
    except ValueError as problem:
        raise pytest.UsageError(str(problem)) from None
    cases = cast("str", config.getini("mcp_contract_cases")).strip()

    fuzz = _fuzz_count(config)
    if fuzz and not config.getini("mcp_contract_suite"):
        raise pytest.UsageError(
            "--mcp-contract-fuzz adds items to the generated contract suite, which mcp_contract_suite = false "
            "switches off. Switch it on for the fuzzing run: -o mcp_contract_suite=true"
        )
    fuzz_deadline = _timeout(
        cast("str", config.getini("mcp_contract_fuzz_deadline")), "mcp_contract_fuzz_deadline", DEFAULT_FUZZ_DEADLINE
    )

    target = config.getoption("mcp_contract_server")
    source = "--mcp-contract-server"
    if not target:
        target = cast("str", config.getini("mcp_contract_server")).strip() or None
        source = f"mcp_contract_server in {config.inipath.name}" if config.inipath else "mcp_contract_server"
    server = load_server(config, target, source, lifespans) if target and load and not defer else None
    sequences = _count(config, "mcp_contract_sequences", "--mcp-contract-sequences", "sequences per server")
    if sequences and not config.getini("mcp_contract_suite"):
        raise pytest.UsageError(
            "--mcp-contract-sequences adds an item to the generated contract suite, which mcp_contract_suite = false "
            "switches off. Switch it on for the run: -o mcp_contract_suite=true"
        )
    length = _count(config, "mcp_contract_sequence_length", None, "steps a sequence takes at most")
    if not length:
        raise pytest.UsageError(
            "mcp_contract_sequence_length = 0 leaves a sequence no step; give the steps a sequence takes at most, "
            f"e.g. mcp_contract_sequence_length = {DEFAULT_SEQUENCE_LENGTH} (the default)"
        )
    seed, chosen = _fuzz_seed(config, fuzz or sequences)
    against = _against(config, project, snapshot_dir) if load else None
    return Settings(
        target=target,
        target_source=source,
        server=server,
        scope=scope,
        timeout=timeout,
        check_formats=check_formats,
        require_json_text=bool(config.getini("mcp_contract_require_json_text")),
        tool_names=tool_names,
        suite=bool(config.getini("mcp_contract_suite")),
        freeze_heap=bool(config.getini("mcp_contract_freeze_heap")),
        snapshot_dir=snapshot_dir,
        snapshot_fields=fields,
        report=_output(config, report, "--mcp-contract-report", "contract-report.md"),
        allow=allow,
        cases=(project / cases).resolve() if cases else None,
        cases_shown=cases,
        startup_timeout=startup_timeout,
        fuzz=fuzz,
        fuzz_seed=seed,
        fuzz_seed_chosen=chosen,
        fuzz_deadline=fuzz_deadline,
        fuzz_writes=bool(config.getini("mcp_contract_fuzz_writes")),
        fuzz_allow=frozenset(
            word for line in cast("list[str]", config.getini("mcp_contract_fuzz_allow")) for word in line.split()
        ),
        sequences=sequences,
        sequence_length=length,
        sandbox=bool(config.getini("mcp_contract_sandbox")),
        sandbox_deny=frozenset(
            word for line in cast("list[str]", config.getini("mcp_contract_sandbox_deny")) for word in line.split()
        ),
        volatile=tuple(
            word for line in cast("list[str]", config.getini("mcp_contract_volatile")) for word in line.split()
        ),
        protocol_versions=_protocol_versions(cast("list[str]", config.getini("mcp_contract_protocol_versions"))),
        against=against,
        **_coverage(config),
        suggest_schemas=bool(config.getoption("mcp_contract_suggest_schemas", False)),
    )


def _output(config: pytest.Config, given: str | None, option: str, example: str) -> Path | None:
    """The file an option names for the run to write, found writable now, not when the run ends with its
    tests done: a folder there, or a file where a folder must be, stops the run."""
    if not given:
        return None
    path = (Path(config.invocation_params.dir) / given).resolve()
    if path.is_dir() or any(parent.is_file() for parent in path.parents):
        raise pytest.UsageError(
            messages.output_unwritable(option, given, str(path), folder=path.is_dir(), example=example)
        )
    return path


def _coverage(config: pytest.Config) -> dict[str, Any]:
    """The coverage options, checked: a fail-under that is not a percent stops the run."""
    shown = config.getoption("mcp_contract_coverage")
    fail_under: str | None = config.getoption("mcp_contract_coverage_fail_under")
    source = "--mcp-contract-coverage-fail-under"
    if fail_under is None:
        fail_under = cast("str", config.getini("mcp_contract_coverage_fail_under")).strip() or None
        source = "mcp_contract_coverage_fail_under"
    least = None
    if fail_under is not None:
        try:
            least = float(fail_under)
        except ValueError:
            least = math.nan
        if not 0 <= least <= 100:
            raise pytest.UsageError(messages.bad_fail_under(source, fail_under))
    written = config.getoption("mcp_contract_coverage_json")
    path = _output(config, written, "--mcp-contract-coverage-json", "coverage/mcp-contract.json")
    return {
        "coverage": bool(config.getini("mcp_contract_coverage") if shown is None else shown),
        "coverage_fail_under": least,
        "coverage_json": path,
    }


def _against(config: pytest.Config, project: Path, snapshot_dir: Path) -> GitBase | None:
    """The base revision, read and checked now: a wrong one stops the run before any test."""
    ref: str | None = config.getoption("mcp_contract_against")
    source = "--mcp-contract-against"
    if ref is None:
        ref = cast("str", config.getini("mcp_contract_against")).strip() or None
        source = "mcp_contract_against"
    if ref is None:
        return None
    if not config.getini("mcp_contract_suite"):
        raise pytest.UsageError(messages.against_without_suite(ref, source))
    from pytest_mcp_contract._run.gitbase import read_base

    return read_base(ref, source, project, snapshot_dir)


def _protocol_versions(lines: list[str]) -> tuple[str, ...]:
    """The ini's versions, checked: each one the client can offer, each once."""
    versions = tuple(dict.fromkeys(word for line in lines for word in line.split()))
    for version in versions:
        if version in OFFERED:
            continue
        if version == MODERN and MODERN not in OFFERED:
            why = f"the installed mcp {SDK_VERSION} speaks the handshake era only (mcp>=2.0 offers {MODERN})"
        elif version in HANDSHAKE_ERA:
            why = (
                f"the client offers {OFFERED[-1]} for the handshake era; a server that speaks only {version} answers so"
            )
        else:
            why = "it is not a protocol version this plugin's client can offer"
        choice = (
            f"one or both of {' '.join(OFFERED)} (the first serves the tests' own calls)" if OFFERED[1:] else OFFERED[0]
        )
        raise pytest.UsageError(f"mcp_contract_protocol_versions: {version!r} cannot be offered: {why}. Give {choice}.")
    return versions or OFFERED


FUZZ_SEED: Final = "mcp_contract_fuzz_seed"
"""The workerinput key that hands an xdist worker the controller's seed."""


def _fuzz_seed(config: pytest.Config, fuzz: int) -> tuple[int | None, bool]:
    """The run's seed and whether it was chosen here: a run that finds a bug must say how to find it again."""
    given = config.getoption("mcp_contract_fuzz_seed")
    if given is not None or not fuzz:
        return given, False
    from_controller = getattr(config, "workerinput", {}).get(FUZZ_SEED)
    if from_controller is not None:  # every xdist worker searches as the controller's run would
        return int(from_controller), True
    return secrets.randbelow(2**32), True


def _fuzz_count(config: pytest.Config) -> int:
    option = config.getoption("mcp_contract_fuzz")
    raw = str(option) if option is not None else cast("str", config.getini("mcp_contract_fuzz")).strip() or "0"
    try:
        count = int(raw)
    except ValueError:
        count = -1
    if count < 0:
        raise pytest.UsageError(
            f"--mcp-contract-fuzz / mcp_contract_fuzz = {raw!r} is not a count; give the number of generated "
            "calls per tool, e.g. --mcp-contract-fuzz 200 (0: no fuzzing)"
        )
    if count:
        problem = missing_extra()
        if problem is not None:
            raise pytest.UsageError(problem)
    return count


def _count(config: pytest.Config, key: str, option: str | None, what: str) -> int:
    """A count from ``option`` (when given) or ini ``key``: ``0`` when neither sets it; a count Hypothesis
    is needed for checks it is installed."""
    given = config.getoption(key) if option is not None else None
    raw = str(given) if given is not None else cast("str", config.getini(key)).strip() or "0"
    try:
        count = int(raw)
    except ValueError:
        count = -1
    if count < 0:
        named = f"{option} / {key}" if option is not None else key
        raise pytest.UsageError(f"{named} = {raw!r} is not a count; give the number of {what}, e.g. {key} = 20")
    if count and option is not None:
        problem = missing_extra(option)
        if problem is not None:
            raise pytest.UsageError(problem)
    return count


def writes_snapshots(config: pytest.Config) -> bool:
    """Whether this run writes snapshot files: syrupy's ``--snapshot-update`` or ``--snapshot-update-new-only``."""
    return bool(config.getoption("update_snapshots", False) or config.getoption("update_new_snapshots_only", False))


def project_dir(config: pytest.Config) -> Path:
    """The folder of the ini file (else pytest's rootdir): what relative settings are relative to."""
    return config.inipath.parent if config.inipath else config.rootpath


def load_server(config: pytest.Config, target: str, source: str, lifespans: Lifespans) -> object:
    """Load a target through the one table of kinds (``_servers.target.KINDS``); a relative path is
    relative to the current directory for the option, else the ini file."""
    from pytest_mcp_contract._servers.environ import SettingError
    from pytest_mcp_contract._servers.target import TargetError, load_target

    base_dir = Path(config.invocation_params.dir)
    if source != "--mcp-contract-server" and config.inipath is not None:
        base_dir = config.inipath.parent
    try:
        return load_target(target, base_dir, _IniTargetSettings(config, lifespans))
    except SettingError as error:
        raise pytest.UsageError(str(error)) from None
    except TargetError as error:
        raise pytest.UsageError(_target_message(target, source, error)) from None


class _IniTargetSettings:
    """The ini's target settings (``_servers.kinds.TargetSettings``), each read when a target's loader
    asks for it: each kind reads only its own, so an in-process run never stops on a stdio setting."""

    def __init__(self, config: pytest.Config, lifespans: Lifespans) -> None:
        self._config = config
        self._lifespans = lifespans
        """What the run keeps open for the servers its factories made (``config.stash``, closed at its end)."""

    def env(self) -> dict[str, Value]:
        from pytest_mcp_contract._servers.environ import environment

        lines = cast("list[str]", self._config.getini("mcp_contract_server_env"))
        return environment(lines, "mcp_contract_server_env")

    def cwd(self) -> Path | None:
        cwd = cast("str", self._config.getini("mcp_contract_server_cwd")).strip()
        return (project_dir(self._config) / cwd).resolve() if cwd else None

    def headers(self) -> dict[str, Value]:
        from pytest_mcp_contract._servers.environ import headers

        return headers(cast("list[str]", self._config.getini("mcp_contract_headers")), "mcp_contract_headers")

    def lifespans(self) -> Lifespans:
        return self._lifespans


def _snapshot_dir(config: pytest.Config, project: Path) -> Path:
    """The snapshot folder, refused where syrupy or a cleanup could take files that are not snapshots."""
    raw = cast("str", config.getini("mcp_contract_snapshot_dir")).strip() or DEFAULT_SNAPSHOT_DIR
    folder = (project / raw).resolve()
    problem = None
    if project.resolve().is_relative_to(folder):
        problem = "it holds the project itself"
    elif "__snapshots__" in folder.relative_to(folder.anchor).parts:
        problem = "syrupy's own extensions scan __snapshots__ folders and would take the files for theirs"
    else:
        for testpath in cast("list[str]", config.getini("testpaths")):
            if (project / testpath).resolve().is_relative_to(folder):
                problem = f"it holds the test folder {testpath!r}"
        code = next(folder.rglob("*.py"), None) if problem is None and folder.is_dir() else None
        if code is not None:
            problem = f"it holds Python code ({code.relative_to(folder)}), so it is not a folder of snapshots alone"
    if problem:
        raise pytest.UsageError(
            f"mcp_contract_snapshot_dir = {raw!r} cannot hold the tool snapshots: {problem}. "
            f"Give the snapshots a folder of their own, e.g. mcp_contract_snapshot_dir = {DEFAULT_SNAPSHOT_DIR}"
        )
    return folder


def _fields(raw: list[str]) -> tuple[str, ...]:
    fields = tuple(dict.fromkeys(word.strip(",") for line in raw for word in line.split() if word.strip(",")))
    unknown = [name for name in fields if name not in FIELDS]
    if unknown:
        raise pytest.UsageError(
            f"mcp_contract_snapshot_fields names {', '.join(map(repr, unknown))}, which a tool does not have; "
            f"choose from {', '.join(FIELDS[1:])} (output_schema is always snapshotted)."
        )
    return tuple(name for name in fields if name != "output_schema")


def _timeout(raw: str, key: str = "mcp_contract_timeout", default: float = DEFAULT_TIMEOUT) -> float:
    text = raw.strip()
    try:
        value = float(text) if text else default
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise pytest.UsageError(
            f"{key} = {raw!r} is not a timeout; give a positive number of seconds, e.g. {key} = {default:g}"
        )
    return value


def _target_message(target: str, source: str, error: TargetError) -> str:
    return (
        f"pytest-mcp-contract cannot load the MCP server {target!r} ({source}): {error}\n"
        "Fix the target; a server that a function builds is named by calling it, with literal arguments: "
        "package.module:create_server(ARGS…)."
    )


def missing_extra(option: str = "--mcp-contract-fuzz") -> str | None:
    """Why fuzzing (or ``option``, which generates too) cannot run here, or None."""
    from importlib.util import find_spec

    # Found, not imported: Hypothesis warns when a plugin imports it while pytest starts.
    if find_spec("hypothesis") is None:
        # The exact package: the name pytest-mcp-contract on PyPI is another project's.
        return f"{option} needs Hypothesis (this plugin's fuzz extra): pip install '{fuzz_requirement()}'"
    return None


def fuzz_requirement() -> str:
    """Hypothesis as the fuzz extra requires it (``hypothesis>=6.165.10``), from the installed metadata."""
    from importlib.metadata import PackageNotFoundError, requires

    try:
        needs = requires("pytest-mcp-contract") or []
    except PackageNotFoundError:  # pragma: no cover - a source tree that is not installed
        needs = []
    for need in needs:
        requirement, _semicolon, marker = need.partition(";")
        if requirement.strip().startswith("hypothesis") and "fuzz" in marker:
            return requirement.strip().replace(" ", "")
    return "hypothesis"
