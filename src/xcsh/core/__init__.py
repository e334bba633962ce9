"""Core data types shared by every layer: content blocks, tool results, the tool
interface and the error tree.

This package imports nothing else of xcsh; everything else may import it.
"""

from xcsh.core.content import Content, ImageContent, TextContent, content_from_any
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
    ToolCallContext,
    ToolUpdateCallback,
    cap_content,
    cap_result,
    cap_text,
    coerce_result,
    coerce_tool_result,
    describe_value_type,
    text_result,
)

__all__ = [
    "MAX_RESULT_CHARS",
    "AgentTool",
    "AgentToolResult",
    "AssistantMessage",
    "Content",
    "ForcedTool",
    "ImageContent",
    "Message",
    "ModelRequest",
    "ProviderError",
    "StopReason",
    "TextContent",
    "ThinkingContent",
    "ToolCall",
    "ToolCallContext",
    "ToolChoice",
    "ToolError",
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
    "text_result",
]
