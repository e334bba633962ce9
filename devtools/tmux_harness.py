"""Run the real ``xcsh`` in a private tmux server and read its screen.

Each :class:`TmuxXcsh` uses its own socket (``tmux -L xcsh-test-<random>``), so
tests never touch the user's tmux, and kills its server when closed. Waits
poll the screen with a deadline; nothing sleeps a fixed long time. The
terminal tests (``tests/tui``), the real-use layer (``tests/e2e``) and
``make e2e-model``'s terminal task share it.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text

HAS_TMUX = shutil.which("tmux") is not None
needs_tmux = pytest.mark.skipif(not HAS_TMUX, reason="tmux is not installed (apt-get install tmux)")
XCSH = str(Path(sys.executable).with_name("xcsh"))
WIDTH, HEIGHT = 120, 40
SCREENS_ENV = "XCSH_SCREENS_DIR"
"""When set, :meth:`TmuxXcsh.save` also writes captures there (``docs/screens``)."""


def strip_ansi(text: str) -> str:
    """``text`` without its escape sequences."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


class TmuxXcsh:
    """One tmux server showing one pane.

    Args:
        tmp_path: the test's folder; its path is replaced by ``~/demo`` in saved screens.
        scrollback: how many lines above the visible screen :meth:`screen` also
            reads (``capture-pane -S -N``); 0 for the visible screen only.
        timeout: the default deadline of :meth:`wait_for`, in seconds.
    """

    def __init__(self, tmp_path: Path, *, scrollback: int = 0, timeout: float = 10.0) -> None:
        self.socket = f"xcsh-test-{uuid.uuid4().hex[:10]}"
        self.tmp_path = tmp_path
        self.scrollback = scrollback
        self.timeout = timeout
        self.started = False

    def tmux(self, *args: str) -> str:
        """Run one tmux command on this harness's own server; its stdout.

        Raises:
            subprocess.CalledProcessError: tmux exited with an error.
            subprocess.TimeoutExpired: tmux took more than 10 seconds.
        """
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
        return done.stdout

    def start(self, cwd: Path, env: dict[str, str], *argv: str) -> None:
        """Start ``xcsh ARGV`` in ``cwd``; the pane stays open after it exits."""
        base = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", str(self.tmp_path)),
            "LANG": "C.UTF-8",
            "TERM": "tmux-256color",
        }
        words = ["env", "-i", *[f"{k}={v}" for k, v in {**base, **env}.items()], XCSH, *argv]
        script = f'{shlex.join(words)}; echo "[xcsh exited $?]"; sleep 600'
        if self.started:
            self.tmux("respawn-pane", "-k", "-c", str(cwd), script)
            self.tmux("clear-history")
        else:
            self.tmux(
                "new-session", "-d", "-x", str(WIDTH), "-y", str(HEIGHT), "-c", str(cwd), script
            )
            self.started = True

    def screen(self) -> str:
        """Read the visible screen (and ``scrollback`` lines above it) as text.

        Trailing blanks are removed from each line and from the end.
        """
        above = ("-S", f"-{self.scrollback}") if self.scrollback else ()
        lines = self.tmux("capture-pane", "-p", *above).splitlines()
        return "\n".join(line.rstrip() for line in lines).rstrip() + "\n"

    def wait_for(self, *texts: str, timeout: float | None = None) -> str:
        """Poll until every one of ``texts`` is on screen; returns the screen.

        Raises:
            AssertionError: the deadline passed (``timeout``, default the
                harness's); the message shows the screen.
        """
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if all(t in screen for t in texts):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {timeout}s for {texts!r}; screen:\n{screen}")
            time.sleep(0.05)

    def keys(self, *keys: str) -> None:
        """Send tmux key names (``Enter``, ``C-c``, ``C-d``)."""
        self.tmux("send-keys", *keys)

    def wait_count(self, text: str, count: int, timeout: float | None = None) -> bool:
        """Wait until ``text`` shows at least ``count`` times on screen; False past the deadline."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while time.monotonic() < deadline:
            if self.screen().count(text) >= count:
                return True
            time.sleep(0.05)
        return False

    def type(self, text: str, *, enter: bool = True) -> None:
        """Type ``text`` literally, then Enter."""
        self.tmux("send-keys", "-l", text)
        if enter:
            self.tmux("send-keys", "Enter")

    def save(self, name: str, screen: str) -> None:
        """Write ``screen`` to ``$XCSH_SCREENS_DIR/<name>.txt`` when that variable is set.

        The same screen in colour goes to ``<name>.svg`` (rich's SVG export of
        ``capture-pane -e``), a picture of the terminal as the user saw it.
        """
        folder = os.environ.get(SCREENS_ENV)
        if not folder:
            return
        text = screen.replace(str(self.tmp_path), "~/demo")
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / f"{name}.txt").write_text(text, encoding="utf-8")
        ansi = self.tmux("capture-pane", "-p", "-e").replace(str(self.tmp_path), "~/demo")
        lines = ansi.rstrip("\n").split("\n")
        while len(lines) > 1 and not strip_ansi(lines[-2]).strip():
            del lines[-2]  # the blank rows between the output and the status line
        console = Console(record=True, width=WIDTH, file=io.StringIO(), color_system="truecolor")
        console.print(Text.from_ansi("\n".join(lines)), soft_wrap=True)
        svg = console.export_svg(title=f"xcsh - {name}")
        (Path(folder) / f"{name}.svg").write_text(svg, encoding="utf-8")

    def close(self) -> None:
        """Stop this harness's tmux server and with it xcsh; nothing when it never started."""
        if self.started:
            subprocess.run(
                ["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=10
            )
