"""Rendering of previews and resolved actions with rich (contract §6).

Colour follows the terminal: none when the output is not a terminal or
``NO_COLOR`` is set (https://no-color.org); plain ASCII symbols when the
output's encoding or the locale (``LC_ALL``/``LC_CTYPE``/``LANG``) cannot
carry Unicode.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TextIO

from rich.console import (
    Console,
    ConsoleOptions,
    Group,
    JustifyMethod,
    OverflowMethod,
    RenderableType,
)
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from xcsh.core.safe import visible
from xcsh.ui.style import TerminalStyle, detect_style

if TYPE_CHECKING:
    from xcsh.pending import CheckVerdict, ResolveOutcome


class SafeConsole(Console):
    """A rich console that never writes a control character it did not make itself.

    Text handed to :meth:`print` as a string is made :func:`~xcsh.core.safe.visible`
    before rich parses it (rich would silently drop a carriage return), and
    every segment of text is made visible again just before it is written, so
    a renderable built anywhere (a ``Text``, a table cell) cannot carry an
    escape sequence to the terminal. Rich's own styling and cursor control
    are added after that step and are unaffected.
    """

    def render_str(
        self,
        text: str,
        *,
        style: str | Style = "",
        justify: JustifyMethod | None = None,
        overflow: OverflowMethod | None = None,
        emoji: bool | None = None,
        markup: bool | None = None,
        highlight: bool | None = None,
        highlighter: Callable[[str | Text], Text] | None = None,
    ) -> Text:
        """Rich's :meth:`~rich.console.Console.render_str` of ``text`` made visible first."""
        return super().render_str(
            visible(text),
            style=style,
            justify=justify,
            overflow=overflow,
            emoji=emoji,
            markup=markup,
            highlight=highlight,
            highlighter=highlighter,
        )

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(
            segment if segment.control else Segment(visible(segment.text), segment.style)
            for segment in buffer
        )


def make_console(stream: TextIO | None = None, style: TerminalStyle | None = None) -> Console:
    """A :class:`SafeConsole` for ``stream`` that honours :func:`detect_style`."""
    chosen = style if style is not None else detect_style(stream)
    return SafeConsole(
        file=stream,
        no_color=not chosen.color,
        color_system="auto" if chosen.color else None,
        force_terminal=chosen.color,
        highlight=False,
        emoji=False,
        safe_box=not chosen.unicode,
        soft_wrap=True,
    )


def split_label(label: str, source_tool_name: str) -> tuple[str, str]:
    """Split a pending action's label into ``(badge, summary)``.

    ``"AST Edit: 2 replacements in 1 file"`` gives ``("AST Edit", "2 replacements
    in 1 file")``; a label without ``": "`` gives ``(source_tool_name, label)``.
    """
    head, sep, tail = label.partition(": ")
    if sep and head and tail:
        return head, tail
    return source_tool_name, label


@dataclass(frozen=True)
class _Symbols:
    """The marks in front of a block: an applied, discarded, failed or waiting thing."""

    apply: str
    discard: str
    error: str
    pending: str

    def of(self, kind: SymbolKind) -> str:
        """The mark of a check verdict's ``kind``."""
        if kind == "apply":
            return self.apply
        return self.error if kind == "error" else self.pending


SymbolKind = Literal["apply", "error", "pending"]
"""The marks a check verdict may take."""

_SYMBOLS = {
    True: _Symbols(apply="✔", discard="✖", error="✘", pending="◆"),
    False: _Symbols(apply="+", discard="-", error="x", pending="*"),
}


