"""Composition root: settings → provider, tools, session.

Front ends (``xcsh -p``, the terminal UI) call :func:`open_session` and then
talk to the returned :class:`~xcsh.agent.AgentSession` only. Settings come
from command-line flags, then the environment, then
``$XCSH_HOME/settings.toml`` (contract §5a; ``$XCSH_HOME`` defaults to
``~/.xcsh``). Besides the provider keys (see
:mod:`xcsh.providers.config`), ``settings.toml`` may set
``max_forced_turns`` (default 5), ``steering`` (``"forced"``, the default,
or ``"soft"``: remind first, force only when the model ignores the
reminder), ``context_window`` (tokens, for models the built-in table does
not know; older turns are compacted before a request passes 80% of it),
the undo journal's retention, ``journal_max_entries`` (default 200) and
``journal_max_bytes`` (default 512 MiB), the sandbox keys of
:mod:`xcsh.sandbox.policy`, the check keys of :mod:`xcsh.checks.settings`
(:func:`open_checker`), ``index_memory`` (the warm structural index's
trees and answers, default 256 MiB: :func:`open_index`), the ``[approval]``
table of :mod:`xcsh.agent.policy.tools` and the MCP servers to start
(``[mcp_servers.NAME]`` and ``mcp_tools``: :mod:`xcsh.mcpclient.settings`); any
other key is refused
(:data:`KNOWN_SETTINGS`). The file is read once into :class:`Settings`, and
each part of xcsh is handed its typed section.

The session is composed here with the workspace's undo journal
(:func:`open_journal`): interrupted applies are settled first, the built-in
tools write through it, and the apply of every other pending action pushed
on the store (custom tools) is recorded too.
"""

from typing import TYPE_CHECKING

from xcsh.core.lazy import lazy_exports

if TYPE_CHECKING:
    from xcsh.app.checks import open_checker
    from xcsh.app.index import index_memory, open_index
    from xcsh.app.place import learnt_mode, open_journal, session_folder
    from xcsh.app.reading import SettingsReading, read_settings
    from xcsh.app.session import AppOptions, OpenedSession, SessionToolsFactory, open_session
    from xcsh.app.settings import (
        KNOWN_SETTINGS,
        Settings,
        build_provider,
        check_home,
        load_settings,
        switch_provider,
    )
    from xcsh.journal import OpenedJournal

# Each name is imported from its module when first used, so a command that reads only
# the journal's settings (xcsh undo) never loads the providers, the sandbox or the agent.
__getattr__ = lazy_exports(
    __name__,
    {
        "xcsh.app.checks": ("open_checker",),
        "xcsh.app.index": ("index_memory", "open_index"),
        "xcsh.app.reading": ("SettingsReading", "read_settings"),
        "xcsh.app.place": ("learnt_mode", "open_journal", "session_folder"),
        "xcsh.app.session": ("AppOptions", "OpenedSession", "SessionToolsFactory", "open_session"),
        "xcsh.app.settings": (
            "KNOWN_SETTINGS",
            "Settings",
            "build_provider",
            "check_home",
            "load_settings",
            "switch_provider",
        ),
        "xcsh.journal": ("OpenedJournal",),
    },
)

__all__ = [
    "KNOWN_SETTINGS",
    "AppOptions",
    "OpenedJournal",
    "OpenedSession",
    "SessionToolsFactory",
    "Settings",
    "SettingsReading",
    "build_provider",
    "check_home",
    "index_memory",
    "learnt_mode",
    "load_settings",
    "open_checker",
    "open_index",
    "open_journal",
    "open_session",
    "read_settings",
    "session_folder",
    "switch_provider",
]
