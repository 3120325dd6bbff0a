"""The contract suite that needs no test code: items per tool of the configured server.

* ``<ini file>::listing`` lists the tools at run time: what the listing breaks, and what collection could not
  know (a tool new since the snapshots, or every tool on the first run; the schema examples not snapshotted
  of a tool with no ``checks`` item in the run);
* ``<ini file>::schema[<tool>]`` compares the tool with its snapshot file (``compare``);
* ``<ini file>::against[<tool>]`` compares it with its snapshot at the ``--mcp-contract-against`` revision
  (``against``; also for a tool only that revision has);
* ``<ini file>::checks[<tool>]`` runs the tool-level checks, then makes the examples of the tool's live input
  schema that are not items (so pytest-xdist spreads them);
* ``<ini file>::call[<tool>-<case>]`` makes an example call (``cases``);
* ``<ini file>::fuzz[<tool>]`` fuzzes it, with ``--mcp-contract-fuzz`` (``_fuzz``).

The tools are those the committed snapshot files hold (``_suite.known``): collecting starts no server. The
items take it from the ``mcp_contract_server`` fixture where a conftest overrides it (its folder's autouse
fixtures set it up, as for that folder's tests), else from the configuration, without that fixture. All
carry the marker ``mcp_contract``. The ini file is their node, so an id pytest prints can be given back to
it (``pytest "pyproject.toml::schema[get_item]"``). They are added when the run covers the whole project
(no path arguments, a directory holding the ini file, or the ini file itself), not when one test file is
run.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING, Any, Final, cast
from urllib.parse import unquote

import pytest
from _pytest._code.code import ReprExceptionInfo, ReprFileLocation, ReprTracebackNative

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._contract.versions import merge
from pytest_mcp_contract._contract.violations import ContractViolationError, Violation
from pytest_mcp_contract._errors import InvalidArgumentsError, McpContractError
from pytest_mcp_contract._json.value import writable
from pytest_mcp_contract._run.marks import expectations
from pytest_mcp_contract._run.records import (
    ChecksSeen,
    Found,
    FuzzSeen,
    FuzzSkipped,
    ListingSeen,
    OnceSeen,
    SequencesSeen,
)
from pytest_mcp_contract._run.settings import project_dir, writes_snapshots
from pytest_mcp_contract._suite.compare import compare_snapshot, versions_differ

if TYPE_CHECKING:
    from mcp_types import Tool

    from pytest_mcp_contract._client.sync_client import McpContract
    from pytest_mcp_contract._contract.answer import Answer, Outcome, Refusal
    from pytest_mcp_contract._contract.expect import Expectation
    from pytest_mcp_contract._run.pool import SessionPool
    from pytest_mcp_contract._run.settings import Settings
    from pytest_mcp_contract._suite.cases import Case
    from pytest_mcp_contract._suite.known import Known
    from pytest_mcp_contract._suite.unused import UnusedSnapshots

SUITE: Final = "mcp-contract"
MARKER: Final = "mcp_contract"
CLIENTS_FIXTURE: Final = "_mcp_contract_suite_clients"
"""The suite's own clients fixture, to the ``mcp_contract_server`` fixture's server as the items see it,
under every protocol version: offered version -> client, or why it could not open (never the first)."""
FOLDER_FIXTURE: Final = "_mcp_contract_suite_folder"
"""Its server's snapshot folder, as the live session's name settles it."""
POOL_FIXTURE: Final = "_mcp_contract_suite_pool"
"""The run's session pool, which opens a session to a fresh server in a sandbox."""