def render_resolution(
    outcome: ResolveOutcome,
    *,
    is_error: bool = False,
    message: str | None = None,
    style: TerminalStyle,
) -> RenderableType:
    """The compact block for a resolved action (contract §6).

    Args:
        outcome: the ``resolve`` result's details.
        is_error: the resolution failed; drawn in red with ``message``.
        message: the result text, shown only for failures.
        style: what the terminal can show.

    Returns:
        A rich renderable: header ``Accept: <summary>`` (green) or
        ``Discard: <summary>`` (yellow) with the source badge, then the reason.
    """
    action = outcome.action
    badge, summary = split_label(visible(outcome.label), visible(outcome.badge))
    if outcome.dropped and action == "apply":  # head a partial apply with what it applied
        total = len(outcome.applied) + len(outcome.dropped)
        files = len({c.file for c in outcome.applied if c.file})
        summary = f"{len(outcome.applied)} of {total} changes" + (
            f" in {files} file{'' if files == 1 else 's'}" if files else ""
        )
    symbols = _SYMBOLS[style.unicode]
    verb = "Accept" if action == "apply" else "Discard"
    color = "red" if is_error else ("green" if action == "apply" else "yellow")
    symbol = (
        symbols.error if is_error else (symbols.apply if action == "apply" else symbols.discard)
    )
    header = Text()
    header.append(f"{symbol} {verb}: {summary}", style=f"bold {color}")
    header.append("  ")
    header.append(f"[{badge}]", style="reverse" if style.color else "")
    lines: list[RenderableType] = [header]
    reason = visible(outcome.reason)
    if outcome.dropped:
        applied = ", ".join(visible(c.id) for c in outcome.applied)
        dropped = ", ".join(visible(c.id) for c in outcome.dropped)
        lines.append(
            Text(
                f"  applied {len(outcome.applied)} of "
                f"{len(outcome.applied) + len(outcome.dropped)} changes: {applied}; "
                f"discarded: {dropped}",
            )
        )
    if reason:
        lines.append(Text(f"  reason: {reason}", style="dim"))
    if is_error and message:
        lines.append(Text(f"  {visible(message)}", style="red"))
    return Group(*lines)


_DIFF_STYLES = (("+++", "bold"), ("---", "bold"), ("+", "green"), ("-", "red"), ("@@", "cyan"))


def _diff_lines(diff_text: str) -> list[str]:
    r"""The lines of a unified diff as they are shown.

    Split on ``\n`` only, each with its line break (the last one as it was),
    control characters other than tab visible.
    """
    rows = diff_text.split("\n")
    lines = []
    for index, raw in enumerate(rows):
        last = index == len(rows) - 1
        if last and not raw:
            break
        lines.append(visible(raw, keep="\t") + ("" if last else "\n"))
    return lines


def render_diff(diff_text: str) -> Text:
    r"""Colour a unified diff: additions green, removals red, hunk headers cyan.

    Lines are split on ``\n`` only; any other control character in a line
    (a carriage return, an escape sequence) is shown in visible notation, so
    file contents cannot move the cursor or redraw another line of the diff.
    """
    out = Text()
    for line in _diff_lines(diff_text):
        style = next((style for head, style in _DIFF_STYLES if line.startswith(head)), None)
        out.append(line, style=style)
    return out


class PlainDiff:
    """A unified diff printed as it is, for output without colour.

    For a pipe, a file or ``NO_COLOR``: the lines of :func:`render_diff` (control
    characters visible) in one segment, tabs kept, so the diff applies with
    ``patch``/``git apply``.

    rich would lay out each line (its ``Text`` turns tabs into spaces) at about
    40 µs a line: 8 s for a diff of 200,000 lines, which this prints in
    milliseconds.
    """

    def __init__(self, diff_text: str) -> None:
        self.text = "".join(_diff_lines(diff_text))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterable[Segment]:
        yield Segment(self.text if self.text.endswith("\n") else self.text + "\n")


PREVIEW_MAX_LINES = 200
"""A preview shows at most this many lines of its diff on the terminal."""

PREVIEW_MAX_LINE_CHARS = 500
"""Longer diff lines are cut to this many characters on the terminal."""


