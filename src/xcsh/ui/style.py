"""What a terminal can show (colour, Unicode), decided without loading the renderer."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO


@dataclass(frozen=True)
class TerminalStyle:
    """What the output can show.

    Args:
        color: ANSI colour allowed.
        unicode: non-ASCII symbols allowed.
    """

    color: bool
    unicode: bool


def detect_style(
    stream: IO[str] | None = None, env: Mapping[str, str] | None = None
) -> TerminalStyle:
    """Decide colour and Unicode for ``stream`` (default ``sys.stdout``).

    Unicode needs both a UTF encoding on ``stream`` and a locale that is not
    plainly ASCII-only: the first of ``LC_ALL``, ``LC_CTYPE``, ``LANG`` that is
    set must name a UTF-8 codeset (``C.UTF-8``, ``en_US.UTF-8``); ``C``,
    ``POSIX`` or another codeset gives plain ASCII (contract §6). The locale is
    read from the environment because Python switches its standard streams
    to UTF-8 in the C locale (PEP 538/540) while the terminal stays ASCII.
    With none of the three set, the stream's encoding decides alone.

    Args:
        stream: the output (default ``sys.stdout``).
        env: the environment (default ``os.environ``).
    """
    out = stream if stream is not None else sys.stdout
    environ = os.environ if env is None else env
    isatty = bool(getattr(out, "isatty", lambda: False)())
    color = isatty and "NO_COLOR" not in environ and environ.get("TERM") != "dumb"
    encoding = (getattr(out, "encoding", None) or "ascii").lower().replace("-", "")
    unicode = encoding.startswith("utf") and _locale_allows_unicode(environ) is not False
    return TerminalStyle(color=color, unicode=unicode)


def _locale_allows_unicode(env: Mapping[str, str]) -> bool | None:
    """What the locale says about UTF-8 output; ``None`` when no locale is set."""
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(name, "").strip()
        if not value:
            continue
        codeset = value.partition(".")[2].partition("@")[0]
        return codeset.lower().replace("-", "") == "utf8"
    return None
