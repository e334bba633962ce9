"""Project and user instructions: ``AGENTS.md`` files read into the system prompt.

``AGENTS.md`` is the instructions file several coding agents share. xcsh
reads, in this order: the one at the repository root (the nearest folder
above the working folder holding ``.git``; the working folder itself outside
a repository), one in each folder below it down to the working folder, then
the user's own ``$XCSH_HOME/AGENTS.md``. Later files come later in the
prompt, so the most specific project file is read after the general one and
the user's preferences last.

The text is capped at :data:`MAX_INSTRUCTIONS_CHARS` characters in all; what
does not fit is left out with a note in the prompt, and
:attr:`Instructions.note` tells the user.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xcsh.fs import read_regular_bytes

INSTRUCTIONS_FILE = "AGENTS.md"

MAX_INSTRUCTIONS_CHARS = 32_000
"""Characters of instructions sent at most, over all files (about 8k tokens)."""


@dataclass(frozen=True, kw_only=True)
class InstructionFile:
    """One file read.

    Args:
        path: the file.
        chars: characters of it sent to the model.
        total: characters in the file.
    """

    path: Path
    chars: int
    total: int

    @property
    def cut(self) -> bool:
        """Part of the file was left out (the cap was reached)."""
        return self.chars < self.total


@dataclass(frozen=True, kw_only=True)
class Instructions:
    """The instructions of a session.

    Args:
        text: what goes into the system prompt ("" when there is none).
        files: the files read, in prompt order (a file left out entirely by
            the cap is listed with ``chars=0``).
        unreadable: files found but not readable as UTF-8 text, with why.
    """

    text: str = ""
    files: tuple[InstructionFile, ...] = ()
    unreadable: tuple[str, ...] = ()

    @property
    def note(self) -> str:
        """A sentence for the user when the cap cut something, else ""."""
        cut = [f for f in self.files if f.cut]
        if not cut:
            return ""
        names = ", ".join(str(f.path) for f in cut)
        return (
            f"instructions cut at {MAX_INSTRUCTIONS_CHARS:,} characters: the end of {names} "
            "was left out"
        )


def repository_root(cwd: Path) -> Path:
    """The nearest folder from ``cwd`` up that holds ``.git``, else ``cwd``."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def instruction_paths(cwd: Path, home: Path) -> list[Path]:
    """The ``AGENTS.md`` files that exist, in prompt order (see the module docstring)."""
    cwd = cwd.resolve()
    root = repository_root(cwd)
    folders = [cwd, *cwd.parents]
    chain = list(reversed(folders[: folders.index(root) + 1]))
    found = [folder / INSTRUCTIONS_FILE for folder in chain]
    found.append(home / INSTRUCTIONS_FILE)
    seen: set[Path] = set()
    paths = []
    for path in found:
        real = path.resolve()
        if path.is_file() and real not in seen:
            seen.add(real)
            paths.append(path)
    return paths


def load_instructions(
    cwd: Path, home: Path, *, limit: int = MAX_INSTRUCTIONS_CHARS
) -> Instructions:
    """Read the instructions for a session in ``cwd``; never raises for a bad file.

    Each file becomes a section headed ``Instructions from <path>:``. Files
    that cannot be read (permissions, not UTF-8) are skipped and listed in
    :attr:`Instructions.unreadable`.
    """
    sections: list[str] = []
    files: list[InstructionFile] = []
    unreadable: list[str] = []
    left = limit
    for path in instruction_paths(cwd, home):
        try:
            body = read_regular_bytes(path).decode("utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            unreadable.append(f"{path}: {why}")
            continue
        if not body:
            continue
        taken = body[: max(left, 0)]
        left -= len(taken)
        files.append(InstructionFile(path=path, chars=len(taken), total=len(body)))
        if taken:
            section = f"Instructions from {path}:\n{taken}"
            if len(taken) < len(body):
                section += (
                    f"\n[xcsh: instructions are capped at {limit:,} characters; the rest "
                    "of this file and any later ones were left out]"
                )
            sections.append(section)
    return Instructions(
        text="\n\n".join(sections), files=tuple(files), unreadable=tuple(unreadable)
    )
