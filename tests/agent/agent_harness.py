"""Real tools over real files for driving sessions with the scripted model."""

from __future__ import annotations

import asyncio
import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from xcsh.agent import AgentEvent, AgentSession, ApprovalHook
from xcsh.agent.session.config import SessionConfig
from xcsh.core import AgentTool, AgentToolResult, ToolCallContext, ToolError, text_result
from xcsh.pending import PendingAction, PendingActionStore, Preview, PreviewFile
from xcsh.providers.scripted import ScriptedProvider


class WriteParams(BaseModel):
    path: str
    content: str


class ReadParams(BaseModel):
    path: str


class WaitParams(BaseModel):
    name: str


def preview_write_tool(root: Path, store: PendingActionStore) -> AgentTool[WriteParams]:
    """Stage writing ``content`` to ``path``; the file changes only on apply."""

    def run(params: WriteParams, ctx: ToolCallContext) -> AgentToolResult:
        target = root / params.path
        old = target.read_text(encoding="utf-8") if target.exists() else ""
        diff = "".join(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                params.content.splitlines(keepends=True),
                f"a/{params.path}",
                f"b/{params.path}",
            )
        )

        def apply(reason: str) -> str:
            target.write_text(params.content, encoding="utf-8")
            return f"Wrote {params.path}."

        store.push(
            PendingAction(
                label=f"Write: {params.path}",
                source_tool_name="preview_write",
                apply=apply,
                preview=Preview(files=(PreviewFile(path=params.path),), diff=diff),
            )
        )
        return text_result(f"Preview (nothing written yet):\n{diff}")

    return AgentTool(
        name="preview_write",
        label="Preview write",
        description="Stage writing a whole file; resolve applies it.",
        parameters=WriteParams,
        run=run,
    )


def read_tool(root: Path) -> AgentTool[ReadParams]:
    def run(params: ReadParams, ctx: ToolCallContext) -> AgentToolResult:
        target = root / params.path
        if not target.is_file():
            raise ToolError(f"No such file: {params.path}")
        return text_result(target.read_text(encoding="utf-8"))

    return AgentTool(
        name="read",
        label="Read",
        description="Read a file.",
        parameters=ReadParams,
        run=run,
        read_only=True,
    )


@dataclass
class Gate:
    """Lets a test hold ``wait`` tool calls until it releases them."""

    started: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    finished: list[str] = field(default_factory=list)


def wait_tool(gate: Gate) -> AgentTool[WaitParams]:
    async def run(params: WaitParams, ctx: ToolCallContext) -> AgentToolResult:
        gate.started.set()
        await gate.release.wait()
        gate.finished.append(params.name)
        return text_result(f"waited {params.name}")

    return AgentTool(
        name="wait",
        label="Wait",
        description="Wait until released.",
        parameters=WaitParams,
        run=run,
        read_only=True,
    )


def call(tool: str, /, **arguments: Any) -> dict[str, Any]:
    return {"name": tool, "arguments": arguments}


def apply(reason: str = "looks right") -> dict[str, Any]:
    return call("resolve", action="apply", reason=reason)


def discard(reason: str = "not wanted") -> dict[str, Any]:
    return call("resolve", action="discard", reason=reason)


@dataclass
class Harness:
    """A session over ``root`` with the scripted model, recording every event."""

    root: Path
    steps_path: Path
    store: PendingActionStore
    session: AgentSession
    events: list[AgentEvent]

    def requests(self) -> list[dict[str, Any]]:
        path = self.steps_path.with_name(self.steps_path.stem + ".requests.jsonl")
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    def choices(self) -> list[Any]:
        return [r["tool_choice"] for r in self.requests()]

    def of_type(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


MakeHarness = Callable[..., Harness]


@pytest.fixture
def make_harness(tmp_path: Path) -> MakeHarness:
    def make(
        steps: list[dict[str, Any]],
        *,
        extra_tools: list[AgentTool[Any]] | None = None,
        approval: ApprovalHook | None = None,
        max_forced_turns: int = 5,
        steering: Literal["forced", "soft"] = "forced",
    ) -> Harness:
        root = tmp_path / "project"
        root.mkdir(exist_ok=True)
        steps_path = tmp_path / "steps.json"
        steps_path.write_text(json.dumps(steps), encoding="utf-8")
        store = PendingActionStore()
        tools: list[AgentTool[Any]] = [read_tool(root), preview_write_tool(root, store)]
        tools += extra_tools or []
        session = AgentSession(
            provider=ScriptedProvider(steps_path),
            tools=tools,
            cwd=root,
            store=store,
            config=SessionConfig(
                approval=approval,
                max_forced_turns=max_forced_turns,
                rebuildable_tools=frozenset({"preview_write"}),
                steering=steering,
            ),
        )
        events: list[AgentEvent] = []
        session.subscribe(events.append)
        return Harness(root, steps_path, store, session, events)

    return make
