"""A misbehaving MCP server over stdio, for the MCP client's fault tests (standard library only).

``python fault_server.py MODE TAG``: ``TAG`` marks the process so a test can
find it. Modes:

- ``exit``: writes a line on stderr and exits 3 before reading anything;
- ``silent``: reads requests and never answers (not even ``initialize``);
- ``ok``: answers, with the tools below;
- ``huge``: like ``ok``, plus a tool whose input schema is over 150 KB;
- ``noisy``: like ``ok``, but it also prints lines that are not JSON-RPC on stdout
  (a banner before anything, plain text, a JSON value that is no message, a line
  with an escape sequence) before each answer, as a server that logs to stdout does.

Tools of ``ok``: ``echo`` (read-only), ``write_note`` (no annotations: appends
its ``text`` to ``$NOTE_FILE``), ``slow`` (read-only: a progress notification
every 0.1 s for ``seconds``; a ``notifications/cancelled`` for it is written
to ``$CANCEL_FILE``), ``die`` (exits 9 in the middle of the call), ``flood``
(sends ``count`` log and progress notifications, then answers), ``add_tool``
(adds ``extra`` and sends ``notifications/tools/list_changed``), ``no_type``
(its schema has no ``type``), ``bad_schema`` (its schema is not valid JSON
Schema) and ``env`` (answers with ``$SECRET_VALUE``).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

MODE = sys.argv[1]
_lock = threading.Lock()
_cancelled: set[object] = set()
_extra = False


NOISE = (
    "fault-server: debug output on stdout",
    '{"not": "a JSON-RPC message"}',
    "[1, 2, 3]",
    "\x1b]0;retitled\x07 plain text with an escape",
)


def noise() -> None:
    with _lock:
        sys.stdout.write("".join(f"{line}\n" for line in NOISE))
        sys.stdout.flush()


def send(message: dict[str, object]) -> None:
    if MODE == "noisy":
        noise()
    with _lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def tools() -> list[dict[str, object]]:
    obj = {"type": "object", "properties": {"text": {"type": "string"}}}
    listed: list[dict[str, object]] = [
        {"name": "echo", "inputSchema": obj, "annotations": {"readOnlyHint": True}},
        {"name": "write_note", "inputSchema": obj},
        {
            "name": "slow",
            "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}},
            "annotations": {"readOnlyHint": True},
        },
        {"name": "die", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
        {
            "name": "flood",
            "inputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}},
            "annotations": {"readOnlyHint": True},
        },
        {"name": "add_tool", "inputSchema": {"type": "object"}},
        {"name": "no_type", "inputSchema": {"properties": {"text": {"type": "string"}}}},
        {
            "name": "bad_schema",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "nonsense"}}},
        },
        {"name": "env", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
    ]
    if _extra:
        listed.append({"name": "extra", "inputSchema": obj, "annotations": {"readOnlyHint": True}})
    if MODE == "huge":
        props = {f"field_{i:05d}": {"type": "string", "description": "x" * 60} for i in range(2000)}
        listed.append({"name": "huge", "inputSchema": {"type": "object", "properties": props}})
    return listed


def text(request_id: object, value: str, *, error: bool = False) -> None:
    result = {"content": [{"type": "text", "text": value}], "isError": error}
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def call(request_id: object, params: dict[str, object]) -> None:
    global _extra
    name = params.get("name")
    args = params.get("arguments") or {}
    assert isinstance(args, dict)
    token = (params.get("_meta") or {}).get("progressToken")  # type: ignore[union-attr]
    if name == "echo" or name == "extra" or name == "no_type":
        text(request_id, f"echo: {args.get('text', '')}")
    elif name == "write_note":
        with open(os.environ["NOTE_FILE"], "a", encoding="utf-8") as handle:
            handle.write(f"{args.get('text', '')}\n")
        text(request_id, "wrote the note")
    elif name == "env":
        text(request_id, os.environ.get("SECRET_VALUE", "(unset)"))
    elif name == "die":
        os._exit(9)
    elif name == "slow":
        seconds = float(args.get("seconds", 30))
        steps = int(seconds / 0.1)
        for step in range(steps):
            if request_id in _cancelled:
                return  # a cancelled request gets no answer
            if token is not None:
                send(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/progress",
                        "params": {"progressToken": token, "progress": step + 1, "total": steps},
                    }
                )
            time.sleep(0.1)
        text(request_id, "slow done")
    elif name == "flood":
        count = int(args.get("count", 5000))
        for i in range(count):
            send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/message",
                    "params": {"level": "info", "data": f"line {i}"},
                }
            )
            if token is not None:
                send(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/progress",
                        "params": {"progressToken": token, "progress": i + 1, "total": count},
                    }
                )
        text(request_id, f"flooded {count}")
    elif name == "add_tool":
        _extra = True
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        text(request_id, "added extra")
    else:
        text(request_id, f"unknown tool {name}", error=True)


def handle(message: dict[str, object]) -> None:
    method = message.get("method")
    request_id = message.get("id")
    params = message.get("params") or {}
    assert isinstance(params, dict)
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {"listChanged": True}, "logging": {}},
            "serverInfo": {"name": "fault-server", "version": "1"},
        }
        send({"jsonrpc": "2.0", "id": request_id, "result": result})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": tools()}})
    elif method == "tools/call":
        threading.Thread(target=call, args=(request_id, params), daemon=True).start()
    elif method == "notifications/cancelled":
        _cancelled.add(params.get("requestId"))
        path = os.environ.get("CANCEL_FILE")
        if path:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(params) + "\n")
    elif request_id is not None:
        error = {"code": -32601, "message": f"method not found: {method}"}
        send({"jsonrpc": "2.0", "id": request_id, "error": error})


def main() -> None:
    if MODE == "exit":
        print("fault-server: refusing to start (exit mode)", file=sys.stderr, flush=True)
        sys.exit(3)
    if MODE == "noisy":
        noise()
    for line in sys.stdin:
        if MODE == "silent" or not line.strip():
            continue
        handle(json.loads(line))


if __name__ == "__main__":
    main()
