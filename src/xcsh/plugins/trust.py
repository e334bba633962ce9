"""Which project folders may run their own custom tools (contract §5, §5a).

Project-local tools (``<project>/.xcsh/tools/``) are code from the repository
being edited, so they load only for a folder the user trusts. Trust is
recorded per folder (its real path, symlinks resolved; a trusted folder does
not make its sub-folders trusted) *and* the fingerprint of what its
``.xcsh/tools/`` held when it was trusted (:func:`tools_fingerprint`), in
``$XCSH_HOME/trusted.json``::

    {"version": 1,
     "folders": [{"path": "/home/me/repo", "trusted_at": "2026-11-29T22:50:00+00:00",
                  "fingerprint": "sha256:..."}]}

When the tools change (a pull, a different checkout at the same path), the
fingerprint no longer matches and the folder counts as untrusted until the
user trusts it again, as ``direnv`` does for ``.envrc``. A record without a
fingerprint (written before fingerprints existed) is asked about again too.

Three ways to trust: ``xcsh trust [PATH]`` (recorded), ``--trust-project``
(this run only: the loader's ``trust_project=True``), or answering the
question an interactive front end asks through :func:`ask_trust`.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import shlex
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pydantic
from pydantic import JsonValue

from xcsh.core import UsageError
from xcsh.core.json_read import loads as bounded_json
from xcsh.fs import read_regular_bytes, read_settings_file, xcsh_home
from xcsh.plugins.discovery import project_tool_candidates, project_tools_dir

TRUST_FILE_NAME = "trusted.json"
TRUST_SCHEMA_VERSION = 1


def trust_file(home: str | Path | None = None) -> Path:
    """Where trust records live: ``<home>/trusted.json``."""
    return xcsh_home(home) / TRUST_FILE_NAME


def _real(path: str | Path) -> str:
    return os.path.realpath(os.path.expanduser(os.fspath(path)))


@dataclass(frozen=True, kw_only=True)
class TrustRecord:
    """One trusted folder.

    Args:
        path: the folder's real path.
        trusted_at: when it was trusted, ISO 8601 in UTC.
        fingerprint: :func:`tools_fingerprint` of its tools then (``""`` when unknown).
    """

    path: str
    trusted_at: str
    fingerprint: str = ""


def tools_fingerprint(folder: str | Path) -> str:
    """``sha256:<hex>`` of the code in ``folder``'s ``.xcsh/``: tools and settings.

    That is every file under ``.xcsh/tools/`` (names and bytes), and
    ``.xcsh/settings.toml`` when there is one (its ``check`` runs code too).

    Files are taken in sorted order of their relative paths, compiled code
    (``__pycache__/*.pyc``) included: bytecode planted there is code too, so it
    makes the folder untrusted again. xcsh itself never writes bytecode there
    (:mod:`xcsh.plugins.importer`). A folder without tools has the fingerprint
    of nothing.
    """
    root = project_tools_dir(folder)
    digest = hashlib.sha256()
    files: list[tuple[str, Path]] = []
    for current, dirs, names in os.walk(root):
        dirs.sort()
        for name in names:
            path = Path(current) / name
            files.append((path.relative_to(root).as_posix(), path))
    for relative, path in sorted(files):
        digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
        try:
            data = read_regular_bytes(path)
        except OSError:
            data = b"\0unreadable"
        digest.update(len(data).to_bytes(8, "big") + data)
    settings = Path(folder) / ".xcsh" / "settings.toml"
    if settings.is_file():
        # after the tools, under a name no file of the tools folder can have
        digest.update(b"\0project settings\0" + read_regular_bytes(settings))
    return f"sha256:{digest.hexdigest()}"


class _TrustEntry(pydantic.BaseModel):
    """One folder of the trust file as written (other keys are ignored)."""

    path: pydantic.StrictStr
    trusted_at: JsonValue = ""
    fingerprint: JsonValue = ""


class _TrustFile(pydantic.BaseModel):
    """The trust file: its ``version`` and its ``folders``.

    An entry without a text ``path`` is left out, as is every entry when ``folders``
    is not a list.
    """

    version: JsonValue = None
    folders: JsonValue = []

    def entries(self) -> list[_TrustEntry]:
        """The folders whose entry names a ``path``, in order."""
        found: list[_TrustEntry] = []
        for entry in self.folders if isinstance(self.folders, list) else ():
            try:
                found.append(_TrustEntry.model_validate(entry))
            except pydantic.ValidationError:
                continue
        return found


def trusted_folders(home: str | Path | None = None) -> list[TrustRecord]:
    """Every trusted folder, in the order they were trusted.

    Raises:
        UsageError: the trust file exists but is not valid JSON of a known
            schema version; the hint says how to repair it (nothing is overwritten).
    """
    path = trust_file(home)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise UsageError(f"Cannot read {path}: {exc.strerror}.") from exc
    hint = f"fix or delete {path}; then run 'xcsh trust PATH' again for the folders you trust"
    try:
        parsed: object = bounded_json(raw)
    except json.JSONDecodeError as exc:
        message = f"{path} is not valid JSON ({exc.msg}, line {exc.lineno})."
        raise UsageError(message, hint=hint) from exc
    try:
        data = _TrustFile.model_validate(parsed)
    except pydantic.ValidationError:
        data = None
    if data is None or data.version != TRUST_SCHEMA_VERSION:
        raise UsageError(
            f"{path} has an unknown format (expected version {TRUST_SCHEMA_VERSION}).", hint=hint
        )
    records: list[TrustRecord] = []
    for entry in data.entries():
        records.append(
            TrustRecord(
                path=entry.path,
                trusted_at=str(entry.trusted_at),
                fingerprint=str(entry.fingerprint),
            )
        )
    return records


def _write(records: list[TrustRecord], home: str | Path | None) -> None:
    path = trust_file(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "version": TRUST_SCHEMA_VERSION,
        "folders": [
            {"path": r.path, "trusted_at": r.trusted_at, "fingerprint": r.fingerprint}
            for r in records
        ],
    }
    fd, tmp = tempfile.mkstemp(prefix=".trusted-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, indent=2)
            handle.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def trust_state(folder: str | Path, home: str | Path | None = None) -> str:
    """``"trusted"``, ``"changed"`` (trusted, but its tools changed since) or ``"untrusted"``.

    Raises:
        UsageError: the trust file is unreadable or malformed.
    """
    real = _real(folder)
    records = [record for record in trusted_folders(home) if record.path == real]
    if not records:
        return "untrusted"
    current = tools_fingerprint(real)
    return "trusted" if any(r.fingerprint == current for r in records) else "changed"


def is_trusted(folder: str | Path, home: str | Path | None = None) -> bool:
    """True when ``folder`` (by real path) is trusted and its tools are unchanged.

    That is, it was trusted with :func:`trust_folder` and its ``.xcsh/tools/`` still
    holds what it held then (:func:`tools_fingerprint`).

    Raises:
        UsageError: the trust file is unreadable or malformed.
    """
    return trust_state(folder, home) == "trusted"


def trust_folder(folder: str | Path, home: str | Path | None = None) -> Path:
    """Record ``folder`` as trusted with the current fingerprint of its tools.

    Trusting it again is harmless; after its tools changed, it records the new fingerprint.

    Returns:
        The folder's real path as recorded.

    Raises:
        UsageError: ``folder`` is not an existing directory, or the trust file is malformed.
    """
    real = Path(_real(folder))
    if not real.is_dir():
        raise UsageError(f"Cannot trust {folder}: not a folder.", hint="pass an existing folder")
    records = trusted_folders(home)
    fingerprint = tools_fingerprint(real)
    if not any(r.path == str(real) and r.fingerprint == fingerprint for r in records):
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        kept = [record for record in records if record.path != str(real)]
        kept.append(TrustRecord(path=str(real), trusted_at=stamp, fingerprint=fingerprint))
        _write(kept, home)
    return real


def untrust_folder(folder: str | Path, home: str | Path | None = None) -> bool:
    """Forget the trust of ``folder``.

    Returns:
        True when a record was removed, False when it was not trusted.

    Raises:
        UsageError: the trust file is malformed.
    """
    real = _real(folder)
    records = trusted_folders(home)
    kept = [record for record in records if record.path != real]
    if len(kept) == len(records):
        return False
    _write(kept, home)
    return True


def how_to_trust(folder: str | Path) -> str:
    """The sentence telling the user how to trust ``folder``."""
    return (
        f"To load them, run 'xcsh trust {shlex.quote(str(folder))}' (remembered), "
        "or pass --trust-project (this run only)."
    )


def untrusted_message(
    folder: str | Path, tools_dir: str | Path, *, home: str | Path | None = None
) -> str:
    """The notice shown when a project's tools were skipped because it is not trusted.

    It is shown too when its tools changed since it was trusted.
    """
    try:
        changed = trust_state(folder, home) == "changed"
    except UsageError:
        changed = False
    if changed:
        return (
            f"Project tools in {tools_dir} were not loaded: they changed since you trusted "
            f"{folder} (custom tools are code from the repository, so changed tools need "
            f"trust again). {how_to_trust(folder)}"
        )
    return (
        f"Project tools in {tools_dir} were not loaded: the folder {folder} is not trusted "
        f"(custom tools are code from the repository). {how_to_trust(folder)}"
    )


PromptFunction = Callable[[str], bool | str]
"""``prompt(question) -> answer``: ``True``/``"y"``/``"yes"``/``"a"``/``"always"`` trust
and remember; ``"o"``/``"once"`` trust for this run only; anything else refuses."""

AsyncPromptFunction = Callable[[str], Awaitable[bool | str] | bool | str]
"""Like :data:`PromptFunction`, but may return an awaitable (``prompt_toolkit``'s
``PromptSession.prompt_async``)."""


def trust_question(folder: str | Path, tools_dir: str | Path, *, changed: bool = False) -> str:
    """The question an interactive front end shows before loading project tools."""
    what = (
        "changed since you trusted it: its custom tools are"
        if changed
        else "contains custom tools:"
    )
    return (
        f"{tools_dir} {what} Python code from this repository that "
        f"xcsh would run.\nTrust {folder}? [y]es, always / [o]nce, this run only / [N]o"
    )


def servers_question(folder: str | Path, settings: str | Path, *, changed: bool = False) -> str:
    """The question an interactive front end shows before starting a project's MCP servers."""
    what = "changed since you trusted it: it starts" if changed else "starts"
    return (
        f"{settings} {what} MCP servers: programs this repository names that xcsh would "
        f"run.\nTrust {folder}? [y]es, always / [o]nce, this run only / [N]o"
    )


def declares_servers(folder: str | Path) -> bool:
    """Whether ``folder``'s ``.xcsh/settings.toml`` has ``[mcp_servers]`` (unreadable: no)."""
    try:
        values = read_settings_file(Path(folder) / ".xcsh" / "settings.toml")
    except UsageError:
        return False
    return bool(values) and "mcp_servers" in (values or {})


def _question(folder: str | Path, home: str | Path | None) -> str:
    changed = trust_state(folder, home) == "changed"
    if not project_tool_candidates(folder, home=home):
        settings = Path(_real(folder)) / ".xcsh" / "settings.toml"
        return servers_question(_real(folder), settings, changed=changed)
    return trust_question(_real(folder), project_tools_dir(folder), changed=changed)


def _needs_asking(folder: str | Path, home: str | Path | None) -> bool | None:
    """``True``/``False``: decided without asking; ``None``: ask."""
    if is_trusted(folder, home):
        return True
    if not project_tool_candidates(folder, home=home) and not declares_servers(folder):
        return False
    return None


def _decide(folder: str | Path, answer: bool | str, home: str | Path | None) -> bool:
    if answer is True:
        choice = "always"
    elif isinstance(answer, str):
        choice = answer.strip().lower()
    else:
        choice = "no"
    if choice in ("y", "yes", "a", "always"):
        trust_folder(folder, home)
        return True
    return choice in ("o", "once")


def ask_trust(
    folder: str | Path,
    prompt: PromptFunction,
    *,
    home: str | Path | None = None,
) -> bool:
    """Decide, asking the user at most once, whether this run loads ``folder``'s tools.

    Front ends call it before :func:`xcsh.plugins.load_custom_tools` and pass the
    answer as ``trust_project``. The user is asked only when the folder has
    project tools (:func:`xcsh.plugins.discovery.project_tool_candidates`) or its
    settings start MCP servers (:func:`declares_servers`), and it is not trusted at
    their current fingerprint; "yes" is recorded (not asked again
    until the tools change), "once" is not.

    Args:
        folder: the project folder (the session's working folder).
        prompt: shows the question and returns the answer (see :data:`PromptFunction`).
            It may raise ``EOFError``/``KeyboardInterrupt``, which count as "no".
        home: the user-state folder (default ``$XCSH_HOME``).

    Returns:
        True when the project's tools should load in this run.

    Raises:
        UsageError: the trust file is malformed.
    """
    decided = _needs_asking(folder, home)
    if decided is not None:
        return decided
    try:
        answer = prompt(_question(folder, home))
    except (EOFError, KeyboardInterrupt):
        return False
    return _decide(folder, answer, home)


async def aask_trust(
    folder: str | Path,
    prompt: AsyncPromptFunction,
    *,
    home: str | Path | None = None,
) -> bool:
    """:func:`ask_trust` for async front ends: ``prompt`` may be a coroutine function."""
    decided = _needs_asking(folder, home)
    if decided is not None:
        return decided
    try:
        answer = prompt(_question(folder, home))
        if inspect.isawaitable(answer):
            answer = await answer
    except (EOFError, KeyboardInterrupt):
        return False
    return _decide(folder, answer, home)
