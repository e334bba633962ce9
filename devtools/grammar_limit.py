"""What a llama.cpp server refuses: a tool list's grammar, or a prompt past its window.

Usage: ``python devtools/grammar_limit.py PORT`` against a running ``llama-server
--jinja`` (start it with a small ``-c``, e.g. ``-c 512``, so that nothing is
evaluated). Each request forces a tool call with ``max_tokens`` 1; the server
builds and parses the grammar of the tools before it checks the prompt's length,
so each answer says either that the grammar failed or that the grammar was built
and the prompt was then refused for the window (or, with a large ``-c``, that it
ran). Prints one line per request: the case, the tools array's bytes, the verdict.
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request

_FILE_TOOL = {
    "description": (
        "Read the complete contents of a file from the file system. Handles various "
        "text encodings and provides detailed error messages if the file cannot be read."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "The file to read"},
            "head": {"type": "number", "description": "Only the first N lines"},
            "tail": {"type": "number", "description": "Only the last N lines"},
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                    "required": ["oldText", "newText"],
                    "additionalProperties": False,
                },
            },
            "dryRun": {"type": "boolean", "default": False},
        },
        "required": ["path"],
        "additionalProperties": False,
    },
}


def _tool(name: str, description: str, parameters: object) -> dict[str, object]:
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def _verdict(port: int, tools: list[dict[str, object]]) -> str:
    body = {
        "messages": [{"role": "user", "content": "word " * 600}],
        "tools": tools,
        "tool_choice": "required",
        "max_tokens": 1,
    }
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=600):
            return "grammar built, prompt evaluated"
    except urllib.error.HTTPError as exc:
        message = str(json.loads(exc.read()).get("error", {}).get("message", ""))
    if "grammar" in message:
        return f"GRAMMAR REFUSED ({message})"
    return f"grammar built, prompt refused ({message[:60]})"


def _cases() -> list[tuple[str, list[dict[str, object]]]]:
    cases: list[tuple[str, list[dict[str, object]]]] = []
    for count in (10, 50, 100, 150, 300, 600, 1200):
        tools = [
            _tool(f"srv__tool_{i:04d}", str(_FILE_TOOL["description"]), _FILE_TOOL["parameters"])
            for i in range(count)
        ]
        cases.append((f"{count} file tools", tools))
    for bound in (1000, 1900, 2000, 3000, 10000):
        items = {"type": "array", "items": {"type": "string"}, "maxItems": bound}
        cases.append(
            (
                f"maxItems {bound}",
                [_tool("t", "x", {"type": "object", "properties": {"a": items}})],
            )
        )
        text = {"type": "string", "maxLength": bound}
        cases.append(
            (
                f"maxLength {bound}",
                [_tool("t", "x", {"type": "object", "properties": {"s": text}})],
            )
        )
    return cases


def main(argv: list[str]) -> int:
    """Run every case against the server on port ``argv[0]``; 2 on bad usage."""
    if len(argv) != 1 or not argv[0].isdigit():
        print("usage: python devtools/grammar_limit.py PORT", file=sys.stderr)
        return 2
    port = int(argv[0])
    for label, tools in _cases():
        size = len(json.dumps(tools))
        print(f"{label:>18}  {size:>9,} bytes  {_verdict(port, tools)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
