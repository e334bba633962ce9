"""Running the installed ``xcsh`` with MCP servers configured: real reference servers
(installed by ``make mcp-servers`` and the dev extras) and ``fault_server.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helpers import XCSH, xcsh_env

ROOT = Path(__file__).resolve().parents[2]
NODE_BIN = ROOT / "tools" / "mcp-servers" / "node_modules" / ".bin"
FAULT_SERVER = Path(__file__).with_name("fault_server.py")


def node_server(name: str) -> str:
    """The installed reference server ``mcp-server-NAME`` (``make mcp-servers``)."""
    path = NODE_BIN / f"mcp-server-{name}"
    assert path.exists(), f"{path} is missing: run make mcp-servers (npm ci in tools/mcp-servers)"
    return str(path)


def git_server() -> str:
    """``mcp-server-git``, installed with the dev extras beside this interpreter."""
    path = Path(sys.executable).parent / "mcp-server-git"
    assert path.exists(), f"{path} is missing: install the dev extras (make .venv/.installed-stamp)"
    return str(path)


def toml_list(items: list[str]) -> str:
    return json.dumps(items)


def fault_table(name: str, mode: str, tag: str, **extra: str) -> str:
    """A ``[mcp_servers.NAME]`` table running ``fault_server.py MODE TAG``."""
    lines = [
        f"[mcp_servers.{name}]",
        f'command = "{sys.executable}"',
        f"args = {toml_list([str(FAULT_SERVER), mode, tag])}",
    ]
    lines += [f"{key} = {value}" for key, value in extra.items()]
    return "\n".join(lines) + "\n"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


@dataclass
class Run:
    """A finished ``xcsh -p --mode json`` run."""

    code: int
    events: list[dict[str, Any]]
    stderr: str
    requests: list[dict[str, Any]]

    def results(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == "tool_result"]

    def texts(self) -> list[str]:
        return [e["text"] for e in self.results()]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]

    @property
    def header(self) -> dict[str, Any]:
        return self.events[0]

    def session_text(self) -> str:
        return Path(self.header["path"]).read_text(encoding="utf-8")


@dataclass
class Agent:
    """A workspace, an ``$XCSH_HOME`` and the scripted model, for ``xcsh -p`` runs."""

    tmp: Path
    home: Path
    project: Path

    def settings(self, text: str) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        (self.home / "settings.toml").write_text(text, encoding="utf-8")

    def run(
        self,
        turns: list[list[dict[str, Any]]],
        *,
        env: dict[str, str] | None = None,
        args: tuple[str, ...] = (),
        timeout: float = 120,
    ) -> Run:
        steps = self.tmp / f"steps-{uuid.uuid4().hex[:6]}.json"
        steps.write_text(json.dumps([*({"tool_calls": t} for t in turns), {"text": "done"}]))
        argv = ["--provider", "scripted", "--model", str(steps), "--mode", "json", *args]
        done = subprocess.run(
            [*XCSH, *argv, "-p", "go"],
            cwd=self.project,
            env=xcsh_env(self.home, **(env or {})),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        log = steps.with_suffix(".requests.jsonl")
        requests = (
            [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        )
        return Run(code=done.returncode, events=events, stderr=done.stderr, requests=requests)

    def start(self, turns: list[list[dict[str, Any]]], **env: str) -> subprocess.Popen[str]:
        """Start an ``xcsh -p --mode json`` run in the background (a test signals it)."""
        steps = self.tmp / f"steps-{uuid.uuid4().hex[:6]}.json"
        steps.write_text(json.dumps([*({"tool_calls": t} for t in turns), {"text": "done"}]))
        argv = ["--provider", "scripted", "--model", str(steps), "--mode", "json", "-p", "go"]
        return subprocess.Popen(
            [*XCSH, *argv],
            cwd=self.project,
            env=xcsh_env(self.home, **env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            stdin=subprocess.DEVNULL,
        )


def make_agent(tmp_path: Path) -> Agent:
    project = tmp_path / "proj"
    project.mkdir()
    return Agent(tmp=tmp_path, home=tmp_path / "home", project=project)


def processes_with(tag: str) -> list[int]:
    """Live processes whose command line holds ``tag`` (zombies left out)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tag.encode() in cmdline and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def new_tag() -> str:
    return f"xcsh-mcp-test-{uuid.uuid4().hex[:10]}"