class ContractSuite(pytest.File):
    """The parent node of the generated items: the ini file, so a node id pytest prints
    (``pyproject.toml::schema[get_item]``) can be given back to pytest; ``mcp-contract`` without one."""

    settings: Settings
    known: Known
    """The tools and cases collection knew of, without a server."""
    unused: UnusedSnapshots
    """The run's snapshot files of removed tools, for the schema items' comparisons."""
    collected: bool = False
    """pytest collected this node (the ini file was a path argument, or on the walk's way)."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        # pytest may make this node without collecting it (a walk to testpaths passes the ini file by).
        self.collected = True
        return iter(_items(self, self.settings, self.known))

    def fixture_info(self, function: Callable[..., None], node: pytest.Collector | None = None) -> Any:
        """What pytest reads of ``function``'s fixtures under ``node`` (this suite by default), worked out
        once per kind of item: the functions a kind's items run are closures of one code, with one
        signature, as a parametrized test's instances are; pytest works it out anew for each item otherwise."""
        node = node or self
        key = (function.__code__, node.nodeid)
        known = self._fixture_infos.get(key)
        if known is None:
            # Typed for an item; it reads only what every node has (its markers, its parent chain).
            known = self.session._fixturemanager.getfixtureinfo(node=node, func=function, cls=None)  # type: ignore[arg-type]
            self._fixture_infos[key] = known
        return known

    @functools.cached_property
    def _fixture_infos(self) -> dict[tuple[CodeType, str], Any]:
        return {}


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
    parent: pytest.Session | pytest.Dir,
    settings: Settings,
    known: Known,
    unused: UnusedSnapshots,
) -> ContractSuite:
    """The suite's node under ``parent``: at the ini file, else a node of its own named ``mcp-contract``."""
    anchor = suite_anchor(parent.config)
    if anchor is not None:
        suite = ContractSuite.from_parent(parent, path=anchor)
    else:
        suite = ContractSuite.from_parent(parent, name=SUITE, nodeid=SUITE, path=settings.snapshot_dir)
    suite.settings = settings
    suite.known = known
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

    def ask_for_server(self, node: pytest.Collector) -> None:
        """Ask for ``mcp_contract_server``, which an override gives, with the fixtures ``node``'s tests see:
        a folder's (its conftest's override, its autouse fixtures), though the item hangs at the ini file
        above it, or the suite's own. pytest gives an item the fixtures of its parent chain, and tells them
        apart by node (pytest 9) or node id (8): only the collected folder node itself carries them."""
        suite = cast("ContractSuite", self.parent)
        self.obj = _with_server(self.obj)  # the suite's clients fixture then takes the server from it
        info = suite.fixture_info(self.obj, node)
        self._fixtureinfo = info
        self.fixturenames = info.names_closure
        self._initrequest()  # its request reads the fixtures from the info

    def reportinfo(self) -> tuple[Path, int | None, str]:
        # Its name, as a test's is (the failure's header line); pytest reads dots in it as "::".
        return self.path, None, self.name

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        # Its own failures (pytest.fail, a broken contract, arguments refused, any error of the plugin's)
        # read as their message alone, also in the summary: the traceback would be the plugin's frames only.
        if isinstance(excinfo.value, McpContractError | pytest.fail.Exception):
            return message_only("\n".join([str(excinfo.value), *getattr(excinfo.value, "__notes__", [])]), self.path)
        return super().repr_failure(excinfo)


def server_overridden(suite: ContractSuite) -> bool:
    """Whether the ``mcp_contract_server`` fixture the suite's own node sees is another's than the plugin's:
    a rootdir conftest's, a plugin module's (``pytest_plugins``, ``-p``)."""
    found = suite.fixture_info(_asks_for_server).name2fixturedefs.get("mcp_contract_server")
    return bool(found) and getattr(found[-1].func, "__module__", "") != PLUGIN_MODULE  # the last one answers


PLUGIN_MODULE: Final = "pytest_mcp_contract.plugin"
"""Where the plugin's own ``mcp_contract_server`` fixture is defined."""


def _asks_for_server(mcp_contract_server: object) -> None:
    """What asks for the server fixture alone, to see which definition answers (``server_overridden``)."""


def _with_server(function: Callable[..., None]) -> Callable[..., None]:
    """``function`` run by an item that also asks for ``mcp_contract_server``: where a conftest overrides
    it, the suite's clients fixture takes the server from it (otherwise from the configuration, which
    spares every item a fixture)."""
    code = function.__code__
    if FOLDER_FIXTURE in code.co_varnames[: code.co_argcount]:

        def listing(
            request: pytest.FixtureRequest,
            _mcp_contract_suite_clients: Any,
            _mcp_contract_suite_folder: Path,
            mcp_contract_server: object,
        ) -> None:
            __tracebackhide__ = True
            function(request, _mcp_contract_suite_clients, _mcp_contract_suite_folder)

        run: Callable[..., None] = listing
    else:

        def item(request: pytest.FixtureRequest, _mcp_contract_suite_clients: Any, mcp_contract_server: object) -> None:
            __tracebackhide__ = True
            function(request, _mcp_contract_suite_clients)

        run = item
    # What syrupy reads as the test's module and name; not functools.wraps, whose __wrapped__ pytest would
    # follow to the function's own parameters.
    run.__module__, run.__name__ = function.__module__, function.__name__
    return run


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


