"""A session composed from a front end's choices: :func:`open_session`.

The provider comes from :mod:`xcsh.app.settings`, the tools from the
built-in registry and the custom-tool loader (each wrapped in the user's
approval rules), the workspace's undo journal (:func:`~xcsh.app.place.open_journal`, interrupted
applies settled first);
a resumed session gets back its history and its pending previews.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.agent import (
    AgentSession,
    ApprovalHook,
    Instructions,
    Profile,
    ResumeReport,
    RunSettings,
    SessionConfig,
    ToolApprovalHook,
    ToolPolicy,
    choose_profile,
    enforce_policy,
    load_instructions,
)
from xcsh.app.checks import open_checker
from xcsh.app.index import open_index
from xcsh.app.mcp import (
    PolicedServers,
    configured_prefixes,
    open_servers,
    schema_warning,
    session_servers,
)
from xcsh.app.place import (
    find_place,
    learnt_mode,
    open_place_journal,
    session_writer,
)
from xcsh.app.settings import Settings, build_provider, load_settings
from xcsh.checks import Checker
from xcsh.core import Tool, UsageError
from xcsh.fs import xcsh_home
from xcsh.journal import Journal, OpenedJournal, record_applies
from xcsh.journal.commands import CommandRecorder
from xcsh.pending import PendingActionStore
from xcsh.plugins import LoadError, aload_custom_tools
from xcsh.providers import Provider, ProviderFlags
from xcsh.sandbox import SandboxPlan, make_undumpable, prepare_sandbox
from xcsh.tools.registry import create_builtin_tools

if TYPE_CHECKING:
    from xcsh.mcpclient.servers import McpServers
    from xcsh.mcpclient.settings import McpSettings

SessionToolsFactory = Callable[[Path, PendingActionStore], list[Tool]]
"""``factory(cwd, store) -> tools``: the tools of a new session."""


@dataclass(frozen=True, kw_only=True)
class AppOptions:
    """What a front end asks for.

    Args:
        cwd: the workspace folder.
        provider, model, base_url: flags (``None`` = not given).
        continue_latest: resume the latest session saved for ``cwd`` (``--continue``).
        session_id: resume this session (``--session ID``).
        approval: asked before each model apply (``--approve ask``).
        ask_tool: asked before a tool call an ``ask`` approval rule covers
            (None: no terminal to ask on; settings with such rules are then refused).
        trust_project: load project-local custom tools without asking (``--trust-project``).
        instructions: read ``AGENTS.md`` files into the system prompt (off with
            ``--no-instructions``).
        home: overrides ``$XCSH_HOME``.
        env: overrides ``os.environ`` (tests).
    """

    cwd: Path
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    continue_latest: bool = False
    session_id: str | None = None
    approval: ApprovalHook | None = None
    ask_tool: ToolApprovalHook | None = None
    trust_project: bool = False
    instructions: bool = True
    home: Path | None = None
    env: Mapping[str, str] | None = None


@dataclass(frozen=True, kw_only=True)
class OpenedSession:
    """A ready session and how it came to be.

    Args:
        session: the session.
        path: its JSONL file.
        resumed: for a resumed session, what happened to its pending actions.
        load_errors: custom tools that failed to load, or a notice that an
            untrusted project's tools were skipped (contract §5); show them to the user.
        instructions: the ``AGENTS.md`` files read into the system prompt
            (empty with ``--no-instructions``).
        journal: the workspace's undo journal and what its recovery did (show
            each recovered entry's message and any problem).
        notices: one-line notices for the user at start (bash running
            unconfined, or refusing to run); show them.
        elsewhere: for a session resumed from another folder, the folder xcsh was
            started in (the session works in its own folder, ``session.cwd``);
            ``None`` otherwise. Front ends say so (:meth:`elsewhere_notice`).
        servers: the session's MCP servers (:meth:`aclose` stops them).
    """

    session: AgentSession
    path: Path
    resumed: ResumeReport | None
    load_errors: list[LoadError]
    journal: OpenedJournal
    instructions: Instructions = field(default_factory=Instructions)
    notices: tuple[str, ...] = ()
    elsewhere: Path | None = None
    servers: McpServers | None = None

    async def aclose(self) -> None:
        """Stop the session's MCP servers (their process trees end); safe to call twice."""
        if self.servers is not None:
            await self.servers.close()

    def elsewhere_notice(self) -> str | None:
        """The line telling the user the session runs in its own folder, or ``None``."""
        if self.elsewhere is None:
            return None
        return (
            f"session {self.session.id} works in {self.session.cwd}, the folder it was "
            f"started in (not the current folder {self.elsewhere})"
        )


