"""The contract suite that needs no test code: items per tool of the configured server.

* ``<ini file>::schema[<tool>]`` compares the tool with its snapshot file (``compare``);
* ``<ini file>::against[<tool>]`` compares it with its snapshot at the ``--mcp-contract-against`` revision
  (``against``; also for a tool only that revision has);
* ``<ini file>::checks[<tool>]`` runs the tool-level checks;
* ``<ini file>::call[<tool>-<case>]`` makes an example call (``cases``);
* ``<ini file>::fuzz[<tool>]`` fuzzes it, with ``--mcp-contract-fuzz`` (``_fuzz``).

All carry the marker ``mcp_contract``. The ini file is their node, so an id pytest prints can be given
back to it (``pytest "pyproject.toml::schema[get_item]"``). They are added when the run covers the
whole project (no path arguments, a directory holding the ini file, or the ini file itself), not when
one test file is run.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple, cast
from urllib.parse import unquote

import pytest
from _pytest._code.code import ReprExceptionInfo, ReprFileLocation, ReprTracebackNative

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._contract.versions import merge
from pytest_mcp_contract._contract.violations import ContractViolationError, Violation
from pytest_mcp_contract._errors import InvalidArgumentsError, McpContractError
from pytest_mcp_contract._json.value import writable
from pytest_mcp_contract._run.marks import expectations
from pytest_mcp_contract._run.records import ChecksSeen, Found, FuzzSeen, FuzzSkipped, ListingSeen, OnceSeen
from pytest_mcp_contract._run.settings import project_dir
from pytest_mcp_contract._suite.compare import compare_snapshot, versions_differ

if TYPE_CHECKING:
    from mcp_types import Tool

    from pytest_mcp_contract._client.sync_client import McpContract
    from pytest_mcp_contract._contract.answer import Answer, Outcome, Refusal
    from pytest_mcp_contract._contract.expect import Expectation
    from pytest_mcp_contract._run.pool import SessionPool
    from pytest_mcp_contract._run.settings import Settings
    from pytest_mcp_contract._suite.cases import Case
    from pytest_mcp_contract._suite.unused import UnusedSnapshots

SUITE: Final = "mcp-contract"
MARKER: Final = "mcp_contract"
CLIENT_FIXTURE: Final = "_mcp_contract_suite_client"
"""The suite's own client fixture: always the configured server, whatever conftest overrides."""
CLIENTS_FIXTURE: Final = "_mcp_contract_suite_clients"
"""Its clients under every protocol version: offered version -> client, or why it could not open."""


class ContractSuite(pytest.File):
    """The parent node of the generated items: the ini file, so a node id pytest prints
    (``pyproject.toml::schema[get_item]``) can be given back to pytest; ``mcp-contract`` without one."""

    settings: Settings
    listing: Listing | str
    """The tools and cases, or why they could not be listed."""
    unused: UnusedSnapshots
    """The run's snapshot files of removed tools, for the schema items' comparisons."""
    collected: bool = False
    """pytest collected this node (the ini file was a path argument, or on the walk's way)."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        # pytest may make this node without collecting it (a walk to testpaths passes the ini file by).
        self.collected = True
        if isinstance(self.listing, str):
            return iter([_failing(self, "listing", self.listing)])
        return iter(_items(self, self.settings, self.listing))


def suite_nodeid(config: pytest.Config) -> str:
    """The node id of the suite's node (``pyproject.toml``), which its items' ids begin with."""
    anchor = suite_anchor(config)
    return SUITE if anchor is None else anchor.relative_to(config.rootpath).as_posix()


def suite_anchor(config: pytest.Config) -> Path | None:
    """The file the suite hangs under: the ini file, when it sits in the rootdir's tree."""
    inipath = config.inipath
    if inipath is None or not inipath.is_relative_to(config.rootpath):
        return None
    return inipath


