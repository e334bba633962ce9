"""Sessions against OpenAI-compatible servers as people run them, through the mock transport.

The exchanges follow the documented behaviour of llama.cpp's ``llama-server``
(a named ``tool_choice`` is logged and ignored, only ``"required"`` is
honoured; small models write calls as JSON text) and of servers that refuse
a forced tool choice with HTTP 400.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from provider_support import Exchange, error, llama_chat_sse

from xcsh.agent import AgentSession, Notice, SessionRecorder, ToolResult, load_session
from xcsh.agent.run.steering import NO_FORCING_NOTE, REMINDER_TEXT
from xcsh.agent.session.config import SessionConfig
from xcsh.pending import PendingActionStore
from xcsh.providers import ProviderSettings, create_provider
from xcsh.providers.config import DEFAULT_SERVER_TEMPERATURE
from xcsh.tools.registry import create_builtin_tools

SERVER = "http://localhost:8080/v1"
EDIT = ("call_1", "ast_edit", {"ops": [{"pat": "hello($A)", "out": "greet($A)"}]})
APPLY = {"action": "apply", "reason": "the rename is right"}


def session_for(
    ws: Path,
    ex: Exchange,
    *,
    recorder: SessionRecorder | None = None,
    steering_mode: Any = None,
    **settings: Any,
) -> tuple[AgentSession, list[Any]]:
    values = {"provider": "openai", "model": "qwen", "base_url": SERVER, **settings}
    provider = create_provider(ProviderSettings(**values), http_client=ex.client())
    store = PendingActionStore()
    session = AgentSession(
        provider=provider,
        tools=create_builtin_tools(ws, store),
        cwd=ws,
        store=store,
        config=SessionConfig(
            recorder=recorder,
            steering_mode=steering_mode,
        ),
    )
    events: list[Any] = []
    session.subscribe(events.append)
    return session, events


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("hello(1)\nhello(2)\n")
    return root


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


async def test_a_400_for_forced_tool_choice_falls_back_to_auto_once(
    ws: Path, exchange: Any
) -> None:
    refusal = {
        "error": {
            "code": 400,
            "message": "tool_choice of type 'function' is not supported; use 'auto' or 'none'",
            "type": "invalid_request_error",
        }
    }
    ex = exchange(
        llama_chat_sse(calls=[EDIT]),
        error(400, refusal),
        llama_chat_sse(calls=[("call_2", "read", {"path": "app.py"})]),
        llama_chat_sse(calls=[("call_3", "resolve", APPLY)]),
        llama_chat_sse(text="Renamed hello to greet."),
    )
    session, events = session_for(ws, ex)
    end = await session.prompt("rename hello to greet")
    assert end.reason == "stop" and end.final_text == "Renamed hello to greet."
    assert (ws / "app.py").read_text() == "greet(1)\ngreet(2)\n"
    bodies = ex.bodies()
    assert len(bodies) == 5  # the refused request was not sent again
    assert bodies[1]["tool_choice"] == {"type": "function", "function": {"name": "resolve"}}
    assert [b["tool_choice"] for b in bodies[2:]] == ["auto", "auto", "auto"]
    # the turn is sent again with the reminder saying other calls are refused
    reminder = bodies[2]["messages"][-1]
    assert reminder["role"] == "user" and REMINDER_TEXT in reminder["content"]
    assert NO_FORCING_NOTE in reminder["content"]
    # the gate still holds: the read was refused while the preview was pending
    (read,) = [e for e in events if isinstance(e, ToolResult) and e.message.tool_name == "read"]
    assert read.message.is_error and "must be resolved first" in read.text
    notices = [e for e in events if isinstance(e, Notice)]
    assert [n.kind for n in notices] == ["steering"]
    assert "rejected a forced tool choice" in notices[0].message
    assert "tool_choice of type 'function' is not supported" in notices[0].message


async def test_the_same_400_is_an_error_when_nothing_was_forced(ws: Path, exchange: Any) -> None:
    refusal = {"error": {"message": "tool_choice 'auto' needs --enable-auto-tool-choice"}}
    ex = exchange(error(400, refusal))
    session, events = session_for(ws, ex)
    end = await session.prompt("rename")
    assert end.reason == "error" and "400" in end.message
    assert len(ex.requests) == 1 and not any(isinstance(e, Notice) for e in events)


async def test_llama_server_ignoring_a_named_choice_gets_required_with_only_resolve(
    ws: Path, exchange: Any
) -> None:
    ex = exchange(
        llama_chat_sse(calls=[EDIT]),
        # named tool_choice ignored: the model runs as auto and answers in words
        llama_chat_sse(text="I have prepared the rename for you."),
        llama_chat_sse(calls=[("call_3", "resolve", APPLY)]),
        llama_chat_sse(text="Done."),
    )
    session, events = session_for(ws, ex)
    end = await session.prompt("rename hello to greet")
    assert end.reason == "stop" and (ws / "app.py").read_text() == "greet(1)\ngreet(2)\n"
    bodies = ex.bodies()
    assert bodies[1]["tool_choice"] == {"type": "function", "function": {"name": "resolve"}}
    assert bodies[2]["tool_choice"] == "required" and tool_names(bodies[2]) == ["resolve"]
    assert bodies[3]["tool_choice"] == "auto" and "ast_edit" in tool_names(bodies[3])
    # a --base-url server gets an output cap even when none is configured
    assert {b["max_tokens"] for b in bodies} == {4096}
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and 'tool choice "required"' in notices[0]


async def test_a_call_written_as_json_text_is_run_and_recorded(
    ws: Path, exchange: Any, tmp_path: Path
) -> None:
    as_text = json.dumps({"name": "resolve", "arguments": APPLY})
    ex = exchange(
        llama_chat_sse(calls=[EDIT]),
        llama_chat_sse(text=f"```json\n{as_text}\n```"),
        llama_chat_sse(text="Done."),
    )
    path = tmp_path / "s.jsonl"
    recorder = SessionRecorder(path, header={"id": "s", "cwd": str(ws)})
    session, events = session_for(ws, ex, recorder=recorder)
    end = await session.prompt("rename hello to greet")
    session.close()
    assert end.final_text == "Done." and (ws / "app.py").read_text() == "greet(1)\ngreet(2)\n"
    notices = [e for e in events if isinstance(e, Notice)]
    assert [n.kind for n in notices] == ["text_tool_call"]
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert {"type": "notice", "kind": "text_tool_call", "message": notices[0].message} in records
    saved = load_session(path)
    (call,) = [c for m in saved.messages if m.role == "assistant" for c in m.tool_calls][1:]
    assert call.name == "resolve" and call.from_text and call.arguments == APPLY
    # sent back to the server as an ordinary tool call
    assert ex.bodies()[2]["messages"][-2]["tool_calls"][0]["function"]["name"] == "resolve"


async def test_text_calls_can_be_turned_off_and_only_offered_tools_count(
    ws: Path, exchange: Any
) -> None:
    as_text = json.dumps({"name": "resolve", "arguments": APPLY})
    ex = exchange(llama_chat_sse(text=as_text))
    session, _ = session_for(ws, ex, text_tool_calls=False)
    end = await session.prompt("say it")
    assert end.final_text == as_text
    unknown = json.dumps({"name": "deploy", "arguments": {}})
    ex = exchange(llama_chat_sse(text=unknown))
    session, _ = session_for(ws, ex)
    assert (await session.prompt("say it")).final_text == unknown


def test_consecutive_user_messages_are_merged_on_the_chat_path() -> None:
    from xcsh.core import AssistantMessage, ImageContent, TextContent, UserMessage
    from xcsh.providers._openai_chat_request import map_messages

    png = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    history = [
        UserMessage(content=[TextContent("first task")]),
        AssistantMessage(content=[]),  # an empty turn is not sent
        UserMessage(content=[TextContent("second task")]),
        UserMessage(content=[TextContent("a hidden note")], hidden=True),
        AssistantMessage(content=[TextContent("ok")]),
        UserMessage(content=[TextContent("look")]),
        UserMessage(content=[png]),
    ]
    mapped = map_messages(history)
    assert [m["role"] for m in mapped] == ["user", "assistant", "user"]
    assert mapped[0]["content"] == "first task\n\nsecond task\n\na hidden note"
    assert mapped[2]["content"][0] == {"type": "text", "text": "look"}
    assert mapped[2]["content"][1]["type"] == "image_url"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ('{"name": "resolve", "arguments": {"action": "apply", "reason": "ok"}}', "resolve"),
        ('  {"name": "ls", "parameters": {}}\n', "ls"),
        ('```json\n{"name": "ls", "arguments": "{}"}\n```', "ls"),
        ('{"name": "ls"}', "ls"),
        ('Sure: {"name": "ls", "arguments": {}}', None),
        ('{"name": "ls", "arguments": {}} {"name": "ls", "arguments": {}}', None),
        # a key beside the arguments: a call, answered with an error, never run
        # (test_small_models checks the error)
        ('{"name": "ls", "arguments": {}, "id": 3}', "ls"),
        ('{"name": "ls", "arguments": [1]}', None),
        ('{"name": "rm", "arguments": {}}', None),
        ("[]", None),
    ],
)
def test_a_tool_call_in_text_must_be_exactly_one_call_of_an_offered_tool(
    text: str, name: str | None
) -> None:
    from xcsh.providers._common import text_tool_call

    call = text_tool_call(text, ["resolve", "ls"], "c")
    assert (call.name if call else None) == name
    assert call is None or call.from_text


@pytest.mark.parametrize(
    ("status", "message", "falls_back"),
    [
        (400, "tool_choice of type 'function' is not supported", True),
        (400, "Thinking may not be enabled when tool_choice forces tool use.", True),
        (400, "Forced tool use is not supported by this model", True),
        (400, "prompt is too long: 210000 tokens > 200000 maximum", False),
        (500, "tool_choice broke the server", False),
    ],
)
def test_which_errors_reject_a_forced_tool_choice(
    status: int, message: str, falls_back: bool
) -> None:
    from xcsh.agent.run.steering import rejects_forced_choice
    from xcsh.core import ProviderError

    error = ProviderError(f"openai refused the request ({status}): {message}", status=status)
    assert rejects_forced_choice(error) is falls_back


async def test_token_and_cost_counts_come_from_the_usage_fields(ws: Path, exchange: Any) -> None:
    from xcsh.agent import TurnEnd
    from xcsh.ui.usage import UsageTotals, usage_text

    ex = exchange(llama_chat_sse(calls=[("call_1", "ls", {})]), llama_chat_sse(text="ok"))
    session, events = session_for(ws, ex)
    await session.prompt("list")
    totals = UsageTotals()
    for event in events:
        if isinstance(event, TurnEnd):
            totals = totals.add(event.message.usage)
    assert (totals.input_tokens, totals.output_tokens) == (600, 40)
    assert usage_text(totals) == " · 600 in / 40 out · $0.0000"  # a local model costs nothing
    assert usage_text(totals, unicode=False) == " - 600 in / 40 out - $0.0000"
    assert usage_text(UsageTotals()) == ""  # no usage reported: nothing said


async def test_a_resumed_session_remembers_the_refused_forced_choice(
    ws: Path, exchange: Any, tmp_path: Path
) -> None:
    from xcsh.app import learnt_mode

    refusal = {"error": {"message": "tool_choice of type 'function' is not supported"}}
    ex = exchange(
        llama_chat_sse(calls=[EDIT]),
        error(400, refusal),
        llama_chat_sse(calls=[("call_3", "resolve", APPLY)]),
        llama_chat_sse(text="Done."),
    )
    path = tmp_path / "s.jsonl"
    session, _ = session_for(
        ws, ex, recorder=SessionRecorder(path, header={"id": "s", "cwd": str(ws)})
    )
    await session.prompt("rename hello to greet")
    session.close()
    saved = load_session(path)
    assert saved.steering == ("openai", "qwen", "auto")
    assert learnt_mode(saved, session.provider) == "auto"
    (ws / "app.py").write_text("hello(3)\n")
    again = exchange(
        llama_chat_sse(calls=[("call_1", "ast_edit", EDIT[2])]),
        llama_chat_sse(calls=[("call_2", "resolve", APPLY)]),
        llama_chat_sse(text="Done."),
    )
    resumed, events = session_for(ws, again, steering_mode=learnt_mode(saved, session.provider))
    await resumed.prompt("once more")
    assert [b["tool_choice"] for b in again.bodies()] == ["auto", "auto", "auto"]
    assert not any(isinstance(e, Notice) for e in events)  # no second 400, nothing to say
    other = create_provider(
        ProviderSettings(provider="openai", model="other", base_url=SERVER), http_client=None
    )
    assert learnt_mode(saved, other) is None  # learnt for that model only


async def test_a_server_gets_the_small_model_temperature_unless_one_is_set(
    ws: Path, exchange: Any
) -> None:
    # llama.cpp samples at 0.8 by default, at which small models write broken calls
    ex = exchange(llama_chat_sse(text="Hi."), llama_chat_sse(text="Hi."))
    session, _ = session_for(ws, ex)
    await session.prompt("hi")
    session, _ = session_for(ws, ex, temperature=0.7)
    await session.prompt("hi")
    assert [b["temperature"] for b in ex.bodies()] == [DEFAULT_SERVER_TEMPERATURE, 0.7]


async def test_the_hosted_api_is_never_sent_a_temperature(ws: Path, exchange: Any) -> None:
    ex = exchange(llama_chat_sse(text="Hi."))
    values = {"provider": "openai", "model": "gpt-5.1", "api_key": "k", "temperature": 0.3}
    provider = create_provider(ProviderSettings(**values), http_client=ex.client())
    store = PendingActionStore()
    session = AgentSession(
        provider=provider, tools=create_builtin_tools(ws, store), cwd=ws, store=store
    )
    await session.prompt("hi")
    assert "temperature" not in ex.bodies()[0]
