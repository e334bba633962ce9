"""Reading a settings file: ``$XCSH_HOME/settings.toml`` or a project's ``.xcsh/settings.toml``.

The one place a settings file is opened and parsed; what its keys mean is
checked by the settings model (:mod:`xcsh.app.settings`) and the sections
it hands to each part of xcsh.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from xcsh.core import UsageError
from xcsh.fs.text import read_regular_bytes


def read_settings_file(path: Path) -> dict[str, object] | None:
    """The top level of the TOML file at ``path``, or ``None`` when there is no such file.

    Raises:
        UsageError: the file cannot be read, or is not valid TOML (the message
            names the file and the parser's position).
    """
    try:
        return tomllib.loads(read_regular_bytes(path).decode("utf-8"))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(
            f"{path} is not valid TOML: {exc}", hint="fix the file or move it aside"
        ) from exc


__all__ = ["read_settings_file"]