def fixtures_folder(session: pytest.Session, items: list[pytest.Item]) -> pytest.Dir | None:
    """The collected folder node whose conftest overrides ``mcp_contract_server`` (the shallowest such
    conftest's), so the suite's items see that override and its folder's autouse fixtures; ``None`` when
    no conftest overrides it, or no test of its folder was collected (the items then see the plugin's)."""
    from pytest_mcp_contract._suite.known import server_fixtures

    conftests = [path for path in server_fixtures(session.config) if path.name == "conftest.py"]
    if not conftests:
        return None
    wanted = conftests[0].parent
    for item in items:
        for node in item.listchain():
            if isinstance(node, pytest.Dir) and node.path == wanted:
                return node
    return None


def _items(suite: ContractSuite, settings: Settings, known: Known) -> list[pytest.Item]:
    """The listing first; per known tool, in name order, its schema, its checks (which also make the live
    input schema's example calls that are not items) and its snapshotted input schema's example calls;
    then the cases file's calls in the file's order; then fuzzing."""
    from pytest_mcp_contract._run.paths import file_stem, snapshot_path

    folder = known.folder or settings.snapshot_dir
    items: list[pytest.Item] = [_item(suite, "listing", _listing_test(settings, known), "", folder)]
    stems: dict[str, str] = {}
    base = settings.against.snapshots(folder) if settings.against is not None and known.folder else None
    for name in sorted(known.tools):
        stem = file_stem(name)
        clash = stems.get(stem.lower())
        stems[stem.lower()] = name
        for kind, function in (
            ("schema", _schema_test(name, settings, clash, suite.unused)),
            ("against", _against_test(name, settings, folder, base) if base is not None else None),
            ("checks", _checks_test(name, settings, known)),
        ):
            if function is not None:
                # syrupy finds the snapshot file from the item's path (also on the xdist controller).
                item = _item(suite, f"{kind}[{name}]", function, name, snapshot_path(folder, name))
                if kind == "schema":  # syrupy marks what asserts a snapshot: -m syrupy_snapshot picks it
                    item.add_marker("syrupy_snapshot")
                items.append(item)
        items += [_call_item(suite, folder, case) for case in known.cases if case.tool == name and not case.from_file]
    # Tools the base revision has and the working tree no longer does: a break for every client that calls them.
    for stem in sorted(set(base or ()) - {file_stem(name) for name in known.tools}):
        name = unquote(stem)
        function = _against_test(name, settings, folder, base or {}, listed=False)
        items.append(_item(suite, f"against[{name}]", function, name, folder))  # its file is gone, or soon will be
    # The cases file's calls after every tool's own items, in the file's order: it may say "create, then read".
    items += [_call_item(suite, folder, case) for case in known.cases if case.from_file]
    # Fuzzing last: hundreds of random calls (or a server they crash) must not change what the rest sees.
    for name in sorted(known.tools) if settings.fuzz else ():
        cases = [case for case in known.cases if case.tool == name]
        item = _item(suite, f"fuzz[{name}]", _fuzz_test(name, settings, cases), name, folder)
        # Its markers (and its tool's cases) accept violations but require none: the fuzzer judges them itself.
        item.expected = []
        items.append(item)
    if settings.sequences:  # chains of calls last of all: in a sandbox they may write
        item = _item(suite, "sequences", _sequences_test(settings), "", folder)
        item.expected = []
        items.append(item)
    return items


def _item(suite: ContractSuite, name: str, function: Callable[..., None], tool: str, path: Path) -> ContractItem:
    item = ContractItem.from_parent(suite, name=name, callobj=function, fixtureinfo=suite.fixture_info(function))
    item.path = path
    item.tool_name = tool
    item.add_marker(MARKER)
    return item


