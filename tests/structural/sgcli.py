"""Running the real ast-grep CLI from the structural tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def ast_grep_binary() -> str:
    """The ``ast-grep`` binary installed next to this interpreter (PyPI ast-grep-cli)."""
    candidate = Path(sys.executable).parent / "ast-grep"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("ast-grep")
    if found is None:  # pragma: no cover - the dev install always has it
        pytest.fail("the ast-grep CLI (ast-grep-cli) is not installed")
    return found


def cli_json(cwd: Path, *args: str) -> list[dict[str, Any]]:
    """Run ``ast-grep run --json=stream ARGS`` in ``cwd`` and parse its objects."""
    proc = subprocess.run(
        [ast_grep_binary(), "run", "--json=stream", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def cli_rewrite(cwd: Path, *args: str) -> None:
    """Run ``ast-grep run ARGS -U`` in ``cwd`` (rewrites files in place)."""
    subprocess.run(
        [ast_grep_binary(), "run", *args, "-U"],
        cwd=cwd,
        capture_output=True,
        check=True,
    )
