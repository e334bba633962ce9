"""``xcsh mcp --http --socket PATH`` never removes what is not its own stale socket."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

from mcp_helpers import XCSH_MCP


def _run(workspace: Path, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*XCSH_MCP, "--http", "--cwd", str(workspace), "--socket", str(path)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_socket_path_naming_a_file_is_refused_and_the_file_kept(workspace: Path) -> None:
    notes = workspace / "notes.txt"
    notes.write_text("mine\n")
    done = _run(workspace, notes)
    assert done.returncode == 2
    assert "exists and is not a socket; it was left as it is" in done.stderr
    assert "Traceback" not in done.stderr
    assert notes.read_text() == "mine\n"


def test_a_socket_path_in_a_missing_folder_is_a_clear_error(workspace: Path) -> None:
    done = _run(workspace, workspace / "no-such-folder" / "x.sock")
    assert done.returncode == 2
    assert "cannot listen on --socket" in done.stderr
    assert "No such file or directory" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_live_socket_is_not_taken_over_and_a_stale_one_is_replaced(
    workspace: Path, tmp_path: Path
) -> None:
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as live:
        live.bind(str(path))
        live.listen(1)
        done = _run(workspace, path)
        assert done.returncode == 2
        assert "another server is listening on it" in done.stderr
        assert path.exists()
    # the listener is gone: the socket file is stale, and a new server replaces it
    proc = subprocess.Popen(
        [*XCSH_MCP, "--http", "--cwd", str(workspace), "--socket", str(path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        assert proc.stderr.readline().startswith(f"xcsh mcp: serving unix:{path}")
        assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    assert not path.exists()