def make_suite(
    parent: pytest.Session | pytest.Dir, settings: Settings, listing: Listing | str, unused: UnusedSnapshots
) -> ContractSuite:
    """The suite's node under ``parent``: at the ini file, else a node of its own named ``mcp-contract``."""
    anchor = suite_anchor(parent.config)
    if anchor is not None:
        suite = ContractSuite.from_parent(parent, path=anchor)
    else:
        suite = ContractSuite.from_parent(parent, name=SUITE, nodeid=SUITE, path=settings.snapshot_dir)
    suite.settings = settings
    suite.listing = listing
    suite.unused = unused
    return suite


class ContractItem(pytest.Function):
    """A generated item: reported by its tool and snapshot file, failing with a plain message."""

    tool_name: str
    expected: list[Expectation] | None = None
    """What the item's case expects, judged like a test's markers (``None``: read its markers)."""
    case: Case | None = None
    """The example call a ``call[...]`` item makes (where it is written, for a CI annotation)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # pytest 9 keeps a structured node id, built here from the name "schema[tool]" as a whole;
        # --lf and --sw parse "pyproject.toml::schema[tool]" from their cache into name + params and
        # would never match it. Parse ours the same way. (pytest 8 has no structured id.)
        structured = getattr(self, "_id", None)
        if structured is not None:
            self._id = type(structured).parse(str(structured))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        # Its name, as a test's is (the failure's header line); pytest reads dots in it as "::".
        return self.path, None, self.name

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        # Its own failures (pytest.fail, a broken contract, arguments refused, any error of the plugin's)
        # read as their message alone, also in the summary: the traceback would be the plugin's frames only.
        if isinstance(excinfo.value, McpContractError | pytest.fail.Exception):
            return message_only("\n".join([str(excinfo.value), *getattr(excinfo.value, "__notes__", [])]), self.path)
        return super().repr_failure(excinfo)


def message_only(text: str, path: Path) -> ReprExceptionInfo:
    """A failure that shows ``text`` alone, with ``text`` as the crash message the short summary quotes.

    Not a plain string: pytest before 9 puts a string's text in neither the ``FAILED ... - message``
    line nor (through xdist) anything the controller can quote. A native entry with the text as
    its only line is printed as is, and pytest-xdist sends it over whole.
    """
    return ReprExceptionInfo(
        reprtraceback=ReprTracebackNative([text + "\n"]),
        reprcrash=ReprFileLocation(path=str(path), lineno=0, message=text),
    )


def covers_project(config: pytest.Config) -> bool:
    """Whether this run collects the whole project, so the generated suite belongs in it.

    It does without path arguments, with a folder that holds the ini file, with the ini file itself
    (``pytest "pyproject.toml::schema[tool]"``: the suite's node), or with folders that hold every
    ``testpaths`` entry (``pytest tests`` where ``testpaths = tests``).
    """
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return True
    project = project_dir(config).resolve()
    paths = [(config.invocation_params.dir / arg.split("::")[0]).resolve() for arg in config.args]
    if config.inipath is not None and config.inipath.resolve() in paths:
        return True
    folders = [path for path in paths if path.is_dir()]
    if any(project.is_relative_to(folder) for folder in folders):
        return True
    testpaths = [(project / entry).resolve() for entry in cast("list[str]", config.getini("testpaths"))]
    return bool(testpaths) and all(any(path.is_relative_to(folder) for folder in folders) for path in testpaths)


def server_fixtures(config: pytest.Config) -> list[str]:
    """The files that override the ``mcp_contract_server`` fixture (``tests/conftest.py``), among the
    conftest files and plugins pytest has read so far: with no target configured, the generated
    suite cannot exist (it lists the tools at collection, before any fixture runs), and says so."""
    places = []
    for plugin in config.pluginmanager.get_plugins():
        name = getattr(plugin, "__name__", "")
        if not isinstance(plugin, types.ModuleType) or name.startswith(("pytest_mcp_contract.", "_pytest.")):
            continue
        if any(_fixture_name(value) == "mcp_contract_server" for value in list(vars(plugin).values())):
            file = Path(plugin.__file__ or name).resolve()
            places.append(str(file.relative_to(config.rootpath)) if file.is_relative_to(config.rootpath) else str(file))
    return sorted(places)


def _fixture_name(value: object) -> str | None:
    """The fixture ``value`` defines, if it is one: pytest 8.4 wraps the function in an object holding
    its marker, earlier versions mark the function itself (no public API tells either)."""
    marker = getattr(value, "_fixture_function_marker", None) or getattr(value, "_pytestfixturefunction", None)
    if type(marker).__name__ != "FixtureFunctionMarker":
        return None
    given = getattr(marker, "name", None)
    return given if isinstance(given, str) else getattr(value, "__name__", None)


class Listing(NamedTuple):
    tools: dict[str, Tool]
    """As listed under the first protocol version."""
    cases: list[Case]
    unlisted: dict[str, str]
    """The other versions whose session could not open or list, and why."""
    folder: Path
    """The server's snapshot folder, settled once the listing's sessions told its name."""
    version: str
    """The protocol version the first listing was answered under."""
    findings: list[Violation]
    """What the listing broke that is about no tool it keeps (a tool name a client may refuse, a tool left
    out, a cursor that comes back, the handshake's answer), merged from every version's listing."""


def list_for_suite(
    settings: Settings,
    pool: SessionPool,
    *,
    updating: bool = False,
    every_version: bool = True,
    suite: str = SUITE,
) -> Listing | str:
    """The configured server's tools and example calls, or why the tools could not be listed.

    The sessions that listed them go to the pool, for the first tests. A broken cases file is a
    usage error. Without ``every_version`` (the xdist controller, which only needs the tools'
    names) only the first version lists.
    """
    from pytest_mcp_contract._client.session import SessionError
    from pytest_mcp_contract._run.paths import server_folder

    try:
        client = pool.open(settings.server)
    except SessionError as error:  # opening wraps every failure, timeouts too
        # Its listing item may never run (-x, -k): the first test refused tells the whole story.
        pool.failed(settings.server, f"the suite's listing ({suite}::listing)", error, told=False)
        return str(error)
    pool.keep(client)
    unlisted = {}
    wide = {client.protocol_version or "": client.session.listing_wide}
    for version in settings.protocol_versions[1:] if every_version else ():  # kept for the first test
        if version == client.protocol_version:  # answered already: a second session would say the same
            continue
        try:
            other = pool.open(settings.server, version)
        except SessionError as error:
            pool.failed(settings.server, f"the suite's listing ({suite}::listing[{version}])", error, version)
            unlisted[version] = str(error)
            continue
        pool.keep(other)
        wide.setdefault(other.protocol_version or version, other.session.listing_wide)
    _check_name(settings, pool, updating=updating)
    tools = client.tools
    folder = server_folder(settings.snapshot_dir, settings.server, pool.names)
    return Listing(tools, _cases(settings, tools), unlisted, folder, client.protocol_version or "", merge(wide))


def _check_name(settings: Settings, pool: SessionPool, *, updating: bool) -> None:
    """Before a server outside this process names a new snapshot folder, see that its name lasts.

    A folder already there (or one under the stable key, from an earlier run that fell back to it)
    settles it for free; otherwise, on a run that writes snapshots, a second session tells whether
    the name is the same twice (a run that writes none creates no folder to get wrong).
    """
    from pytest_mcp_contract._client.session import SessionError
    from pytest_mcp_contract._run.paths import file_stem, server_folder
    from pytest_mcp_contract._servers.kinds import as_target

    server = settings.server
    if not as_target(server).external or server_folder(settings.snapshot_dir, server, pool.names).is_dir():
        return
    if (settings.snapshot_dir / file_stem(as_target(server).stable_key)).is_dir():
        pool.names.name_changes(server)
        return
    if not updating:
        return
    # Its session compares the name it is told with the first; a failure to start is for the tests to report.
    with contextlib.suppress(SessionError):
        pool.open(server).close()


def _cases(settings: Settings, tools: dict[str, Tool]) -> list[Case]:
    from pytest_mcp_contract._suite.cases import load_cases, schema_cases, unique

    cases = [case for name in sorted(tools) for case in schema_cases(name, tools[name].input_schema)]
    if settings.cases is not None:
        cases += load_cases(settings.cases, settings.cases_shown, tools)
    return unique(cases)


def _items(suite: ContractSuite, settings: Settings, listing: Listing) -> list[pytest.Item]:
    """Per tool, in name order, its schema, its checks and its input schema's example calls; then the
    cases file's calls in the file's order; then fuzzing."""
    tools = listing.tools
    from pytest_mcp_contract._run.paths import file_stem, snapshot_path

    folder = listing.folder
    items: list[pytest.Item] = []
    for version, problem in listing.unlisted.items():  # a version no client of could list the tools
        items.append(_failing(suite, f"listing[{version}]", problem))
    # What the listing breaks beyond any tool it keeps, or a listing with no tool: told once, by an item of its own.
    if listing.findings or not tools:
        from pytest_mcp_contract._servers.kinds import server_label

        label = server_label(settings.server)
        empty = messages.no_tools(label, listing.version, left_out=bool(listing.findings)) if not tools else None
        item = ContractItem.from_parent(
            suite, name="listing", callobj=_listing_test(listing.findings, settings, empty=empty)
        )
        item.tool_name = ""
        item.add_marker(MARKER)
        items.append(item)
    stems: dict[str, str] = {}
    base = settings.against.snapshots(folder) if settings.against is not None else None
    for name in sorted(tools):
        stem = file_stem(name)
        clash = stems.get(stem.lower())
        stems[stem.lower()] = name
        for kind, function in (
            ("schema", _schema_test(name, settings, clash, suite.unused)),
            ("against", _against_test(name, settings, folder, base) if base is not None else None),
            ("checks", _checks_test(name, settings)),
        ):
            if function is None:
                continue
            item = ContractItem.from_parent(suite, name=f"{kind}[{name}]", callobj=function)
            # syrupy finds the snapshot file from the item's path (also on the xdist controller).
            item.path = snapshot_path(folder, name)
            item.tool_name = name
            item.add_marker(MARKER)
            items.append(item)
        items += [_call_item(suite, folder, case) for case in listing.cases if case.tool == name and not case.from_file]
    # Tools the base revision has and the server no longer lists: a break for every client that calls them.
    for stem in sorted(set(base or ()) - {file_stem(name) for name in tools}):
        name = unquote(stem)
        function = _against_test(name, settings, folder, base or {}, listed=False)
        item = ContractItem.from_parent(suite, name=f"against[{name}]", callobj=function)
        item.path = folder  # its file is gone from the working tree, or soon will be
        item.tool_name = name
        item.add_marker(MARKER)
        items.append(item)
    # The cases file's calls after every tool's own items, in the file's order: it may say "create, then read".
    items += [_call_item(suite, folder, case) for case in listing.cases if case.from_file]
    # Fuzzing last: hundreds of random calls (or a server they crash) must not change what the rest sees.
    for name in sorted(tools) if settings.fuzz else ():
        cases = [case for case in listing.cases if case.tool == name]
        item = ContractItem.from_parent(suite, name=f"fuzz[{name}]", callobj=_fuzz_test(name, settings, cases))
        item.path = folder
        item.tool_name = name
        item.add_marker(MARKER)
        # Its markers (and its tool's cases) accept violations but require none: the fuzzer judges them itself.
        item.expected = []
        items.append(item)
    return items


def _call_item(suite: ContractSuite, folder: Path, case: Case) -> ContractItem:
    item = ContractItem.from_parent(suite, name=f"call[{case.tool}-{case.id}]", callobj=_call_test(case))
    item.path = folder
    item.tool_name = case.tool
    item.add_marker(MARKER)
    item.expected = case.expectations  # judged like a marker's
    item.case = case
    return item


def _call_test(case: Case) -> Callable[..., None]:
    def call(request: pytest.FixtureRequest, _mcp_contract_suite_client: Any) -> None:
        __tracebackhide__ = True
        legs = [(version, client) for version, client in _legs(request) if case.tool in client.tools]
        if not legs:  # no version lists the tool (any more): the call says so, as a test's own would
            _client(request).call_tool(case.tool, case.arguments, validate_arguments=case.validate_arguments)
            return
        from pytest_mcp_contract._client.legs import everywhere

        done = everywhere(
            legs,
            case.tool,
            lambda client: _send(client, case),
            lambda client, outcome: _violations(client, case, outcome),
        )
        sessions = {version: client.session for version, client in legs}
        if done.replayed:  # a call per version: each sorted (and counted) as the call it is
            failing = {
                version: sessions[version].sort(case.tool, done.outcomes[version], found)
                for version, found in done.found.items()
            }
            violations = merge(failing)
        else:  # one call, read under each version it tells of: sorted and counted once
            violations = sessions[done.sent_under].sort(case.tool, done.outcome, done.violations)
        if len(legs) > 1 and not done.replayed:
            server = legs[0][1].session.server_name
            OnceSeen(case.tool, server, done.sent_under, tuple(done.judged), tuple(done.unjudged)).write(request.node)
        if violations:
            broken = ContractViolationError(violations, tool=case.tool, arguments=case.arguments)
            broken.add_note(case.hint())
            raise broken

    call.__module__ = __name__
    return call


def _send(client: McpContract, case: Case) -> Answer | Refusal:
    """The case's call, sent once through ``client``: its answer, or what came instead."""
    __tracebackhide__ = True
    try:
        return client.request(case.tool, case.arguments, validate=case.validate_arguments)
    except InvalidArgumentsError as error:
        error.add_note(case.arguments_hint())
        raise


def _violations(client: McpContract, case: Case, outcome: Outcome) -> list[Violation]:
    """What ``outcome`` broke, judged by ``client``'s session under its version's rules, not yet sorted by
    the item's expectations (the caller sorts once per call sent). What the tool's listing breaks is not
    the call's doing: its ``checks[TOOL]`` item says it, once, unless the case expects it."""
    __tracebackhide__ = True
    session = client.session
    # A case that expects a finding of the listing's (a known schema defect) is judged with them, so it is met.
    tool = client.tools.get(case.tool)
    listing = session.tool_violations(tool) if tool is not None else []
    listed = any(expected.covers(found) for found in listing for expected in case.expectations)
    judged = session.verdict(case.tool, case.arguments, outcome, expect_error=False, listed=listed, sort=False)
    if judged.client_side is not None:
        judged.settle()  # the case's client, not the server: raised as for a test's call
    return judged.found


def _expects_violations(case: Case) -> bool:
    return any(expected.marker == "mcp_expect_violation" for expected in case.expectations)


def _fuzz_test(tool_name: str, settings: Settings, cases: list[Case]) -> Callable[..., None]:
    # The tool's cases (but those that expect violations) and schema examples guide the generating;
    # the violations cases and markers expect are accepted, as in any other test.
    known = [case.arguments for case in cases if not _expects_violations(case)]
    accepted = [
        expected for case in cases for expected in case.expectations if expected.marker == "mcp_expect_violation"
    ]

    def fuzz(request: pytest.FixtureRequest, _mcp_contract_suite_client: Any) -> None:
        __tracebackhide__ = True
        from pytest_mcp_contract._fuzz.fuzzer import destructive, fuzz_tool, skip_reason

        tool = _listed(request, tool_name)
        reason = skip_reason(tool, settings)
        if reason is not None:
            # For the summary, which names every tool left out with the line that opts it in.
            FuzzSkipped(tool_name, _name(request), destructive=destructive(tool)).write(request.node)
            pytest.skip(reason)
        (_version, client), *others = [leg for leg in _legs(request) if tool_name in leg[1].tools]
        fuzzed = fuzz_tool(
            client,
            tool,
            settings,
            project_dir(request.config),
            known,
            accepting=[*accepted, *expectations(request.node)],
            cased=[case.arguments for case in cases],
            others=others,
        )
        FuzzSeen(
            tool_name,
            _name(request),
            calls=fuzzed.calls,
            results=fuzzed.results,
            distinct=fuzzed.distinct,
            cut_short=fuzzed.cut_short,
            violations=tuple(violation.check for violation in fuzzed.violations),
            expected=dict(fuzzed.expected),
            allowed=dict(fuzzed.allowed),
            noted=dict(fuzzed.noted),
        ).write(request.node)
        if fuzzed.failure is not None:
            pytest.fail(writable(fuzzed.failure), pytrace=False)

    fuzz.__module__ = __name__
    return fuzz


def _listing_test(findings: list[Violation], settings: Settings, *, empty: str | None) -> Callable[..., None]:
    """The ``listing`` item: what the tools/list answer breaks, sorted by the allow list (``NAME:check``);
    and ``empty``, what a listing with no tool fails with."""

    def listing(request: pytest.FixtureRequest, _mcp_contract_suite_client: Any) -> None:
        __tracebackhide__ = True
        from pytest_mcp_contract._contract.expect import Judge
        from pytest_mcp_contract._servers.kinds import server_label

        if empty is not None and not findings:
            pytest.fail(empty, pytrace=False)
        verdict = Judge(expectations(request.node), settings.allow, settings.noted).judge("", None, findings)
        ListingSeen(
            _name(request),
            violations=tuple(Found.of(violation) for violation in verdict.failing),
            allowed=tuple((violation.tool, violation.check) for violation in verdict.allowed),
        ).write(request.node)
        if verdict.failing:
            broken = ContractViolationError(verdict.failing, tool="", listing=server_label(settings.server))
            if empty is not None:
                broken.add_note(empty)
            raise broken
        if empty is not None:
            pytest.fail(empty, pytrace=False)

    listing.__module__ = __name__
    return listing


def _failing(suite: ContractSuite, name: str, message: str) -> pytest.Item:
    def listing(**_fixtures: Any) -> None:
        __tracebackhide__ = True
        pytest.fail(writable(message), pytrace=False)

    listing.__module__ = __name__
    item = ContractItem.from_parent(suite, name=name, callobj=listing)
    item.tool_name = ""
    item.add_marker(MARKER)
    return item


def _schema_test(tool_name: str, settings: Settings, clash: str | None, unused: UnusedSnapshots) -> Callable[..., None]:
    # The parameters are what pytest reads to provide fixtures.
    def schema(request: pytest.FixtureRequest, snapshot: Any, _mcp_contract_suite_client: Any) -> None:
        __tracebackhide__ = True
        if clash is not None:
            pytest.fail(messages.snapshot_clash(clash, tool_name), pytrace=False)
        compare_snapshot(request, snapshot, _listed(request, tool_name), _name(request), settings, unused=unused)
        legs = _legs(request)
        listed = {version: tool for version, client in legs if (tool := client.tools.get(tool_name))}
        unlisted = [version for version, _client in legs if version not in listed]
        if unlisted:
            pytest.fail(messages.listed_under_some(tool_name, list(listed), unlisted), pytrace=False)
        differs = versions_differ(listed, settings.snapshot_fields) if len(listed) > 1 else None
        if differs is not None:
            pytest.fail(writable(differs), pytrace=False)

    schema.__module__ = __name__  # what syrupy reads as the test's module
    return schema


def _against_test(
    tool_name: str, settings: Settings, folder: Path, base: dict[str, str], *, listed: bool = True
) -> Callable[..., None]:
    """The tool against its file at the ``--mcp-contract-against`` revision (``base``: stem -> text);
    not ``listed``: a tool only the base has, which needs no session."""
    from pytest_mcp_contract._run.paths import file_stem, snapshot_path

    before = base.get(file_stem(tool_name))
    gitbase = settings.against
    shown = f"{gitbase.ref}:{gitbase.git_path(snapshot_path(folder, tool_name))}" if gitbase is not None else ""

    def against(request: pytest.FixtureRequest, **_fixtures: Any) -> None:
        __tracebackhide__ = True
        from pytest_mcp_contract._suite.against import compare_with_base

        tool = _listed(request, tool_name) if listed else None
        server = _name(request) if listed else None
        compare_with_base(request, tool_name, tool, before, settings, server=server, shown=shown)

    against.__module__ = __name__
    return against


def _checks_test(tool_name: str, settings: Settings) -> Callable[..., None]:
    def checks(request: pytest.FixtureRequest, _mcp_contract_suite_client: Any) -> None:
        __tracebackhide__ = True
        _run_tool_checks(request, tool_name, settings)

    checks.__module__ = __name__
    return checks


def _client(request: pytest.FixtureRequest) -> McpContract:
    client: McpContract = request.getfixturevalue(CLIENT_FIXTURE)
    return client


def _legs(request: pytest.FixtureRequest) -> list[tuple[str, McpContract]]:
    """The suite's clients, one per protocol version the server answered with (offered in the ini's
    order; a server that answers two offers with one version is checked under it once)."""
    clients: dict[str, McpContract | str] = request.getfixturevalue(CLIENTS_FIXTURE)
    legs: dict[str, McpContract] = {}
    for offered, client in clients.items():
        if not isinstance(client, str):
            legs.setdefault(client.protocol_version or offered, client)
    return list(legs.items())


def _unlisted(request: pytest.FixtureRequest) -> list[str]:
    """The versions whose session could not open (their ``listing[version]`` item says why)."""
    clients: dict[str, McpContract | str] = request.getfixturevalue(CLIENTS_FIXTURE)
    return [version for version, client in clients.items() if isinstance(client, str)]


def _name(request: pytest.FixtureRequest) -> str:
    """What the run files the suite's server under."""
    return _client(request).session.server_name


def _listed(request: pytest.FixtureRequest, tool_name: str) -> Tool:
    __tracebackhide__ = True
    tool = _client(request).tools.get(tool_name)
    if tool is None:
        pytest.fail(messages.no_longer_listed(tool_name), pytrace=False)
    return tool


def _run_tool_checks(request: pytest.FixtureRequest, tool_name: str, settings: Settings) -> None:
    __tracebackhide__ = True
    from pytest_mcp_contract._contract.checks import check_tool
    from pytest_mcp_contract._contract.expect import Judge

    first = _listed(request, tool_name)
    per_version: dict[str, list[Violation]] = {}
    for version, client in _legs(request):
        # Output a stdio server wrote before any call (a banner) is told by the first tool check.
        tool = client.tools.get(tool_name)
        if tool is None:  # not listed under that version: its schema item says so
            continue
        session = client.session
        listed = session.entry_violations(tool_name)  # its listing entry as it came, read strictly
        per_version[version] = (
            session.noise(tool_name) + listed + check_tool(tool, server=settings.server, version=version)
        )
    for version in _unlisted(request):  # no client could list: the listing is held to that version's rules
        per_version[version] = check_tool(first, server=settings.server, version=version)
    verdict = Judge([], settings.allow, settings.noted).judge(tool_name, None, merge(per_version))  # no answer
    violations = verdict.failing
    allowed = [violation.check for violation in verdict.allowed]
    found = tuple(Found.of(violation) for violation in violations)
    ChecksSeen(tool_name, _name(request), violations=found, allowed=tuple(allowed)).write(request.node)
    if violations:
        raise ContractViolationError(violations, tool=tool_name, called=False)