@dataclass(frozen=True, kw_only=True)
class BuiltinParts:
    """What the built-in tools of a session are built with, besides folder and store."""

    journal: Journal | None
    sandbox: SandboxPlan
    checker: Checker
    profile: Profile
    recorder: CommandRecorder | None = None


def _builtin_tools(
    cwd: Path, store: PendingActionStore, home: Path, settings: Settings, parts: BuiltinParts
) -> list[Tool]:
    """The built-in tools, sharing the workspace's warm index.

    The compact profile's ``ast_edit`` widens call-pattern renames for its small models.
    """
    return create_builtin_tools(
        cwd,
        store,
        journal=parts.journal,
        sandbox=parts.sandbox,
        checker=parts.checker,
        index=open_index(home, settings),
        widen_renames=parts.profile == "compact",
        recorder=parts.recorder,
        previews=settings.approval.previews,
    )


async def open_session(
    options: AppOptions, *, tools: SessionToolsFactory | None = None
) -> OpenedSession:
    """Build the provider, the tools and a new or resumed session.

    The session offers the built-in tools, then the custom tools found for ``cwd``
    (user folder, entry points, and the project folder when it is trusted or
    ``trust_project`` is set; contract §5), each wrapped by the user's approval
    policy (``[approval]``), which decides before anything runs.

    Args:
        options: the front end's choices.
        tools: builds the tools for ``(cwd, store)``; default: the built-in tools,
            writing through the workspace's journal, ``bash`` confined as settings say.

    Raises:
        UsageError: bad settings, no provider configured, an unknown session
            id, no session to continue, both ``--continue`` and ``--session``,
            or approval rules that ask with no ``ask_tool`` to ask on.
    """
    if options.continue_latest and options.session_id:
        raise UsageError("--continue and --session cannot be used together")
    home = options.home or xcsh_home(env=options.env)
    # The session holds the provider's API key: no command may read xcsh's memory.
    make_undumpable()
    settings = load_settings(home)
    flags = ProviderFlags(provider=options.provider, model=options.model, base_url=options.base_url)
    provider = build_provider(flags, settings.provider, options.env, settings.path)
    window, profile = await _window_and_profile(provider, settings.run)
    place = find_place(
        home, options.cwd, session_id=options.session_id, continue_latest=options.continue_latest
    )
    sandbox = SandboxPlan()
    if tools is None:
        sandbox = prepare_sandbox(settings.sandbox, workspace=place.cwd, home=home)
    place, opened_journal = open_place_journal(home, place, settings)
    journal = opened_journal.journal
    store = PendingActionStore()
    checker = open_checker(place.cwd, home, settings)
    commands: CommandRecorder | None = None
    if tools is not None:
        built = tools(place.cwd, store)
    else:
        # one recorder: bash commands and direct MCP tool calls are recorded alike
        commands = CommandRecorder(journal, settings.bash_recording)
        builtin = BuiltinParts(
            journal=journal, sandbox=sandbox, checker=checker, profile=profile, recorder=commands
        )
        built = _builtin_tools(place.cwd, store, home, settings, builtin)
    custom = await aload_custom_tools(
        place.cwd,
        store=store,
        home=home,
        trust_project=options.trust_project,
        checker=checker,
        journal=journal,
    )
    instructions = load_instructions(place.cwd, home) if options.instructions else Instructions()
    own = [*built, *custom.tools]
    mcp, servers, mcp_notices = await _start_servers(
        options, settings, place.cwd, home, profile, own, store, commands
    )
    session_tools = _policed(own, settings.approval, options.ask_tool, configured_prefixes(mcp))
    path, recorder = session_writer(home, place, provider, journal)
    saved = place.saved
    config = SessionConfig(
        instructions=instructions.text,
        messages=saved.messages if saved else (),
        approval=options.approval,
        recorder=recorder,
        max_forced_turns=settings.run.max_forced_turns,
        steering=settings.run.steering,
        context_window=window,
        steering_mode=learnt_mode(saved, provider),
        requires_checks=checker.settings.apply_requires_checks,
        profile=profile,
        tool_source=None
        if servers is None
        else PolicedServers(
            servers, lambda t: enforce_policy(t, settings.approval, options.ask_tool)
        ),
    )
    session = AgentSession(
        provider=provider, tools=session_tools, cwd=place.cwd, store=store, config=config
    )
    record_applies(store, journal)  # custom tools' applies (and any not journaled) are recorded
    report = await session.pending.restore(saved.pending) if saved else None
    notices = tuple(n for n in (sandbox.notice, sandbox.refusal, checker.settings.notice) if n)
    notices += (*mcp_notices, *(servers.take_notices() if servers is not None else ()))
    warning = schema_warning(session.profile, session.tools.values(), mcp, window)
    if warning:
        notices += (warning,)
    return OpenedSession(
        session=session,
        path=path,
        resumed=report,
        load_errors=custom.errors,
        notices=notices,
        journal=opened_journal,
        instructions=instructions,
        elsewhere=place.elsewhere,
        servers=servers,
    )


