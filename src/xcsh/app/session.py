"""A session composed from a front end's choices: :func:`open_session`.

The provider comes from :mod:`xcsh.app.settings`, the tools from the
built-in registry and the custom-tool loader (each wrapped in the user's
approval rules), the workspace's undo journal (:func:`open_journal`, interrupted
applies settled first);
a resumed session gets back its history and its pending previews.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from xcsh.agent import (
    DEFAULT_MAX_FORCED_TURNS,
    PROFILE_SETTINGS,
    AgentSession,
    ApprovalHook,
    Instructions,
    ResumeReport,
    SavedSession,
    SteeringMode,
    ToolApprovalHook,
    choose_profile,
    enforce_policy,
    latest_session_for,
    load_instructions,
    load_session,
    new_session_id,
    parse_tool_policy,
    session_path,
    sessions_dir,
)
from xcsh.agent.rewind import CheckpointRecorder, reconcile
from xcsh.app.checks import open_checker
from xcsh.app.index import open_index
from xcsh.app.settings import build_provider, load_settings
from xcsh.core import AgentTool, UsageError
from xcsh.fs import xcsh_home
from xcsh.journal import Journal, OpenedJournal, Retention, record_applies, settled
from xcsh.pending import PendingActionStore
from xcsh.plugins import LoadError, aload_custom_tools
from xcsh.providers import Provider
from xcsh.sandbox import SandboxPlan, make_undumpable, parse_sandbox_settings, prepare_sandbox
from xcsh.tools.registry import create_builtin_tools

SessionToolsFactory = Callable[[Path, PendingActionStore], list[AgentTool[Any]]]
"""``factory(cwd, store) -> tools``: the tools of a new session."""


def open_journal(home: Path, cwd: Path, settings: Mapping[str, Any] | None = None) -> OpenedJournal:
    """The undo journal of ``cwd``, with any interrupted apply settled first.

    Args:
        home: ``$XCSH_HOME``.
        cwd: the workspace.
        settings: ``settings.toml``'s values (default: read from ``home``).

    Raises:
        UsageError: bad settings.
    """
    values = load_settings(home) if settings is None else settings
    retention = Retention.from_settings(values, home / "settings.toml")
    return settled(Journal.for_root(home, cwd, retention=retention))


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
    """

    session: AgentSession
    path: Path
    resumed: ResumeReport | None
    load_errors: list[LoadError]
    journal: OpenedJournal
    instructions: Instructions = field(default_factory=Instructions)
    notices: tuple[str, ...] = ()
    elsewhere: Path | None = None

    def elsewhere_notice(self) -> str | None:
        """The line telling the user the session runs in its own folder, or ``None``."""
        if self.elsewhere is None:
            return None
        return (
            f"session {self.session.id} works in {self.session.cwd}, the folder it was "
            f"started in (not the current folder {self.elsewhere})"
        )


