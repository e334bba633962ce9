"""Helpers for custom-tool tests: real tool files in temporary folders."""

from __future__ import annotations

import textwrap
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "custom_tools"


def write_tool(folder: Path, name: str, source: str) -> Path:
    """Write ``source`` (dedented) to ``folder/name``, creating folders as needed."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")
    return path
