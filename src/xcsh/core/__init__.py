"""Core data types shared by every layer.

Content blocks, tool results, the tool interface, JSON value types and the
error tree. This package imports nothing else of xcsh; everything else may import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xcsh.core.lazy import lazy_exports

if TYPE_CHECKING:
    from xcsh.core.content import Content, ImageContent, TextContent, content_from_any
    from xcsh.core.details import ToolDetails
    from xcsh.core.errors import ProviderError, ToolError, UsageError, XcshError
    from xcsh.core.json_types import JsonObject, JsonValue, json_object
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
        AgentTool,
        ParametersSpec,
        Progress,
        Tool,
        ToolCallContext,
        ToolGuard,
        ToolUpdateCallback,
        running_tool_call,
    )
    from xcsh.core.tool_result import (
        MAX_RESULT_CHARS,
        AgentToolResult,
        cap_content,
        cap_result,
        cap_text,
        coerce_result,
        coerce_tool_result,
        describe_value_type,
        text_result,
    )

# Each name is imported from its module when first used, so a command that needs
# only the errors (xcsh ast-grep) never loads pydantic, jsonschema or asyncio.
__getattr__ = lazy_exports(
    __name__,
    {
        "xcsh.core.content": ("Content", "ImageContent", "TextContent", "content_from_any"),
        "xcsh.core.details": ("ToolDetails",),
        "xcsh.core.errors": ("ProviderError", "ToolError", "UsageError", "XcshError"),
        "xcsh.core.json_types": ("JsonObject", "JsonValue", "json_object"),
        "xcsh.core.messages": (
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
        ),
        "xcsh.core.tool": (
            "AgentTool",
            "ParametersSpec",
            "Progress",
            "Tool",
            "ToolCallContext",
            "ToolGuard",
            "ToolUpdateCallback",
            "running_tool_call",
        ),
        "xcsh.core.tool_result": (
            "MAX_RESULT_CHARS",
            "AgentToolResult",
            "cap_content",
            "cap_result",
            "cap_text",
            "coerce_result",
            "coerce_tool_result",
            "describe_value_type",
            "text_result",
        ),
    },
)


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
    "Progress",
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
    "json_object",
    "running_tool_call",
    "text_result",
]