def _call_item(suite: ContractSuite, folder: Path, case: Case) -> ContractItem:
    item = _item(suite, f"call[{case.tool}-{case.id}]", _call_test(case), case.tool, folder)
    item.expected = case.expectations  # judged like a marker's
    item.case = case
    return item


def _call_test(case: Case) -> Callable[..., None]:
    def call(request: pytest.FixtureRequest, _mcp_contract_suite_clients: Any) -> None:
        __tracebackhide__ = True
        legs = [(version, client) for version, client in _legs(request) if case.tool in client.tools]
        if not legs and case.from_file:  # a name the cases file got wrong, or a tool gone: the case is to fix
            listed = sorted(_client(request).tools)
            pytest.fail(messages.case_tool_unlisted(case.source, case.tool, listed), pytrace=False)
        if not legs:  # no version lists the tool (any more): the call says so, as a test's own would
            _listed(request, case.tool)
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

    def fuzz(request: pytest.FixtureRequest, _mcp_contract_suite_clients: Any) -> None:
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


def _sequences_test(settings: Settings) -> Callable[..., None]:
    def sequences(request: pytest.FixtureRequest, _mcp_contract_suite_clients: Any) -> None:
        __tracebackhide__ = True
        import dataclasses
        import shlex

        from pytest_mcp_contract._fuzz.replay import replay_test
        from pytest_mcp_contract._fuzz.sequences import callable_tools, run_sequences
        from pytest_mcp_contract._servers.kinds import server_label
        from pytest_mcp_contract._servers.sandbox import fresh

        (_version, client), *others = _legs(request)
        server = client.server
        pool: SessionPool = request.getfixturevalue(POOL_FIXTURE)
        making = fresh(server) if settings.sandbox else None
        unsandboxed = ""
        if isinstance(making, str):  # the summary says so, and the run goes on as without the sandbox
            unsandboxed = messages.sequences_without_sandbox(server_label(server), making)
            settings_now, making = dataclasses.replace(settings, sandbox=False), None
        else:
            settings_now = settings
        tools = client.tools
        if not callable_tools(tools, settings_now):
            why = messages.sequences_none_callable(len(tools), sandboxed=settings_now.sandbox)
            pytest.skip(f"{why}; {unsandboxed}" if unsandboxed else why)
        done = run_sequences(
            client,
            tools,
            settings_now,
            others=others,
            fresh=making,
            open_client=pool.opener(server),
            accepting=expectations(request.node),
            progress=_progress(request.config, settings.sequences),
        )
        if done.ungenerable:
            pytest.skip(messages.sequences_ungenerable(done.ungenerable))
        server_name = _name(request)
        for name, tally in sorted(done.tallies.items()):
            tally.write(request.node, server=server_name, tool=name)
        SequencesSeen(
            server_name, done.sequences, done.calls, making is not None, done.stopped, unsandboxed, done.unconfirmed
        ).write(request.node)
        failure = done.failure
        if failure is None and done.unopened:
            pytest.fail(writable(done.unopened), pytrace=False)
        if failure is None:
            return
        seed = f" --mcp-contract-fuzz-seed {settings.fuzz_seed}" if settings.fuzz_seed is not None else ""
        command = f"pytest {shlex.quote(request.node.nodeid)} --mcp-contract-sequences {settings.sequences}{seed}"
        seed_shown = str(settings.fuzz_seed).replace("-", "minus_")
        name = f"test_sequence_seed_{seed_shown}" if settings.fuzz_seed is not None else "test_sequence"
        last = failure.calls[-1]
        compared = failure.comparison
        tool, arguments = (compared.tool, compared.arguments) if compared is not None else (last.tool, last.arguments)
        broken = str(ContractViolationError(failure.violations, tool=tool, arguments=arguments))
        text = messages.sequence_found(
            replay_test(failure, sandboxed=making is not None, name=name),
            broken,
            sequences=done.sequences,
            calls=done.calls,
            command=command,
            flaky=done.flaky,
            stopped=done.stopped,
        )
        pytest.fail(writable(text), pytrace=False)

    sequences.__module__ = __name__
    return sequences


