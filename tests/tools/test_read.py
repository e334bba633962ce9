"""read: line numbers, offset/limit, images, refusals."""

from __future__ import annotations

import base64
import re
import struct
import zlib
from pathlib import Path

import pytest

from xcsh.core import ImageContent, TextContent, ToolError
from xcsh.tools.coding import read as read_module

from .conftest import Tools


def tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


async def test_text_with_line_numbers(ws: Path, tools: Tools) -> None:
    (ws / "a.py").write_bytes(b"\xef\xbb\xbfimport os\r\n\r\nprint(1)\n")
    result = await tools("read", path="a.py")
    assert result.text == "     1\timport os\n     2\t\n     3\tprint(1)"
    assert result.details["total_lines"] == 3


async def test_offset_and_limit(ws: Path, tools: Tools) -> None:
    (ws / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    result = await tools("read", path="n.txt", offset=10, limit=3)
    lines = result.text.splitlines()
    assert lines[:3] == ["    10\tline 10", "    11\tline 11", "    12\tline 12"]
    assert lines[-1] == "[Showing lines 10-12 of 100. Use offset=13 to continue.]"
    tail = await tools("read", path="n.txt", offset=99)
    assert tail.text == "    99\tline 99\n   100\tline 100"
    with pytest.raises(ToolError, match=r"offset 200 is past the end of n.txt \(100 lines\)"):
        await tools("read", path="n.txt", offset=200)


async def test_default_limit_and_long_lines(ws: Path, tools: Tools) -> None:
    lines = [f"{i}" for i in range(1, 2501)]
    lines[4] = "x" * 5000
    (ws / "big.txt").write_text("\n".join(lines) + "\n")
    result = await tools("read", path="big.txt")
    shown = result.text.splitlines()
    assert shown[4].startswith("     5\t" + "x" * 2000 + " … [line cut: 3000 more characters]")
    assert "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]" in result.text
    assert result.details["truncated"] is True


async def test_output_byte_cap(ws: Path, tools: Tools) -> None:
    (ws / "wide.txt").write_text(("y" * 1000 + "\n") * 200)
    result = await tools("read", path="wide.txt")
    assert len(result.text.encode()) < read_module.MAX_OUTPUT_BYTES + 200
    last = result.details["end_line"]
    assert last < 200 and f"Use offset={last + 1} to continue" in result.text


async def test_png_becomes_image_block(ws: Path, tools: Tools) -> None:
    data = tiny_png()
    (ws / "pic.png").write_bytes(data)
    result = await tools("read", path="pic.png")
    image = [b for b in result.content if isinstance(b, ImageContent)]
    assert len(image) == 1 and image[0].mime_type == "image/png"
    assert base64.b64decode(image[0].data) == data
    assert isinstance(result.content[0], TextContent)


def test_image_sniffing() -> None:
    assert read_module.image_mime(b"\xff\xd8\xff\xe0rest") == "image/jpeg"
    assert read_module.image_mime(b"GIF89a....") == "image/gif"
    assert read_module.image_mime(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert read_module.image_mime(b"hello") is None


async def test_binary_refused(ws: Path, tools: Tools) -> None:
    (ws / "prog").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" * 10)
    with pytest.raises(ToolError, match="prog is a binary file"):
        await tools("read", path="prog")


async def test_huge_file_refused_whole_but_readable_in_parts(
    ws: Path, tools: Tools, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read_module, "MAX_WHOLE_FILE_BYTES", 1000)
    (ws / "log.txt").write_text("".join(f"entry {i}\n" for i in range(1, 501)))
    with pytest.raises(ToolError) as info:
        await tools("read", path="log.txt")
    assert "too large to read at once" in str(info.value)
    assert "offset and limit" in str(info.value) and "grep" in str(info.value)
    part = await tools("read", path="log.txt", offset=250, limit=2)
    assert part.text.splitlines()[:2] == ["   250\tentry 250", "   251\tentry 251"]
    assert part.text.splitlines()[-1] == "[Showing lines 250-251. Use offset=252 to continue.]"


async def test_missing_file_suggests_close_names(ws: Path, tools: Tools) -> None:
    (ws / "config.toml").write_text("x")
    with pytest.raises(
        ToolError, match=re.escape("File not found: confg.toml. Did you mean 'config.toml'")
    ):
        await tools("read", path="confg.toml")
    with pytest.raises(ToolError, match="is a folder"):
        await tools("read", path=".")


async def test_empty_and_latin1(ws: Path, tools: Tools) -> None:
    (ws / "empty").write_bytes(b"")
    assert (await tools("read", path="empty")).text == "empty is empty."
    (ws / "latin.txt").write_bytes(b"caf\xe9\n")
    result = await tools("read", path="latin.txt")
    assert "caf\ufffd" in result.text and "Not valid UTF-8" in result.text


async def test_oversized_image_refused(
    ws: Path, tools: Tools, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read_module, "MAX_IMAGE_BYTES", 10)
    (ws / "big.png").write_bytes(tiny_png())
    expected = r"big.png is an image \(image/png\) of \d+ bytes, above the 10 bytes"
    with pytest.raises(ToolError, match=expected):
        await tools("read", path="big.png")
