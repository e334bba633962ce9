"""``bash`` with ``preview: true``: the command runs on a staged overlay, its changes are pushed.

What the command would create, change or delete becomes a pending action built
on :func:`~xcsh.journal.file_changes_action` (one change id per file, a diff per
file, created, deleted, mode and symlink changes said): ``resolve`` applies it
through the undo journal (``only`` by file or id), refuses a file changed since
as stale and previews the command again, and runs the project's check on the
parts kept when asked. The command's output is in the result as for any call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from xcsh.checks import Checker
from xcsh.core import AgentToolResult, TextContent
from xcsh.core.safe import visible_line
from xcsh.core.wording import plural
from xcsh.journal import Journal, file_changes_action
from xcsh.pending import CheckVerdict, PendingAction, PendingActionStore, RebuiltAction
from xcsh.sandbox import ProcessSupervisor
from xcsh.tools.coding.bash_preview import CommandPreview, preview_command

DIFF_SHOWN = 16 * 1024
"""Characters of a preview's diff the model reads (the terminal shows it whole)."""


@dataclass(frozen=True, kw_only=True)
class Previewer:
    """What a command preview is made with.

    Args:
        root: the workspace.
        home: ``$XCSH_HOME`` (staged trees live in its ``tmp``).
        store: the session's pending actions.
        journal: the undo journal an apply is recorded in.
        checker: the project's check (``check: true``), or ``None``.
        supervisor: runs the command.
        network: whether the command may use the network.
    """

    root: Path
    home: Path
    store: PendingActionStore
    journal: Journal | None
    checker: Checker | None
    supervisor: ProcessSupervisor
    network: bool = True

    async def run(
        self,
        command: str,
        *,
        env: Mapping[str, str],
        timeout: float,
        on_output: Callable[[bytes], None],
        check: bool,
    ) -> tuple[CommandPreview, PendingAction | None]:
        """Preview ``command``; push its action when it would change a file.

        Returns:
            The preview and the action as pushed (``None``: nothing to change).
        """
        found = await self._preview(command, env=env, timeout=timeout, on_output=on_output)
        action = await self.action(command, found, env=env, timeout=timeout, check=check)
        if action is None:
            return found, None
        return found, self.store.push(action)

    async def _preview(
        self,
        command: str,
        *,
        env: Mapping[str, str],
        timeout: float,
        on_output: Callable[[bytes], None],
    ) -> CommandPreview:
        return await preview_command(
            command,
            root=self.root,
            home=self.home,
            supervisor=self.supervisor,
            env=env,
            timeout=timeout,
            on_output=on_output,
            network=self.network,
        )

    async def action(
        self,
        command: str,
        found: CommandPreview,
        *,
        env: Mapping[str, str],
        timeout: float,
        check: bool,
    ) -> PendingAction | None:
        """The pending action proposing ``found``'s changes (not pushed), checked when asked."""
        if not found.changes:
            return None

        async def recompute() -> RebuiltAction | None:
            again = await self._preview(
                command, env=env, timeout=timeout, on_output=lambda _chunk: None
            )
            rebuilt = await self.action(command, again, env=env, timeout=timeout, check=False)
            if rebuilt is None:
                return None
            return RebuiltAction(action=rebuilt, text=summary_text(rebuilt, again))

        checker = self.checker
        modes = {c.path: c.after_mode for c in found.changes if c.after_mode is not None}

        async def check_files(files: Mapping[str, bytes | None]) -> CheckVerdict:
            assert checker is not None
            return await checker.check(files, modes={p: modes[p] for p in files if p in modes})

        action = file_changes_action(
            self.store,
            self.root,
            found.changes,
            label=f"Command: {command} ({plural(len(found.changes), 'file')})",
            source_tool_name="bash",
            journal=self.journal,
            recompute=recompute,
            check=check_files if checker is not None else None,
        )
        if check and checker is not None:
            verdict, _note = await checker.review(
                {c.path: c.after for c in found.changes}, asked=True, modes=modes
            )
            if verdict is not None:
                preview = dataclasses.replace(action.preview, check=verdict)
                action = dataclasses.replace(action, preview=preview)
        return action


def summary_text(action: PendingAction | None, found: CommandPreview) -> str:
    """What the model reads after the command's output: the files, their ids, the diff."""
    ignored = (
        f" ({plural(found.ignored, 'ignored path')} it touched not proposed)"
        if found.ignored
        else ""
    )
    if action is None:
        return (
            f"Preview: the command would change no file in the workspace{ignored}; "
            "nothing to apply."
        )
    preview = action.preview
    lines = [
        f"Preview {preview.id or '(not pushed)'}: {action.label}{ignored}. "
        "Nothing has changed yet; the command ran on a staged copy of the workspace."
    ]
    lines += [f"  {c.id} {visible_line(c.file)}: {c.summary}" for c in preview.changes]
    diff = preview.diff
    if len(diff) > DIFF_SHOWN:
        diff = (
            diff[:DIFF_SHOWN]
            + f"\n[... {len(preview.diff) - DIFF_SHOWN} more characters of diff]\n"
        )
    if diff:
        lines.append(diff.rstrip("\n"))
    if preview.check is not None:
        lines.append(preview.check.text())
    lines.append(
        f"This is preview {preview.id}: resolve it with apply or discard; to apply some files "
        "only, give resolve `only` with their ids or paths."
    )
    return "\n".join(lines)


def preview_result(text: str) -> AgentToolResult:
    """A plain result holding ``text``."""
    return AgentToolResult(content=[TextContent(text)])


__all__ = ["DIFF_SHOWN", "Previewer", "preview_result", "summary_text"]
