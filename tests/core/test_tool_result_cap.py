"""The generic tool-result size cap: head and tail kept, a note says what was cut."""

from __future__ import annotations

from xcsh.core import (
    MAX_RESULT_CHARS,
    AgentToolResult,
    ImageContent,
    TextContent,
    cap_result,
    cap_text,
)


def test_text_within_the_limit_is_unchanged() -> None:
    assert cap_text("x" * 100, 100) == "x" * 100


def test_long_text_keeps_head_and_tail_and_says_how_much_was_cut() -> None:
    text = "".join(f"line {i}\n" for i in range(10_000))
    capped = cap_text(text, 1000)
    head, note, tail = capped.partition("\n[... ")
    assert text.startswith(head) and len(head) == 500
    cut = len(text) - 1000
    assert note and f"{cut} characters cut" in tail
    assert f"this text had {len(text)} characters, more than the 1000 shown ...]" in tail
    assert text.endswith(tail.split("...]\n", 1)[1])
    assert "line breaks" in tail


def test_result_cap_keeps_images_details_and_error_flag() -> None:
    image = ImageContent(data="aGk=", mime_type="image/png")
    result = AgentToolResult(
        content=[TextContent("z" * (MAX_RESULT_CHARS * 3)), image, TextContent("short")],
        details={"k": 1},
        is_error=True,
    )
    capped = cap_result(result)
    assert capped is not result
    first, second, third = capped.content
    assert isinstance(first, TextContent) and len(first.text) < MAX_RESULT_CHARS + 200
    assert second == image and third == TextContent("short")
    assert capped.details == {"k": 1} and capped.is_error
    small = AgentToolResult(content=[TextContent("ok")])
    assert cap_result(small) is small