def bound_preview(
    diff_text: str,
    max_lines: int | None = PREVIEW_MAX_LINES,
    max_chars: int | None = PREVIEW_MAX_LINE_CHARS,
) -> str:
    """``diff_text`` cut for the terminal.

    At most ``max_lines`` lines of at most ``max_chars`` characters each, ending
    with a note of how many lines were left out. ``None`` lifts that bound
    (``None`` for both returns ``diff_text`` unchanged).
    """
    lines = diff_text.splitlines(keepends=True)
    shown = []
    for line in lines if max_lines is None else lines[:max_lines]:
        if max_chars is not None and len(line) > max_chars:
            body = line.rstrip("\r\n")
            line = f"{body[:max_chars]}... ({len(body) - max_chars} more characters)\n"
        shown.append(line)
    rest = len(lines) - len(shown)
    if rest:
        if shown and not shown[-1].endswith("\n"):
            shown[-1] += "\n"
        shown.append(f"... {rest} more line{'s' if rest != 1 else ''} not shown\n")
    return "".join(shown)


def render_preview(
    label: str,
    diff_text: str,
    *,
    style: TerminalStyle,
    max_lines: int | None = PREVIEW_MAX_LINES,
    max_line_chars: int | None = PREVIEW_MAX_LINE_CHARS,
    pending: bool = True,
    check: CheckVerdict | None = None,
) -> RenderableType:
    """A preview: its label, diff, check verdict and (when ``pending``) how to resolve it.

    The verdict of its ``check`` is shown when it was checked.

    The diff is bounded by :func:`bound_preview` with ``max_lines`` and
    ``max_line_chars`` (the defaults suit the agent's screen); pass ``None``
    to show all of it, as ``xcsh ast-edit`` does before asking to apply it.
    ``pending=False`` leaves out the "apply or discard" footer, for a preview
    that nothing waits on (``xcsh ast-edit --dry-run``, or without a terminal).
    """
    symbol = _SYMBOLS[style.unicode].pending
    header = Text(f"{symbol} Preview: {visible(label, keep='')}", style="bold magenta")
    bounded = bound_preview(diff_text, max_lines, max_line_chars)
    diff = render_diff(bounded) if style.color else PlainDiff(bounded)
    parts: list[RenderableType] = [header, diff]
    if check is not None:
        parts.append(render_check(check, style=style))
    if pending:
        parts.append(Text("  pending: apply or discard to continue", style="dim"))
    return Group(*parts)


_CHECK_LOOK: dict[str, tuple[SymbolKind, str]] = {
    "passes": ("apply", "green"),
    "newly_fails": ("error", "red"),
    "fails_before_and_after": ("pending", "yellow"),
    "timed_out": ("error", "red"),
    "not_run": ("pending", "yellow"),
    "not_checked": ("pending", "yellow"),
}


def render_check(verdict: CheckVerdict, *, style: TerminalStyle, tail_lines: int = 10) -> Text:
    """The verdict of a preview's check, one coloured line (``✔ check passes: ...``).

    For a failing or timed-out check, then the last ``tail_lines`` of its output
    and where the whole output is.
    """
    symbol_name, color = _CHECK_LOOK[verdict.status]
    symbol = _SYMBOLS[style.unicode].of(symbol_name)
    where = f"{verdict.staging}, " if verdict.staging else ""
    text = Text()
    text.append(f"{symbol} check {verdict.words}", style=f"bold {color}")
    text.append(f": {visible(verdict.command, keep='')} ({where}{verdict.seconds:.1f} s)")
    if verdict.status == "passes" and not verdict.before_passed:
        text.append(" (it failed before the change)", style="dim")
    if verdict.new_failures:
        text.append("\n  newly failing: " + visible("; ".join(verdict.new_failures), keep=""))
    if verdict.status == "fails_before_and_after":
        text.append("\n  nothing new fails", style="dim")
        if verdict.changed:
            text.append("; new in its output: " + visible(" | ".join(verdict.changed[:3]), keep=""))
    if verdict.reason:
        text.append(f"\n  {visible(verdict.reason, keep='')}", style="dim")
    if verdict.status in ("newly_fails", "fails_before_and_after", "timed_out"):
        for line in verdict.output_tail.splitlines()[-tail_lines:]:
            text.append("\n  │ " if style.unicode else "\n  | ", style="dim")
            text.append(visible(line, keep=""), style="dim")
        if verdict.log:
            text.append(f"\n  whole output: {visible(verdict.log, keep='')}", style="dim")
    return text
