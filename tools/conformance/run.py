"""Run the official MCP conformance suite against ``xcsh mcp --http`` (``make conformance``).

Starts the server on a free loopback port in a throw-away workspace and
``$XCSH_HOME``, reads the URL and the per-launch token it prints, and runs each
scenario that applies to a server with tools through the pinned
``@modelcontextprotocol/conformance`` under the pinned Bun (the suite needs Node
22 or Bun). The suite cannot set headers, so the token travels in the URL
(``?token=``), which the server accepts like the ``Authorization`` header.
Exit status: 0 when every scenario passed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUN = HERE / "node_modules" / ".bin" / "bun"
SUITE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
SCENARIOS = [
    "server-initialize",
    "ping",
    "tools-list",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
]


def main() -> int:
    """Run every scenario against a fresh server; the exit status.

    Returns:
        0 when every scenario passed, 1 when one failed or the server did not start,
        2 when the suite is not installed.
    """
    if not BUN.exists() or not SUITE.exists():
        print("conformance: run 'make conformance' (it installs the suite with npm ci)")
        return 2
    with tempfile.TemporaryDirectory(prefix="xcsh-conformance-") as tmp:
        workspace = Path(tmp) / "repo"
        workspace.mkdir()
        (workspace / "app.py").write_text("print(1)\n")
        env = {**os.environ, "XCSH_HOME": str(Path(tmp) / "home")}
        server = subprocess.Popen(
            [sys.executable, "-m", "xcsh", "mcp", "--cwd", str(workspace), "--http", "--port", "0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            assert server.stderr is not None
            serving = server.stderr.readline().strip()
            token_line = server.stderr.readline().strip()
            print(serving)
            if not serving.startswith("xcsh mcp: serving http") or " token " not in token_line:
                print(f"conformance: the server did not start: {serving} {token_line}")
                return 1
            url = serving.split("serving ", 1)[1]
            token = token_line.split()[3]
            print("xcsh mcp: token <hidden> (passed to the suite as ?token=)")
            failed = []
            for scenario in SCENARIOS:
                print(f"\n=== {scenario}", flush=True)
                done = subprocess.run(
                    [
                        str(BUN),
                        str(SUITE),
                        "server",
                        "--scenario",
                        scenario,
                        "--url",
                        f"{url}?token={token}",
                    ],
                    cwd=tmp,
                    check=False,
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
                sys.stdout.write(done.stdout.replace(token, "<token>"))
                sys.stdout.write(done.stderr.replace(token, "<token>"))
                if done.returncode != 0:
                    failed.append(scenario)
        finally:
            server.terminate()
            server.wait(20)
    print(f"\nconformance: {len(SCENARIOS) - len(failed)}/{len(SCENARIOS)} scenarios passed")
    if failed:
        print("failed: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