PROGRESS_EVERY: Final = 10.0
"""Seconds between two progress lines of a long sequences item."""


def _progress(config: pytest.Config, total: int) -> Callable[[int, int], None] | None:
    """A line every :data:`PROGRESS_EVERY` seconds while the sequences run (where a terminal shows it:
    not on an xdist worker, not under ``-q -q``), so a long search is not taken for a hang."""
    import contextlib
    import time

    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or config.get_verbosity() < -1 or hasattr(config, "workerinput"):
        return None
    last = time.monotonic()

    def told(sequences: int, calls: int) -> None:
        nonlocal last
        if time.monotonic() - last >= PROGRESS_EVERY:
            last = time.monotonic()
            # Past the test's capture, as pytest's live logging writes.
            with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
                reporter.write_line(messages.sequences_progress(sequences, total, calls))

    return told


def _listing_test(settings: Settings, known: Known) -> Callable[..., None]:
    """The ``listing`` item: the live listing, against what collection knew (``known``).

    It fails with what the tools/list answer breaks beyond any one tool (sorted by the allow list,
    ``NAME:check``), a listing with no tool, and a protocol version no session could list under. And it
    does what collection could not know to do: each listed tool with no snapshot (new, or the first run)
    gets its file compared (written on ``--snapshot-update``) and its checks; each example call of an input
    schema the snapshots do not hold is made, unless the tool's ``checks`` item runs and makes it. It
    records the names listed, for syrupy's unused files.
    """

    def listing(
        request: pytest.FixtureRequest, _mcp_contract_suite_clients: Any, _mcp_contract_suite_folder: Path
    ) -> None:
        __tracebackhide__ = True
        from pytest_mcp_contract._contract.expect import Judge
        from pytest_mcp_contract._run.paths import file_stem, shown_path
        from pytest_mcp_contract._servers.kinds import server_label

        client = _client(request)
        folder = _mcp_contract_suite_folder
        server = client.server
        clients = _clients(request)
        texts = [messages.unlisted_under(version, why) for version, why in clients.items() if isinstance(why, str)]
        wide = merge({version: leg.session.listing_wide for version, leg in _legs(request)})
        verdict = Judge(expectations(request.node), settings.allow, settings.noted).judge("", None, wide)
        tools = client.tools
        moved = known.folder is not None and known.folder.resolve() != folder.resolve()
        unseen = sorted(name for name in tools if moved or name not in known.tools)
        ListingSeen(
            _name(request),
            violations=tuple(Found.of(violation) for violation in verdict.failing),
            allowed=tuple((violation.tool, violation.check) for violation in verdict.allowed),
            folder=str(folder),
            tools=tuple(sorted(file_stem(name) for name in tools)),
            unseen=tuple(unseen),
            renamed=client.session.own_name if client.session.own_name != _name(request) else "",
        ).write(request.node)
        if not tools:
            texts.append(messages.no_tools(server_label(server), client.protocol_version or "", left_out=bool(wide)))
        if moved and known.folder is not None:
            shown = shown_path(known.folder, request.config)
            texts.append(messages.folder_moved(shown, shown_path(folder, request.config)))
        texts += _unseen_tools(request, [tools[name] for name in unseen], folder, settings)
        # A tool's checks item makes its own example calls, so xdist spreads them; these are the rest.
        checked = _checked_by_item(request.session)
        others = [name for name in tools if name not in checked]
        texts += _uncollected_calls(request, known, tools, others)
        if verdict.failing:
            broken = ContractViolationError(verdict.failing, tool="", listing=server_label(server))
            for text in texts:
                broken.add_note(text)
            raise broken
        if texts:
            pytest.fail(writable("\n\n".join(texts)), pytrace=False)

    listing.__module__ = __name__
    return listing


