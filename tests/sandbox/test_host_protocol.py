"""The process host's messages: typed values that cross the socket as the same JSON lines."""

from __future__ import annotations

import json

import pytest

from xcsh.sandbox._host import (
    Done,
    Exited,
    Failed,
    Killed,
    Landlock,
    Reply,
    Request,
    Started,
    decode_reply,
    decode_request,
    encode,
)


def test_a_request_crosses_as_one_json_line_and_comes_back_equal() -> None:
    request = Request(
        ("bash", "-c", "true"),
        "/tmp",
        {"PATH": "/usr/bin"},
        0.5,
        Landlock(("/tmp",), False, ("/dev/null",)),
    )
    line = encode(request)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {
        "argv": ["bash", "-c", "true"],
        "cwd": "/tmp",
        "env": {"PATH": "/usr/bin"},
        "grace": 0.5,
        "confine": {"write": ["/tmp"], "network": False, "devices": ["/dev/null"]},
    }
    assert decode_request(line) == request
    unconfined = Request(("true",), "/", {}, 0.0, None)
    assert decode_request(encode(unconfined)) == unconfined


@pytest.mark.parametrize(
    ("reply", "wire"),
    [
        (Started(42), {"pid": 42}),
        (Failed(2, "No such file"), {"errno": 2, "error": "No such file"}),
        (Exited(-9), {"exit": -9}),
        (Done(), {"done": True}),
        (Killed(3, 0), {"killed": 3, "left": 0}),
    ],
)
def test_each_reply_keeps_its_wire_shape(reply: Reply, wire: dict[str, object]) -> None:
    line = encode(reply)
    assert json.loads(line) == wire
    assert decode_reply(line) == reply


@pytest.mark.parametrize("line", [b"{}", b'{"pid": "7"}', b"[1]", b'{"argv": ["x"]}'])
def test_a_line_that_is_no_message_is_refused(line: bytes) -> None:
    with pytest.raises(ValueError):
        decode_reply(line)
    with pytest.raises(ValueError):
        decode_request(line)


def test_not_json_is_refused() -> None:
    with pytest.raises(ValueError):
        decode_reply(b"kill")