async def _start_servers(
    options: AppOptions,
    settings: Settings,
    cwd: Path,
    home: Path,
    profile: Profile,
    own: list[Tool],
    store: PendingActionStore,
    recorder: CommandRecorder | None,
) -> tuple[McpSettings, McpServers | None, tuple[str, ...]]:
    """The MCP servers of the user's settings and a trusted project's, started concurrently.

    Deferred calls are pushed on ``store``; what a direct call changes in the
    workspace is recorded by ``recorder``, the one ``bash`` records with.

    Returns:
        The servers' settings (the project's merged in), the started servers
        (``None`` when none is configured or offered in ``profile``) and the
        notices about project servers left out.
    """
    mcp, notices = session_servers(settings.mcp, cwd, home, trust_project=options.trust_project)
    env = os.environ if options.env is None else options.env
    servers = open_servers(mcp, cwd, home, profile=profile, env=env)
    if servers is not None:
        servers.taken = frozenset(t.name for t in own)
        servers.store = store
        servers.recorder = recorder
        await servers.start()
    return mcp, servers, notices


def _policed(
    tools: list[Tool], policy: ToolPolicy, ask: ToolApprovalHook | None, prefixes: tuple[str, ...]
) -> list[Tool]:
    """Every tool wrapped by the user's approval policy.

    The policy must name only these tools, or tools of a configured MCP server
    (``NAME__tool``: that server may not run, or list the tool later).
    """
    names = [t.name for t in tools]
    names += [name for name in policy.tools if prefixes and name.startswith(prefixes)]
    policy.check_tool_names(names)
    return enforce_policy(tools, policy, ask)


async def _window_and_profile(provider: Provider, run: RunSettings) -> tuple[int | None, Profile]:
    """The context window (the setting's, else the one the server reports) and the profile."""
    window = run.context_window
    if window is None or run.profile == "auto":
        reported = await _server_window(provider)
        window = window or reported
    profile = choose_profile(
        run.profile,
        compatible_server=getattr(provider, "compatible_server", False),
        window=window,
    )
    return window, profile


async def _server_window(provider: Provider) -> int | None:
    """The window a ``--base-url`` server reports (``server_window``), or None."""
    ask = getattr(provider, "server_window", None)
    if ask is None or not getattr(provider, "compatible_server", False):
        return None
    value = await ask()
    return value if isinstance(value, int) else None
