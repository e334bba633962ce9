"""Reading a settings file: ``$XCSH_HOME/settings.toml`` or a project's ``.xcsh/settings.toml``.

The one place a settings file is opened and parsed; what its keys mean is
checked by the settings model (:mod:`xcsh.app.settings`) and the sections
it hands to each part of xcsh.
"""

from __future__ import annotations

import codecs
import tomllib
from pathlib import Path

from xcsh.core import UsageError
from xcsh.fs.text import not_utf8_at, read_regular_bytes


def read_settings_file(path: Path) -> dict[str, object] | None:
    """The top level of the TOML file at ``path``, or ``None`` when there is no such file.

    Raises:
        UsageError: the file cannot be read, is not UTF-8 (a leading byte-order
            mark is allowed) or is not valid TOML (the message names the file and
            the position).
    """
    try:
        raw = read_regular_bytes(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        # A byte-order mark (some Windows editors write one) is not part of the TOML.
        body = raw.removeprefix(codecs.BOM_UTF8)
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = not_utf8_at(body, exc)
        raise UsageError(
            f"{path} is not valid UTF-8 (byte 0x{body[exc.start]:02x} at line {line}, "
            f"column {column})",
            hint="save the file as UTF-8 (TOML files are UTF-8) or move it aside",
        ) from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(
            f"{path} is not valid TOML: {exc}", hint="fix the file or move it aside"
        ) from exc


__all__ = ["read_settings_file"]
