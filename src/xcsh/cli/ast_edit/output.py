"""``xcsh ast-edit``'s standard output: the diff, paged when long, or JSON lines.

Also what is left to say once the reader has gone away (``| head``).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from xcsh.cli import stdout_to_devnull
from xcsh.cli.stdout import BlockWriter
from xcsh.structural import EditPreview

if TYPE_CHECKING:  # rich loads with the console given (none for --json)
    from rich.console import Console, RenderableType


class Stdout:
    """Standard output that notices when its reader goes away (``| head``).

    Once a write fails with a broken pipe, file descriptor 1 points at
    /dev/null, :attr:`broken` is set and what is printed afterwards goes to
    stderr instead, so the outcome of an apply is still reported. Without a
    console (``--json``) stdout carries only JSON and messages go to stderr.
    """

    def __init__(self, console: Console | None) -> None:
        self.console = console
        self.broken = False

    def print(self, renderable: RenderableType, *, pager: str | None = None) -> None:
        """Print on stdout; on stderr with ``--json`` (no console) or once stdout is closed.

        With a ``pager`` command, text taller than the terminal (stdout a
        terminal only) is shown through it instead.
        """
        console = self.console
        if console is not None and not self.broken:
            try:
                if pager is not None and console.is_terminal and self._paged(renderable, pager):
                    return
                console.print(renderable)
                return
            except BrokenPipeError:
                self._close()
            except SystemExit:
                # rich handles a broken pipe itself: fd 1 now points at /dev/null
                if not console.quiet:
                    raise
                self.broken = True
        from xcsh.ui import make_console

        make_console(sys.stderr).print(renderable)

    def error(self, renderable: RenderableType) -> None:
        """Print on stderr, whatever stdout is.

        A failure must reach the person even when stdout goes to a file or
        ``/dev/null`` (``--yes > /dev/null``).
        """
        from xcsh.ui import make_console

        make_console(sys.stderr).print(renderable)

    def _paged(self, renderable: RenderableType, pager: str) -> bool:
        from xcsh.cli.pager import page

        assert self.console is not None
        with self.console.capture() as captured:
            self.console.print(renderable)
        text = captured.get()
        if text.count("\n") < self.console.size.height:
            self.console.file.write(text)
            self.console.file.flush()
            return True
        return page(text, pager)

    def write_json(self, preview: EditPreview) -> None:
        """One ``ast-grep run -r --json=stream`` object per replacement of the preview."""
        out = BlockWriter(sys.stdout)  # not one write per line under PYTHONUNBUFFERED
        try:
            for edit in preview.files:
                for line in edit.lines():
                    out.write(line)
            out.flush()
            sys.stdout.flush()
        except BrokenPipeError:
            self._close()

    def _close(self) -> None:
        self.broken = True
        stdout_to_devnull()
