"""Time the interactive start-up in a real terminal (tmux): prompt drawn, then session ready.

Usage: ``.venv/bin/python bench/tui_startup.py [RUNS]`` (default 5). Starts
``xcsh`` in a private tmux server with a fake Anthropic key (no request is
sent) and a throw-away ``XCSH_HOME``, and prints, per run and as the median,
the seconds until the prompt is on screen and until the status line names the
model (the provider SDK imported and the session opened in the background).
Needs tmux.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

XCSH = str(Path(sys.executable).with_name("xcsh"))


def one_run(folder: Path) -> tuple[float, float]:
    socket = f"xcsh-bench-{uuid.uuid4().hex[:8]}"
    env = [
        f"PATH={os.environ.get('PATH', '/usr/bin:/bin')}",
        f"HOME={folder}",
        "LANG=C.UTF-8",
        "TERM=tmux-256color",
        f"XCSH_HOME={folder / 'home'}",
        "ANTHROPIC_API_KEY=sk-not-used",
    ]
    command = " ".join(["env", "-i", *env, XCSH]) + "; sleep 60"

    def screen() -> str:
        return subprocess.run(
            ["tmux", "-L", socket, "capture-pane", "-p"], capture_output=True, text=True
        ).stdout

    start = time.perf_counter()
    subprocess.run(
        ["tmux", "-L", socket, "new-session", "-d", "-x", "120", "-y", "20", command], check=True
    )
    prompt = ready = 0.0
    try:
        deadline = start + 30
        while time.perf_counter() < deadline and not ready:
            text = screen()
            now = time.perf_counter() - start
            if not prompt and any(line.startswith(">") for line in text.splitlines()):
                prompt = now
            if "anthropic:" in text:
                ready = now
            time.sleep(0.01)
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)
    return prompt, ready


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    prompts, readies = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for number in range(1, runs + 1):
            prompt, ready = one_run(Path(tmp))
            prompts.append(prompt)
            readies.append(ready)
            print(f"run {number}: prompt {prompt:.2f} s, session ready {ready:.2f} s")
    print(
        f"median: prompt {statistics.median(prompts):.2f} s, "
        f"session ready {statistics.median(readies):.2f} s"
    )


if __name__ == "__main__":
    main()
