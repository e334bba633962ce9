"""Real answers of a small local model, replayed to the installed ``xcsh``.

Each fixture in ``fixtures/recorded/`` is a run of ``make e2e-model``: the
requests xcsh sent to llama.cpp's ``llama-server`` (Qwen2.5 1.5B Q4_K_M,
``--jinja``) and the server's answers, byte for byte. A loopback server
answers the installed ``xcsh -p --mode json`` with them, in order, through
the SDK's real HTTP client; the tests check what xcsh does with those
answers: the calls it reads and runs, the requests it sends back, and the
files on disk.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from provider_support import ReplayServer

XCSH = str(Path(sys.executable).with_name("xcsh"))

MODULE = '''\
"""A few of inflection's functions, as the recorded runs saw them."""


def ordinal(number):
    """The suffix that makes ``number`` an ordinal: ``ordinal(1)`` is ``'st'``."""
    number = abs(int(number))
    if number % 100 in (11, 12, 13):
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")


def ordinalize(number):
    """``number`` with its suffix: ``ordinalize(2)`` is ``'2nd'``."""
    return "{}{}".format(number, ordinal(number))
'''

TESTS = """\
import inflection


def test_ordinal():
    assert inflection.ordinal(1) == "st"
    assert inflection.ordinal(12) == "th"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The package the recorded runs worked on, cut down to what their calls touch."""
    root = tmp_path / "inflection"
    (root / "inflection").mkdir(parents=True)
    (root / "inflection" / "__init__.py").write_text(MODULE)
    (root / "test_inflection.py").write_text(TESTS)
    return root


def replay(name: str, prompt: str, cwd: Path, home: Path) -> tuple[list[Any], ReplayServer]:
    """Run ``xcsh -p PROMPT --mode json`` against the recording ``name``; its events."""
    (home / "settings.toml").write_text("max_tokens = 1024\n")
    env = {"PATH": os.environ.get("PATH", ""), "XCSH_HOME": str(home), "NO_COLOR": "1"}
    with ReplayServer(name) as server:
        command = [XCSH, "-p", prompt, "--mode", "json", "--provider", "openai"]
        done = subprocess.run(
            [*command, "--model", "local", "--base-url", server.base_url],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
    assert "Traceback" not in done.stderr, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return events, server


def of(events: list[Any], kind: str) -> list[Any]:
    return [e for e in events if e.get("type") == kind]
