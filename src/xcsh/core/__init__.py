"""Core data types shared by every layer: content blocks, tool results, the tool
interface and the error tree.

This package imports nothing else of xcsh; everything else may import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xcsh.core.content import Content, ImageContent, TextContent, content_from_any
    from xcsh.core.details import JsonObject, JsonValue, ToolDetails
    from xcsh.core.errors import ProviderError, ToolError, UsageError, XcshError
    from xcsh.core.messages import (
        AssistantMessage,
        ForcedTool,
        Message,
        ModelRequest,
        StopReason,
        ThinkingContent,
        ToolCall,
        ToolChoice,
        ToolResultMessage,
        ToolSpec,
        Usage,
        UserMessage,
    )
    from xcsh.core.tool import (
        MAX_RESULT_CHARS,
        AgentTool,
        AgentToolResult,
        ParametersSpec,
        Tool,
        ToolCallContext,
        ToolGuard,
        ToolUpdateCallback,
        cap_content,
        cap_result,
        cap_text,
        coerce_result,
        coerce_tool_result,
        describe_value_type,
        running_tool_call,
        text_result,
    )

_CONTENT = frozenset({"Content", "ImageContent", "TextContent", "content_from_any"})
_DETAILS = frozenset({"JsonObject", "JsonValue", "ToolDetails"})
_ERRORS = frozenset({"ProviderError", "ToolError", "UsageError", "XcshError"})
_MESSAGES = frozenset(
    {
        "AssistantMessage",
        "ForcedTool",
        "Message",
        "ModelRequest",
        "StopReason",
        "ThinkingContent",
        "ToolCall",
        "ToolChoice",
        "ToolResultMessage",
        "ToolSpec",
        "Usage",
        "UserMessage",
    }
)
_TOOL = frozenset(
    {
        "MAX_RESULT_CHARS",
        "AgentTool",
        "AgentToolResult",
        "ParametersSpec",
        "Tool",
        "ToolCallContext",
        "ToolGuard",
        "ToolUpdateCallback",
        "cap_content",
        "cap_result",
        "cap_text",
        "coerce_result",
        "coerce_tool_result",
        "describe_value_type",
        "running_tool_call",
        "text_result",
    }
)


def __getattr__(name: str) -> Any:
    # Each name is imported from its module when first used, so a command that needs
    # only the errors (xcsh ast-grep) never loads pydantic, jsonschema or asyncio.
    if name in _CONTENT:
        import xcsh.core.content as content

        return getattr(content, name)
    if name in _DETAILS:
        import xcsh.core.details as details

        return getattr(details, name)
    if name in _ERRORS:
        import xcsh.core.errors as errors

        return getattr(errors, name)
    if name in _MESSAGES:
        import xcsh.core.messages as messages

        return getattr(messages, name)
    if name in _TOOL:
        import xcsh.core.tool as tool

        return getattr(tool, name)
    raise AttributeError(f"module 'xcsh.core' has no attribute {name!r}")


__all__ = [
    "MAX_RESULT_CHARS",
    "AgentTool",
    "AgentToolResult",
    "AssistantMessage",
    "Content",
    "ForcedTool",
    "ImageContent",
    "JsonObject",
    "JsonValue",
    "Message",
    "ModelRequest",
    "ParametersSpec",
    "ProviderError",
    "StopReason",
    "TextContent",
    "ThinkingContent",
    "Tool",
    "ToolCall",
    "ToolCallContext",
    "ToolChoice",
    "ToolDetails",
    "ToolError",
    "ToolGuard",
    "ToolResultMessage",
    "ToolSpec",
    "ToolUpdateCallback",
    "Usage",
    "UsageError",
    "UserMessage",
    "XcshError",
    "cap_content",
    "cap_result",
    "cap_text",
    "coerce_result",
    "coerce_tool_result",
    "content_from_any",
    "describe_value_type",
    "running_tool_call",
    "text_result",
]
