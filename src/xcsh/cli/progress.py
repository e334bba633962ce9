"""Whether a person watches, and the progress bar of a long scan (on stderr, on a terminal)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

from xcsh.ui import detect_style

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

PROGRESS_MIN_FILES = 200
"""A progress bar is shown (on a terminal only) when a scan covers this many files."""


def stderr_is_terminal() -> bool:
    """True when stderr is a terminal (progress bars go there)."""
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


def is_interactive(stdin: TextIO | None = None, stdout: TextIO | None = None) -> bool:
    """True when a question can be asked: stdin and stdout are both terminals."""
    inp = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    return bool(inp is not None and inp.isatty() and out is not None and out.isatty())


class ScanProgress:
    """A progress bar on stderr for scans of many files; silent otherwise.

    Use :meth:`callback` as the engine's ``progress(files_done, files_total)``.
    The bar appears only when stderr is a terminal (without colour under
    ``NO_COLOR``), and only once ``files_total`` reaches
    :data:`PROGRESS_MIN_FILES`. It is transient: it disappears when done.
    """

    def __init__(self, description: str, *, enabled: bool | None = None) -> None:
        self._description = description
        self._enabled = stderr_is_terminal() if enabled is None else enabled
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def callback(self, done: int, total: int) -> None:
        """Advance the bar to ``done`` of ``total`` files."""
        if not self._enabled or total < PROGRESS_MIN_FILES:
            return
        if self._progress is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            style = detect_style(sys.stderr)
            console = Console(file=sys.stderr, no_color=not style.color)
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("files"),
                TimeElapsedColumn(),
                console=console,
                transient=True,
                # on a shared screen, output printed meanwhile goes above the bar
                redirect_stdout=bool(sys.stdout.isatty()),
                redirect_stderr=False,
            )
            self._progress.start()
            self._task = self._progress.add_task(self._description, total=total)
        assert self._task is not None
        self._progress.update(self._task, completed=done)

    def close(self) -> None:
        """Remove the bar, if one was drawn."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def stop_for_output(self) -> None:
        """Remove the bar for good before the first line of output.

        The matches printed from then on show the scan's progress themselves;
        a bar redrawn between them would be glued to, or overwrite, a line.
        """
        self.close()
        self._enabled = False


@contextmanager
def scan_progress(description: str) -> Iterator[ScanProgress]:
    """A :class:`ScanProgress` that is always closed."""
    bar = ScanProgress(description)
    try:
        yield bar
    finally:
        bar.close()