async def open_session(
    options: AppOptions, *, tools: SessionToolsFactory | None = None
) -> OpenedSession:
    """Build the provider, the tools and a new or resumed session.

    The session offers the built-in tools, then the custom tools found for
    ``cwd`` (user folder, entry points, and the project folder when it is
    trusted or ``trust_project`` is set; contract §5).

    Args:
        options: the front end's choices.
        tools: builds the tools for ``(cwd, store)``; by default the built-in
            tools, writing through the workspace's journal, with ``bash``
            confined as the sandbox settings say.

    Every tool (custom ones included) is wrapped by the user's approval
    policy (``[approval]``), which decides before anything runs.

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
    flags = {"provider": options.provider, "model": options.model, "base_url": options.base_url}
    provider = build_provider(flags, settings, options.env)
    max_forced = settings.get("max_forced_turns", DEFAULT_MAX_FORCED_TURNS)
    if not isinstance(max_forced, int) or isinstance(max_forced, bool) or max_forced < 1:
        raise UsageError(
            f"max_forced_turns in {home / 'settings.toml'} must be a whole number of at "
            f"least 1, not {max_forced!r}"
        )
    steering = settings.get("steering", "forced")
    if steering not in ("forced", "soft"):
        raise UsageError(
            f'steering in {home / "settings.toml"} must be "forced" or "soft", not {steering!r}'
        )
    window = settings.get("context_window")
    if window is not None and (
        not isinstance(window, int) or isinstance(window, bool) or window < 1000
    ):
        raise UsageError(
            f"context_window in {home / 'settings.toml'} must be a whole number of tokens, "
            f"at least 1000, not {window!r}"
        )
    profile_setting = settings.get("profile", "auto")
    if profile_setting not in PROFILE_SETTINGS:
        raise UsageError(
            f"profile in {home / 'settings.toml'} must be one of "
            f"{', '.join(repr(p) for p in PROFILE_SETTINGS)}, not {profile_setting!r}"
        )
    if window is None or profile_setting == "auto":
        reported = await _server_window(provider)
        window = window or reported
    profile = choose_profile(
        profile_setting,
        compatible_server=getattr(provider, "compatible_server", False),
        window=window,
    )
    cwd = options.cwd.resolve()
    source = str(home / "settings.toml")
    policy = parse_tool_policy(settings, source=source)
    sandbox_settings = parse_sandbox_settings(settings, source=source)
    path = _resume_path(home, cwd, options)
    saved = load_session(path) if path is not None else None
    elsewhere: Path | None = None
    if saved is not None:
        # A resumed session keeps the folder it started in: its previews are
        # rebuilt, and applied, there and nowhere else.
        own = session_folder(saved)
        if own != cwd:
            elsewhere, cwd = cwd, own
    sandbox = SandboxPlan()
    if tools is None:
        sandbox = prepare_sandbox(sandbox_settings, workspace=cwd, home=home)
    opened_journal = open_journal(home, cwd, settings)
    session_id = saved.id if saved is not None else new_session_id()
    if saved is not None and path is not None and reconcile(opened_journal.journal, home, saved.id):
        saved = load_session(path)  # a rewind a crash cut short now holds for the conversation too
    # every change this session writes names it in the journal (what a rewind takes back)
    journal = opened_journal.journal.for_session(session_id)
    opened_journal = dataclasses.replace(opened_journal, journal=journal)
    store = PendingActionStore()
    checker = open_checker(cwd, home, settings)
    custom = await aload_custom_tools(
        cwd, store=store, home=home, trust_project=options.trust_project, checker=checker
    )
    if tools is not None:
        built = tools(cwd, store)
    else:
        built = create_builtin_tools(
            cwd,
            store,
            journal=journal,
            sandbox=sandbox,
            checker=checker,
            index=open_index(home, settings),
        )
    session_tools = [*built, *custom.tools]
    instructions = load_instructions(cwd, home) if options.instructions else Instructions()
    policy.check_tool_names([t.name for t in session_tools])
    session_tools = enforce_policy(session_tools, policy, options.ask_tool)
    header: dict[str, Any] | None = None
    if path is None:
        path = sessions_dir(home) / f"{session_id}.jsonl"
        header = {
            "id": session_id,
            "cwd": str(cwd),
            "provider": provider.name,
            "model": provider.model,
        }
    try:
        recorder = CheckpointRecorder(path, header=header, journal=journal)
    except OSError as exc:
        raise UsageError(
            f"cannot write the session file {path}: {exc.strerror or exc}",
            hint=f"check that {sessions_dir(home)} is a folder you can write to",
        ) from exc
    session = AgentSession(
        provider=provider,
        tools=session_tools,
        cwd=cwd,
        store=store,
        instructions=instructions.text,
        messages=saved.messages if saved else (),
        approval=options.approval,
        recorder=recorder,
        max_forced_turns=max_forced,
        steering=steering,
        context_window=window,
        steering_mode=learnt_mode(saved, provider),
        requires_checks=checker.settings.apply_requires_checks,
        profile=profile,
    )
    record_applies(store, journal)  # custom tools' applies (and any not journaled) are recorded
    report = await session.restore_pending(saved.pending) if saved else None
    notices = tuple(n for n in (sandbox.notice, sandbox.refusal, checker.settings.notice) if n)
    return OpenedSession(
        session=session,
        path=path,
        resumed=report,
        load_errors=custom.errors,
        notices=notices,
        journal=opened_journal,
        instructions=instructions,
        elsewhere=elsewhere,
    )


async def _server_window(provider: Provider) -> int | None:
    """The window a ``--base-url`` server reports (``server_window``), or None."""
    ask = getattr(provider, "server_window", None)
    if ask is None or not getattr(provider, "compatible_server", False):
        return None
    value = await ask()
    return value if isinstance(value, int) else None


def session_folder(saved: SavedSession) -> Path:
    """The working folder a saved session started in, which a resumed run works in.

    Raises:
        UsageError: the session file records no folder, or the folder is gone
            (then nothing is rebuilt or applied anywhere else).
    """
    if not saved.cwd:
        raise UsageError(
            f"session {saved.id} does not record the folder it ran in, so xcsh cannot "
            "tell where its pending previews belong",
            hint='start a new session with xcsh -p "TASK"',
        )
    folder = Path(saved.cwd)
    if not folder.is_dir():
        raise UsageError(
            f"session {saved.id} ran in {folder}, which is no longer a folder",
            hint="restore that folder to resume the session there, or start a new session",
        )
    return folder.resolve()


def learnt_mode(saved: SavedSession | None, provider: Provider) -> SteeringMode | None:
    """The steering mode a resumed session learnt for this same provider and model."""
    if saved is None or saved.steering is None:
        return None
    name, model, mode = saved.steering
    if (name, model) != (provider.name, provider.model) or mode not in (
        "named",
        "required",
        "auto",
    ):
        return None
    return cast(SteeringMode, mode)


def _resume_path(home: Path, cwd: Path, options: AppOptions) -> Path | None:
    if options.session_id:
        return session_path(home, options.session_id)
    if options.continue_latest:
        latest = latest_session_for(home, cwd)
        if latest is None:
            raise UsageError(
                f"no saved session for {cwd}",
                hint='start one with xcsh -p "TASK", or pick one with --session ID',
            )
        return latest
    return None
