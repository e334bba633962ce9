"""A session file is read as leniently as every earlier version read it, and a broken
record is named with its line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xcsh.agent.record.persistence import (
    SessionRecorder,
    load_session,
    message_from_dict,
    message_to_dict,
    read_header,
)
from xcsh.core import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolDetails,
    ToolResultMessage,
    Usage,
    UsageError,
    UserMessage,
)


def _session(tmp_path: Path, *records: object) -> Path:
    path = tmp_path / "s.jsonl"
    header = {"type": "session", "version": 1, "id": "s", "cwd": "/x"}
    lines = [json.dumps(header), *(json.dumps(r) for r in records)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_hand_written_and_older_shapes_still_load(tmp_path: Path) -> None:
    path = _session(
        tmp_path,
        {"type": "notice", "kind": "k", "message": "a record type this reader skips"},
        {
            "type": "message",
            "message": {
                "role": "user",
                "content": ["plain text", {"type": "image", "data": "QQ==", "mimeType": "x/y"}],
                "a_key_from_a_newer_xcsh": 1,
            },
        },
        {
            "type": "message",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm"},
                    {"type": "tool_call", "id": "c1", "name": "ls", "arguments": {"path": "."}},
                ],
                "usage": None,
            },
        },
        {
            "type": "message",
            "message": {"role": "tool_result", "tool_call_id": "c1", "tool_name": "mine"},
        },
        {"type": "steering", "provider": "openai", "model": "m", "mode": "required"},
    )
    saved = load_session(path)
    user, assistant, result = saved.messages
    assert user == UserMessage(content=[TextContent("plain text"), ImageContent("QQ==", "x/y")])
    assert assistant == AssistantMessage(
        content=[
            ThinkingContent(thinking="hmm"),
            ToolCall(id="c1", name="ls", arguments={"path": "."}),
        ],
        usage=Usage(),
    )
    assert result == ToolResultMessage(tool_call_id="c1", tool_name="mine", content=[])
    assert saved.steering == ("openai", "m", "required")
    assert (saved.id, saved.cwd) == ("s", "/x")


def test_what_the_recorder_writes_reads_back_equal(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    recorder = SessionRecorder(path, header={"id": "s", "cwd": "/x"})
    messages = [
        UserMessage(content=[TextContent("go")], hidden=True),
        AssistantMessage(
            content=[
                TextContent("ok"),
                ThinkingContent(thinking="t", signature="sig", id="r1"),
                ToolCall(
                    id="c", name="x", arguments={}, invalid_arguments="{", arguments_error="e"
                ),
            ],
            stop_reason="tool_use",
            usage=Usage(input_tokens=3, output_tokens=4, cost_usd=0.5),
            provider="p",
            model="m",
        ),
        ToolResultMessage(
            tool_call_id="c", tool_name="x", content=[], details={"k": [1]}, is_error=True
        ),
    ]
    for message in messages:
        recorder.message(message)
    recorder.close()
    assert load_session(path).messages == messages
    header = read_header(path)
    assert header is not None and (header.id, header.cwd) == ("s", "/x")


@pytest.mark.parametrize(
    ("record", "why"),
    [
        ({"type": "message", "message": {"role": "robot"}}, "robot"),
        (
            {"type": "message", "message": {"role": "assistant", "content": [{"type": "x"}]}},
            "'x'",
        ),
        ({"type": "checkpoint"}, "journal"),
        ({"type": "steering", "provider": "p"}, "model"),
    ],
)
def test_a_broken_record_is_named_with_its_line(tmp_path: Path, record: object, why: str) -> None:
    path = _session(tmp_path, record, {"type": "run_end"})
    with pytest.raises(UsageError, match=r"s\.jsonl:2: malformed \w+ record") as caught:
        load_session(path)
    said = str(caught.value)
    assert why in said
    # one line naming the problem, then how to get past it: not pydantic's whole report
    problem, hint = said.split("\n")
    assert "pydantic" not in problem and hint.startswith("Hint: ") and "--continue" in hint


def test_a_file_without_a_header_is_not_a_session(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"type": "message"}) + "\n")
    with pytest.raises(UsageError, match="is not an xcsh session file"):
        load_session(path)
    assert read_header(path) is None


def test_a_line_that_is_not_json_is_named_unless_it_is_the_last(tmp_path: Path) -> None:
    path = _session(tmp_path, {"type": "run_end"})
    with path.open("a") as fh:
        fh.write('{"type": "message", "mess\n{"type": "run_end"}\n')
    with pytest.raises(UsageError, match=r"s\.jsonl:3: not valid JSON") as caught:
        load_session(path)
    assert "\nHint: " in str(caught.value)
    path.write_text(path.read_text().rsplit("\n", 2)[0] + "\n")  # now the torn line is last
    assert load_session(path).messages == []


EVERY_KIND = [
    '{"content": [{"text": "go", "type": "text"}, {"data": "QQ==", "mime_type": "image/png", '
    '"type": "image"}], "hidden": false, "role": "user"}',
    '{"content": [{"text": "reminder", "type": "text"}], "hidden": true, "role": "user"}',
    '{"content": [{"text": "ok", "type": "text"}, {"thinking": "t", "signature": "sig", '
    '"id": "r1", "type": "thinking"}, {"id": "c1", "name": "read", "arguments": {"path": '
    '"a.py", "n": [1, 2.5, null, true, {"k": "v"}]}, "invalid_arguments": null, '
    '"arguments_error": null, "from_text": false, "type": "tool_call"}, {"id": "c2", '
    '"name": "x", "arguments": {}, "invalid_arguments": "{", "arguments_error": "e", '
    '"from_text": true, "type": "tool_call"}], "stop_reason": "tool_use", "usage": '
    '{"input_tokens": 3, "output_tokens": 4, "cache_read_tokens": 1, "cache_write_tokens": 2, '
    '"cost_usd": 0.5}, "provider": "p", "model": "m", "error": null, "role": "assistant"}',
    '{"content": [], "stop_reason": "error", "usage": {"input_tokens": 0, "output_tokens": 0, '
    '"cache_read_tokens": 0, "cache_write_tokens": 0, "cost_usd": 0.0}, "provider": "", '
    '"model": "", "error": "boom", "role": "assistant"}',
    '{"tool_call_id": "c1", "tool_name": "read", "content": [{"text": "1\\tx", "type": "text"}], '
    '"details": {"path": "/w/a.py", "start_line": 1, "end_line": 1, "total_lines": 1, '
    '"truncated": false, "mime_type": null, "bytes": null}, "is_error": false, '
    '"role": "tool_result"}',
    '{"tool_call_id": "c2", "tool_name": "mine", "content": [{"text": "no", "type": "text"}], '
    '"details": {"k": [1]}, "is_error": true, "role": "tool_result"}',
    '{"tool_call_id": "c3", "tool_name": "read", "content": [], "details": null, '
    '"is_error": false, "role": "tool_result"}',
]
"""Every message kind and block kind as this and earlier versions write it."""


@pytest.mark.parametrize("line", EVERY_KIND)
def test_every_message_kind_reads_and_writes_back_byte_identical(line: str) -> None:
    message = message_from_dict(json.loads(line))
    if isinstance(message, ToolResultMessage) and message.tool_name == "read" and message.details:
        assert isinstance(message.details, ToolDetails)  # a built-in tool's details come typed
    assert json.dumps(message_to_dict(message)) == line


def test_a_message_with_raw_line_separators_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    recorder = SessionRecorder(path, header={"id": "s", "cwd": "/x"})
    text = "one\u2028two\u2029three\x85four\x1dfive\x0cend"  # written raw, not escaped
    recorder.message(UserMessage(content=[TextContent(text)]))
    recorder.write({"type": "run_end"})
    recorder.close()
    (message,) = load_session(path).messages
    assert isinstance(message, UserMessage) and message.content[0] == TextContent(text)


@pytest.mark.parametrize(
    "tail", [b"\xc3", b"\xe2\x82", b"\xff", b'{"type": "run_end", "x": "\xf0\x9f']
)
def test_a_torn_last_line_is_ignored_whatever_its_bytes(tmp_path: Path, tail: bytes) -> None:
    path = _session(tmp_path, {"type": "message", "message": {"role": "user", "content": ["hé"]}})
    path.write_bytes(path.read_bytes() + tail)
    (message,) = load_session(path).messages
    assert isinstance(message, UserMessage) and message.content[0] == TextContent("hé")


def test_a_whole_line_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    path = _session(tmp_path, {"type": "run_end"})
    path.write_bytes(path.read_bytes() + b'{"type": "run_end", "x": "\xe9t\xe9"}\n')
    with pytest.raises(UsageError) as caught:
        load_session(path)
    problem, hint = str(caught.value).split("\n")
    assert problem == f"{path}:3: not valid UTF-8 (byte 0xe9 at column 27)"
    assert hint.startswith("Hint: ") and "--continue" in hint
    # the header is still read (so --continue finds the session and then names the line)
    header = read_header(path)
    assert header is not None and header.id == "s"
