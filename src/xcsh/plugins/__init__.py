"""Custom tools: the factory API, the loader and folder trust (contract §5, §5a).

A custom tool module defines ``factory(api: CustomToolAPI)`` returning a
:class:`CustomTool` or a list of them. The runtime calls
:func:`load_custom_tools` (or :func:`aload_custom_tools` from async code) once
per session with the session's pending-action store; project tools load only
for trusted folders (:func:`ask_trust`, ``xcsh trust``, ``--trust-project``).
"""

from xcsh.fs import xcsh_home
from xcsh.plugins.api import (
    DEFAULT_SOURCE_TOOL_NAME,
    STORE_UNAVAILABLE_MESSAGE,
    CustomTool,
    CustomToolAPI,
    CustomToolPendingAction,
    HeadlessUI,
    ToolFactory,
    ToolUI,
)
from xcsh.plugins.discovery import (
    ENTRY_POINT_GROUP,
    ToolSource,
    project_tool_candidates,
    project_tools_dir,
    user_tools_dir,
)
from xcsh.plugins.loader import (
    CustomToolSet,
    LoadedTool,
    LoadError,
    LoadResult,
    aload_custom_tools,
    aprepare_custom_tools,
    load_custom_tools,
    prepare_custom_tools,
)
from xcsh.plugins.process import ExecResult
from xcsh.plugins.trust import (
    aask_trust,
    ask_trust,
    is_trusted,
    tools_fingerprint,
    trust_folder,
    trust_state,
    trusted_folders,
    untrust_folder,
)

__all__ = [
    "DEFAULT_SOURCE_TOOL_NAME",
    "ENTRY_POINT_GROUP",
    "STORE_UNAVAILABLE_MESSAGE",
    "CustomTool",
    "CustomToolAPI",
    "CustomToolPendingAction",
    "CustomToolSet",
    "ExecResult",
    "HeadlessUI",
    "LoadError",
    "LoadResult",
    "LoadedTool",
    "ToolFactory",
    "ToolSource",
    "ToolUI",
    "aask_trust",
    "aload_custom_tools",
    "aprepare_custom_tools",
    "ask_trust",
    "is_trusted",
    "load_custom_tools",
    "prepare_custom_tools",
    "project_tool_candidates",
    "project_tools_dir",
    "tools_fingerprint",
    "trust_folder",
    "trust_state",
    "trusted_folders",
    "untrust_folder",
    "user_tools_dir",
    "xcsh_home",
]