def _unseen_tools(request: pytest.FixtureRequest, tools: list[Tool], folder: Path, settings: Settings) -> list[str]:
    """Tools the suite was collected without: each one's file compared (written on --snapshot-update) and
    its checks run, as its own items will from the next run on. Why the listing fails, if it does."""
    __tracebackhide__ = True
    from pytest_mcp_contract._run.paths import shown_path, snapshot_path
    from pytest_mcp_contract._suite.compare import snapshot_unseen

    texts: list[str] = []
    missing: list[str] = []
    listing = f"{suite_nodeid(request.config)}::listing"
    for tool in tools:
        path = snapshot_path(folder, tool.name)
        state, failure = snapshot_unseen(request.node, tool, _name(request), settings, path, listing=listing)
        if state == "missing":
            missing.append(tool.name)
        elif failure is not None:
            texts.append(failure)
        try:
            _run_tool_checks(request, tool.name, settings)
        except ContractViolationError as error:
            texts.append("\n".join([str(error), *getattr(error, "__notes__", [])]))
        texts += _versions_agree(request, tool.name, settings)
    if missing:
        where = shown_path(folder, request.config)
        texts.insert(0, messages.snapshots_missing(missing, where, listing))
    return texts


def _uncollected_calls(
    request: pytest.FixtureRequest, known: Known, tools: dict[str, Tool], names: Iterable[str]
) -> list[str]:
    """The example calls in the input schemas of ``names`` that collection did not know of (their schema is
    not snapshotted, or their tool is new), made as their own items would be; why each failed."""
    __tracebackhide__ = True
    from pytest_mcp_contract._suite.cases import schema_cases, unique

    wanted = set(names)
    live = [case for name in sorted(wanted) for case in schema_cases(name, tools[name].input_schema)]
    collected = known.case_ids()
    texts = []
    # Ids are made unique per tool, against the cases file's too, as collection makes them.
    for case in unique(live + [case for case in known.cases if case.from_file and case.tool in wanted]):
        if case.from_file or (case.tool, case.id) in collected:
            continue
        try:
            _call_test(case)(request, _clients(request))
        except (McpContractError, pytest.fail.Exception) as error:
            shown = "\n".join([str(error), *getattr(error, "__notes__", [])])
            texts.append(f"call[{case.tool}-{case.id}]: {shown}")
    return texts


def _checked_by_item(session: pytest.Session) -> set[str]:
    """The tools whose ``checks`` item this run holds (on every xdist worker, the items of the whole run)."""
    return {
        item.tool_name
        for item in session.items
        if isinstance(item, ContractItem) and item.name == f"checks[{item.tool_name}]"
    }


def _schema_test(tool_name: str, settings: Settings, clash: str | None, unused: UnusedSnapshots) -> Callable[..., None]:
    # The parameters are what pytest reads to provide fixtures.
    def schema(request: pytest.FixtureRequest, _mcp_contract_suite_clients: Any) -> None:
        __tracebackhide__ = True
        if clash is not None:
            pytest.fail(messages.snapshot_clash(clash, tool_name), pytrace=False)
        from pytest_mcp_contract._run.paths import file_stem

        # syrupy finds unused files as the assertion is made, on whichever xdist worker: this one's listing says
        # (once per worker and folder: the listing item's record, or the first schema item here).
        if not unused.knows(request.node.path.parent):
            unused.remember_listing(request.node.path.parent, [file_stem(name) for name in _client(request).tools])
        if tool_name not in _client(request).tools and _updating(request):
            # Its file goes: syrupy deletes a file whose item ran and used it not (a skipped one it keeps, under xdist).
            return
        now = _listed(request, tool_name, owner=True)
        compare_snapshot(request, now, _name(request), settings, unused=unused)
        for text in _versions_agree(request, tool_name, settings):
            pytest.fail(text, pytrace=False)

    schema.__module__ = __name__  # what syrupy reads as the test's module
    return schema


def _versions_agree(request: pytest.FixtureRequest, tool_name: str, settings: Settings) -> list[str]:
    """Why the tool's listing differs between the protocol versions offered (missing under some, or listed
    otherwise): what its schema item fails with, and the listing item for a tool that has none yet."""
    legs = _legs(request)
    listed = {version: tool for version, client in legs if (tool := client.tools.get(tool_name))}
    unlisted = [version for version, _client in legs if version not in listed]
    if unlisted:
        return [messages.listed_under_some(tool_name, list(listed), unlisted)]
    differs = versions_differ(listed, settings.snapshot_fields) if len(listed) > 1 else None
    return [writable(differs)] if differs is not None else []


