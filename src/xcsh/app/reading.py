"""``$XCSH_HOME/settings.toml`` read once, before any of its sections is checked.

A command reads the file once (:func:`read_settings`) and hands each part of
xcsh its section from that one reading: the undo journal its retention
(:meth:`SettingsReading.retention`), everything else the whole checked
model (:meth:`SettingsReading.settings`, :class:`xcsh.app.Settings`). This
module loads only the journal's side, so ``xcsh undo`` does not pay for the
provider and sandbox sections it never reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.core import UsageError
from xcsh.fs import read_settings_file

if TYPE_CHECKING:
    from xcsh.app.settings import Settings
    from xcsh.journal import Retention


@dataclass(frozen=True, kw_only=True)
class SettingsReading:
    """The settings file as read, each section checked only when asked for.

    Attributes:
        home: the ``$XCSH_HOME`` folder the file is in.
        values: the file's top level (empty when there is no file or it could not
            be read).
        problem: why the file could not be read (unreadable, or not valid TOML),
            else ``None``; raised by :meth:`settings`, never by :meth:`retention`.
    """

    home: Path
    values: Mapping[str, object] = field(default_factory=dict)
    problem: UsageError | None = None

    @property
    def path(self) -> Path:
        """The file, ``home/settings.toml`` (named in messages; it need not exist)."""
        return self.home / "settings.toml"

    def settings(self) -> Settings:
        """Every section, checked: what the commands that own the settings file use.

        Raises:
            UsageError: the layout of :attr:`home` is unusable, the file could not be
                read (:attr:`problem`), or a key or value is refused
                (:func:`xcsh.app.load_settings` lists each).
        """
        from xcsh.app.settings import check_home, checked_settings

        check_home(self.home)
        if self.problem is not None:
            raise self.problem
        return checked_settings(self.values, self.path)

    def retention(self) -> Retention:
        """The undo journal's section (``journal_max_entries``, ``journal_max_bytes``).

        Every default when the file could not be read: ``xcsh undo`` and ``rewind``,
        which read no other setting, work on, and the commands that own the file
        report its problem (:meth:`settings`).

        Raises:
            UsageError: a retention value is refused (not a whole number of at least
                0; for ``journal_max_bytes`` nor a size such as ``"512 MiB"``).
        """
        from xcsh.journal import Retention  # the journal loads with the first command using it

        if self.problem is not None:
            return Retention()
        return Retention.from_settings(self.values, self.path)

    def lenient_retention(self) -> tuple[Retention, list[UsageError]]:
        """The journal's section for the commands that give work back (undo, rewind).

        A bad retention value never stands between a user and their files: it is
        replaced by its default, and its problem returned for the command to say.
        Every default when the file could not be read (as :meth:`retention`).
        """
        from xcsh.journal import Retention

        if self.problem is not None:
            return Retention(), []
        return Retention.read_leniently(self.values, self.path)


def read_settings(home: Path) -> SettingsReading:
    """Read ``home/settings.toml`` once; a file that cannot be read is kept as the problem."""
    try:
        values = read_settings_file(home / "settings.toml")
    except UsageError as exc:
        return SettingsReading(home=home, problem=exc)
    return SettingsReading(home=home, values=values or {})


__all__ = ["SettingsReading", "read_settings"]
