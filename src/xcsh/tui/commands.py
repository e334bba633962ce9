"""Slash commands: their names, help, parsing and completion."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document


@dataclass(frozen=True, kw_only=True)
class SlashCommand:
    """One command: ``/name [args]`` and a line of help."""

    name: str
    args: str
    help: str


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand(name="help", args="", help="list the commands and keys"),
    SlashCommand(name="pending", args="", help="list the pending previews, top first"),
    SlashCommand(name="apply", args="[reason]", help="apply the top pending preview"),
    SlashCommand(name="discard", args="[reason]", help="discard the top pending preview"),
    SlashCommand(
        name="review",
        args="[reason]",
        help="go through the top preview change by change; apply the ones you keep",
    ),
    SlashCommand(name="undo", args="", help="restore the files of the last applied change"),
    SlashCommand(
        name="rewind",
        args="[N]",
        help="go back to before one of your messages: files, conversation or both (Esc Esc)",
    ),
    SlashCommand(name="model", args="[PROVIDER] [NAME]", help="show the model, or switch to NAME"),
    SlashCommand(name="session", args="", help="show the session id and files"),
    SlashCommand(name="compact", args="", help="summarise older turns to free the context"),
    SlashCommand(
        name="instructions", args="", help="list the AGENTS.md files read into the prompt"
    ),
    SlashCommand(name="tools", args="", help="list the tools the model can call"),
    SlashCommand(name="exit", args="", help="leave (the session is saved; --continue resumes)"),
)
ALIASES = {"quit": "exit", "q": "exit"}
NAMES = {c.name for c in COMMANDS}

KEYS_HELP = (
    "Enter sends, Alt+Enter or Esc then Enter adds a line; Ctrl-C cancels the running "
    "turn, twice on an empty prompt leaves; Ctrl-D on an empty prompt leaves; Esc Esc on an "
    "empty prompt rewinds (/rewind)."
)


def parse(text: str) -> tuple[str, str] | None:
    """``"/apply looks right"`` → ``("apply", "looks right")``; ``None`` if not a command.

    The name is lower-cased and aliases are resolved (``/quit`` → ``exit``);
    an unknown name is returned as typed so the caller can say so.
    """
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, rest = stripped[1:].partition(" ")
    name = name.lower()
    return ALIASES.get(name, name), rest.strip()


def complete_name(name: str) -> str | None:
    """``name`` itself when it is a command, else the one command it starts (``ap`` → ``apply``)."""
    if name in NAMES:
        return name
    matches = [c.name for c in COMMANDS if c.name.startswith(name)] if name else []
    return matches[0] if len(matches) == 1 else None


def help_lines() -> list[str]:
    """One line per command, then the keys."""
    width = max(len(f"/{c.name} {c.args}".strip()) for c in COMMANDS)
    lines = [f"  {f'/{c.name} {c.args}'.strip().ljust(width)}  {c.help}" for c in COMMANDS]
    return [*lines, "", KEYS_HELP]


class SlashCompleter(Completer):
    """Completes a command name while the line is ``/`` plus letters (no space yet)."""

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        """Yield each command whose name starts with the letters typed, with its help."""
        text = document.text_before_cursor
        if not text.startswith("/") or " " in text or "\n" in text:
            return
        word = text[1:].lower()
        for command in COMMANDS:
            if command.name.startswith(word):
                yield Completion(
                    f"/{command.name}",
                    start_position=-len(text),
                    display_meta=command.help,
                )