def _against_test(
    tool_name: str, settings: Settings, folder: Path, base: dict[str, str], *, listed: bool = True
) -> Callable[..., None]:
    """The tool against its file at the ``--mcp-contract-against`` revision (``base``: stem -> text);
    not ``listed``: a tool the working tree has no readable snapshot of, which the live listing may still
    have (a file deleted or broken by hand) or not (a break for every client)."""
    from pytest_mcp_contract._run.paths import file_stem, snapshot_path

    before = base.get(file_stem(tool_name))
    gitbase = settings.against
    shown = f"{gitbase.ref}:{gitbase.git_path(snapshot_path(folder, tool_name))}" if gitbase is not None else ""

    def against(request: pytest.FixtureRequest, _mcp_contract_suite_clients: Any) -> None:
        __tracebackhide__ = True
        from pytest_mcp_contract._suite.against import compare_with_base

        tool = _listed(request, tool_name) if listed else _client(request).tools.get(tool_name)
        server = _name(request) if tool is not None else None
        compare_with_base(request, tool_name, tool, before, settings, server=server, shown=shown)

    against.__module__ = __name__
    return against


def _checks_test(tool_name: str, settings: Settings, known: Known) -> Callable[..., None]:
    """The tool's listing checked, then the examples in its live input schema that collection did not know
    of made (``call[TOOL-ID]``): here rather than in the listing item, so pytest-xdist spreads them."""

    def checks(request: pytest.FixtureRequest, _mcp_contract_suite_clients: Any) -> None:
        __tracebackhide__ = True

        def examples() -> list[str]:
            return _uncollected_calls(request, known, _client(request).tools, [tool_name])

        try:
            _run_tool_checks(request, tool_name, settings)
        except ContractViolationError as broken:
            for text in examples():  # the calls are made all the same: each case reaches the server once a run
                broken.add_note(text)
            raise
        texts = examples()
        if texts:
            pytest.fail(writable("\n\n".join(texts)), pytrace=False)

    checks.__module__ = __name__
    return checks


# Every test function takes the clients' fixture, so pytest resolved it before the function ran: it is
# among the item's own fixture values (``funcargs``), read without another lookup.
def _clients(request: pytest.FixtureRequest) -> dict[str, McpContract | str]:
    clients: dict[str, McpContract | str] = request.node.funcargs[CLIENTS_FIXTURE]
    return clients


def _client(request: pytest.FixtureRequest) -> McpContract:
    """The first version's client, the suite's own (the fixture fails the item when it cannot open)."""
    return cast("McpContract", next(iter(_clients(request).values())))


def _legs(request: pytest.FixtureRequest) -> list[tuple[str, McpContract]]:
    """The suite's clients, one per protocol version the server answered with (offered in the ini's
    order; a server that answers two offers with one version is checked under it once)."""
    clients = _clients(request)
    legs: dict[str, McpContract] = {}
    for offered, client in clients.items():
        if not isinstance(client, str):
            legs.setdefault(client.protocol_version or offered, client)
    return list(legs.items())


def _unlisted(request: pytest.FixtureRequest) -> list[str]:
    """The versions whose session could not open (the ``listing`` item says why)."""
    clients = _clients(request)
    return [version for version, client in clients.items() if isinstance(client, str)]


def _name(request: pytest.FixtureRequest) -> str:
    """What the run files the suite's server under."""
    return _client(request).session.server_name


def _listed(request: pytest.FixtureRequest, tool_name: str, *, owner: bool = False) -> Tool:
    """The tool as the server lists it now. One it no longer lists fails its schema item (the ``owner``), as
    its snapshot is out of date, and skips the tool's other items, which cannot run; on ``--snapshot-update``,
    which deletes that snapshot, every one of them is skipped."""
    __tracebackhide__ = True
    tool = _client(request).tools.get(tool_name)
    if tool is None:
        if owner and not _updating(request):
            pytest.fail(messages.no_longer_listed(tool_name), pytrace=False)
        pytest.skip(messages.no_longer_listed(tool_name, updating=_updating(request), owner=owner))
    return tool


def _updating(request: pytest.FixtureRequest) -> bool:
    return writes_snapshots(request.config)


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
