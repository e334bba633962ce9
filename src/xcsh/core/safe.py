r"""Making untrusted text safe to show on a terminal.

Everything xcsh shows comes partly from places it does not control: file
contents and file names in diffs, preview labels written by custom tools,
tool output, the model's text. A terminal obeys control characters, so a raw
``ESC [ 1 A`` in a file could move the cursor up and overwrite the diff line
the user is about to approve, and a newline in a file name could forge a
``+++`` header. This module is the one place that turns such characters into
visible notation; every console made by :func:`xcsh.ui.make_console` runs
its output through it, and the diff builder quotes file names with it.

Notation (as ``cat -v`` for the C0 range):

- C0 controls and DEL become caret notation: ``ESC`` -> ``^[``, ``CR`` -> ``^M``,
  ``BEL`` -> ``^G``, ``DEL`` -> ``^?``;
- C1 controls (U+0080-U+009F, which some terminals obey like ``ESC``) and the
  Unicode bidirectional overrides and isolates (which reorder what is shown,
  "Trojan Source") become ``\x9b`` / ``\u202e`` escapes.

Newline and tab are kept where a caller says so (the default), since they
only lay text out. JSON output never goes through here: it stays exact.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xcsh.core.details import JsonValue

_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_UNSAFE = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{_BIDI}]")


def _notation(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return "^" + chr(code + 0x40)
    if code == 0x7F:
        return "^?"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def visible(text: str, *, keep: str = "\n\t") -> str:
    r"""``text`` with every control character shown as visible notation.

    Args:
        text: any text from outside xcsh (file contents, names, tool or model output).
        keep: control characters to leave as they are; by default newline and tab.
            Pass ``""`` for text that must stay on one line (a file name in a header).

    Returns:
        The same text where it holds no control characters (the common case,
        returned as is); otherwise each one replaced, e.g. ``"a\x1b[2Kb"`` gives
        ``"a^[[2Kb"``.
    """
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _notation(m.group()), text)


def visible_line(text: str) -> str:
    """``text`` made :func:`visible` and kept on one line (newlines shown as ``^J``)."""
    return visible(text, keep="\t")


def has_control(text: str) -> bool:
    """True when ``text`` holds any character :func:`visible` would replace (newline, tab too)."""
    return _UNSAFE.search(text) is not None


def format_arguments(arguments: Mapping[str, JsonValue], width: int) -> str:
    """A tool call's arguments as compact JSON on one line, cut to ``width`` characters.

    The cut ends with ``...``. Control characters come out as JSON escapes.
    """
    text = json.dumps(arguments, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 3] + "..."
